"""The Consolidator: planning (pure), reply checks (pure), and full runs through FakeLLM over
both transports (httpx.MockTransport and a real server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall
from nanomem.config import Config
from nanomem.consolidate.budget import fixed_tokens, message_tokens, plan_consolidation
from nanomem.consolidate.request import (
    ARCHIVE_SCHEMA,
    ARCHIVE_TOOL,
    check_archive_reply,
    render_raw_entries,
    render_summary_entries,
)
from nanomem.consolidate.run import consolidate, request_overhead
from nanomem.store.history import History
from nanomem.engines.offline.engine import OfflineEngine
from nanomem.engines.openai import OpenAIProvider
from nanomem.store.sessions import Session, append_messages, format_messages, load_session, save_session
from nanomem.store.workspace import Workspace
from tests.fakellm import FakeLLM, tool_choice_refusal

NOW = datetime(2026, 11, 30, 16, 40)
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima".split()


def clock() -> datetime:
    return NOW


async def no_sleep(_seconds: float) -> None:
    return None


def filler(n: int, seed: int) -> str:
    return " ".join(WORDS[(seed + i * 7) % len(WORDS)] for i in range(n))


def turns(count: int, words: int = 120) -> list[dict[str, Any]]:
    messages = []
    for i in range(count):
        messages.append({"role": "user", "content": f"Turn {i}. {filler(words, i)}"})
        messages.append({"role": "assistant", "content": f"Reply {i}. {filler(words, i + 3)}"})
    return messages


def write_session(path: Path, messages: list[dict[str, Any]], key: str = "cli:t", **meta: Any) -> Path:
    save_session(path, Session(key=key, messages=tuple(messages), metadata=meta,
                               created_at="2026-11-30T10:00:00", updated_at="2026-11-30T10:00:00"))
    return path


def config_for(messages: list[dict[str, Any]], share: float, **kw: Any) -> Config:
    """A config whose budget is ``share`` of the session's estimated prompt."""
    total = fixed_tokens("", "", ()) + sum(message_tokens(messages))
    return Config(context_window=int(total * share) + 100, max_completion_tokens=100,
                  safety_buffer=0, **kw)


def history_lines(ws: Path) -> list[dict[str, Any]]:
    path = ws / "memory" / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def archive(*facts: tuple[str, str], nothing: bool = False) -> dict[str, Any]:
    return {"facts": [{"mark": m, "text": t} for m, t in facts], "nothing": nothing}


@pytest.fixture(params=["mock", pytest.param("serve", marks=pytest.mark.slow)])
def llm(request: pytest.FixtureRequest) -> Iterator[tuple[FakeLLM, Callable[..., OpenAIProvider]]]:
    """A FakeLLM and a factory of providers pointed at it, over each transport."""
    fake = FakeLLM()
    if request.param == "mock":
        yield fake, lambda **kw: OpenAIProvider(
            fake.base_url, None, "fake", transport=fake.transport(), sleep=no_sleep, **kw)
        return
    with fake.serve() as url:
        yield fake, lambda **kw: OpenAIProvider(url, None, "fake", sleep=no_sleep, **kw)


def run(path: Path | Session, ws: Path, engine: Any, config: Config, **kw: Any) -> Any:
    history = History(Workspace(ws), config, clock=clock)
    return asyncio.run(
        consolidate(path, history=history, engine=engine, config=config, clock=clock, **kw))


# ------------------------------------------------------------------ pure parts


def test_archive_tool_schema_is_valid_and_names_the_marks() -> None:
    jsonschema.Draft202012Validator.check_schema(ARCHIVE_SCHEMA)
    assert ARCHIVE_TOOL["function"]["name"] == "archive_history"
    marks = ARCHIVE_SCHEMA["properties"]["facts"]["items"]["properties"]["mark"]["enum"]
    assert {"permanent", "durable", "ephemeral", "correction"} <= set(marks)


def test_plan_consolidation_under_budget_plans_nothing() -> None:
    plan = plan_consolidation([100] * 10, roles=["user", "assistant"] * 5, start=0,
                              fixed_tokens=50, budget=1050, ratio=0.5)
    assert (plan.over_budget, plan.end, plan.estimate) == (False, None, 1050)


