"""The OpenAI-compatible chat-completions client over httpx.

Works with the servers people run (OpenAI, vLLM, Ollama, LM Studio, OpenRouter, llama.cpp,
DeepSeek, Groq, Together, Mistral, Azure): ``POST {base_url}/chat/completions``. Building the
body and parsing the reply are the pure functions of :mod:`nanomem.engines.wire`; refusals and
their fallbacks are :mod:`nanomem.engines.refusals`, known server failures
:mod:`nanomem.engines.quirks`, and what was learned is kept in the provider notes
(:mod:`nanomem.engines.notes`). :class:`OpenAIProvider` adds the I/O: one connection pool per
run (``async with``), timeouts, bounded retries with exponential backoff on 429 (honouring
``Retry-After``), 5xx and transport errors.

httpx exceptions are translated into :class:`~nanomem.errors.ProviderError` here and nowhere
else. No message, log record or note ever contains the API key or a secret header value.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from nanomem.engines import quirks, refusals
from nanomem.engines.chat import ChatRequest, ChatResponse, Usage
from nanomem.engines.notes import EndpointNotes
from nanomem.engines.wire import (build_request_body, error_text, parse_response,
                                  parse_retry_after, render_headers, scrub)
from nanomem.errors import ConfigError, ProviderError
from nanomem.text import tokens

log = logging.getLogger(__name__)

RETRY_AFTER_CAP = 60.0  # seconds; a server asking for longer gets this and then an error
BACKOFF_BASE = 0.5
BACKOFF_CAP = 20.0
MAX_FALLBACKS = 6  # refusals handled within one request (each field steps at most a few times)
#: What an endpoint that ignores ``tool_choice`` (Ollama) is told when it answered in text.
TOOL_REMINDER = ("Reply with a call to one of the tools ({names}), not with text. "
                 "Put everything you want to say into the tool's arguments.")

Sleep = Callable[[float], Awaitable[None]]


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

    Use ``async with provider:`` (or :func:`nanomem.engines.chat.engine_session`) to share one
    connection across the requests of a run; blocks nest and the outermost one closes it.
    Outside a block each :meth:`complete` opens and closes its own client, which keeps the
    provider safe to reuse across ``asyncio.run`` calls.

    ``stage_models`` maps a stage (``ChatRequest.stage``) to its own model; ``headers``,
    ``query`` and ``extra_body`` are added to every request; ``auth_header`` is where the key
    goes (``authorization`` sends ``Bearer KEY``; Azure's ``api-key`` sends the bare key);
    ``secrets`` are further values to keep out of every message.

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
        stage_models: Mapping[str, str | None] | None = None,
        headers: Mapping[str, str] | None = None,
        query: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        auth_header: str = "authorization",
        secrets: Sequence[str] = (),
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
        self.stage_models = {k: v for k, v in (stage_models or {}).items() if v}
        self.url = f"{self.base_url}/chat/completions"
        self.max_retries = max(0, int(max_retries))
        self._api_key = api_key or None
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, 10.0))
        self._transport = transport
        self._sleep = sleep
        self._clock = clock
        self._notes_path = notes_path
        self._headers = dict(headers or {})
        self._query = dict(query or {})
        self._extra_body = dict(extra_body or {})
        self._auth_header = auth_header.lower()
        self._secrets = tuple(s for s in (api_key, *secrets) if s)
        self._notes: dict[str, EndpointNotes] = {}
        self._client: httpx.AsyncClient | None = None
        self._depth = 0
        self._replies = 0
        self.last_usage: Usage | None = None

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIProvider({self.base_url!r}, model={self.model!r})"

    # ------------------------------------------------------------------ what it knows
    def model_for(self, stage: str | None) -> str:
        """The model a stage's requests go to (``consolidate_model``, ``dream_model``, or the model)."""
        return self.stage_models.get(stage or "", self.model)

    def notes(self, model: str | None = None) -> EndpointNotes:
        """What is remembered about this endpoint and ``model`` (default: the main model)."""
        model = model or self.model
        if model not in self._notes:
            self._notes[model] = EndpointNotes(self._notes_path, self.base_url, model)
        return self._notes[model]

    @property
    def fallback_steps(self) -> Mapping[str, str]:
        """The fallback steps in force for the main model (see :mod:`nanomem.engines.refusals`)."""
        return dict(self.notes().steps)

    @property
    def last_prompt_tokens(self) -> int | None:
        """``prompt_tokens`` of the last reply that reported usage (to calibrate estimates)."""
        return self.last_usage.prompt_tokens if self.last_usage else None

    # ------------------------------------------------------------------ connections
    async def __aenter__(self) -> "OpenAIProvider":
        if self._depth == 0 and self._client is None:
            self._client = self.new_client()
        self._depth += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth == 0:
            await self.aclose()

    async def aclose(self) -> None:
        """Close the shared client opened by ``async with`` (a no-op otherwise)."""
        client, self._client = self._client, None
        self._depth = 0
        if client is not None:
            await client.aclose()

    def new_client(self) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` with this endpoint's headers, query and timeouts."""
        headers = render_headers(self._api_key, self._auth_header, self._headers)
        transport = _Borrowed(self._transport) if self._transport is not None else None
        return httpx.AsyncClient(timeout=self._timeout, headers=headers, params=self._query,
                                 transport=transport)

    async def using_client(self, work: Callable[[httpx.AsyncClient], Awaitable[Any]]) -> Any:
        """Run ``work(client)`` on the shared client, or on a client opened just for it."""
        if self._client is not None:
            return await work(self._client)
        async with self.new_client() as client:
            return await work(client)

    # ------------------------------------------------------------------ requests
    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request``; retry what is worth retrying; raise :class:`ProviderError`."""
        result: ChatResponse = await self.using_client(lambda c: self._complete(c, request))
        return result

    async def _complete(self, client: httpx.AsyncClient, request: ChatRequest) -> ChatResponse:
        model = self.model_for(request.stage)
        notes = self.notes(model)
        base = build_request_body(request, model=model, extra=self._extra_body)
        attempt = fallbacks = 0
        retried_quirk = reminded = False
        while True:
            body = refusals.apply_fallbacks(base, notes.steps)
            reply = await self._post(client, body, attempt)
            if reply is None:  # a transport error that is retried
                attempt += 1
                continue
            status = reply.status_code
            payload = _json_or_text(reply)
            if status == 429 or status >= 500:
                what = f"POST {self.url}: HTTP {status} ({_short(error_text(payload) or reply.text)})"
                diagnosis = quirks.diagnose(status, payload)
                if diagnosis is not None:  # a known server failure: retrying cannot help
                    notes.record_quirk(diagnosis.kind, self._scrub(_short(error_text(payload))))
                    raise ProviderError(self._scrub(f"{what}; {diagnosis.advice}"))
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
                if fallbacks < MAX_FALLBACKS and self._fall_back(status, payload, body, notes):
                    fallbacks += 1
                    continue
                diagnosis = quirks.diagnose(status, payload)
                if diagnosis is not None:
                    notes.record_quirk(diagnosis.kind, self._scrub(_short(error_text(payload))))
                    if diagnosis.retry_once and not retried_quirk:
                        retried_quirk = True
                        log.warning("%s: %s", self.base_url, diagnosis.advice)
                        continue
                raise ProviderError(self._scrub(self._status_message(status, reply, payload,
                                                                     diagnosis, model)))
            response = self._parse(reply, payload, request, body, notes)
            if self._ignored_tool_choice(payload, body, response) and not reminded:
                reminded = True
                notes.record_quirk("ignores_tool_choice", quirks.ADVICE["ignores_tool_choice"])
                base = {**base, "messages": [*base["messages"], *_reminder(response, body)]}
                continue
            return response

    async def _post(self, client: httpx.AsyncClient, body: dict[str, Any],
                    attempt: int) -> httpx.Response | None:
        try:
            return await client.post(self.url, json=body)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ProviderError(self._scrub(
                f"{self.url}: not a usable URL ({exc}); set base_url to http(s)://host[:port]/v1"
            )) from exc
        except httpx.TransportError as exc:
            kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "failed"
            what = f"POST {self.url} {kind} ({type(exc).__name__}: {exc})"
            if attempt < self.max_retries:
                await self._wait(attempt, None, what)
                return None
            raise ProviderError(self._scrub(
                f"{what} after {attempt + 1} attempts; check that the server is running and "
                "reachable, or raise request_timeout"
            )) from exc

    def _fall_back(self, status: int, payload: Any, body: Mapping[str, Any],
                   notes: EndpointNotes) -> bool:
        """Apply and remember the next step for a refused field; False when there is none."""
        field = refusals.refused_field(status, payload, body)
        if field is None:
            return False
        step = refusals.fallback_for(field, body[field], body.get("tools") or ())
        key = refusals.step_key(field, body[field])
        if step is None or notes.steps.get(key) == step:
            return False
        reason = self._scrub(_short(error_text(payload) or str(payload)))
        log.warning("%s (%s) refused '%s' (HTTP %d: %s); sending it as %s from now on",
                    self.base_url, notes.model, field, status, reason, step)
        notes.record_step(key, step, reason)
        diagnosis = quirks.diagnose(status, payload)
        if diagnosis is not None:  # e.g. vLLM without --enable-auto-tool-choice
            notes.record_quirk(diagnosis.kind, reason)
        return True

    def _parse(self, reply: httpx.Response, payload: Any, request: ChatRequest,
               body: Mapping[str, Any], notes: EndpointNotes) -> ChatResponse:
        try:
            payload = reply.json()
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProviderError(self._scrub(
                f"POST {self.url}: HTTP {reply.status_code} but the reply is not JSON "
                f"({_short(reply.text)}); check that base_url points at the API (often .../v1)"
            )) from exc
        self._replies += 1
        seed = f"{self._replies}/{payload.get('id') if isinstance(payload, dict) else ''}"
        try:
            response = parse_response(payload, tools=request.tools, seed=seed)
        except ProviderError as exc:  # our own error; scrubbed, the raw one is dropped
            raise ProviderError(self._scrub(f"POST {self.url}: {exc}")) from None
        if response.tool_calls and not _native_calls(payload):
            notes.record_quirk("tool_calls_in_text", quirks.ADVICE["tool_calls_in_text"])
        if response.usage is None:
            return response
        estimated = tokens.estimate_messages(body["messages"]) + tokens.estimate_tools(
            body.get("tools") or ())
        if quirks.prompt_truncated(estimated=estimated, reported=response.usage.prompt_tokens):
            message = (f"reported {response.usage.prompt_tokens} prompt tokens for about "
                       f"{estimated}; the server cut the prompt")
            log.warning("%s (%s): %s; %s", self.base_url, notes.model, message,
                        quirks.ADVICE["truncates_prompt"])
            notes.record_quirk("truncates_prompt", message)
            return dataclasses.replace(response, usage=None)  # never calibrate from a cut prompt
        self.last_usage = response.usage
        return response

    def _ignored_tool_choice(self, payload: Any, body: Mapping[str, Any],
                             response: ChatResponse) -> bool:
        """A forced tool call answered in text by a server known to ignore ``tool_choice``."""
        choice = body.get("tool_choice")
        forced = choice == "required" or isinstance(choice, Mapping)
        ollama = isinstance(payload, dict) and payload.get("system_fingerprint") == "fp_ollama"
        return (forced and ollama and not response.tool_calls
                and response.finish_reason not in ("length", "content_filter"))

    async def _wait(self, attempt: int, retry_after: float | None, what: str) -> None:
        delay = min(BACKOFF_BASE * 2**attempt, BACKOFF_CAP) if retry_after is None else retry_after
        delay = min(delay, RETRY_AFTER_CAP)
        log.warning(
            "%s; retry %d/%d in %.1fs", self._scrub(what), attempt + 1, self.max_retries, delay
        )
        await self._sleep(delay)

    def _status_message(self, status: int, reply: httpx.Response, payload: Any,
                        diagnosis: quirks.Diagnosis | None, model: str) -> str:
        detail = _short(error_text(payload) or reply.text)
        if diagnosis is not None:
            advice = diagnosis.advice
        else:
            advice = {
                401: "check the API key (NANOMEM_API_KEY or [provider] api_key)",
                403: "check the API key's permissions for this model",
                404: f"check base_url (it usually ends in /v1) and the model name {model!r}",
            }.get(status, "check the request settings (model, max_tokens, [provider.body]) "
                          "against the server")
        return f"POST {self.url}: HTTP {status} ({detail}); {advice}"

    def scrub(self, text: str) -> str:
        """``text`` without the API key, secret header values or any bearer token."""
        return self._scrub(text)

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)


def _reminder(response: ChatResponse, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    names = ", ".join(t["function"]["name"] for t in body.get("tools") or ()
                      if isinstance(t, Mapping) and isinstance(t.get("function"), Mapping))
    said = {"role": "assistant", "content": response.content or ""}
    return [said, {"role": "user", "content": TOOL_REMINDER.format(names=names)}]


def _native_calls(payload: Any) -> bool:
    try:
        message = payload["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return False
    return bool(isinstance(message, dict) and (message.get("tool_calls") or message.get("function_call")))


def _json_or_text(reply: httpx.Response) -> Any:
    try:
        return reply.json()
    except (ValueError, UnicodeDecodeError):
        return {"error": reply.text}


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
