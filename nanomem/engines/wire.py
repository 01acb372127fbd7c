"""The OpenAI chat-completions wire format: request bodies and reply parsing, pure.

What goes over the wire to ``POST {base_url}/chat/completions`` and how a reply (or an error
reply) is read, tolerant of the servers people run (OpenAI, vLLM, Ollama, LM Studio,
OpenRouter, llama.cpp, DeepSeek, Groq, Together, Mistral, Azure). No I/O:
:mod:`nanomem.engines.openai` sends and retries.

    >>> body = build_request_body(ChatRequest(messages=({"role": "user", "content": "hi"},)),
    ...                           model="qwen2.5:7b")
    >>> body
    {'model': 'qwen2.5:7b', 'messages': [{'role': 'user', 'content': 'hi'}]}
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall, Usage
from nanomem.engines.textcalls import ID_PATTERN, make_call_id, parse_text_tool_calls, strip_think
from nanomem.errors import ProviderError
from nanomem.text.sanitize import replace_lone_surrogates

_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

#: Keys an OpenAI message may carry; session extras such as ``timestamp`` are stripped.
#: ``reasoning_content`` goes back only on an assistant tool-call turn (DeepSeek needs it).
MESSAGE_FIELDS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id",
                            "reasoning_content"})


def build_request_body(
    request: ChatRequest, *, model: str, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON body for ``request``: ``None`` fields left out, ``extra`` fields added.

    ``request.task`` and ``request.stage`` are never sent. ``tool_choice`` and
    ``parallel_tool_calls`` are sent only together with tools. ``extra`` (``[provider.body]``,
    e.g. OpenRouter's ``provider``) never replaces a field nanomem sets itself.

    >>> req = ChatRequest(messages=({"role": "user", "content": "x", "timestamp": "t"},),
    ...                   tools=({"type": "function", "function": {"name": "f"}},),
    ...                   tool_choice="required", temperature=0.0)
    >>> sorted(build_request_body(req, model="m", extra={"provider": {"sort": "price"}}))
    ['messages', 'model', 'provider', 'temperature', 'tool_choice', 'tools']
    """
    body: dict[str, Any] = {"model": model, "messages": [_clean_message(m) for m in request.messages]}
    if request.tools:
        body["tools"] = [dict(tool) for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    for name, value in (extra or {}).items():
        body.setdefault(name, value)
    return body


def _clean_message(message: Mapping[str, Any]) -> dict[str, Any]:
    clean = {k: v for k, v in message.items() if k in MESSAGE_FIELDS}
    if not clean.get("tool_calls"):
        clean.pop("tool_calls", None)
    if clean.get("role") != "assistant" or "tool_calls" not in clean or not isinstance(
            clean.get("reasoning_content"), str):
        clean.pop("reasoning_content", None)
    if "content" not in clean:
        clean["content"] = None if clean.get("tool_calls") else ""
    return clean


def parse_response(
    body: Any, *, tools: Sequence[Mapping[str, Any]] = (), seed: str = ""
) -> ChatResponse:
    """Turn a chat.completion JSON object into a :class:`ChatResponse`.

    Tolerant of what real servers send: ``content`` null or a list of parts, no
    ``tool_calls``, ``arguments`` as an object (Ollama) rather than a string, a missing call
    id, the legacy ``function_call``, and no ``usage``. ``<think>`` blocks are stripped from
    the text and ``reasoning_content`` is kept. With the request's ``tools``, tool calls
    written into the text are accepted when they validate (:mod:`nanomem.engines.textcalls`).
    Every call id is 9 letters or digits (Mistral's rule, accepted everywhere); other ids are
    replaced by one derived from ``seed`` and the original.

    >>> r = parse_response({"choices": [{"message": {"content": None, "tool_calls": [
    ...     {"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}]},
    ...     "finish_reason": "tool_calls"}]})
    >>> r.tool_calls[0].arguments, len(r.tool_calls[0].id), r.usage
    ('{"a": 1}', 9, None)
    """
    if not isinstance(body, dict):
        raise ProviderError(f"reply is a JSON {type(body).__name__}, not an object; check base_url")
    body = replace_lone_surrogates(body)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        detail = error_text(body) or "no 'choices'"
        raise ProviderError(f"reply carries no completion ({detail}); check the model and base_url")
    choice: dict[str, Any] = choices[0]
    message: dict[str, Any] = choice["message"] if isinstance(choice.get("message"), dict) else {}
    raw_calls = message.get("tool_calls") or []
    if not raw_calls and isinstance(message.get("function_call"), dict):
        raw_calls = [{"function": message["function_call"]}]
    calls = tuple(_parse_call(i, raw, seed) for i, raw in enumerate(raw_calls) if isinstance(raw, dict))
    finish = choice.get("finish_reason")
    finish = finish if isinstance(finish, str) else None
    raw_content = _parse_content(message.get("content"))
    content = strip_think(raw_content)
    if not calls and tools:
        calls = parse_text_tool_calls(raw_content, tools, seed=seed)
        if calls:
            content, finish = None, "tool_calls"
    reasoning = message.get("reasoning_content")
    return ChatResponse(
        content=content,
        tool_calls=calls,
        finish_reason=finish,
        usage=_parse_usage(body.get("usage")),
        reasoning_content=reasoning if isinstance(reasoning, str) else None,
    )


def _parse_content(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    return str(content)


def _parse_call(index: int, raw: dict[str, Any], seed: str) -> ToolCall:
    fn: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else {}
    arguments = fn.get("arguments")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    elif _ESCAPED_SURROGATE.search(arguments):  # "\\ud800": half a pair once decoded
        try:
            arguments = json.dumps(replace_lone_surrogates(json.loads(arguments)),
                                   ensure_ascii=False)
        except ValueError:  # not JSON: the tool call is refused as it is
            pass
    call_id: str = raw["id"] if isinstance(raw.get("id"), str) else ""
    if not ID_PATTERN.match(call_id):
        call_id = make_call_id(f"{seed}/{index}/{call_id}")
    return ToolCall(id=call_id, name=str(fn.get("name") or ""), arguments=arguments)


def _parse_usage(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens")
    if not isinstance(prompt, int) or isinstance(prompt, bool):
        return None
    completion = usage.get("completion_tokens")
    completion = completion if isinstance(completion, int) else 0
    total = usage.get("total_tokens")
    return Usage(prompt, completion, total if isinstance(total, int) else prompt + completion)


def parse_retry_after(headers: Mapping[str, str], *, now: float) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or HTTP date) or ``retry-after-ms``.

    >>> parse_retry_after({"retry-after": "3"}, now=0.0)
    3.0
    >>> parse_retry_after({"retry-after": "Thu, 01 Jan 1970 00:00:10 GMT"}, now=4.0)
    6.0
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000.0)
        value = lowered.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def error_text(body: Any) -> str:
    """The server's own error message from an OpenAI-style (or plain) error body."""
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            return str(err.get("message") or json.dumps(err, ensure_ascii=False))
        if err is not None:
            return str(err)
    return ""


def render_headers(api_key: str | None, auth_header: str,
                   headers: Mapping[str, str]) -> dict[str, str]:
    """The headers of every request to an endpoint: ``headers`` and the key where it goes
    (``authorization`` sends ``Bearer KEY``; any other name, e.g. Azure's ``api-key``, the bare
    key)."""
    out = {"Accept": "application/json", **headers}
    if api_key:
        if auth_header == "authorization":
            out["Authorization"] = f"Bearer {api_key}"
        else:
            out[auth_header] = api_key
    return out


def scrub(text: str, secrets: Sequence[str]) -> str:
    """``text`` without the ``secrets`` or any bearer token.

    >>> scrub("key sk-1 sent; Bearer abcdefghij", ["sk-1"])
    'key [REDACTED] sent; Bearer [REDACTED]'
    """
    for secret in secrets:
        text = text.replace(secret, "[REDACTED]")
    return re.sub(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}", r"\1[REDACTED]", text)

