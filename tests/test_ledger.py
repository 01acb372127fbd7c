"""The fact ledger: every fact of a Dream batch ends in exactly one state, built from the batch,
the diff and the refusals (nanomem.dream.ledger), over both engines."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks.quality.replay import replay_conversation
from benchmarks.quality.scenarios import load_conversations
from nanomem.dream.audit import LEDGER_KIND
from nanomem.dream.ledger import LedgerEntry, LedgerFact, plan_ledger, summarize_ledger
from nanomem.dream.audit import Refusal
from nanomem.engines.chat import ChatRequest, ChatResponse
from nanomem.engines.offline.engine import OfflineEngine
from nanomem.engines.openai import OpenAIProvider
from nanomem.records import to_json
from tests.dream_fixtures import add_fact, finish, make_setup, provider_over
from tests.fakellm import FakeLLM

CONVERSATIONS = load_conversations()
USER = "# User\n\n## Facts\n- Name is Ana <!-- pin -->\n- Lives in Porto\n"


def _fact(text: str, mark: str = "durable", cursor: int = 1, day: str = "2026-11-30") -> LedgerFact:
    return LedgerFact(cursor, mark, text, day)


def test_plan_ledger_puts_each_fact_in_the_state_the_diff_shows() -> None:
    before = {"USER.md": USER, "memory/MEMORY.md": "# Memory\n\n## Facts\n- Budget is 40k\n"}
    after = {"USER.md": USER.replace("- Lives in Porto\n", "- Lives in Lisbon now\n")
             + "- Allergic to peanuts\n", "memory/MEMORY.md": before["memory/MEMORY.md"]}
    facts = [_fact("I'm allergic to peanuts", "permanent"), _fact("I live in Lisbon now", "correction"),
             _fact("The budget is 40k"), _fact("Dentist on Monday", "ephemeral", day="2026-10-01"),
             _fact("Room 4512 is booked"), _fact("Thanks so much, that sounds great!"),
             _fact("My API key is [REDACTED:openai-key]"), _fact("The office moved to Graz")]
    refusal = Refusal("edit_file", "USER.md", "traceability: 4512 is in no batch",
                      arguments={"path": "USER.md", "new_text": "## Facts\n- Room 4512 is booked\n"})

    ledger = plan_ledger(facts, before, after, refusals=[refusal], today=date(2026, 11, 30),
                         ttl_days=7, caps={"USER.md": 4000, "memory/MEMORY.md": 4000})

    got = [(e.state, e.path, e.line, e.reason) for e in ledger]
    assert got == [
        ("kept", "USER.md", 6, None),
        ("corrected", "USER.md", 5, None),
        ("merged", "memory/MEMORY.md", 4, "duplicate"),
        ("expired", None, None, "older than 7 days"),
        ("refused", "USER.md", None, "traceability: 4512 is in no batch"),
        ("skipped", None, None, "filler"),
        ("skipped", None, None, "secret-placeholder"),
        ("skipped", None, None, "not used by the model"),
    ]
    assert ledger[1].old == "- Lives in Porto" and ledger[1].text == "- Lives in Lisbon now"
    assert summarize_ledger(ledger) == ("1 kept, 1 merged, 1 corrected, 1 expired, 1 refused, "
                                        "3 skipped (1 filler, 1 secret-placeholder, "
                                        "1 not used by the model)")


def test_plan_ledger_says_cap_when_the_fact_s_file_is_full() -> None:
    full = USER + "".join(f"- Fact number {i}\n" for i in range(30))
    ledger = plan_ledger([_fact("I am allergic to peanuts", "permanent")], {"USER.md": full},
                         {"USER.md": full}, caps={"USER.md": len(full) + 10})
    assert [(e.state, e.reason) for e in ledger] == [("skipped", "cap")]
    assert summarize_ledger(ledger) == "1 skipped (file full)"


def test_plan_ledger_never_takes_a_line_with_another_number_for_the_fact() -> None:
    after = {"USER.md": USER + "- Gate code is 5518\n"}
    ledger = plan_ledger([_fact("The gate code is 4417")], {"USER.md": USER}, after)
    assert [e.state for e in ledger] == ["skipped"]


def test_run_dream_ledger_reaches_result_commit_body_audit_and_reply(tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    setup.write("USER.md", USER)
    setup.history.append("- [durable] Likes green tea\n- [durable] Thanks, sounds great!\n"
                         "- [durable] Works at Acme on Project Atlas")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Likes green tea"), finish()])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)

    assert result.status == "committed", result.reason
    assert [(e["state"], e.get("reason")) for e in to_json(result)["ledger"]] == [
        ("kept", None), ("skipped", "filler"), ("skipped", "not used by the model")]
    summary = "1 kept, 2 skipped (1 filler, 1 not used by the model)"
    assert to_json(result)["ledger_summary"] == summary
    body = setup.store.show(result.commit).body
    assert f"Facts: {summary}" in body
    assert "  - skipped (not used by the model): Works at Acme on Project Atlas [entry 1]" in body
    records = [json.loads(line) for line in setup.ws.audit.read_text().splitlines()]
    ledger_lines = [r for r in records if r.get("kind") == LEDGER_KIND]
    assert len(ledger_lines) == 1 and ledger_lines[0]["commit"] == result.commit
    assert [f["fact"] for f in ledger_lines[0]["facts"]] == [
        "Likes green tea", "Thanks, sounds great!", "Works at Acme on Project Atlas"]
    from nanomem.replies import render_dream
    assert f"facts: {summary}" in render_dream(result)


def test_summarize_ledger_counts_the_questions_pending_facts_wait_on() -> None:
    office = LedgerEntry(1, "ephemeral", "Working from the Porto office", "pending", reason="question 1")
    moved = LedgerEntry(2, "correction", "I moved to Porto", "pending", reason="question 1")
    figs = LedgerEntry(3, "durable", "Likes figs", "kept", "USER.md", 4)
    assert summarize_ledger([office, moved, figs]) == "1 kept, 2 pending (1 question)"
    assert summarize_ledger([moved, figs]) == "1 kept, 1 question"
    other = dataclasses.replace(office, reason="question 2")
    assert summarize_ledger([other, moved]) == "2 questions"


def test_recall_failure_is_named_by_fact_in_body_json_audit_and_status(tmp_path: Path) -> None:
    from nanomem.memory import Memory
    from nanomem.statusreplies import render_status, render_status_text

    setup = make_setup(tmp_path)
    setup.write("USER.md", USER)
    setup.history.append("- [durable] Likes green tea\n- [durable] Keeps bees in Valga")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Likes green tea"),
                             add_fact("USER.md", "- Keeps bees in Valga"), finish()])
    finds_tea = lambda query, k, files: [  # noqa: E731 - a search index that lost the bees
        type("Hit", (), {"text": "- Likes green tea"})()] if "tea" in query else []
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine, search=finds_tea)

    assert result.status == "committed", result.reason
    assert to_json(result)["recall"]["failures"] == ["Keeps bees in Valga"]
    body = setup.store.show(result.commit).body
    assert "Recall: 1/2 facts found in the top 5; not found:\n  - Keeps bees in Valga" in body
    records = [json.loads(x) for x in setup.ws.audit.read_text("utf-8").splitlines()]
    assert next(r for r in records if r.get("kind") == "recall")["failures"] == ["Keeps bees in Valga"]
    with Memory(setup.ws.root) as memory:
        status = memory.status()
    assert status.health.recall_failures == ("Keeps bees in Valga",)
    assert ("recall health of the last Dream: 1/2 facts found by search; not found: "
            "Keeps bees in Valga") in render_status(status)
    assert "1/2 facts found by search (last Dream); not found: Keeps bees in Valga" in \
        render_status_text(status)


def test_run_dream_failed_run_writes_no_ledger_line(tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    setup.history.append("- [durable] Likes green tea")
    fake = FakeLLM()
    fake.enqueue_text("done")
    fake.enqueue_text("done, really")
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.status == "failed"
    assert not setup.ws.audit.exists()


# ---- completeness over every conversation of the quality benchmark, both engines ----------

_FACT_LINE = re.compile(r"^- \[(\w+)\] (.+)$", re.MULTILINE)
_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)


def _batch_facts(body: dict[str, Any]) -> list[str]:
    text = next(m["content"] for m in body["messages"] if m["role"] == "user")
    block = "\n".join(_BLOCK.findall(text)) or text
    return [fact for mark, fact in _FACT_LINE.findall(block) if mark != "skip"]


def _scripted(kind: str) -> FakeLLM:
    """A Dream model that answers each batch from the request itself (``on_request``):
    careless ignores the batch, inventing adds every fact with a number of its own (the
    traceability gate refuses each), honest adds every fact to MEMORY.md."""
    fake = FakeLLM()

    def answer(body: dict[str, Any]) -> None:
        if body["messages"][-1]["role"] == "tool" or kind == "careless":
            fake.enqueue_tool_calls([finish("no_changes_needed" if kind == "careless" else "updated")])
            return
        facts = _batch_facts(body)
        suffix = " (ref 99-4512)" if kind == "inventing" else ""
        calls = [add_fact("memory/MEMORY.md", f"- {fact}{suffix}") for fact in facts]
        fake.enqueue_tool_calls(calls or [finish("no_changes_needed")])

    fake.on_request = answer
    return fake


class _DreamBy:
    """The offline engine for consolidation; a scripted model for Dream."""

    name = "split"

    def __init__(self, dream: OpenAIProvider, clock: Callable[[], Any]) -> None:
        self.dream, self.offline = dream, OfflineEngine(clock=clock)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        engine = self.dream if request.stage == "dream" else self.offline
        return await engine.complete(request)


def _replay(conversation: Any, root: Path, kind: str) -> Any:
    factory = None
    if kind != "offline":
        fake = _scripted(kind)

        def factory(ws: Any, config: Any, clock: Any) -> Any:
            provider = OpenAIProvider(fake.base_url, None, f"scripted-{kind}", max_retries=0,
                                      transport=fake.transport())
            return _DreamBy(provider, clock)
    return asyncio.run(replay_conversation(conversation, root, engine_factory=factory))


@pytest.mark.slow  # one replay per benchmark conversation per engine
@pytest.mark.parametrize("kind", ["offline", "careless", "inventing", "honest"])
def test_ledger_accounts_for_every_fact_of_every_benchmark_conversation(tmp_path: Path,
                                                                       kind: str) -> None:
    missing = []
    for conversation in CONVERSATIONS:
        result = _replay(conversation, tmp_path / conversation.id, kind)
        assert not result.dream_failures, (conversation.id, result.dream_failures)
        assert result.facts > 0
        if result.accounted != result.facts:
            missing.append((conversation.id, result.facts, result.accounted))
        states = result.ledger_states
        if kind == "careless":
            assert set(states) <= {"merged", "skipped", "expired"}, states
        if kind == "inventing":
            assert states.get("refused", 0) > 0 and "kept" not in states, states
        if kind == "honest":
            assert states.get("kept", 0) > 0, states
    assert missing == []


# ---- a full file: nothing lost in silence, everything findable --------------------------

SIX = ("My name is Oskar Brandt", "I am allergic to peanuts", "I live in Tallinn",
       "I was born in 1987", "My daughter is called Liisa", "I work as a ferry pilot")


def test_full_file_keeps_every_fact_accounted_for_findable_and_warned(tmp_path: Path) -> None:
    from nanomem.config import load_config
    from nanomem.memory import Memory
    from nanomem.statusreplies import render_status
    from nanomem.store.workspace import Workspace, init_workspace

    root = tmp_path / "ws"
    init_workspace(root)
    ws = Workspace(root)
    user = ws.path("USER.md").read_text("utf-8")
    filler_lines = "".join(f"- Visited museum number {i} last spring\n" for i in range(30))
    ws.path("USER.md").write_text(user + filler_lines, encoding="utf-8")
    cap = len(user + filler_lines) + 60  # room for one short fact at most
    config = dataclasses.replace(load_config(root), file_caps={**load_config(root).file_caps, "USER.md": cap})
    with Memory(ws, config=config, clock=lambda: datetime(2026, 11, 30, 12, 0)) as memory:
        memory.store
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX), kind="summary")
        result = memory.dream()
        status = memory.status()

    assert result.status == "committed", result.reason
    states = {e.fact: (e.state, e.reason) for e in result.ledger if e.state != "moved"}
    moved = [e for e in result.ledger if e.state == "moved"]
    assert states == dict.fromkeys(SIX, ("kept", None))  # room was made: nothing skipped
    assert moved and all(e.moved_from == "USER.md" for e in moved)
    assert result.recall is not None and result.recall.found == result.recall.checked == 6 + len(moved)
    assert f"moved to memory/MOVED.md" in result.ledger_summary
    assert status.health.near_cap == ("USER.md",)
    assert status.health.skipped_for_cap == 0 and status.health.moved_out == len(moved)
    assert status.health.recall_found == 6 + len(moved)
    reply = render_status(status)
    assert "`USER.md` is over 90% of its cap" in reply
    assert f"recall health of the last Dream: {6 + len(moved)}/{6 + len(moved)}" in reply


def test_dream_prompt_names_the_file_near_its_cap_and_asks_to_make_room(tmp_path: Path) -> None:
    setup = make_setup(tmp_path, file_caps={"SOUL.md": 4000, "USER.md": len(USER) + 10,
                                            "memory/MEMORY.md": 4000})
    setup.write("USER.md", USER)
    setup.history.append("- [durable] Likes green tea")
    fake = FakeLLM()
    fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.status == "no_changes", result.reason
    prompt = next(m["content"] for m in fake.requests[0]["messages"] if m["role"] == "user")
    assert f"NEAR THE CAP: USER.md ({len(USER)} of {len(USER) + 10} characters" in prompt
    assert "merge lines that say the same thing" in prompt
    assert "SOUL.md (" not in prompt.split("NEAR THE CAP:")[1].split(".")[0]
    assert [(e.state, e.reason) for e in result.ledger] == [("skipped", "cap")]


def test_run_dream_ledger_names_a_correction_of_a_pinned_line(tmp_path: Path) -> None:
    from nanomem.engines.offline.engine import OfflineEngine

    setup = make_setup(tmp_path)
    setup.write("USER.md", USER)
    setup.history.append("- [correction] Actually my name is Ana Silva now")
    result = setup.dream(OfflineEngine(clock=lambda: datetime(2026, 11, 30, 12, 0)))
    assert "- Name is Ana <!-- pin -->" in setup.read("USER.md").splitlines()
    assert [(e.state, e.reason) for e in result.ledger] == [("pending", "question 1")]
    assert "- new: `- My name is Ana Silva now <!-- pin -->`" in setup.read("memory/PENDING.md")
