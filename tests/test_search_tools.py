"""Search through the faces: agent tools (round trip through FakeLLM), `nanomem search`, `/recall`."""

from __future__ import annotations

import asyncio
import io
import json
from datetime import datetime
from pathlib import Path

import jsonschema
import pytest

from nanomem.cli import main
from nanomem.engines.chat import ChatRequest
from nanomem.engines.openai import OpenAIProvider
from nanomem.memory import Memory
from tests.fakellm import FakeLLM


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


@pytest.fixture
def mem(workspace: Path) -> Memory:
    memory = Memory(workspace, clock=_clock)
    memory.archive.append_messages(
        [{"role": "user", "name": "Caroline", "timestamp": "2026-05-08T14:03:00",
          "content": "I went to an LGBTQ support group yesterday."},
         {"role": "assistant", "timestamp": "2026-05-08T14:04:00", "content": "How was it?"}],
        session_key="cli", start=0, chunk="c")
    yield memory
    memory.close()


def test_agent_tools_are_valid_openai_function_definitions(mem: Memory) -> None:
    tools = mem.agent_tools()

    assert [t["function"]["name"] for t in tools] == ["memory_search", "memory_remember"]
    for tool in tools:
        assert tool["type"] == "function"
        jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])


def test_agent_tool_round_trip_through_fakellm(mem: Memory) -> None:
    fake = FakeLLM()
    fake.enqueue_tool_calls([("memory_search", {"query": "support group", "k": 3})])
    fake.enqueue_text("Caroline went on 2026-05-07.")
    model = OpenAIProvider(fake.base_url, None, "test-model", transport=fake.transport())
    messages: list[dict[str, object]] = [
        {"role": "user", "content": "When did Caroline go to the support group?"}]

    async def loop() -> str | None:
        for _ in range(3):
            reply = await model.complete(ChatRequest(messages=tuple(messages), tools=tuple(mem.agent_tools())))
            if not reply.tool_calls:
                return reply.content
            messages.append(reply.assistant_message())
            for call in reply.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": mem.call_agent_tool(call.name, call.arguments)})
        return None

    answer = asyncio.run(loop())

    assert answer == "Caroline went on 2026-05-07."
    fake.assert_all_consumed()
    assert fake.requests[0]["tools"][0]["function"]["name"] == "memory_search"
    result = json.loads(fake.requests[1]["messages"][-1]["content"])
    assert result["hits"][0] == {
        "id": result["hits"][0]["id"], "source": "archive", "when": "2026-05-08 14:03",
        "speaker": "Caroline (user)", "text": "I went to an LGBTQ support group yesterday."}


@pytest.mark.parametrize(
    ("name", "arguments", "reason"),
    [
        ("memory_search", "{not json", "not valid JSON"),
        ("memory_search", {"k": 3}, "'query' is a required property"),
        ("memory_search", {"query": "x", "k": 99}, "99 is greater than the maximum of 20"),
        ("memory_search", {"query": "x", "since": "May 1"}, "since"),
        ("memory_search", {"query": "x", "sources": ["notes"]}, "'notes' is not one of"),
        ("memory_search", {"query": "x", "extra": 1}, "Additional properties"),
        ("memory_search", [1, 2], "must be a JSON object"),
        ("memory_delete", {}, "unknown tool 'memory_delete'"),
    ],
)
def test_call_agent_tool_gives_a_clear_error_for_bad_calls(
    mem: Memory, name: str, arguments: object, reason: str
) -> None:
    result = json.loads(mem.call_agent_tool(name, arguments))  # type: ignore[arg-type]

    assert set(result) == {"error"} and reason in result["error"]


def test_cli_search_prints_hits_and_json(mem: Memory) -> None:
    root = str(mem.workspace.root)
    out, err = io.StringIO(), io.StringIO()

    code = main(["-w", root, "search", "support group", "-k", "1"], stdout=out, stderr=err)
    json_out = io.StringIO()
    json_code = main(["-w", root, "search", "support", "--json"], stdout=json_out, stderr=err)

    assert code == 0 and json_code == 0
    assert "[2026-05-08 14:03] Caroline (user): I went to an LGBTQ support group yesterday." in out.getvalue()
    data = json.loads(json_out.getvalue())
    assert data[0]["source"] == "archive" and data[0]["timestamp"] == "2026-05-08 14:03"
    assert {"id", "source", "path", "cursor", "session_key", "role", "name", "timestamp",
            "text", "score"} <= set(data[0])


def test_cli_search_bad_arguments_exit_2(mem: Memory) -> None:
    err = io.StringIO()

    code = main(["-w", str(mem.workspace.root), "search", "x", "--since", "yesterday"],
                stdout=io.StringIO(), stderr=err)

    assert code == 2 and "is not a date" in err.getvalue()


def test_recall_command_replies_with_dated_speakers(mem: Memory) -> None:
    reply = mem.handle_command("/recall support group")
    nothing = mem.handle_command("/recall xylophone")
    usage = mem.handle_command("/recall")

    assert reply is not None and "- [2026-05-08 14:03] Caroline (user): I went to an LGBTQ" in reply
    assert nothing is not None and "Nothing found" in nothing
    assert usage is not None and "`/recall QUERY`" in usage
