"""Questions instead of silent drops (issue 13): memory/PENDING.md, /memory pending|yes N|no N."""

from __future__ import annotations

import io
import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.cli import main
from nanomem.config import Config
from nanomem.dream.tools import StagedFiles, ToolContext, execute_tool_call
from nanomem.engines.chat import ToolCall
from nanomem.engines.offline.engine import OfflineEngine
from nanomem.engines.openai import OpenAIProvider
from nanomem.memory import Memory
from nanomem.replies import render_dream
from nanomem.text.tokens import estimate_text
from tests.fakellm import FakeLLM

NOW = datetime(2026, 11, 30, 12, 0).astimezone()
PINNED = "- Lives in Lisbon <!-- pin -->"
PENDING = "memory/PENDING.md"


def clock() -> datetime:
    return NOW


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, text=True).stdout


def offline_memory(ws: Path, user_line: str = PINNED) -> Memory:
    memory = Memory(ws, engine=OfflineEngine(clock=clock), clock=clock)
    user = ws / "USER.md"
    user.write_text(user.read_text("utf-8") + user_line + "\n", "utf-8")
    memory.commit_hand_edits()
    return memory


def audit_questions(ws: Path) -> list[dict]:
    lines = (ws / "memory/dream-audit.jsonl").read_text("utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r.get("kind") == "question"]


def asked_pinned(ws: Path) -> Memory:
    memory = offline_memory(ws)
    memory.remember("[correction] Actually I moved to Porto last month.")
    result = memory.dream()
    assert result.status == "committed"
    assert [(e.state, e.reason) for e in result.ledger] == [("pending", "question 1")]
    return memory


@pytest.mark.slow
def test_pending_correction_of_a_pinned_line_becomes_a_question_applied_by_memory_yes(
        workspace: Path) -> None:
    memory = asked_pinned(workspace)
    user_before = (workspace / "USER.md").read_bytes()
    assert PINNED.encode() in user_before and b"Porto" not in user_before
    pending = (workspace / PENDING).read_text("utf-8")
    assert "## 1. USER.md: change a pinned line?" in pending
    assert f"- now: `{PINNED}`" in pending
    assert "- new: `- I moved to Porto last month. <!-- pin -->`" in pending
    assert git(workspace, "log", "-1", "--format=%s") == "dream: entries 1-1: memory/PENDING.md +13 -0\n"
    assert "1 question" in memory.handle_command("/dream-log")
    assert "questions for you: 1 open" in memory.handle_command("/memory")
    listed = memory.handle_command("/memory pending")
    assert f"1. USER.md: change a pinned line? `{PINNED}` -> `- I moved to Porto last month. <!-- pin -->`" in listed

    reply = memory.handle_command("/memory yes 1")

    assert reply.startswith("**Applied question 1** to `USER.md`")
    assert (workspace / "USER.md").read_bytes() == user_before.replace(
        PINNED.encode(), b"- I moved to Porto last month. <!-- pin -->")
    assert "No open questions." in (workspace / PENDING).read_text("utf-8")
    assert memory.pending_questions() == ()
    log = git(workspace, "log", "--format=%s", "-2")
    assert log.splitlines() == ["confirm: yes to question 1: USER.md",
                                "dream: entries 1-1: memory/PENDING.md +13 -0"]
    shown = git(workspace, "show", "--stat", "--format=%b", "HEAD")
    assert "The person confirmed question 1 (/memory yes 1)" in shown
    assert "USER.md" in shown and "memory/PENDING.md" in shown
    assert [(r["event"], r["question"]) for r in audit_questions(workspace)] == [("asked", 1), ("yes", 1)]
    assert git(workspace, "status", "--porcelain") == ""
    subprocess.run(["git", "fsck", "--strict"], cwd=workspace, check=True, capture_output=True)
    assert "No open question 1" in memory.handle_command("/memory yes 1")  # answered once


@pytest.mark.slow
def test_pending_memory_no_drops_the_question_and_records_it(workspace: Path) -> None:
    memory = asked_pinned(workspace)
    user_before = (workspace / "USER.md").read_bytes()

    reply = memory.handle_command("/memory no 1")

    assert reply.startswith("**Dropped question 1**")
    assert (workspace / "USER.md").read_bytes() == user_before
    text = (workspace / PENDING).read_text("utf-8")
    assert "nanomem-question" not in text and '{"next": 2}' in text  # 1 is never given out again
    assert git(workspace, "log", "-1", "--format=%s") == "confirm: no to question 1: dropped\n"
    assert git(workspace, "show", "--format=", "--name-only", "HEAD") == "memory/PENDING.md\n"
    assert [r["event"] for r in audit_questions(workspace)] == ["asked", "no"]
    memory.remember("[correction] Actually I moved to Faro.")
    memory.dream()
    assert "## 2. USER.md" in (workspace / PENDING).read_text("utf-8")


def test_pending_restore_of_the_dream_takes_its_question_back(workspace: Path) -> None:
    memory = asked_pinned(workspace)
    result = memory.restore()
    assert result.status == "restored" and PENDING in result.files
    assert not (workspace / PENDING).exists()
    assert memory.status().questions == 0


@pytest.mark.slow
def test_pending_yes_after_the_line_changed_is_stale_and_changes_nothing(workspace: Path) -> None:
    memory = asked_pinned(workspace)
    user = workspace / "USER.md"
    user.write_text(user.read_text("utf-8").replace("Lisbon", "Lisboa"), "utf-8")
    head = git(workspace, "rev-parse", "HEAD")
    reply = memory.handle_command("/memory yes 1")
    assert reply.startswith("**Question 1 was not applied:** stale: USER.md no longer holds")
    assert "Lisboa" in user.read_text("utf-8")
    assert git(workspace, "log", "-1", "--format=%s") == "manual: USER.md\n"  # the edit, versioned
    assert git(workspace, "rev-parse", "HEAD~1") == head
    assert len(memory.pending_questions()) == 1


def uncertain_model() -> FakeLLM:
    fake = FakeLLM()
    fake.enqueue_tool_calls([("edit_file", {
        "path": "USER.md", "old_text": "## Facts\n",
        "new_text": "## Facts\n- Has a sister called Rita\n", "uncertain": True,
        "question": "Is Rita your sister?"})])
    fake.enqueue_tool_calls([("finish", {"status": "no_changes_needed", "note": "asked"})])
    return fake


def test_pending_uncertain_edit_of_a_model_told_by_the_prompt_becomes_a_question_not_an_edit(
        workspace: Path) -> None:
    fake = uncertain_model()
    engine = OpenAIProvider(fake.base_url, None, "test-model", transport=fake.transport())
    memory = Memory(workspace, engine=engine, clock=clock)
    memory.remember("[durable] Rita came over again, my sister I think")
    user_before = (workspace / "USER.md").read_bytes()

    result = memory.dream()

    assert result.status == "committed" and result.accepted == 0 and result.refused == ()
    assert (workspace / "USER.md").read_bytes() == user_before
    assert [(q.number, q.kind, q.question) for q in result.questions] == [(1, "uncertain", "Is Rita your sister?")]
    assert [(e.state, e.reason) for e in result.ledger] == [("pending", "question 1")]
    assert ("It asks you 1 question(s) (1): `/memory pending` lists them; answer with "
            "`/memory yes N` or `/memory no N`.") in render_dream(result)
    system = fake.requests[0]["messages"][0]  # the built-in prompt tells the model of the field
    assert system["role"] == "system" and '"uncertain": true' in system["content"]
    assert '"question"' in system["content"] and "/memory yes" in system["content"]
    tool_reply = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert tool_reply["content"].startswith("queued: this edit is not made")
    text = (workspace / PENDING).read_text("utf-8")
    assert "## 1. USER.md: is this right?\n- asks: Is Rita your sister?\n- new: `- Has a sister called Rita`" in text
    assert memory.handle_command("/memory yes 1").startswith("**Applied question 1**")
    assert (workspace / "USER.md").read_text("utf-8").endswith("## Facts\n- Has a sister called Rita\n")


def test_pending_uncertain_must_be_a_boolean_in_the_tool_schema() -> None:
    staged = StagedFiles({"USER.md": "## Facts\n"})
    call = ToolCall("c", "edit_file", json.dumps({"path": "USER.md", "old_text": "## Facts\n",
                                                  "new_text": "## Facts\n- x\n", "uncertain": "yes"}))
    outcome = execute_tool_call(call, staged, ToolContext("- [durable] x", Config()))
    assert outcome.reason == "edit_file: invalid arguments: 'uncertain' must be of type boolean"
    assert outcome.question is None and staged.changed_paths() == []


def test_pending_model_changing_a_permanent_fact_without_correction_is_asked(workspace: Path) -> None:
    fake = FakeLLM()
    fake.enqueue_tool_calls([("edit_file", {"path": "USER.md",
                                            "old_text": "- Lives in Lisbon <!-- permanent -->\n",
                                            "new_text": "- Lives in Porto <!-- permanent -->\n"})])
    fake.enqueue_tool_calls([("finish", {"status": "updated", "note": "moved"})])
    engine = OpenAIProvider(fake.base_url, None, "test-model", transport=fake.transport())
    memory = Memory(workspace, engine=engine, clock=clock)
    user = workspace / "USER.md"
    user.write_text(user.read_text("utf-8") + "- Lives in Lisbon <!-- permanent -->\n", "utf-8")
    memory.remember("[durable] We live in Porto now")
    result = memory.dream()
    assert [(q.kind, q.old_text, q.new_text) for q in result.questions] == [
        ("permanent", "- Lives in Lisbon <!-- permanent -->\n", "- Lives in Porto <!-- permanent -->\n")]
    assert "Lisbon" in user.read_text("utf-8") and "Porto" not in user.read_text("utf-8")


def test_pending_offline_hedged_correction_is_asked_as_uncertain(workspace: Path) -> None:
    memory = offline_memory(workspace, "- My rent is 980 euros a month")
    memory.remember("[correction] I think my rent went up to 1,150 euros a month")
    result = memory.dream()
    assert [q.kind for q in result.questions] == ["uncertain"]
    assert "980" in (workspace / "USER.md").read_text("utf-8")


def test_pending_malformed_file_is_one_line_error_naming_the_line(workspace: Path) -> None:
    memory = asked_pinned(workspace)
    path = workspace / PENDING
    lines = path.read_text("utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if "nanomem-question" in line)
    lines[number - 1] = lines[number - 1].replace('"n": 1,', '"n": 1')
    path.write_text("\n".join(lines) + "\n", "utf-8")
    out, err = io.StringIO(), io.StringIO()

    code = main(["-w", str(workspace), "pending"], stdout=out, stderr=err)

    assert code == 2 and out.getvalue() == ""
    message = err.getvalue().strip()
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"nanomem pending: error: memory/PENDING.md line {number}: the "
                              "comment is not valid JSON")
    assert "fix the JSON of that comment or delete the question" in message
    assert f"memory/PENDING.md line {number}" in memory.handle_command("/memory pending")
    assert f"**questions**: memory/PENDING.md line {number}" in memory.handle_command("/memory")
    memory.remember("[correction] Actually I moved to Faro.")
    failed = memory.dream()  # a run that would ask fails, and loses nothing
    assert failed.status == "failed" and f"line {number}" in (failed.reason or "")
    assert failed.dream_cursor_after == failed.dream_cursor_before


def test_pending_question_shows_in_the_prompt_block_within_the_budget(workspace: Path) -> None:
    notes = workspace / "memory/MEMORY.md"
    notes.write_text(notes.read_text("utf-8") + "".join(f"- Task {n} is open\n" for n in range(12)))
    memory = asked_pinned(workspace)
    block = memory.context(2_000)
    assert ("## Questions for the person (ask; they answer /memory yes N or /memory no N)\n"
            f"1. USER.md: change a pinned line? `{PINNED}` -> "
            "`- I moved to Porto last month. <!-- pin -->`") in block
    assert estimate_text(block) <= 2_000
    budget = estimate_text(block)
    cut = "… 1 more question omitted to fit the budget; see memory/PENDING.md"
    while cut not in (tight := memory.context(budget)) and budget > 0:
        budget -= 1  # the largest budget that cuts the question
    assert tight and estimate_text(tight) <= budget
    assert "1. USER.md" not in tight and PINNED in tight  # the pinned line outranks the question


def test_pending_cli_lists_as_json_and_answers(workspace: Path) -> None:
    asked_pinned(workspace)
    out = io.StringIO()
    assert main(["-w", str(workspace), "pending", "--json"], stdout=out, stderr=io.StringIO()) == 0
    [question] = json.loads(out.getvalue())
    assert (question["number"], question["kind"], question["path"]) == (1, "pinned", "USER.md")
    out = io.StringIO()
    assert main(["-w", str(workspace), "pending", "no", "1", "--json"], stdout=out,
                stderr=io.StringIO()) == 0
    assert json.loads(out.getvalue())["status"] == "dropped"
    assert main(["-w", str(workspace), "pending", "yes", "1"], stdout=io.StringIO(),
                stderr=io.StringIO()) == 2
    status = io.StringIO()
    main(["-w", str(workspace), "status", "--json"], stdout=status, stderr=io.StringIO())
    assert json.loads(status.getvalue())["questions"] == 0


def test_pending_forget_removes_the_whole_question(workspace: Path) -> None:
    memory = asked_pinned(workspace)
    receipt = memory.forget("Porto")
    assert receipt.status == "forgotten" and receipt.hits == ()
    assert memory.pending_questions() == ()
    assert "Porto" not in (workspace / PENDING).read_text("utf-8")


@pytest.mark.parametrize("link_to", ["USER.md", "memory/MEMORY.md"])
def test_pending_file_that_is_a_link_is_refused(workspace: Path, link_to: str) -> None:
    memory = asked_pinned(workspace)
    path = workspace / PENDING
    path.unlink()
    path.symlink_to(workspace / link_to)
    before = (workspace / link_to).read_bytes()
    out, err = io.StringIO(), io.StringIO()
    assert main(["-w", str(workspace), "pending", "no", "1"], stdout=out, stderr=err) == 2
    assert "memory/PENDING.md: is a symlink" in err.getvalue()
    assert (workspace / link_to).read_bytes() == before
    assert memory.status().questions_problem is not None


def test_pending_status_counts_questions_and_sees_hand_edits_of_the_file(workspace: Path) -> None:
    asked_pinned(workspace)

    def status() -> dict:
        out = io.StringIO()
        assert main(["-w", str(workspace), "status", "--json"], stdout=out, stderr=io.StringIO()) == 0
        return json.loads(out.getvalue())

    first = status()
    assert (first["questions"], first["uncommitted"]) == (1, [])
    path = workspace / PENDING
    path.write_text(path.read_text("utf-8") + "\nA note of mine.\n", "utf-8")
    assert status()["uncommitted"] == [PENDING]
