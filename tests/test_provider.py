"""OpenAIProvider through FakeLLM, over both transports: in-process and a real HTTP server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from nanomem.engines.chat import ChatRequest, Usage
from nanomem.config import load_config
from nanomem.errors import ConfigError, ProviderError
from nanomem.engines.notes import read_provider_notes
from nanomem.engines.openai import OpenAIProvider
from nanomem.engines.registry import make_engine
from nanomem.engines.refusals import refused_field
from nanomem.engines.wire import build_request_body, parse_response, parse_retry_after
from nanomem.store.workspace import Workspace
from tests.fakellm import FakeLLM, tool_choice_refusal

KEY = "sk-test-Zq9SECRETkey0123456789abcdef"
FINISH = {
    "type": "function",
    "function": {
        "name": "finish",
        "description": "end the run",
        "parameters": {"type": "object", "properties": {"status": {"type": "string"}}},
    },
}
REQUEST = ChatRequest(
    messages=(
        {"role": "system", "content": "You archive."},
        {"role": "user", "content": "I live in Lyon.", "timestamp": "2026-01-01 10:00"},
    ),
    tools=(FINISH,),
    tool_choice="required",
    max_tokens=256,
    temperature=0.0,
    task={"never": "sent"},
)


@dataclass
class Endpoint:
    fake: FakeLLM
    url: str
    transport: httpx.AsyncBaseTransport | None
    mode: str


@pytest.fixture(params=["mock", pytest.param("server", marks=pytest.mark.slow)])
def endpoint(request: pytest.FixtureRequest) -> Iterator[Endpoint]:
    fake = FakeLLM()
    if request.param == "mock":
        yield Endpoint(fake, fake.base_url, fake.transport(), "mock")
    else:
        with fake.serve() as url:
            yield Endpoint(fake, url, None, "server")


class SleepRecorder:
    """Stands in for asyncio.sleep: records the requested delays, waits for nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def _provider(ep: Endpoint, sleep: SleepRecorder, **kwargs: object) -> OpenAIProvider:
    options: dict = {"timeout": 5.0, "max_retries": 3, "transport": ep.transport, "sleep": sleep}
    options.update(kwargs)
    api_key = options.pop("api_key", KEY)
    return OpenAIProvider(ep.url, api_key, "test-model", **options)  # type: ignore[arg-type]


def test_provider_sends_tools_and_parses_tool_calls_and_usage(endpoint: Endpoint) -> None:
    usage = {"prompt_tokens": 41, "completion_tokens": 9, "total_tokens": 50}
    endpoint.fake.enqueue_tool_calls([("finish", {"status": "updated"})], usage=usage)
    provider = _provider(endpoint, SleepRecorder())
    reply = asyncio.run(provider.complete(REQUEST))
    assert [c.name for c in reply.tool_calls] == ["finish"]
    assert json.loads(reply.tool_calls[0].arguments) == {"status": "updated"}
    assert reply.finish_reason == "tool_calls"
    assert reply.usage == Usage(41, 9, 50)
    assert provider.last_prompt_tokens == 41
    body = endpoint.fake.requests[0]
    assert body["model"] == "test-model"
    assert body["tools"] == [FINISH]
    assert body["tool_choice"] == "required"
    assert (body["max_tokens"], body["temperature"]) == (256, 0.0)
    assert body["messages"][1] == {"role": "user", "content": "I live in Lyon."}
    assert "task" not in body
    endpoint.fake.assert_all_consumed()


