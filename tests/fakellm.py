"""FakeLLM: the one scripted, strict OpenAI chat-completions double of the test suite.

Queue replies, point a client at it, then assert on what it received::

    fake = FakeLLM()
    fake.enqueue_tool_calls([("archive_history", {"facts": [], "nothing": True})])
    fake.enqueue_error(429, headers={"Retry-After": "2"})
    fake.enqueue_text("hello")

    # fast: in-process, through httpx.MockTransport
    client = httpx.AsyncClient(transport=fake.transport(), base_url=fake.base_url)
    # end to end: a real HTTP server on 127.0.0.1:0 (CLI, watcher, subprocesses)
    with fake.serve() as base_url:   # "http://127.0.0.1:PORT/v1"
        ...

    fake.requests[0]["tool_choice"]   # recorded JSON bodies, in order
    fake.headers[0]["authorization"]  # recorded headers, lower-case names
    fake.assert_all_consumed()        # every scripted reply was used, no violation happened

    FakeLLM(mode="ollama")            # answer as that server does (tests/fakeservers.py)
    FakeLLM(keep_alive=True)          # serve(): keep connections open; fake.connections counts them

    # POST .../embeddings answers at once (no queue): a hashed bag of words, unit length, so
    # texts sharing words are near; script synonyms to make a paraphrase near its original.
    fake.synonyms.update({"canine": "dog", "puppy": "dog"})
    fake.fail_embeddings(503, times=4)   # the next 4 embeddings requests fail
    fake.embedding_requests[0].body["input"]

Every request is checked strictly (POST to ``.../chat/completions``, a JSON object with ``model``
and well-formed ``messages``, ``tools`` and ``tool_choice``; tool results answer an earlier tool
call; no ``null`` fields; nothing outside the OpenAI request fields, so ``ChatRequest.task`` can
never leak onto the wire). A violation, or a request when the queue is empty, fails loudly:
through ``transport()`` the handler raises ``AssertionError`` into the test; through ``serve()``
the server answers HTTP 500 with a ``FakeLLM:`` message, records the violation, and leaving the
``with`` block raises ``AssertionError`` (as does :meth:`FakeLLM.assert_all_consumed`).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from tests.fakeservers import Mode, make_mode

EMBEDDING_DIM = 64
CREATED = 1_700_000_000  # fixed "created" timestamp: replies are deterministic
VALID_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
MESSAGE_FIELDS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id", "refusal"})
KNOWN_FIELDS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "n",
        "stop",
        "seed",
        "stream",
        "stream_options",
        "response_format",
        "parallel_tool_calls",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "top_logprobs",
        "user",
        "metadata",
    }
)


def tool_choice_refusal(param: str = "tool_choice") -> dict[str, Any]:
    """An OpenAI-style 400 body refusing ``param``, as vLLM / older servers send it."""
    return {
        "error": {
            "message": f"Unsupported parameter: '{param}' is not supported with this model.",
            "type": "invalid_request_error",
            "param": param,
            "code": "unsupported_parameter",
        }
    }


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake saw it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any  # the parsed JSON, or the raw text when it was not JSON


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _PendingMessage:
    content: str | None
    calls: tuple[tuple[str, str], ...]
    finish_reason: str
    usage: Any


@dataclass(frozen=True)
class _Timeout:
    delay: float


class FakeLLM:
    """A scripted OpenAI-compatible endpoint; see the module docstring."""

    base_url = "http://fakellm.test/v1"

    def __init__(
        self,
        *,
        on_request: Callable[[dict[str, Any]], None] | None = None,
        expect_tool_choice: Any = None,
        mode: str | Mode = "openai",
        keep_alive: bool = False,
    ) -> None:
        self.on_request = on_request
        self.expect_tool_choice = expect_tool_choice
        self.mode = make_mode(mode) if isinstance(mode, str) else mode
        self.keep_alive = keep_alive
        self.connections = 0  # TCP connections accepted by serve()
        self.metadata_requests: list[RecordedRequest] = []  # GET /models, POST /api/show
        self.recorded: list[RecordedRequest] = []
        self.errors: list[str] = []
        self.synonyms: dict[str, str] = {}  # word -> the word it embeds as
        self.embedding_requests: list[RecordedRequest] = []
        self._embedding_failures: deque[int] = deque()
        self._queue: deque[_PendingMessage | _Reply | _Timeout] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._release = threading.Event()

    # ---------------------------------------------------------------- scripting
    def enqueue_text(
        self, text: str | None, *, finish_reason: str = "stop", usage: Any = None
    ) -> None:
        """Queue a plain assistant reply. ``usage``: ``None`` computed, ``False`` omitted, or a dict."""
        self._queue.append(_PendingMessage(text, (), finish_reason, usage))

    def enqueue_tool_calls(
        self,
        calls: Sequence[tuple[str, Any]],
        *,
        content: str | None = None,
        finish_reason: str = "tool_calls",
        usage: Any = None,
    ) -> None:
        """Queue a reply with tool calls ``[(name, arguments)]``.

        ``arguments`` is a dict (JSON-encoded for you) or a str sent as-is (to test bad JSON).
        """
        encoded = tuple(
            (name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False))
            for name, args in calls
        )
        self._queue.append(_PendingMessage(content, encoded, finish_reason, usage))

    def enqueue_error(
        self,
        status: int,
        body: Mapping[str, Any] | str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Queue an HTTP error; ``body`` dict is JSON-encoded, str sent raw, None → OpenAI style."""
        if body is None:
            body = {"error": {"message": f"fake error {status}", "type": "server_error"}}
        self.enqueue_response(body, status=status, headers=headers)

    def enqueue_response(
        self,
        body: Mapping[str, Any] | str,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Queue a raw reply (e.g. Ollama-style object ``arguments``, or a malformed body)."""
        raw = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        self._queue.append(_Reply(status, raw.encode("utf-8"), all_headers))

    def enqueue_timeout(self, delay: float = 5.0) -> None:
        """Queue a reply that never comes.

        Through ``transport()`` the request raises ``httpx.ReadTimeout`` at once. Through
        ``serve()`` the server holds the request for ``delay`` seconds (less if the server is
        shut down), then closes the connection without answering; give the client a shorter
        timeout than ``delay``.
        """
        self._queue.append(_Timeout(delay))

    def fail_embeddings(self, status: int = 503, *, times: int = 1) -> None:
        """Make the next ``times`` embeddings requests answer HTTP ``status``."""
        self._embedding_failures.extend([status] * times)

    def embed(self, text: str) -> list[float]:
        """The vector the fake endpoint gives ``text``: a hashed bag of (synonym-mapped) words."""
        vector = [0.0] * EMBEDDING_DIM
        for word in re.findall(r"\w+", text.lower()):
            word = self.synonyms.get(word, word)
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % EMBEDDING_DIM] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def _embeddings(self, headers: dict[str, str], body: Any) -> _Reply:
        self.embedding_requests.append(RecordedRequest("POST", "/embeddings", headers, body))
        if self._embedding_failures:
            return _json_reply(self._embedding_failures.popleft(),
                               {"error": {"message": "fake embeddings error"}})
        texts = body.get("input") if isinstance(body, dict) else None
        if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not (
                isinstance(texts, list) and all(isinstance(t, str) for t in texts)):
            self.errors.append(f"FakeLLM embeddings request: bad body {body!r}")
            return _json_reply(400, {"error": {"message": "model and input (list of str)"}})
        data = [{"object": "embedding", "index": i, "embedding": self.embed(t)}
                for i, t in enumerate(texts)]
        return _json_reply(200, {"object": "list", "data": data, "model": body["model"]})

    # ---------------------------------------------------------------- inspection
    @property
    def requests(self) -> list[Any]:
        """Recorded JSON bodies, in arrival order."""
        return [r.body for r in self.recorded]

    @property
    def headers(self) -> list[Mapping[str, str]]:
        """Recorded request headers (lower-case names), in arrival order."""
        return [r.headers for r in self.recorded]

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        return len(self._queue)

    def assert_all_consumed(self) -> None:
        """Fail if a request violated the protocol or a scripted reply was never used."""
        if self.errors:
            raise AssertionError("FakeLLM saw bad requests:\n- " + "\n- ".join(self.errors))
        if self._queue:
            raise AssertionError(f"FakeLLM: {len(self._queue)} scripted replies never requested")

    # ---------------------------------------------------------------- serving
    def transport(self) -> httpx.MockTransport:
        """An in-process transport for ``httpx.AsyncClient(transport=...)`` (or ``Client``)."""

        def handler(request: httpx.Request) -> httpx.Response:
            headers = {k.lower(): v for k, v in request.headers.items()}
            query = dict(request.url.params)
            outcome = self._handle(request.method, request.url.path, query, headers, request.content)
            if isinstance(outcome, _Timeout):
                raise httpx.ReadTimeout("FakeLLM: scripted timeout", request=request)
            if outcome.status == 500 and outcome.headers.get("X-FakeLLM-Violation"):
                raise AssertionError(self.errors[-1])
            return httpx.Response(outcome.status, headers=dict(outcome.headers), content=outcome.body)

        return httpx.MockTransport(handler)

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """Run a real HTTP server on ``127.0.0.1:0`` in a thread; yield ``http://127.0.0.1:PORT/v1``."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 10  # an idle connection never holds shutdown for long

            def setup(self) -> None:
                with fake._lock:
                    fake.connections += 1
                super().setup()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                target = urlsplit(self.path)
                query = dict(parse_qsl(target.query))
                outcome = fake._handle(self.command, target.path, query, headers, raw)
                if isinstance(outcome, _Timeout):
                    fake._release.wait(outcome.delay)
                    self.close_connection = True
                    return
                self.send_response(outcome.status)
                for name, value in outcome.headers.items():
                    if name != "X-FakeLLM-Violation":
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(outcome.body)))
                if not fake.keep_alive:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(outcome.body)
                self.close_connection = not fake.keep_alive

            do_POST = do_GET = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # the suite stays quiet; requests are recorded instead

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = False
        server.block_on_close = True
        self._release.clear()
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        port = server.server_address[1]
        failed = False
        try:
            yield f"http://127.0.0.1:{port}/v1"
        except BaseException:
            failed = True
            raise
        finally:
            self._release.set()
            server.shutdown()
            server.server_close()
            thread.join()
            if not failed and self.errors:
                raise AssertionError("FakeLLM saw bad requests:\n- " + "\n- ".join(self.errors))

    # ---------------------------------------------------------------- core
    def _handle(
        self, method: str, path: str, query: Mapping[str, str], headers: dict[str, str], raw: bytes
    ) -> _Reply | _Timeout:
        try:
            body: Any = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = raw.decode("utf-8", "replace")
        with self._lock:
            if path.endswith("/embeddings") and method == "POST":
                return self._embeddings(headers, body)
            metadata = None if path.endswith("/chat/completions") else self.mode.metadata(method, path, body)
            if metadata is not None:
                self.metadata_requests.append(RecordedRequest(method, path, headers, body))
                return _json_reply(*metadata)
            self.recorded.append(RecordedRequest(method, path, headers, body))
            problems = _check_request(method, path, headers, body, self.expect_tool_choice, self.mode)
            if not problems:
                refusal = self.mode.reject(path, query, headers, body)
                if refusal is not None:  # the server's own answer, not a violation
                    return _json_reply(*refusal)
            if not problems and self.on_request is not None:
                try:
                    self.on_request(body)
                except AssertionError as exc:
                    problems = [f"on_request: {exc}"]
            if not problems and not self._queue:
                problems = ["request received but no reply is queued (enqueue one more)"]
            if problems:
                n = len(self.recorded)
                message = f"FakeLLM request #{n} to {path}: " + "; ".join(problems)
                self.errors.append(message)
                payload = {"error": {"message": message, "type": "fakellm_violation"}}
                return _Reply(
                    500,
                    json.dumps(payload).encode("utf-8"),
                    {"Content-Type": "application/json", "X-FakeLLM-Violation": "1"},
                )
            item = self._queue.popleft()
            if isinstance(item, _PendingMessage):
                return _Reply(200, self._render(item, body), {"Content-Type": "application/json"})
            return item

    def _render(self, item: _PendingMessage, request: dict[str, Any]) -> bytes:
        reply = self.mode.render(self._render_openai(item, request), request)
        return json.dumps(reply, ensure_ascii=False).encode("utf-8")

    def _render_openai(self, item: _PendingMessage, request: dict[str, Any]) -> dict[str, Any]:
        n = next(self._ids)
        message: dict[str, Any] = {"role": "assistant", "content": item.content}
        if item.calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{n}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                for i, (name, arguments) in enumerate(item.calls)
            ]
        reply: dict[str, Any] = {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": CREATED,
            "model": request.get("model", "fake"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": item.finish_reason, "logprobs": None}
            ],
        }
        if item.usage is not False:
            reply["usage"] = dict(item.usage) if item.usage else _default_usage(request, message)
        return reply


