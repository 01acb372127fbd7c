"""The OpenAI-compatible chat-completions client over httpx, and the engine factory.

Works with the servers people run (OpenAI, vLLM, Ollama, LM Studio, OpenRouter, llama.cpp):
``POST {base_url}/chat/completions``. Building the body and parsing the reply are pure
functions; :class:`OpenAIProvider` adds the I/O: timeouts, bounded retries with exponential
backoff on 429 (honouring ``Retry-After``), 5xx and transport errors, and a memory of fields an
endpoint refused (``tool_choice``, ``response_format``, ``temperature``)::

    >>> body = build_request_body(ChatRequest(messages=({"role": "user", "content": "hi"},)),
    ...                           model="qwen2.5:7b")
    >>> body
    {'model': 'qwen2.5:7b', 'messages': [{'role': 'user', 'content': 'hi'}]}

httpx exceptions are translated into :class:`~nanomem.errors.ProviderError` here and nowhere
else. No message or log record ever contains the API key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpx

from nanomem.chat import ChatModel, ChatRequest, ChatResponse, ToolCall, Usage
from nanomem.config import Config
from nanomem.errors import ConfigError, ProviderError
from nanomem.fsutil import atomic_write
from nanomem.workspace import Workspace

log = logging.getLogger(__name__)

#: Optional request fields an endpoint may refuse with a 400; dropped and remembered if so.
REFUSABLE_FIELDS: tuple[str, ...] = ("tool_choice", "response_format", "temperature")
#: Keys an OpenAI message may carry; session extras such as ``timestamp`` are stripped.
MESSAGE_FIELDS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
RETRY_AFTER_CAP = 60.0  # seconds; a server asking for longer gets this and then an error
BACKOFF_BASE = 0.5
BACKOFF_CAP = 20.0
_FIELD_PATTERNS = {f: re.compile(f.replace("_", "[_ ]"), re.IGNORECASE) for f in REFUSABLE_FIELDS}

Sleep = Callable[[float], Awaitable[None]]


# --------------------------------------------------------------------------- pure core
def build_request_body(
    request: ChatRequest, *, model: str, omit: Iterable[str] = frozenset()
) -> dict[str, Any]:
    """The JSON body for ``request``: ``None`` fields and the ``omit`` fields left out.

    ``request.task`` is never sent. ``tool_choice`` is sent only together with tools.

    >>> req = ChatRequest(messages=({"role": "user", "content": "x", "timestamp": "t"},),
    ...                   tools=({"type": "function", "function": {"name": "f"}},),
    ...                   tool_choice="required", temperature=0.0)
    >>> sorted(build_request_body(req, model="m", omit={"tool_choice"}))
    ['messages', 'model', 'temperature', 'tools']
    """
    body: dict[str, Any] = {"model": model, "messages": [_clean_message(m) for m in request.messages]}
    if request.tools:
        body["tools"] = [dict(tool) for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    response_format = getattr(request, "response_format", None)  # if ChatRequest ever grows it
    if response_format is not None:
        body["response_format"] = response_format
    for name in omit:
        body.pop(name, None)
    return body


def _clean_message(message: Mapping[str, Any]) -> dict[str, Any]:
    clean = {k: v for k, v in message.items() if k in MESSAGE_FIELDS}
    if not clean.get("tool_calls"):
        clean.pop("tool_calls", None)
    if "content" not in clean:
        clean["content"] = None if clean.get("tool_calls") else ""
    return clean


def parse_response(body: Any) -> ChatResponse:
    """Turn a chat.completion JSON object into a :class:`ChatResponse`.

    Tolerant of what real servers send: ``content`` null or a list of parts, no
    ``tool_calls``, ``arguments`` as an object (Ollama) rather than a string, a missing call
    id, the legacy ``function_call``, and no ``usage``.

    >>> r = parse_response({"choices": [{"message": {"content": None, "tool_calls": [
    ...     {"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}]},
    ...     "finish_reason": "tool_calls"}]})
    >>> r.tool_calls[0].arguments, r.usage
    ('{"a": 1}', None)
    """
    if not isinstance(body, dict):
        raise ProviderError(f"reply is a JSON {type(body).__name__}, not an object; check base_url")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        detail = _error_text(body) or "no 'choices'"
        raise ProviderError(f"reply carries no completion ({detail}); check the model and base_url")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    raw_calls = message.get("tool_calls") or []
    if not raw_calls and isinstance(message.get("function_call"), dict):
        raw_calls = [{"id": "call_0", "function": message["function_call"]}]
    calls = tuple(_parse_call(i, raw) for i, raw in enumerate(raw_calls) if isinstance(raw, dict))
    finish = choice.get("finish_reason")
    return ChatResponse(
        content=_parse_content(message.get("content")),
        tool_calls=calls,
        finish_reason=finish if isinstance(finish, str) else None,
        usage=_parse_usage(body.get("usage")),
    )


def _parse_content(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    return str(content)


def _parse_call(index: int, raw: dict[str, Any]) -> ToolCall:
    fn = raw.get("function") if isinstance(raw.get("function"), dict) else {}
    arguments = fn.get("arguments")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else f"call_{index}"
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


def _error_text(body: Any) -> str:
    """The server's own error message from an OpenAI-style (or plain) error body."""
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            return str(err.get("message") or json.dumps(err, ensure_ascii=False))
        if err is not None:
            return str(err)
    return ""


def refused_field(status: int, body: Any, sent: Mapping[str, Any]) -> str | None:
    """The optional field a 400/422 reply refuses, if it names one that was sent.

    Only the error's own message, ``param`` and ``loc`` are searched, never an echoed request.

    >>> refused_field(400, {"error": {"message": '"auto" tool choice requires '
    ...               '--enable-auto-tool-choice'}}, {"tool_choice": "auto"})
    'tool_choice'
    """
    if status not in (400, 422):
        return None
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict) and err.get("param") in REFUSABLE_FIELDS and err["param"] in sent:
        return str(err["param"])
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):  # FastAPI/pydantic validation errors: loc + msg only
        text = " ".join(
            f"{d.get('loc')} {d.get('msg')}" for d in detail if isinstance(d, dict)
        )
    else:
        text = _error_text(body) if isinstance(body, dict) else str(body)
    for name, pattern in _FIELD_PATTERNS.items():
        if name in sent and pattern.search(text):
            return name
    return None


# --------------------------------------------------------------------------- notes
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


# --------------------------------------------------------------------------- client
class _Borrowed(httpx.AsyncBaseTransport):
    """A caller's transport, used by per-call clients without being closed by them."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        pass


class OpenAIProvider:
    """A :class:`~nanomem.chat.ChatModel` for any OpenAI-compatible endpoint.

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
                what = f"POST {self.url}: HTTP {status} ({_short(_error_text(_json_or_text(reply)))})"
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
        detail = _short(_error_text(_json_or_text(reply)) or reply.text)
        advice = {
            401: "check the API key (NANOMEM_API_KEY or [provider] api_key)",
            403: "check the API key's permissions for this model",
            404: f"check base_url (it usually ends in /v1) and the model name {self.model!r}",
        }.get(status, "check the request settings (model, max_tokens) against the server")
        return f"POST {self.url}: HTTP {status} ({detail}); {advice}"

    def _remember_refusal(self, field: str, reply: httpx.Response) -> None:
        reason = self._scrub(_short(_error_text(_json_or_text(reply)) or reply.text))
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
        refused = entry.get("refused") if isinstance(entry.get("refused"), dict) else {}
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


# --------------------------------------------------------------------------- factory
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
        from nanomem.offline import OfflineEngine  # lazy: the HTTP path never needs it

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
