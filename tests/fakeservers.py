"""Server behaviours for FakeLLM: ``FakeLLM(mode="ollama")`` answers the way that server does.

Each mode reproduces one documented behaviour of a real server: the error it answers with
(status and body shape as the server sends them), how it renders a reply, and what its
metadata endpoints (``GET /models``, Ollama's ``POST /api/show``) say. A mode's refusal is the
server's answer, not a protocol violation: it is recorded like any request and consumes no
scripted reply. Sources are cited on each mode.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from typing import Any

Reply = tuple[int, Any]  # (status, JSON body)


def openai_error(message: str, *, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


class Mode:
    """The plain OpenAI behaviour; subclasses change one thing each."""

    name = "openai"
    #: request body fields accepted beyond the OpenAI ones (``[provider.body]``)
    extra_fields: frozenset[str] = frozenset()
    #: message fields accepted beyond the OpenAI ones
    message_fields: frozenset[str] = frozenset()
    #: the ``data`` entries of ``GET /models``
    model_entry: Mapping[str, Any] = {}

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        """The server's own error for this request, or ``None`` to answer it."""
        return None

    def render(self, reply: dict[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
        """The rendered chat.completion, changed the way this server renders it."""
        return reply

    def metadata(self, method: str, path: str, body: Any) -> Reply | None:
        """A reply to a metadata request (``GET .../models``, ``POST /api/show``)."""
        if method == "GET" and path.endswith("/models"):
            entry = {"id": "fake", "object": "model", "created": 1_700_000_000,
                     "owned_by": "fakellm", **self.model_entry}
            return 200, {"object": "list", "data": [entry]}
        if path.endswith("/api/show"):
            return 404, {"error": {"message": "Not Found"}}
        return None


class DeepSeek(Mode):
    """DeepSeek thinking mode: replies carry ``reasoning_content``, and an assistant tool-call
    turn sent back without it is refused with 400 (https://api-docs.deepseek.com/guides/
    thinking_mode#tool-calls; the message as reported in openai/openai-agents-python#2155 and
    continuedev/continue#10193)."""

    name = "deepseek"
    message_fields = frozenset({"reasoning_content"})

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        for index, message in enumerate(body.get("messages") or []):
            if (isinstance(message, dict) and message.get("role") == "assistant"
                    and message.get("tool_calls") and "reasoning_content" not in message):
                return 400, openai_error(
                    f"Missing `reasoning_content` field in the assistant message at message index "
                    f"{index}. For more information, please refer to "
                    "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
                    code="invalid_request_error")
        return None

    def render(self, reply: dict[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
        reply["choices"][0]["message"]["reasoning_content"] = "The user said something; I use a tool."
        return reply


class OpenAIReasoning(Mode):
    """OpenAI reasoning models (o-series, gpt-5): ``max_tokens`` and a non-default
    ``temperature`` are refused (https://platform.openai.com/docs/guides/reasoning; the body as
    the API sends it, with ``param`` and ``code``, in griptape-ai/ComfyUI-Griptape#312 and
    microsoft/vscode-copilot-release#8065)."""

    name = "openai-reasoning"

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if "max_tokens" in body:
            return 400, openai_error(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.", param="max_tokens", code="unsupported_parameter")
        if "temperature" in body and body["temperature"] != 1:
            return 400, openai_error(
                f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                "model. Only the default (1) value is supported.",
                param="temperature", code="unsupported_value")
        return None


class Ollama(Mode):
    """Ollama's OpenAI-compatible API: ``tool_choice`` is ignored (not in its list of supported
    fields, https://github.com/ollama/ollama/blob/main/docs/openai.md), ``arguments`` come as
    JSON objects, ``system_fingerprint`` is ``fp_ollama``, and a prompt longer than ``num_ctx``
    is cut without an error, the usage counting only what was kept (ollama/ollama#4967 and
    #17889: 200 with ``prompt_eval_count`` 2050 for a 7.9k-token prompt;
    https://docs.ollama.com/context-length)."""

    name = "ollama"

    def __init__(self, num_ctx: int = 4096) -> None:
        self.num_ctx = num_ctx

    def render(self, reply: dict[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
        reply["system_fingerprint"] = "fp_ollama"
        for call in reply["choices"][0]["message"].get("tool_calls") or []:
            try:
                call["function"]["arguments"] = json.loads(call["function"]["arguments"])
            except json.JSONDecodeError:
                pass
        usage = reply.get("usage")
        if usage:
            usage["prompt_tokens"] = min(usage["prompt_tokens"], self.num_ctx)
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return reply

    def metadata(self, method: str, path: str, body: Any) -> Reply | None:
        if path.endswith("/api/show"):
            return 200, {"parameters": "stop \"<|im_end|>\"", "template": "...",
                         "model_info": {"general.architecture": "qwen2",
                                        "qwen2.context_length": 32768}}
        return super().metadata(method, path, body)


class Hermes(Mode):
    """LM Studio and llama.cpp with Hermes/Qwen chat templates: tool calls come back as text in
    ``content``, ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``, finish ``stop``
    (lmstudio-ai/lmstudio-bug-tracker#2115; the Hermes format of
    https://qwen.readthedocs.io/en/latest/framework/function_call.html)."""

    name = "hermes"

    def render(self, reply: dict[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
        choice = reply["choices"][0]
        calls = choice["message"].pop("tool_calls", None)
        if calls:
            text = "\n".join(
                "<tool_call>\n" + json.dumps({"name": c["function"]["name"],
                                              "arguments": json.loads(c["function"]["arguments"])})
                + "\n</tool_call>" for c in calls)
            choice["message"]["content"] = text
            choice["finish_reason"] = "stop"
        return reply


class LlamaCppNoJinja(Mode):
    """llama.cpp's llama-server started without ``--jinja``: any request with tools is answered
    HTTP 500 ``tools param requires --jinja flag`` (containers/ramalama#988,
    defilantech/LLMKube#126)."""

    name = "llamacpp-nojinja"
    model_entry = {"meta": {"n_ctx_train": 32768}}

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if body.get("tools"):
            return 500, {"error": {"code": 500, "message": "tools param requires --jinja flag",
                                   "type": "server_error"}}
        return None


class Together(Mode):
    """Together: ``tool_choice: "required"`` gets a generic 400 "Invalid request"
    (https://github.com/tensorzero/tensorzero/pull/2952)."""

    name = "together"

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if body.get("tool_choice") == "required":
            return 400, openai_error("Invalid request")
        return None


class Groq(Mode):
    """Groq: intermittent 400 ``tool_use_failed`` when its parser rejects the model's tool call
    (pipecat-ai/pipecat#1168, huggingface/smolagents#1119). Here every other request with tools
    fails once, starting with the first."""

    name = "groq"
    model_entry = {"context_window": 131072}

    def __init__(self) -> None:
        self._count = itertools.count(1)

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if body.get("tools") and next(self._count) % 2 == 1:
            return 400, {"error": {
                "message": "Failed to call a function. Please adjust your prompt. See "
                           "'failed_generation' for more details.",
                "type": "invalid_request_error", "code": "tool_use_failed",
                "failed_generation": "<function=finish>{\"status\": \"updated\"</function>"}}
        return None


class OpenRouter(Mode):
    """OpenRouter: provider routing fields in the body (``provider.require_parameters``,
    https://openrouter.ai/docs/features/provider-routing); ``/models`` gives
    ``context_length``. With ``tools_routable=False`` no provider takes tools: 404 "No endpoints
    found that support tool use" (pydantic/pydantic-ai#2896, zed-industries/zed#36094)."""

    name = "openrouter"
    extra_fields = frozenset({"provider"})
    model_entry = {"context_length": 131072, "top_provider": {"context_length": 131072}}

    def __init__(self, tools_routable: bool = True) -> None:
        self.tools_routable = tools_routable

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if body.get("tools") and not self.tools_routable:
            return 404, {"error": {"message": "No endpoints found that support tool use. To learn "
                                              "more about provider routing, visit: "
                                              "https://openrouter.ai/docs/provider-routing",
                                   "code": 404}}
        return None


_MISTRAL_ID = re.compile(r"^[A-Za-z0-9]{9}$")


class Mistral(Mode):
    """Mistral models (la Plateforme, and Mistral templates behind vLLM or mlx-lm): a tool-call
    id that is not exactly 9 letters or digits is refused when sent back
    (langchain-ai/langchain#24668, ml-explore/mlx-lm#1375). Servers in front of these models
    hand out ids such as ``call_0fypS1hVX`` themselves (avante-corp/avante.nvim#2951), as this
    mode does."""

    name = "mistral"

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        for message in body.get("messages") or []:
            if not isinstance(message, dict):
                continue
            ids = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            if message.get("role") == "tool":
                ids.append(message.get("tool_call_id"))
            for call_id in ids:
                if not isinstance(call_id, str) or not _MISTRAL_ID.match(call_id):
                    return 400, {"object": "error", "message": f"Tool call id was {call_id} but must "
                                 "be a-z, A-Z, 0-9, with a length of 9.",
                                 "type": "invalid_request_message_error", "param": None, "code": "3280"}
        return None

    def render(self, reply: dict[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
        for index, call in enumerate(reply["choices"][0]["message"].get("tool_calls") or []):
            call["id"] = f"call_{reply['id'][-4:]}{index:05d}"
        return reply


class Azure(Mode):
    """Azure OpenAI, legacy API: ``POST {endpoint}/openai/deployments/{deployment}/chat/
    completions?api-version=...`` with the key in an ``api-key`` header
    (https://learn.microsoft.com/azure/ai-services/openai/reference). Without ``api-version``
    the resource is not found; without ``api-key`` access is denied."""

    name = "azure"

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if "/openai/deployments/" not in path or not query.get("api-version"):
            return 404, {"error": {"code": "404", "message": "Resource not found"}}
        if not headers.get("api-key") or "authorization" in headers:
            return 401, {"error": {"code": "401", "message": "Access denied due to invalid "
                                   "subscription key or wrong API endpoint."}}
        return None

    def metadata(self, method: str, path: str, body: Any) -> Reply | None:
        if method == "GET" or path.endswith("/api/show"):
            return 404, {"error": {"code": "404", "message": "Resource not found"}}
        return None


class VllmNoAutoToolChoice(Mode):
    """vLLM started without ``--enable-auto-tool-choice``: ``tool_choice: "auto"`` is refused
    (https://docs.vllm.ai/en/latest/features/tool_calling.html); ``/models`` gives
    ``max_model_len``."""

    name = "vllm-noauto"
    model_entry = {"max_model_len": 32768}

    def reject(self, path: str, query: Mapping[str, str], headers: Mapping[str, str],
               body: Any) -> Reply | None:
        if body.get("tool_choice") == "auto":
            return 400, {"object": "error", "message": '"auto" tool choice requires '
                         "--enable-auto-tool-choice and --tool-call-parser to be set",
                         "type": "BadRequestError", "param": None, "code": 400}
        return None


def make_mode(name: str, **options: Any) -> Mode:
    """The mode called ``name`` (see :data:`MODES`)."""
    return MODES[name](**options)


MODES: dict[str, Any] = {cls.name: cls for cls in (
    Mode, DeepSeek, OpenAIReasoning, Ollama, Hermes, LlamaCppNoJinja, Together, Groq, OpenRouter,
    Mistral, Azure, VllmNoAutoToolChoice)}