def test_plan_consolidation_cuts_at_first_user_turn_reaching_target() -> None:
    plan = plan_consolidation([100] * 10, roles=["user", "assistant"] * 5, start=0,
                              fixed_tokens=0, budget=900, ratio=0.5)
    assert plan.over_budget and plan.end == 6 and plan.estimate_after == 400


def test_plan_consolidation_never_splits_a_tool_call_from_its_result() -> None:
    # the call at 1 is answered at 2 and 4: the user message at 3 is not a cut point
    roles = ["user", "assistant", "tool", "user", "tool", "assistant", "user", "assistant"]
    plan = plan_consolidation([100] * 8, roles=roles, start=0, fixed_tokens=0, budget=700,
                              ratio=0.5, tool_spans=[(1, 2), (1, 4)])
    assert plan.end == 6


def test_plan_consolidation_respects_chunk_limit_but_takes_at_least_one_turn() -> None:
    roles = ["user", "assistant"] * 5
    limited = plan_consolidation([100] * 10, roles=roles, start=0, fixed_tokens=0, budget=900,
                                 ratio=0.1, chunk_limit=450)
    assert limited.end == 4
    tiny = plan_consolidation([100] * 10, roles=roles, start=0, fixed_tokens=0, budget=900,
                              ratio=0.1, chunk_limit=10)
    assert tiny.end == 2


def test_plan_consolidation_finds_no_cut_in_one_long_turn() -> None:
    plan = plan_consolidation([500, 500, 500], roles=["user", "assistant", "assistant"], start=0,
                              fixed_tokens=0, budget=1000, ratio=0.5)
    assert plan.over_budget and plan.end is None


def reply(*calls: tuple[str, Any], finish: str = "tool_calls", text: str | None = None) -> ChatResponse:
    return ChatResponse(
        content=text,
        tool_calls=tuple(
            ToolCall(f"c{i}", n, a if isinstance(a, str) else json.dumps(a))
            for i, (n, a) in enumerate(calls)
        ),
        finish_reason=finish,
    )


def test_check_archive_reply_accepts_facts_and_drops_skip() -> None:
    checked = check_archive_reply(reply(("archive_history", archive(
        ("permanent", "Name is Ana."), ("skip", "hello"), ("durable", "Likes\n  tea.")))))
    assert checked.reason is None
    assert checked.facts == (("permanent", "Name is Ana."), ("durable", "Likes tea."))


def test_check_archive_reply_merges_parallel_archive_calls_in_order() -> None:
    checked = check_archive_reply(reply(("archive_history", archive(("durable", "Likes tea."))),
                                        ("archive_history", archive(nothing=True)),
                                        ("archive_history", archive(("permanent", "Name is Ana.")))))
    assert checked.reason is None
    assert checked.facts == (("durable", "Likes tea."), ("permanent", "Name is Ana."))


def test_check_archive_reply_accepts_explicit_nothing() -> None:
    checked = check_archive_reply(reply(("archive_history", archive(nothing=True))))
    assert (checked.reason, checked.facts) == (None, ())


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (reply(("archive_history", archive())), 'without "nothing": true'),
        (reply(("archive_history", {"nothing": True})), "'facts' is a required property"),
        (reply(("archive_history", archive(("bogus", "x")))), "facts/0/mark"),
        (reply(("archive_history", archive(("durable", "   ")))), "facts/0/text"),
        (reply(("archive_history", "{not json")), "not valid JSON"),
        (reply(text="Sure! Here is a summary."), "no archive_history tool call"),
        (reply(("archive_history", archive(nothing=True)), finish="length"), "'length'"),
        (reply(("archive_history", archive(nothing=True)), ("read_file", {})),
         "only archive_history calls, got: archive_history, read_file"),
        (reply(("archive_history", archive(nothing=True)), ("archive_history", "{bad")),
         "not valid JSON"),
        (reply(("read_file", {})), "only archive_history calls, got: read_file"),
    ],
)
def test_check_archive_reply_rejects_bad_replies(response: ChatResponse, expected: str) -> None:
    assert expected in (check_archive_reply(response).reason or "")