def test_provider_honours_retry_after_on_429(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_error(429, headers={"Retry-After": "7"})
    endpoint.fake.enqueue_text("ok")
    sleep = SleepRecorder()
    reply = asyncio.run(_provider(endpoint, sleep).complete(REQUEST))
    assert reply.content == "ok"
    assert sleep.delays == [7.0]
    assert len(endpoint.fake.requests) == 2


def test_provider_caps_a_huge_retry_after(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_error(429, headers={"Retry-After": "86400"})
    endpoint.fake.enqueue_text("ok")
    sleep = SleepRecorder()
    asyncio.run(_provider(endpoint, sleep).complete(REQUEST))
    assert sleep.delays == [60.0]


def test_provider_backs_off_exponentially_on_500s_then_succeeds(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_error(500)
    endpoint.fake.enqueue_error(502, body="Bad Gateway")
    endpoint.fake.enqueue_text("third time")
    sleep = SleepRecorder()
    reply = asyncio.run(_provider(endpoint, sleep).complete(REQUEST))
    assert reply.content == "third time"
    assert sleep.delays == [0.5, 1.0]
    assert len(endpoint.fake.requests) == 3


def test_provider_raises_after_exhausting_retries_on_5xx(endpoint: Endpoint) -> None:
    for _ in range(3):
        endpoint.fake.enqueue_error(503, {"error": {"message": "overloaded"}})
    sleep = SleepRecorder()
    with pytest.raises(ProviderError) as info:
        asyncio.run(_provider(endpoint, sleep, max_retries=2).complete(REQUEST))
    message = str(info.value)
    assert "HTTP 503" in message and "overloaded" in message and "after 3 attempts" in message
    assert f"{endpoint.url}/chat/completions" in message
    assert len(endpoint.fake.requests) == 3
    endpoint.fake.assert_all_consumed()


def test_provider_falls_back_from_refused_tool_choice_and_remembers_it(
    endpoint: Endpoint, workspace: Path
) -> None:
    notes = Workspace(workspace).provider_notes
    endpoint.fake.enqueue_error(400, tool_choice_refusal())
    endpoint.fake.enqueue_text("first")
    endpoint.fake.enqueue_text("second")
    provider = _provider(endpoint, SleepRecorder(), notes_path=notes)
    assert asyncio.run(provider.complete(REQUEST)).content == "first"
    # a fresh provider (a later process) reads the note and sends the fallback at once
    later = _provider(endpoint, SleepRecorder(), notes_path=notes)
    assert asyncio.run(later.complete(REQUEST)).content == "second"
    named = {"type": "function", "function": {"name": "finish"}}
    sent = [body.get("tool_choice") for body in endpoint.fake.requests]
    assert sent == ["required", named, named]  # one tool: "required" falls back to naming it
    assert all(body["tools"] == [FINISH] for body in endpoint.fake.requests)
    recorded = read_provider_notes(Workspace(workspace))
    step = recorded[endpoint.url]["models"]["test-model"]["fallbacks"]["tool_choice=required"]
    assert step["step"] == "set:named" and "tool_choice" in step["reason"]
    assert later.fallback_steps == {"tool_choice=required": "set:named"}


def test_provider_omits_tool_choice_after_every_fallback_is_refused(endpoint: Endpoint) -> None:
    for _ in range(2):
        endpoint.fake.enqueue_error(400, tool_choice_refusal())
    endpoint.fake.enqueue_text("done")
    two_tools = dataclasses.replace(REQUEST, tools=(FINISH, {**FINISH, "function": {
        **FINISH["function"], "name": "other"}}))
    assert asyncio.run(_provider(endpoint, SleepRecorder()).complete(two_tools)).content == "done"
    sent = [body.get("tool_choice", "<omitted>") for body in endpoint.fake.requests]
    assert sent == ["required", "auto", "<omitted>"]


def test_provider_reads_notes_of_the_old_shape(endpoint: Endpoint, workspace: Path) -> None:
    notes = Workspace(workspace).provider_notes
    notes.write_text(json.dumps({endpoint.url: {"refused": {"tool_choice": "no"}}}), encoding="utf-8")
    endpoint.fake.enqueue_text("ok")
    asyncio.run(_provider(endpoint, SleepRecorder(), notes_path=notes).complete(REQUEST))
    assert "tool_choice" not in endpoint.fake.requests[0]


def test_provider_raises_on_a_400_that_names_no_optional_field(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_error(400, {"error": {"message": "maximum context length is 4096"}})
    with pytest.raises(ProviderError, match="HTTP 400 .*maximum context length"):
        asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))
    assert len(endpoint.fake.requests) == 1


def test_provider_retries_timeouts_then_raises(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_timeout(delay=3.0)
    endpoint.fake.enqueue_timeout(delay=3.0)
    sleep = SleepRecorder()
    provider = _provider(endpoint, sleep, timeout=0.2, max_retries=1)
    with pytest.raises(ProviderError, match="timed out .*after 2 attempts") as info:
        asyncio.run(provider.complete(REQUEST))
    assert isinstance(info.value.__cause__, httpx.TimeoutException)
    assert sleep.delays == [0.5]
    endpoint.fake.assert_all_consumed()


def test_provider_recovers_from_one_timeout(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_timeout(delay=3.0)
    endpoint.fake.enqueue_text("back")
    reply = asyncio.run(_provider(endpoint, SleepRecorder(), timeout=0.2).complete(REQUEST))
    assert reply.content == "back"


def test_provider_sends_bearer_key_only_when_set(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_text("a")
    endpoint.fake.enqueue_text("b")
    asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))
    asyncio.run(_provider(endpoint, SleepRecorder(), api_key=None).complete(REQUEST))
    assert endpoint.fake.headers[0]["authorization"] == f"Bearer {KEY}"
    assert "authorization" not in endpoint.fake.headers[1]


def test_provider_never_puts_the_key_in_errors_or_logs(
    endpoint: Endpoint, caplog: pytest.LogCaptureFixture
) -> None:
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}. Bearer {KEY}"}}
    endpoint.fake.enqueue_error(500, echo)
    endpoint.fake.enqueue_error(401, echo)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ProviderError) as info:
        asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))
    assert "HTTP 401" in str(info.value) and "API key" in str(info.value)
    assert KEY not in str(info.value)
    assert caplog.records, "the retry was logged"
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert KEY not in repr(_provider(endpoint, SleepRecorder()))


