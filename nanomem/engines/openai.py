"""The OpenAI-compatible chat-completions client over httpx, and the engine factory.

Works with the servers people run (OpenAI, vLLM, Ollama, LM Studio, OpenRouter, llama.cpp):
``POST {base_url}/chat/completions``. Building the body and parsing the reply are the pure
functions of :mod:`nanomem.engines.wire`; :class:`OpenAIProvider` adds the I/O: timeouts, bounded
retries with exponential backoff on 429 (honouring ``Retry-After``), 5xx and transport errors,
and a memory of fields an endpoint refused (``tool_choice``, ``response_format``,
``temperature``), kept in ``memory/.provider_notes.json``. :func:`make_engine` picks the
offline engine or this client from the configuration.

httpx exceptions are translated into :class:`~nanomem.errors.ProviderError` here and nowhere
else. No message or log record ever contains the API key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from nanomem.engines.chat import ChatModel, ChatRequest, ChatResponse, Usage
from nanomem.config import Config
from nanomem.errors import ConfigError, ProviderError
from nanomem.store.fsutil import atomic_write
from nanomem.engines.wire import (
    build_request_body,
    error_text,
    parse_response,
    parse_retry_after,
    refused_field,
)
from nanomem.store.workspace import Workspace

log = logging.getLogger(__name__)

RETRY_AFTER_CAP = 60.0  # seconds; a server asking for longer gets this and then an error
BACKOFF_BASE = 0.5
BACKOFF_CAP = 20.0

Sleep = Callable[[float], Awaitable[None]]


def read_provider_notes(workspace: Workspace | Path) -> dict[str, Any]:
    """Endpoint quirks remembered in ``memory/.provider_notes.json`` (``{}`` when none).

    Shape: ``{base_url: {"refused": {field: server message}}}``; ``nanomem status`` shows it.
    """
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    return _load_notes(ws.provider_notes)


def _load_notes(path: Path | None) -> dict[str, Any]:
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.warning("%s: unreadable provider notes (%s); ignoring them", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


class _Borrowed(httpx.AsyncBaseTransport):
    """A caller's transport, used by per-call clients without being closed by them."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        pass