def _json_reply(status: int, body: Any) -> _Reply:
    return _Reply(status, json.dumps(body).encode("utf-8"), {"Content-Type": "application/json"})


def _default_usage(request: dict[str, Any], message: dict[str, Any]) -> dict[str, int]:
    """A deterministic stand-in for real counts: about 4 bytes per token of the JSON of the
    messages and the tools (servers count the tool definitions as prompt tokens)."""
    sent = [request.get("messages", []), request.get("tools") or []]
    prompt = len(json.dumps(sent, ensure_ascii=False).encode()) // 4 + 1
    completion = len(json.dumps(message, ensure_ascii=False).encode()) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


# ---------------------------------------------------------------- strict checks
def _check_request(
    method: str, path: str, headers: Mapping[str, str], body: Any, expect_tool_choice: Any,
    mode: Mode,
) -> list[str]:
    problems: list[str] = []
    if method != "POST":
        problems.append(f"method {method}, expected POST")
    if not path.endswith("/chat/completions") or "//" in path:
        problems.append(f"path {path!r}, expected <base>/chat/completions")
    if "application/json" not in headers.get("content-type", ""):
        problems.append(f"content-type {headers.get('content-type')!r}, expected application/json")
    if not isinstance(body, dict):
        problems.append("body is not a JSON object")
        return problems
    for key, value in body.items():
        if key not in KNOWN_FIELDS | mode.extra_fields:
            problems.append(f"unknown request field {key!r}")
        elif value is None:
            problems.append(f"field {key!r} is null; omit it instead")
    if not isinstance(body.get("model"), str) or not body.get("model"):
        problems.append("'model' must be a non-empty string")
    if body.get("stream"):
        problems.append("streaming is not supported by FakeLLM")
    problems.extend(_check_messages(body.get("messages"), MESSAGE_FIELDS | mode.message_fields))
    tool_names = _check_tools(body.get("tools"), problems)
    if "tool_choice" in body:
        problems.extend(_check_tool_choice(body["tool_choice"], tool_names))
    if expect_tool_choice is not None and body.get("tool_choice") != expect_tool_choice:
        problems.append(
            f"tool_choice {body.get('tool_choice')!r}, expected {expect_tool_choice!r}"
        )
    return problems


