"""Known server failures: what they mean, what to do about them, and silent truncation (pure).

Each known failure is recognised from its status and the server's own error message, so that
the client neither retries what cannot succeed nor gives misleading advice:

- llama.cpp started without ``--jinja`` answers a request with tools with HTTP 500
  ``tools param requires --jinja flag`` (older builds: ``Unsupported param: tools``;
  https://github.com/ggml-org/llama.cpp/issues/10920, containers/ramalama#988);
- vLLM without ``--enable-auto-tool-choice`` answers 400 ``"auto" tool choice requires
  --enable-auto-tool-choice and --tool-call-parser to be set`` (handled as a refused field; the
  advice names the flags);
- OpenRouter answers 404 ``No endpoints found that support tool use`` (or ``... the provided
  'tool_choice' value``) when no provider behind the model can take the request
  (https://github.com/pydantic/pydantic-ai/issues/2896, zed-industries/zed#36094);
- Groq answers 400 ``code: tool_use_failed`` when the model's tool call did not parse; it is
  intermittent, so it is retried once (https://github.com/pipecat-ai/pipecat/issues/1168).

>>> diagnose(500, {"error": {"code": 500, "message": "tools param requires --jinja flag",
...                          "type": "server_error"}}).kind
'llamacpp_needs_jinja'
>>> prompt_truncated(estimated=9000, reported=2048)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nanomem.engines.wire import error_text

#: Reported prompt tokens below this share of the estimate mean the server cut the prompt.
TRUNCATION_RATIO = 0.5
#: Prompts estimated below this are too small to judge (framing differs between servers).
TRUNCATION_MIN_ESTIMATE = 512


@dataclass(frozen=True)
class Diagnosis:
    """A recognised failure: ``kind`` names it, ``advice`` tells the user what to change.

    ``retry_once``: the failure is intermittent; send the same request once more.
    """

    kind: str
    advice: str
    retry_once: bool = False


#: The server flag (or setting) that fixes a known quirk, shown by ``nanomem doctor``.
ADVICE = {
    "llamacpp_needs_jinja": "start llama.cpp's llama-server with --jinja (tool calls need it)",
    "vllm_needs_auto_tool_choice": (
        "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser> "
        "(hermes for Qwen, llama3_json for Llama, mistral for Mistral)"
    ),
    "openrouter_no_tool_route": (
        "no provider behind this OpenRouter model supports tool use; pick a model listed at "
        "https://openrouter.ai/models?supported_parameters=tools, or relax [provider.body] "
        "provider settings"
    ),
    "groq_tool_use_failed": "Groq could not parse the model's tool call; retried once",
    "ignores_tool_choice": (
        "the server ignores tool_choice (Ollama does); nanomem asks once more for a tool call"
    ),
    "truncates_prompt": (
        "the server cut the prompt (Ollama's num_ctx); raise it (OLLAMA_CONTEXT_LENGTH, or "
        "PARAMETER num_ctx in a Modelfile) or lower [consolidate] context_window"
    ),
    "tool_calls_in_text": "the server returns tool calls as text; nanomem reads the valid ones",
}


def diagnose(status: int, body: Any) -> Diagnosis | None:
    """The known failure behind an error reply, or ``None``."""
    text = error_text(body).lower() if isinstance(body, dict) else str(body).lower()
    err = body.get("error") if isinstance(body, dict) else None
    code = err.get("code") if isinstance(err, dict) else None
    if status >= 500 and ("--jinja" in text or "unsupported param: tools" in text):
        return Diagnosis("llamacpp_needs_jinja", ADVICE["llamacpp_needs_jinja"])
    if status == 404 and "no endpoints found" in text:
        return Diagnosis("openrouter_no_tool_route", ADVICE["openrouter_no_tool_route"])
    if status == 400 and (code == "tool_use_failed" or "failed to call a function" in text):
        return Diagnosis("groq_tool_use_failed", ADVICE["groq_tool_use_failed"], retry_once=True)
    if status in (400, 422) and "enable-auto-tool-choice" in text:
        return Diagnosis("vllm_needs_auto_tool_choice", ADVICE["vllm_needs_auto_tool_choice"])
    return None


def prompt_truncated(*, estimated: int, reported: int) -> bool:
    """Whether a reported ``prompt_tokens`` is far below the estimate (the prompt was cut).

    The heuristic leans high on tool JSON and calibration is clamped to a factor of 2, so only
    a report below half the estimate of a prompt of some size counts.

    >>> prompt_truncated(estimated=300, reported=10), prompt_truncated(estimated=4000, reported=2500)
    (False, False)
    """
    return estimated >= TRUNCATION_MIN_ESTIMATE and reported < estimated * TRUNCATION_RATIO
