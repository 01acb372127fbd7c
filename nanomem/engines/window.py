"""Context-window discovery: ask the server how many tokens a prompt may hold, where it says.

- ``GET {base_url}/models`` lists models; some servers put the window in each entry:
  vLLM ``max_model_len``, OpenRouter ``context_length`` (and ``top_provider.context_length``),
  Groq ``context_window``, LM Studio ``max_context_length``/``loaded_context_length``,
  llama.cpp ``meta.n_ctx_train`` (the model's training window).
- Ollama's ``POST /api/show {"model": ...}`` gives ``parameters`` (``num_ctx N`` when the
  Modelfile sets it) and ``model_info["<arch>.context_length"]``. Without ``num_ctx`` Ollama runs
  a model with its default of 4096 tokens (https://docs.ollama.com/context-length) and cuts longer
  prompts without an error, so that default, not the model's maximum, is the window.

The parsers are pure; :func:`discover_context_window` does the requests and never raises.

>>> parse_models_window({"data": [{"id": "m", "max_model_len": 32768}]}, "m")
ContextWindow(tokens=32768, source='/models max_model_len')
>>> parse_ollama_show({"parameters": "num_ctx 8192\\nstop <|im_end|>",
...                    "model_info": {"qwen2.context_length": 32768}})
ContextWindow(tokens=8192, source='ollama /api/show num_ctx')
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger(__name__)

OLLAMA_DEFAULT_NUM_CTX = 4096
_MODEL_KEYS = ("max_model_len", "context_length", "context_window", "loaded_context_length",
               "max_context_length")
_NUM_CTX = re.compile(r"(?m)^\s*num_ctx\s+(\d+)\s*$")


@dataclass(frozen=True)
class ContextWindow:
    """A context window in tokens, and where it was read."""

    tokens: int
    source: str


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def parse_models_window(payload: Any, model: str) -> ContextWindow | None:
    """The window of ``model`` from a ``/models`` listing (``None`` when it says nothing)."""
    data = payload.get("data") if isinstance(payload, Mapping) else None
    if not isinstance(data, list):
        return None
    entries = [e for e in data if isinstance(e, Mapping)]
    chosen = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in chosen:
        for key in _MODEL_KEYS:
            tokens = _positive(entry.get(key))
            if tokens:
                return ContextWindow(tokens, f"/models {key}")
        top = entry.get("top_provider")
        if isinstance(top, Mapping) and _positive(top.get("context_length")):
            return ContextWindow(int(top["context_length"]), "/models top_provider.context_length")
        meta = entry.get("meta")
        if isinstance(meta, Mapping) and _positive(meta.get("n_ctx_train")):
            return ContextWindow(int(meta["n_ctx_train"]), "/models meta.n_ctx_train")
    return None


def parse_ollama_show(payload: Any) -> ContextWindow | None:
    """The window Ollama runs a model with, from its ``/api/show`` reply."""
    if not isinstance(payload, Mapping):
        return None
    parameters = payload.get("parameters")
    if isinstance(parameters, str):
        match = _NUM_CTX.search(parameters)
        if match:
            return ContextWindow(int(match.group(1)), "ollama /api/show num_ctx")
    info = payload.get("model_info")
    lengths = [v for k, v in info.items() if k.endswith(".context_length") and _positive(v)] \
        if isinstance(info, Mapping) else []
    if lengths:
        tokens = min(int(lengths[0]), OLLAMA_DEFAULT_NUM_CTX)
        return ContextWindow(tokens, f"ollama default num_ctx (the model allows {lengths[0]})")
    return None


async def discover_context_window(
    client: httpx.AsyncClient, base_url: str, model: str
) -> ContextWindow | None:
    """Ask ``/models``, then Ollama's ``/api/show``; ``None`` when neither says."""
    base = base_url.rstrip("/")
    payload = await _fetch(client, "GET", f"{base}/models")
    window = parse_models_window(payload, model) if payload is not None else None
    if window is not None:
        return window
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    shown = await _fetch(client, "POST", f"{root}/api/show", {"model": model})
    return parse_ollama_show(shown) if shown is not None else None


async def _fetch(client: httpx.AsyncClient, method: str, url: str,
                 body: Mapping[str, Any] | None = None) -> Any:
    try:
        reply = await client.request(method, url, json=body)
    except httpx.HTTPError as exc:
        log.debug("%s %s failed (%s); no context window from it", method, url, type(exc).__name__)
        return None
    if reply.status_code != 200:
        return None
    try:
        return reply.json()
    except (ValueError, UnicodeDecodeError):
        return None