def test_render_raw_entries_splits_100k_chars_into_7_exact_parts() -> None:
    text = format_messages([{"role": "user", "content": "".join(chr(0x4E00 + i % 500) for i in range(100_000))}])
    parts = render_raw_entries(text)
    assert len(parts) == 7
    assert all(len(p) <= 16_000 and p.startswith(f"[RAW] (part {i}/7)\n") for i, p in enumerate(parts, 1))
    assert "".join(p.split("\n", 1)[1] for p in parts) == text


def test_render_summary_entries_packs_lines_and_cuts_no_text() -> None:
    facts = [("durable", "x" * 50)] * 5 + [("permanent", "y" * 250)]
    entries = render_summary_entries(facts, limit=120)
    assert all(len(e) <= 120 for e in entries)
    lines = [line for e in entries for line in e.split("\n")]
    assert lines[0] == "- [durable] " + "x" * 50
    assert "".join(line.removeprefix("- [permanent] ") for line in lines if "[permanent]" in line) == "y" * 250


# ------------------------------------------------------------------ runs through FakeLLM


def test_consolidate_under_budget_sends_nothing(workspace: Path, llm: Any) -> None:
    fake, make = llm
    messages = turns(4)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    before = path.read_bytes()
    result = run(path, workspace, make(), config_for(messages, 2.0))
    assert result.status == "under_budget" and result.estimate < result.budget
    assert fake.requests == [] and path.read_bytes() == before and history_lines(workspace) == []


def test_consolidate_archives_at_a_user_boundary_after_429(workspace: Path, llm: Any) -> None:
    fake, make = llm
    fake.enqueue_error(429, headers={"Retry-After": "1"})
    fake.enqueue_tool_calls([("archive_history", archive(("durable", "The user tests alpha.")))])
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    config = config_for(messages, 0.8)
    result = run(path, workspace, make(), config)
    assert result.status == "archived" and result.rounds == 1
    assert len(fake.requests) == 2
    body = fake.requests[1]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "archive_history"}}
    assert "<conversation>" in body["messages"][1]["content"]
    session = load_session(path)
    assert session.last_consolidated == result.archived_messages > 0
    assert session.messages[session.last_consolidated]["role"] == "user"
    assert result.estimate_after <= config.budget * config.consolidate_ratio
    lines = history_lines(workspace)
    assert [(x["content"], x["kind"], x["session_key"]) for x in lines] == [
        ("- [durable] The user tests alpha.", "summary", "cli:t")]
    assert list(result.cursors) == [lines[0]["cursor"]]


def test_consolidate_falls_back_to_auto_tool_choice_after_400(workspace: Path, llm: Any) -> None:
    fake, make = llm
    fake.enqueue_error(400, body=tool_choice_refusal())
    fake.enqueue_tool_calls([("archive_history", archive(("ephemeral", "Call Bob tomorrow.")))])
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    result = run(path, workspace, make(), config_for(messages, 0.8))
    assert result.status == "archived"
    assert fake.requests[0]["tool_choice"]["function"]["name"] == "archive_history"
    assert fake.requests[1]["tool_choice"] == "auto"
    assert history_lines(workspace)[0]["content"] == "- [ephemeral] Call Bob tomorrow."


def test_consolidate_nothing_true_advances_without_an_entry(workspace: Path, llm: Any) -> None:
    fake, make = llm
    fake.enqueue_tool_calls([("archive_history", archive(nothing=True))])
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    result = run(path, workspace, make(), config_for(messages, 0.8))
    assert result.status == "archived" and result.cursors == ()
    assert load_session(path).last_consolidated == result.archived_messages > 0
    assert history_lines(workspace) == []


def enqueue_failure(fake: FakeLLM, kind: str) -> None:
    if kind == "500":
        fake.enqueue_error(500)
        fake.enqueue_error(503)
    elif kind == "timeout":
        fake.enqueue_timeout(delay=1.0)
        fake.enqueue_timeout(delay=1.0)
    elif kind == "invalid_argument":
        fake.enqueue_tool_calls([("archive_history", archive(("important", "x")))])
    elif kind == "no_tool_call":
        fake.enqueue_text("Here is a summary of the conversation.")
    elif kind == "length":
        fake.enqueue_tool_calls([("archive_history", archive(("durable", "x")))], finish_reason="length")


