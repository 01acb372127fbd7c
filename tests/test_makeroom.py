"""Making room in a full memory file (issue 13): the offline Dream moves the least valuable
lines to memory/MOVED.md instead of skipping a fact, every fact and every moved line stays
accounted for and findable, and the recall self-test is in the commit body."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.config import load_config
from nanomem.engines.offline.room import plan_room
from nanomem.memory import Memory
from nanomem.statusreplies import render_status, render_status_text
from nanomem.store.moved import MovedLine, parse_moved, plan_append
from nanomem.store.workspace import Workspace, init_workspace

SIX = ("My name is Oskar Brandt", "I am allergic to peanuts", "I live in Tallinn",
       "I was born in 1987", "My daughter is called Liisa", "I work as a ferry pilot")
KEPT_LINES = ("- Prefers window seats <!-- pin -->", "- Has a sister in Riga <!-- permanent -->")
NOW = datetime(2026, 11, 30, 12, 0)


def _full_workspace(tmp_path: Path, slack: int = 60) -> tuple[Workspace, object, str]:
    """A workspace whose USER.md is within ``slack`` characters of its cap: a pinned and a
    permanent line first (the oldest), then thirty plain ones."""
    root = tmp_path / "ws"
    init_workspace(root)
    ws = Workspace(root)
    head = ws.path("USER.md").read_text("utf-8").rstrip("\n") + "\n"
    body = "".join(line + "\n" for line in KEPT_LINES)
    body += "".join(f"- Visited museum number {i} last spring\n" for i in range(30))
    ws.path("USER.md").write_text(head + body, encoding="utf-8")
    base = load_config(root)
    config = dataclasses.replace(base, file_caps={**base.file_caps, "USER.md": len(head + body) + slack})
    return ws, config, head + body


def _git_body(memory: Memory) -> str:
    return subprocess.run(["git", f"--git-dir={memory.store.git_dir}", "log", "-1", "--format=%B"],
                          check=True, capture_output=True, text=True).stdout


def _says(hits: list, words: str) -> bool:
    return any(all(w.casefold() in h.text.casefold() for w in words.split()) for h in hits)


@pytest.mark.slow  # runs the real git CLI
def test_full_file_makes_room_and_keeps_every_fact_and_moved_line_findable(tmp_path: Path) -> None:
    ws, config, before = _full_workspace(tmp_path)
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX), kind="summary")
        result = memory.dream()
        assert result.status == "committed", result.reason
        facts = [e for e in result.ledger if e.state != "moved"]
        moved = [e for e in result.ledger if e.state == "moved"]
        assert {e.fact: e.state for e in facts} == dict.fromkeys(SIX, "kept")
        assert moved and all(e.moved_from == "USER.md" and e.path == "memory/MOVED.md" for e in moved)
        user = ws.path("USER.md").read_text("utf-8")
        assert len(user) <= config.cap_for("USER.md")
        assert all(line in user for line in KEPT_LINES)  # never a pinned or permanent line
        for fact in SIX:  # every fact in USER.md and found in the top 5
            assert fact in user
            assert _says(memory.search(fact, k=5), fact), fact
        archive = ws.path("memory/MOVED.md").read_text("utf-8")
        gone = [line for line in before.splitlines() if line not in user.splitlines()]
        assert [m.text for m in parse_moved(archive)] == gone == [e.old for e in moved]
        assert gone[0] == "- Visited museum number 0 last spring"  # the oldest first
        assert "- Visited museum number 0 last spring <!-- moved from USER.md 2026-11-30 -->" in archive
        for line in gone:  # the moved lines are found too, as lines of memory/MOVED.md
            hits = memory.search(line.removeprefix("- "), k=5)
            assert any(h.path == "memory/MOVED.md" and line in h.text for h in hits), line
        assert result.recall is not None and result.recall.found == result.recall.checked == 6 + len(moved)
        body = _git_body(memory)
        status = memory.status()
    assert f"Recall: {6 + len(moved)}/{6 + len(moved)} facts found in the top 5" in body
    assert "Moved to make room (now in memory/MOVED.md):" in body
    assert "  - USER.md: Visited museum number 0 last spring" in body
    assert f"{len(moved)} line{'s' if len(moved) > 1 else ''} moved to memory/MOVED.md" in body
    assert status.health.moved_out == len(moved) and status.health.moved_since == "2026-11-30"
    assert status.health.moved_newest[0] == f"{gone[-1].removeprefix('- ')} (from USER.md, 2026-11-30)"
    assert status.health.skipped_for_cap == 0
    reply, text = render_status(status), render_status_text(status)
    assert f"`memory/MOVED.md`: {len(moved)} line(s) moved out of full files since 2026-11-30" in reply
    assert f"moved out     {len(moved)} line(s) to memory/MOVED.md since 2026-11-30" in text
    lines = [json.loads(x) for x in ws.path("memory/dream-audit.jsonl").read_text("utf-8").splitlines()]
    ledger = next(x for x in lines if x.get("kind") == "ledger")
    assert sum(f["state"] == "moved" for f in ledger["facts"]) == len(moved)
    assert next(x for x in lines if x.get("kind") == "recall")["commit"] == result.commit


def test_full_file_of_pinned_and_permanent_lines_skips_the_fact_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    init_workspace(root)
    ws = Workspace(root)
    text = ws.path("USER.md").read_text("utf-8") + "".join(
        f"- Fact {i} <!-- {'pin' if i % 2 else 'permanent'} -->\n" for i in range(20))
    ws.path("USER.md").write_text(text, encoding="utf-8")
    base = load_config(root)
    config = dataclasses.replace(base, file_caps={**base.file_caps, "USER.md": len(text) + 5})
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("- [permanent] I am allergic to peanuts", kind="summary")
        result = memory.dream()
        hits = memory.search("allergic peanuts", k=5)
        status = memory.status()
    assert result.status == "no_changes", result.reason
    assert ("`USER.md` is over 90% of its cap; 1 fact(s) skipped for a full file since "
            "2026-11-30 12:00, 0 moved out") in render_status(status)
    assert ("skipped       1 fact(s) for a full file since 2026-11-30 12:00 (search finds them "
            "in the history)") in render_status_text(status)
    assert [(e.state, e.reason) for e in result.ledger] == [("skipped", "cap")]
    assert ws.path("USER.md").read_text("utf-8") == text
    assert not ws.path("memory/MOVED.md").exists()
    assert _says(hits, "allergic peanuts")  # still findable: the history holds it
    assert result.recall is not None and result.recall.found == 1


def test_offline_dream_moves_a_line_a_later_batch_reinforced_last(tmp_path: Path) -> None:
    ws, config, _ = _full_workspace(tmp_path, slack=40)
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("- [durable] I visited museum number 0 last spring", kind="summary")
        first = memory.dream()
        assert [(e.state, e.reason) for e in first.ledger] == [("merged", "duplicate")]
        memory.history.append("- [durable] My favourite composer is Arvo Part and I sing in a "
                              "choir every Thursday evening in the old town hall of Tallinn, "
                              "with my neighbours Mart and Kadri who both play the violin",
                              kind="summary")
        second = memory.dream()
    assert second.status == "committed", second.reason
    moved = [e.old for e in second.ledger if e.state == "moved"]
    assert moved and moved[0] == "- Visited museum number 1 last spring", moved
    assert "- Visited museum number 0 last spring" not in moved


def test_dry_run_lists_the_moves_and_writes_nothing(tmp_path: Path) -> None:
    ws, config, before = _full_workspace(tmp_path)
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX), kind="summary")
        result = memory.dream(dry_run=True)
    assert result.status == "dry_run"
    assert any(e.state == "moved" for e in result.ledger)
    assert not ws.path("memory/MOVED.md").exists()
    assert ws.path("USER.md").read_text("utf-8") == before


def test_forget_reaches_the_moved_lines(tmp_path: Path) -> None:
    ws, config, _ = _full_workspace(tmp_path)
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX), kind="summary")
        assert memory.dream().status == "committed"
        assert "museum number 0" in ws.path("memory/MOVED.md").read_text("utf-8")
        receipt = memory.forget("museum number 0")
        hits = memory.search("museum number 0", k=5)
    assert receipt.status == "forgotten", receipt
    assert receipt.counts.get("moved") == 1
    assert "museum number 0" not in ws.path("memory/MOVED.md").read_text("utf-8")
    assert not any("number 0 " in h.text for h in hits)


def test_restore_then_dream_again_writes_no_moved_line_twice(tmp_path: Path) -> None:
    ws, config, before = _full_workspace(tmp_path)
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX), kind="summary")
        first = memory.dream()
        archive = ws.path("memory/MOVED.md").read_text("utf-8")
        memory.restore()  # the lines are back in USER.md, so MOVED.md no longer lists them
        assert ws.path("USER.md").read_text("utf-8") == before
        assert parse_moved(ws.path("memory/MOVED.md").read_text("utf-8")) == []
        again = memory.dream(replay_sha=first.commit)
    assert again.status == "committed", again.reason
    assert ws.path("memory/MOVED.md").read_text("utf-8") == archive  # the same lines, once
    assert [e.line for e in again.ledger if e.state == "moved"] == \
        [e.line for e in first.ledger if e.state == "moved"]


def test_restore_to_before_the_move_then_dream_again_leaves_no_line_in_both_places(
        tmp_path: Path) -> None:
    ws, config, before = _full_workspace(tmp_path)
    with Memory(ws, config=config, clock=lambda: NOW) as memory:
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX[:3]), kind="summary")
        first = memory.dream()
        memory.history.append("\n".join(f"- [permanent] {fact}" for fact in SIX[3:]), kind="summary")
        second = memory.dream()
        gone = [e.old for e in (*first.ledger, *second.ledger) if e.state == "moved"]
        assert len(gone) >= 3, gone
        memory.restore(first.commit)  # back to before the first move: every moved line is back
        user = ws.path("USER.md").read_text("utf-8")
        assert user == before
        assert parse_moved(ws.path("memory/MOVED.md").read_text("utf-8")) == []
        assert memory.status().health.moved_out == 0
        memory.history.append("- [permanent] I own a red sea kayak called Vesi, kept at the Pirita harbour", kind="summary")
        third = memory.dream()
        user = ws.path("USER.md").read_text("utf-8").splitlines()
        moved = parse_moved(ws.path("memory/MOVED.md").read_text("utf-8"))
        hits = memory.search("Visited museum number 1 last spring", k=5)
    assert third.status == "committed", third.reason
    assert moved and [m.text for m in moved] == [e.old for e in third.ledger if e.state == "moved"]
    assert not [m.text for m in moved if m.text in user]  # each line in one place, once
    assert len([h for h in hits if "museum number 1 last" in h.text]) == 1


def test_plan_room_never_picks_a_pinned_permanent_kept_or_prose_line() -> None:
    text = ("# User\nSome prose the person wrote.\n- A <!-- pin -->\n- B <!-- permanent -->\n"
            "- C\n- D\n")
    assert plan_room(text, 3, keep={"- C"}, reinforced={}, limit=5) == ["- D"]
    assert plan_room(text, 6, keep={"- C"}, reinforced={}, limit=5) is None
    assert plan_room(text, 6, keep=set(), reinforced={}, limit=1) is None  # the deletion share
    assert plan_room(text, 0, keep=set(), reinforced={}, limit=0) == []
    assert plan_room(text, 3, keep=set(), reinforced={}, limit=5, first={"- D"}) == ["- D"]


def test_plan_append_names_each_line_once_with_its_file_and_day() -> None:
    lines = [MovedLine("- Likes figs", "USER.md", "2026-11-30"), MovedLine("- Uses vim", "SOUL.md", "2026-11-30")]
    text, numbers = plan_append("", lines)
    again, renumbered = plan_append(text, [lines[1], MovedLine("- Likes figs", "USER.md", "2026-12-01")])
    assert again == text and renumbered == [numbers[1], numbers[0]]
    assert text.startswith("# Moved lines\n")
    assert [m for m in parse_moved(text)] == lines


def test_search_sees_the_bytes_a_file_is_about_to_have_and_then_the_disk(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    init_workspace(root)
    ws = Workspace(root)
    with Memory(ws) as memory:
        staged = (ws.path("USER.md").read_text("utf-8") + "- Keeps bees in Valga\n").encode()
        hits = memory.index.search("bees Valga", k=5, files={"USER.md": staged})
        assert [(h.path, h.text) for h in hits] == [("USER.md", "- Keeps bees in Valga")]
        assert memory.search("bees Valga", k=5) == []  # the disk never got those bytes
        ws.path("USER.md").write_bytes(staged)  # the commit writes exactly them
        assert [h.path for h in memory.search("bees Valga", k=5)] == ["USER.md"]
