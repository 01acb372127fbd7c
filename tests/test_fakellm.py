"""The FakeLLM double itself: replies are real OpenAI JSON, and bad requests fail loudly."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.fakellm import FakeLLM, tool_choice_refusal

USER = [{"role": "user", "content": "hi"}]
TOOL = {
    "type": "function",
    "function": {"name": "finish", "parameters": {"type": "object", "properties": {}}},
}


def _post(fake: FakeLLM, body: object, *, base_url: str | None = None) -> httpx.Response:
    """Send one request through the transport, or to a served base URL."""
    if base_url is None:
        with httpx.Client(transport=fake.transport(), base_url=fake.base_url) as client:
            return client.post("/chat/completions", json=body)
    with httpx.Client(base_url=base_url, timeout=5) as client:
        return client.post("/chat/completions", json=body)


def test_fakellm_text_reply_is_openai_chat_completion_json() -> None:
    fake = FakeLLM()
    fake.enqueue_text("hello", usage={"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8})
    reply = _post(fake, {"model": "m", "messages": USER}).json()
    assert reply["object"] == "chat.completion"
    assert reply["model"] == "m"
    assert reply["choices"][0]["message"] == {"role": "assistant", "content": "hello"}
    assert reply["choices"][0]["finish_reason"] == "stop"
    assert reply["usage"] == {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}
    fake.assert_all_consumed()


def test_fakellm_tool_calls_encode_dict_arguments_and_keep_raw_strings() -> None:
    fake = FakeLLM()
    fake.enqueue_tool_calls([("finish", {"status": "updated"}), ("finish", "{not json")])
    reply = _post(fake, {"model": "m", "messages": USER, "tools": [TOOL]}).json()
    calls = reply["choices"][0]["message"]["tool_calls"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"status": "updated"}
    assert calls[1]["function"]["arguments"] == "{not json"
    assert calls[0]["id"] != calls[1]["id"]
    assert calls[0]["type"] == "function"
    assert reply["choices"][0]["finish_reason"] == "tool_calls"
    assert reply["choices"][0]["message"]["content"] is None


def test_fakellm_usage_is_omitted_when_false() -> None:
    fake = FakeLLM()
    fake.enqueue_text("x", usage=False)
    assert "usage" not in _post(fake, {"model": "m", "messages": USER}).json()


def test_fakellm_records_bodies_and_headers() -> None:
    fake = FakeLLM()
    fake.enqueue_text("x")
    with httpx.Client(transport=fake.transport(), base_url=fake.base_url) as client:
        client.post("/chat/completions", json={"model": "m", "messages": USER}, headers={"X-A": "1"})
    assert fake.requests == [{"model": "m", "messages": USER}]
    assert fake.headers[0]["x-a"] == "1"


def test_fakellm_error_reply_carries_status_body_and_headers() -> None:
    fake = FakeLLM()
    fake.enqueue_error(429, headers={"Retry-After": "3"})
    fake.enqueue_error(400, tool_choice_refusal())
    first = _post(fake, {"model": "m", "messages": USER})
    second = _post(fake, {"model": "m", "messages": USER})
    assert (first.status_code, first.headers["retry-after"]) == (429, "3")
    assert second.status_code == 400
    assert second.json()["error"]["param"] == "tool_choice"


def test_fakellm_timeout_raises_read_timeout_through_transport() -> None:
    fake = FakeLLM()
    fake.enqueue_timeout()
    with pytest.raises(httpx.ReadTimeout):
        _post(fake, {"model": "m", "messages": USER})
    fake.assert_all_consumed()


def test_fakellm_empty_queue_fails_loudly_through_transport() -> None:
    fake = FakeLLM()
    with pytest.raises(AssertionError, match="no reply is queued"):
        _post(fake, {"model": "m", "messages": USER})
    with pytest.raises(AssertionError, match="no reply is queued"):
        fake.assert_all_consumed()


def test_fakellm_assert_all_consumed_fails_when_replies_are_left() -> None:
    fake = FakeLLM()
    fake.enqueue_text("never asked for")
    with pytest.raises(AssertionError, match="1 scripted replies never requested"):
        fake.assert_all_consumed()


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"messages": USER}, "'model' must be"),
        ({"model": "m", "messages": []}, "'messages' must be a non-empty list"),
        ({"model": "m", "messages": [{"role": "robot", "content": "x"}]}, "role 'robot'"),
        (
            {"model": "m", "messages": [*USER, {"role": "tool", "tool_call_id": "c9", "content": "r"}]},
            "answers no earlier assistant tool call",
        ),
        ({"model": "m", "messages": USER, "temperature": None}, "'temperature' is null"),
        (
            {"model": "m", "messages": [{"role": "user", "content": "x", "timestamp": "t"}]},
            "non-OpenAI fields ['timestamp']",
        ),
        ({"model": "m", "messages": USER, "task": {"x": 1}}, "unknown request field 'task'"),
        ({"model": "m", "messages": USER, "tools": [{"type": "function"}]}, "tools[0]"),
        ({"model": "m", "messages": USER, "tool_choice": "required"}, "without tools"),
        (
            {
                "model": "m",
                "messages": USER,
                "tools": [TOOL],
                "tool_choice": {"type": "function", "function": {"name": "nope"}},
            },
            "not among the tools",
        ),
    ],
)
def test_fakellm_rejects_malformed_request(body: dict, fragment: str) -> None:
    fake = FakeLLM()
    fake.enqueue_text("unused")
    with pytest.raises(AssertionError) as info:
        _post(fake, body)
    assert fragment in str(info.value)
    assert fake.pending == 1  # a bad request consumes no scripted reply


def test_fakellm_accepts_tool_result_answering_earlier_call() -> None:
    fake = FakeLLM()
    fake.enqueue_text("ok")
    call = {"id": "c1", "type": "function", "function": {"name": "finish", "arguments": "{}"}}
    messages = [
        *USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    assert _post(fake, {"model": "m", "messages": messages, "tools": [TOOL]}).status_code == 200
    fake.assert_all_consumed()


def test_fakellm_expect_tool_choice_flags_a_missing_field() -> None:
    fake = FakeLLM(expect_tool_choice="required")
    fake.enqueue_text("unused")
    with pytest.raises(AssertionError, match="expected 'required'"):
        _post(fake, {"model": "m", "messages": USER, "tools": [TOOL]})


@pytest.mark.slow
def test_fakellm_serve_answers_over_real_http() -> None:
    fake = FakeLLM()
    fake.enqueue_text("over the wire")
    with fake.serve() as base_url:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        reply = _post(fake, {"model": "m", "messages": USER}, base_url=base_url)
    assert reply.json()["choices"][0]["message"]["content"] == "over the wire"
    assert fake.recorded[0].path == "/v1/chat/completions"


@pytest.mark.slow
def test_fakellm_serve_answers_500_and_raises_on_exit_when_queue_is_empty() -> None:
    fake = FakeLLM()
    with pytest.raises(AssertionError, match="no reply is queued"):
        with fake.serve() as base_url:
            reply = _post(fake, {"model": "m", "messages": USER}, base_url=base_url)
            assert reply.status_code == 500
            assert "FakeLLM" in reply.json()["error"]["message"]


@pytest.mark.slow
def test_fakellm_serve_timeout_closes_without_answer() -> None:
    fake = FakeLLM()
    fake.enqueue_timeout(delay=2.0)
    with fake.serve() as base_url:
        with httpx.Client(base_url=base_url, timeout=0.2) as client:
            with pytest.raises(httpx.ReadTimeout):
                client.post("/chat/completions", json={"model": "m", "messages": USER})
    fake.assert_all_consumed()