@pytest.mark.parametrize("kind", ["500", "timeout", "invalid_argument", "no_tool_call", "length"])
def test_consolidate_failure_keeps_offset_and_records_count(
    workspace: Path, llm: Any, kind: str
) -> None:
    fake, make = llm
    enqueue_failure(fake, kind)
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    # Only the timeout case needs a short timeout; elsewhere a loaded machine must not turn a
    # slow 500 into a timeout that leaves the second scripted reply unrequested.
    timeout = 0.3 if kind == "timeout" else 30.0
    result = run(path, workspace, make(max_retries=1, timeout=timeout), config_for(messages, 0.8))
    assert result.status == "failed" and result.failures == 1 and result.reason
    session = load_session(path)
    assert session.last_consolidated == 0
    record = session.metadata["consolidation_failure"]
    assert record["count"] == 1 and record["start"] == 0 and record["end"] > 0
    assert history_lines(workspace) == []
    fake.assert_all_consumed()


def test_consolidate_raw_archives_100k_message_after_three_failures_across_restarts(
    workspace: Path, llm: Any
) -> None:
    fake, make = llm
    big = "".join(f"{i:06d} " for i in range(100_000 // 7 + 1))[:100_000]
    messages = [{"role": "user", "content": big}, {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "next question"}]
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    config = config_for(messages, 0.8)
    statuses = []
    for attempt in range(3):  # a fresh provider and History each time: a restart
        fake.enqueue_text("I cannot do that.", usage=False)  # no usage: no calibration
        result = run(path, workspace, make(max_retries=0), config)
        statuses.append((result.status, result.failures, result.raw_parts))
        if attempt < 2:
            assert load_session(path).metadata["consolidation_failure"]["count"] == attempt + 1
    assert statuses == [("failed", 1, 0), ("failed", 2, 0), ("archived", 0, 7)]
    lines = history_lines(workspace)
    assert len(lines) == 7 and all(x["kind"] == "raw" and len(x["content"]) <= 16_000 for x in lines)
    body = "".join(x["content"].split("\n", 1)[1] for x in lines)
    assert body == format_messages(messages[:2])
    session = load_session(path)
    assert session.last_consolidated == 2 and "consolidation_failure" not in session.metadata


def test_consolidate_stops_after_max_rounds(workspace: Path, llm: Any) -> None:
    fake, make = llm
    messages = turns(40)
    per_turn = sum(message_tokens(messages[:2]))
    budget = request_overhead() + int(per_turn * 2.5)  # each chunk fits about two turns
    config = replace(Config(), context_window=budget + 100, max_completion_tokens=100, safety_buffer=0)
    for _ in range(5):
        fake.enqueue_tool_calls([("archive_history", archive(("durable", "A fact.")))])
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    result = run(path, workspace, make(), config)
    assert result.rounds == 5 and len(fake.requests) == 5 and result.status == "archived"
    assert result.estimate_after > config.budget * config.consolidate_ratio
    assert len(history_lines(workspace)) == 5
    fake.assert_all_consumed()


def test_consolidate_keeps_a_tool_call_with_its_result(workspace: Path) -> None:
    messages = turns(3) + [
        {"role": "user", "content": "search please " + filler(100, 1)},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "s", "arguments": "{}"}}]},
        {"role": "user", "content": "(interjection) " + filler(100, 2)},  # index 8: inside
        {"role": "tool", "tool_call_id": "c1", "content": filler(300, 3)},
        {"role": "assistant", "content": "done " + filler(100, 4)},
    ] + turns(3)
    counts = message_tokens(messages)
    total = fixed_tokens("", "", ()) + sum(counts)
    # the ratio at which a planner blind to tool calls would cut at 8
    ratio = (total - sum(counts[:8]) + 1) / (total * 0.95)
    blind = plan_consolidation(counts, roles=[m["role"] for m in messages], start=0,
                               fixed_tokens=fixed_tokens("", "", ()), budget=int(total * 0.95),
                               ratio=ratio)
    assert blind.end == 8
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    run(path, workspace, OfflineEngine(), config_for(messages, 0.95, consolidate_ratio=ratio))
    cut = load_session(path).last_consolidated
    assert messages[cut]["role"] == "user" and cut == 11