def _check_messages(messages: Any, allowed: frozenset[str]) -> list[str]:
    if not isinstance(messages, list) or not messages:
        return ["'messages' must be a non-empty list"]
    problems: list[str] = []
    open_calls: set[str] = set()
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, dict):
            problems.append(f"{where} is not an object")
            continue
        role = msg.get("role")
        if role not in VALID_ROLES:
            problems.append(f"{where} has role {role!r}")
            continue
        extra = sorted(set(msg) - allowed)
        if extra:
            problems.append(f"{where} has non-OpenAI fields {extra} (strip them before sending)")
        content = msg.get("content")
        if not (content is None or isinstance(content, (str, list))):
            problems.append(f"{where}.content must be a string, a list of parts or null")
        if isinstance(content, list) and not all(
            isinstance(p, dict) and isinstance(p.get("type"), str) for p in content
        ):
            problems.append(f"{where}.content parts need a 'type'")
        if role == "assistant" and msg.get("tool_calls") is not None:
            calls = msg["tool_calls"]
            if not isinstance(calls, list) or not calls:
                problems.append(f"{where}.tool_calls must be a non-empty list")
                continue
            for j, call in enumerate(calls):
                fn = call.get("function") if isinstance(call, dict) else None
                if (
                    not isinstance(call, dict)
                    or not isinstance(call.get("id"), str)
                    or call.get("type") != "function"
                    or not isinstance(fn, dict)
                    or not isinstance(fn.get("name"), str)
                    or not isinstance(fn.get("arguments"), str)
                ):
                    problems.append(
                        f"{where}.tool_calls[{j}] must be {{id, type: function, "
                        "function: {name, arguments: str}}"
                    )
                    continue
                open_calls.add(call["id"])
        elif role == "assistant" and content is None:
            problems.append(f"{where}: assistant message without content or tool_calls")
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if call_id not in open_calls:
                problems.append(
                    f"{where}: tool_call_id {call_id!r} answers no earlier assistant tool call"
                )
            if not isinstance(content, str):
                problems.append(f"{where}: tool result content must be a string")
        elif role in ("user", "system", "developer") and content is None:
            problems.append(f"{where}: {role} message has no content")
    return problems


def _check_tools(tools: Any, problems: list[str]) -> set[str]:
    names: set[str] = set()
    if tools is None:
        return names
    if not isinstance(tools, list) or not tools:
        problems.append("'tools' must be a non-empty list when present")
        return names
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
            problems.append(f"tools[{i}] must be {{type: function, function: {{...}}}}")
            continue
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            problems.append(f"tools[{i}].function.name must be a non-empty string")
            continue
        params = fn.get("parameters")
        if params is not None and (not isinstance(params, dict) or params.get("type") != "object"):
            problems.append(f"tools[{i}] ({name}): parameters must be a JSON schema object")
        names.add(name)
    return names


def _check_tool_choice(choice: Any, tool_names: set[str]) -> list[str]:
    if choice in ("auto", "none", "required"):
        return [] if tool_names or choice == "none" else [f"tool_choice {choice!r} without tools"]
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name")
        if name in tool_names:
            return []
        return [f"tool_choice names {name!r}, which is not among the tools"]
    return [f"tool_choice {choice!r} is not auto/none/required/{{type: function, ...}}"]