@pytest.mark.slow
def test_provider_never_puts_the_key_in_connection_errors(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    caplog.set_level(logging.DEBUG)
    sleep = SleepRecorder()
    provider = OpenAIProvider(f"http://127.0.0.1:{port}/v1", KEY, "m", max_retries=1, sleep=sleep)
    with pytest.raises(ProviderError, match=f"127.0.0.1:{port}.*failed .*server is running"):
        asyncio.run(provider.complete(REQUEST))
    assert sleep.delays == [0.5]
    assert all(KEY not in r.getMessage() for r in caplog.records)


def test_provider_normalises_ollama_object_arguments(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_response(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "qwen2.5:7b",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {"id": "call_x", "function": {"name": "finish", "arguments": {"status": "updated"}}}
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        }
    )
    reply = asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))
    assert json.loads(reply.tool_calls[0].arguments) == {"status": "updated"}
    assert reply.usage is None


def test_provider_reports_a_non_json_reply(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_response("<html>login</html>", headers={"Content-Type": "text/html"})
    with pytest.raises(ProviderError, match="not JSON .*base_url"):
        asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))


def test_provider_gives_base_url_advice_on_404_without_retrying(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_error(404, {"error": {"message": "model 'test-model' not found"}})
    sleep = SleepRecorder()
    with pytest.raises(ProviderError, match="HTTP 404 .*ends in /v1"):
        asyncio.run(_provider(endpoint, sleep).complete(REQUEST))
    assert sleep.delays == []


def test_provider_scrubs_the_key_from_an_error_body_sent_with_200(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_response({"error": {"message": f"key {KEY} has no quota"}})
    with pytest.raises(ProviderError, match="no completion .*has no quota") as info:
        asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))
    assert KEY not in str(info.value)