def test_consolidate_skips_internal_sessions(workspace: Path, llm: Any) -> None:
    fake, make = llm
    messages = turns(30)
    dream = write_session(workspace / "sessions" / "d.jsonl", messages, key="dream:2026-11-30")
    flagged = write_session(workspace / "sessions" / "f.jsonl", messages, internal=True)
    for path in (dream, flagged):
        result = run(path, workspace, make(), config_for(messages, 0.5))
        assert result.status == "skipped_internal"
        assert load_session(path).last_consolidated == 0
    assert fake.requests == [] and history_lines(workspace) == []


def test_consolidate_redacts_secrets_from_summary_and_raw(workspace: Path, llm: Any) -> None:
    fake, make = llm
    secret = "sk-proj-Abc123def456ghi789jkl012mno345"
    fake.enqueue_tool_calls([("archive_history", archive(("durable", f"The key is {secret}.")))])
    messages = turns(30)
    messages[0] = {"role": "user", "content": f"my key is {secret} " + filler(100, 0)}
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    config = config_for(messages, 0.8)
    run(path, workspace, make(), config)
    second = write_session(workspace / "sessions" / "u.jsonl", messages, key="cli:u")
    for _ in range(3):
        fake.enqueue_text("no", usage=False)
        run(second, workspace, make(max_retries=0), config)
    text = (workspace / "memory" / "history.jsonl").read_text("utf-8")
    assert secret not in text and text.count("[REDACTED:openai-key]") == 2


def test_consolidate_leaves_a_message_appended_in_flight_unarchived(workspace: Path) -> None:
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    late = {"role": "user", "content": "I arrived while you were archiving."}

    class AppendingEngine(OfflineEngine):
        async def complete(self, request: ChatRequest) -> ChatResponse:
            append_messages(path, [late], clock=clock)
            return await super().complete(request)

    result = run(path, workspace, AppendingEngine(), config_for(messages, 0.8))
    session = load_session(path)
    assert result.status == "archived"
    assert session.messages[-1]["content"] == late["content"]
    assert len(session.messages) == len(messages) + 1
    assert session.last_consolidated == result.archived_messages < len(messages)


def test_consolidate_accepts_a_loaded_session_and_returns_it_advanced(workspace: Path) -> None:
    messages = turns(30)
    messages[0] = {"role": "user", "content": "My name is Ana. " + filler(100, 0)}
    session = Session(key="cli:mem", messages=tuple(messages))
    result = run(session, workspace, OfflineEngine(), config_for(messages, 0.8))
    assert result.status == "archived"
    assert result.session.last_consolidated == result.archived_messages > 0
    assert history_lines(workspace)[0]["content"].startswith("- [permanent] My name is Ana.")


def test_consolidate_archives_nothing_when_the_session_is_rewritten_in_flight(workspace: Path) -> None:
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)

    class RewritingEngine(OfflineEngine):
        async def complete(self, request: ChatRequest) -> ChatResponse:
            write_session(path, turns(30, words=20), key="cli:t")  # e.g. the host cleared it
            return await super().complete(request)

    result = run(path, workspace, RewritingEngine(), config_for(messages, 0.8))
    assert result.status == "failed" and "changed during consolidation" in (result.reason or "")
    assert history_lines(workspace) == [] and load_session(path).last_consolidated == 0


def test_consolidate_learns_calibration_from_reported_usage(workspace: Path, llm: Any) -> None:
    fake, make = llm
    fake.enqueue_tool_calls([("archive_history", archive(nothing=True))],
                            usage={"prompt_tokens": 99_999, "completion_tokens": 5})
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    config = config_for(messages, 0.8)
    first = run(path, workspace, make(), config)
    assert first.estimate_source == "estimate"
    stored = load_session(path).metadata["token_calibration"]
    assert stored == {"ratio": 2.0, "samples": 1}  # clamped: one odd report cannot run away
    second = run(path, workspace, make(), config_for(messages, 2.0))
    assert (second.status, second.estimate_source) == ("under_budget", "calibrated")
    assert second.estimate >= 2 * first.estimate_after - 2


def test_consolidate_explains_a_missing_session_file(workspace: Path) -> None:
    from nanomem.errors import WorkspaceError

    with pytest.raises(WorkspaceError, match="session file not found"):
        run(workspace / "sessions" / "nope.jsonl", workspace, OfflineEngine(), Config())