class OpenAIProvider:
    """A :class:`~nanomem.engines.chat.ChatModel` for any OpenAI-compatible endpoint.

    Use ``async with OpenAIProvider(...) as p`` to share one connection pool across calls;
    otherwise each :meth:`complete` opens and closes its own client, which keeps the provider
    safe to reuse across ``asyncio.run`` calls.

        provider = OpenAIProvider("http://localhost:11434/v1", None, "qwen2.5:7b")
        reply = await provider.complete(ChatRequest(messages=({"role": "user", "content": "hi"},)))
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
        notes_path: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not base_url:
            raise ConfigError("provider 'openai' needs a base URL; set NANOMEM_BASE_URL")
        if not model:
            raise ConfigError(
                "provider 'openai' needs a model name; pass --model, set NANOMEM_MODEL "
                "or [provider] model in nanomem.toml"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.url = f"{self.base_url}/chat/completions"
        self.max_retries = max(0, int(max_retries))
        self._api_key = api_key or None
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, 10.0))
        self._transport = transport
        self._sleep = sleep
        self._clock = clock
        self._notes_path = notes_path
        notes = _load_notes(notes_path).get(self.base_url, {})
        self._omit: set[str] = set(notes.get("refused", {})) if isinstance(notes, dict) else set()
        self._client: httpx.AsyncClient | None = None
        self.last_usage: Usage | None = None

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIProvider({self.base_url!r}, model={self.model!r})"

    @property
    def omitted_fields(self) -> frozenset[str]:
        """Fields this endpoint refused; they are no longer sent."""
        return frozenset(self._omit)

    @property
    def last_prompt_tokens(self) -> int | None:
        """``prompt_tokens`` of the last reply that reported usage (to calibrate estimates)."""
        return self.last_usage.prompt_tokens if self.last_usage else None

    async def __aenter__(self) -> "OpenAIProvider":
        if self._client is None:
            self._client = self._new_client()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the shared client opened by ``async with`` (a no-op otherwise)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def _new_client(self) -> httpx.AsyncClient:
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        transport = _Borrowed(self._transport) if self._transport is not None else None
        return httpx.AsyncClient(timeout=self._timeout, headers=headers, transport=transport)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request``; retry what is worth retrying; raise :class:`ProviderError`."""
        if self._client is not None:
            return await self._complete(self._client, request)
        async with self._new_client() as client:
            return await self._complete(client, request)

    async def _complete(self, client: httpx.AsyncClient, request: ChatRequest) -> ChatResponse:
        attempt = 0
        while True:
            body = build_request_body(request, model=self.model, omit=self._omit)
            try:
                reply = await client.post(self.url, json=body)
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise ProviderError(self._scrub(
                    f"{self.url}: not a usable URL ({exc}); set base_url to http(s)://host[:port]/v1"
                )) from exc
            except httpx.TransportError as exc:
                kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "failed"
                what = f"POST {self.url} {kind} ({type(exc).__name__}: {exc})"
                if attempt < self.max_retries:
                    await self._wait(attempt, None, what)
                    attempt += 1
                    continue
                raise ProviderError(self._scrub(
                    f"{what} after {attempt + 1} attempts; check that the server is running and "
                    "reachable, or raise request_timeout"
                )) from exc
            status = reply.status_code
            if status == 429 or status >= 500:
                what = f"POST {self.url}: HTTP {status} ({_short(error_text(_json_or_text(reply)))})"
                if attempt < self.max_retries:
                    await self._wait(attempt, parse_retry_after(reply.headers, now=self._clock()), what)
                    attempt += 1
                    continue
                advice = "wait and retry later" if status == 429 else "check the server's log"
                raise ProviderError(self._scrub(f"{what} after {attempt + 1} attempts; {advice}"))
            if 300 <= status < 400:
                raise ProviderError(self._scrub(
                    f"POST {self.url}: HTTP {status} redirect to "
                    f"{reply.headers.get('location', '?')}; set base_url to the final address"
                ))
            if status >= 400:
                field = refused_field(status, _json_or_text(reply), body)
                if field is not None:
                    self._remember_refusal(field, reply)
                    continue
                raise ProviderError(self._scrub(self._status_message(status, reply)))
            try:
                payload = reply.json()
            except (ValueError, UnicodeDecodeError) as exc:
                raise ProviderError(self._scrub(
                    f"POST {self.url}: HTTP {status} but the reply is not JSON "
                    f"({_short(reply.text)}); check that base_url points at the API (often .../v1)"
                )) from exc
            try:
                response = parse_response(payload)
            except ProviderError as exc:  # our own error; scrubbed, the raw one is dropped
                raise ProviderError(self._scrub(f"POST {self.url}: {exc}")) from None
            if response.usage is not None:
                self.last_usage = response.usage
            return response

    async def _wait(self, attempt: int, retry_after: float | None, what: str) -> None:
        delay = min(BACKOFF_BASE * 2**attempt, BACKOFF_CAP) if retry_after is None else retry_after
        delay = min(delay, RETRY_AFTER_CAP)
        log.warning(
            "%s; retry %d/%d in %.1fs", self._scrub(what), attempt + 1, self.max_retries, delay
        )
        await self._sleep(delay)

    def _status_message(self, status: int, reply: httpx.Response) -> str:
        detail = _short(error_text(_json_or_text(reply)) or reply.text)
        advice = {
            401: "check the API key (NANOMEM_API_KEY or [provider] api_key)",
            403: "check the API key's permissions for this model",
            404: f"check base_url (it usually ends in /v1) and the model name {self.model!r}",
        }.get(status, "check the request settings (model, max_tokens) against the server")
        return f"POST {self.url}: HTTP {status} ({detail}); {advice}"

    def _remember_refusal(self, field: str, reply: httpx.Response) -> None:
        reason = self._scrub(_short(error_text(_json_or_text(reply)) or reply.text))
        log.warning(
            "%s refused '%s' (HTTP %d: %s); retrying without it and remembering the refusal",
            self.base_url, field, reply.status_code, reason,
        )
        self._omit.add(field)
        if self._notes_path is None:
            return
        notes = _load_notes(self._notes_path)
        entry = notes.get(self.base_url)
        entry = entry if isinstance(entry, dict) else {}
        refused = entry.get("refused")
        refused = refused if isinstance(refused, dict) else {}
        entry["refused"] = {**refused, field: reason}
        notes[self.base_url] = entry
        try:
            atomic_write(self._notes_path, json.dumps(notes, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            log.warning("%s: cannot save provider notes (%s)", self._notes_path, exc)

    def _scrub(self, text: str) -> str:
        """Remove the API key (and any bearer token) from ``text``."""
        if self._api_key:
            text = text.replace(self._api_key, "[REDACTED]")
        return re.sub(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}", r"\1[REDACTED]", text)


def _json_or_text(reply: httpx.Response) -> Any:
    try:
        return reply.json()
    except (ValueError, UnicodeDecodeError):
        return {"error": reply.text}


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_engine(
    config: Config,
    workspace: Workspace | Path,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Sleep | None = None,
    clock: Any = None,
) -> ChatModel:
    """The engine ``config`` asks for: the offline one, or :class:`OpenAIProvider`.

    ``transport``/``sleep`` are for tests (a FakeLLM transport, a sleep that does not wait);
    ``clock`` is passed to the offline engine.
    """
    if config.provider == "offline":
        from nanomem.engines.offline.engine import OfflineEngine  # lazy: the HTTP path never needs it

        return OfflineEngine(clock=clock)
    if config.provider != "openai":
        raise ConfigError(f"provider '{config.provider}' is not supported; use offline or openai")
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    return OpenAIProvider(
        config.base_url or "",
        config.api_key,
        config.model or "",
        timeout=config.request_timeout,
        max_retries=config.max_retries,
        transport=transport,
        sleep=sleep or asyncio.sleep,
        notes_path=ws.provider_notes,
    )