def test_provider_names_the_target_of_a_redirect(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_response("", status=308, headers={"Location": "https://h/v1/chat/completions"})
    with pytest.raises(ProviderError, match="HTTP 308 redirect to https://h/v1/chat/completions"):
        asyncio.run(_provider(endpoint, SleepRecorder()).complete(REQUEST))


def test_provider_shares_one_client_inside_async_with(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_text("one")
    endpoint.fake.enqueue_text("two")

    async def run() -> list[str | None]:
        async with _provider(endpoint, SleepRecorder()) as provider:
            first = await provider.complete(REQUEST)
            second = await provider.complete(REQUEST)
        return [first.content, second.content]

    assert asyncio.run(run()) == ["one", "two"]


def test_provider_is_reusable_across_event_loops(endpoint: Endpoint) -> None:
    endpoint.fake.enqueue_text("one")
    endpoint.fake.enqueue_text("two")
    provider = _provider(endpoint, SleepRecorder())
    assert asyncio.run(provider.complete(REQUEST)).content == "one"
    assert asyncio.run(provider.complete(REQUEST)).content == "two"


# --------------------------------------------------------------------------- pure parts
def test_build_request_body_omits_none_fields_and_lone_tool_choice() -> None:
    request = ChatRequest(messages=({"role": "user", "content": "x"},), tool_choice="required")
    assert build_request_body(request, model="m") == {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
    }


def test_parse_response_tolerates_null_content_parts_and_legacy_function_call() -> None:
    reply = parse_response(
        {
            "choices": [
                {
                    "message": {
                        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                        "function_call": {"name": "finish", "arguments": None},
                    }
                }
            ],
            "usage": {"prompt_tokens": 3},
        }
    )
    assert reply.content == "ab"
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("finish", "{}")]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", reply.tool_calls[0].id)  # Mistral's rule
    assert reply.finish_reason is None
    assert reply.usage == Usage(3, 0, 3)


def test_parse_response_replaces_lone_surrogates_the_reply_escapes() -> None:
    """JSON may escape half of a UTF-16 pair (``"\\ud800"``); Python decodes it to a character
    no UTF-8 request, file or audit line can hold, which crashed the next request of the run."""
    reply = parse_response({"choices": [{"message": {
        "content": "a\ud800b",
        "tool_calls": [
            {"id": "c1", "function": {"name": "f", "arguments": r'{"x": "\udcff!", "ok": "\ud83d\ude00"}'}},
            {"id": "c2", "function": {"name": "g", "arguments": {"y": "\udfff"}}},
            {"id": "c3", "function": {"name": "h", "arguments": r'not json \ud800'}},
        ]}}]})
    assert reply.content == "a\ufffdb"
    first, second, third = (c.arguments for c in reply.tool_calls)
    assert json.loads(first) == {"x": "\ufffd!", "ok": "\U0001f600"}  # a whole pair is kept
    assert json.loads(second) == {"y": "\ufffd"}
    assert third == r'not json \ud800'  # refused later as not JSON, as it came
    for text in (reply.content, first, second):
        text.encode("utf-8")


def test_parse_response_raises_on_an_error_body_sent_with_200() -> None:
    with pytest.raises(ProviderError, match="no completion .*rate limit reached"):
        parse_response({"error": {"message": "rate limit reached", "code": 429}})


def test_parse_retry_after_reads_ms_and_ignores_garbage() -> None:
    assert parse_retry_after({"retry-after-ms": "1500"}, now=0.0) == 1.5
    assert parse_retry_after({"Retry-After": "soon"}, now=0.0) is None
    assert parse_retry_after({}, now=0.0) is None


@pytest.mark.parametrize(
    ("body", "sent", "expected"),
    [
        (tool_choice_refusal(), {"tool_choice": "auto"}, "tool_choice"),
        (tool_choice_refusal("temperature"), {"temperature": 0.0}, "temperature"),
        ({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this "
                               "model. Use 'max_completion_tokens' instead."}},
         {"max_tokens": 9, "tool_choice": "auto"}, "max_tokens"),
        ({"message": "Invalid request"}, {"tool_choice": "required"}, "tool_choice"),
        ({"message": "Invalid request"}, {"tool_choice": "auto"}, None),
        ({"error": {"message": '"auto" tool choice requires --enable-auto-tool-choice'}},
         {"tool_choice": "auto"}, "tool_choice"),
        (tool_choice_refusal(), {}, None),
        ({"detail": [{"loc": ["body", "messages"], "msg": "bad", "input": {"tool_choice": "auto"}}]},
         {"tool_choice": "auto"}, None),
    ],
)
def test_refused_field_names_only_a_sent_field_from_the_error_itself(
    body: dict, sent: dict, expected: str | None
) -> None:
    assert refused_field(400, body, sent) == expected


def test_read_provider_notes_is_empty_for_missing_or_garbage_file(workspace: Path) -> None:
    ws = Workspace(workspace)
    assert read_provider_notes(ws) == {}
    ws.provider_notes.write_text("{not json", encoding="utf-8")
    assert read_provider_notes(workspace) == {}


def test_make_engine_builds_the_http_provider_from_config(workspace: Path) -> None:
    config = load_config(
        workspace,
        environ={"NANOMEM_PROVIDER": "openai", "NANOMEM_BASE_URL": "http://h:1/v1/",
                 "NANOMEM_API_KEY": KEY, "NANOMEM_MODEL": "m"},
    )
    engine = make_engine(config, workspace)
    assert isinstance(engine, OpenAIProvider)
    assert (engine.url, engine.model) == ("http://h:1/v1/chat/completions", "m")


def test_make_engine_refuses_openai_without_a_model(workspace: Path) -> None:
    config = load_config(workspace, overrides={"provider": "openai", "base_url": "http://h/v1"})
    with pytest.raises(ConfigError, match="needs a model name"):
        make_engine(config, workspace)


def test_make_engine_returns_the_offline_engine_by_default(workspace: Path) -> None:
    offline = pytest.importorskip("nanomem.engines.offline.engine")
    engine = make_engine(load_config(workspace), workspace)
    assert isinstance(engine, offline.OfflineEngine)


def test_wire_docstring_examples_hold() -> None:
    import doctest

    import nanomem.engines.wire

    result = doctest.testmod(nanomem.engines.wire)
    assert result.attempted > 5 and result.failed == 0
