"""Remembering one fact now: the parse (pure), Memory.remember and /remember from chat."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.commands import Command, parse_command
from nanomem.consolidate.facts import parse_fact
from nanomem.errors import CommandError, HistoryError
from nanomem.memory import Memory


def _clock() -> datetime:
    return datetime(2026, 11, 30, 16, 40)


def history(root: Path) -> list[dict[str, object]]:
    path = root / "memory" / "history.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(
    ("text", "mark", "expected"),
    [
        ("Prefers metric units.", None, ("durable", "Prefers metric units.")),
        ("[permanent] Allergic to peanuts.", None, ("permanent", "Allergic to peanuts.")),
        ("[Ephemeral]Tired today.", None, ("ephemeral", "Tired today.")),
        ("  two\n lines  ", "correction", ("correction", "two lines")),
        ("[durable] kept as text", "permanent", ("permanent", "[durable] kept as text")),
        ("[KX-7731] is the ticket", None, ("durable", "[KX-7731] is the ticket")),
    ],
)
def test_parse_fact_reads_the_mark_and_collapses_whitespace(
    text: str, mark: str | None, expected: tuple[str, str]
) -> None:
    assert parse_fact(text, mark) == expected


@pytest.mark.parametrize(
    ("text", "mark", "needle"),
    [
        ("", None, "nothing to remember"),
        ("[permanent]   ", None, "nothing to remember"),
        ("[permanant] typo", None, "`[permanant]` is not a mark"),
        ("[skip] no", None, "`[skip]` is not a mark"),
        ("fine", "forever", "mark 'forever' is not one of"),
        ("x" * 4001, None, "4,001 characters, more than 4,000"),
    ],
)
def test_parse_fact_refuses_what_cannot_be_a_fact(text: str, mark: str | None, needle: str) -> None:
    with pytest.raises(HistoryError, match=re.escape(needle)):
        parse_fact(text, mark)


def test_memory_remember_appends_the_marked_fact_and_redacts_secrets(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        first = mem.remember("[permanent] Allergic to peanuts.")
        second = mem.remember("My key is sk-abcdefghijklmnopqrstuvwxyz0123", session_key="cli")
    assert (first.status, first.cursor, first.mark) == ("remembered", 1, "permanent")
    assert second.cursor == 2
    lines = history(workspace)
    assert lines[0] == {"cursor": 1, "timestamp": "2026-11-30 16:40",
                        "content": "- [permanent] Allergic to peanuts."}
    assert lines[1]["session_key"] == "cli"
    assert str(lines[1]["content"]).startswith("- [durable] My key is [REDACTED")
    assert "sk-abcdefghij" not in (workspace / "memory" / "history.jsonl").read_text("utf-8")


def test_parse_command_reads_remember_with_the_rest_of_the_line_verbatim() -> None:
    assert parse_command("/remember  [permanent] Allergic   to peanuts. ") == Command(
        "remember", text="[permanent] Allergic   to peanuts.")
    assert parse_command("/remember@my_bot I like tea") == Command("remember", text="I like tea")
    with pytest.raises(CommandError, match="needs the fact to remember; usage"):
        parse_command("/remember   ")


def test_remember_from_chat_appends_now_and_confirms_with_the_cursor(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.history.append("an earlier entry")
        reply = mem.handle_command("/remember [correction] I moved to Porto.")
        bad = mem.handle_command("/remember [permanant] typo")
        status = mem.handle_command("/memory")
    assert reply == (
        "**Remembered** as history entry 2: `[correction]` I moved to Porto.\n"
        "The next Dream files it into memory; type `/dream` to run it now."
    )
    assert history(workspace)[-1]["content"] == "- [correction] I moved to Porto."
    assert bad is not None and bad.startswith("**Could not run `/remember`:** `[permanant]`")
    assert len(history(workspace)) == 2
    assert status is not None
    assert "`/remember [permanent|durable|ephemeral|correction] TEXT`" in status.splitlines()[-1]


def test_remembered_fact_reaches_memory_at_the_next_dream(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.handle_command("/remember [permanent] Allergic to peanuts.")
        assert mem.dream().status == "committed"
    assert "Allergic to peanuts." in (workspace / "USER.md").read_text("utf-8")


def test_agent_tool_memory_remember_appends_and_answers_in_json(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        assert "memory_remember" in [t["function"]["name"] for t in mem.agent_tools()]
        done = json.loads(mem.call_agent_tool(
            "memory_remember", '{"text": "Allergic to peanuts.", "mark": "permanent"}'))
        typo = json.loads(mem.call_agent_tool("memory_remember", {"text": "[permanant] x"}))
        bad = json.loads(mem.call_agent_tool("memory_remember", {"text": "x", "mark": "always"}))
        missing = json.loads(mem.call_agent_tool("memory_remember", "{}"))
    assert done["remembered"] == {"cursor": 1, "mark": "permanent", "text": "Allergic to peanuts."}
    assert typo["error"].startswith("memory_remember failed: `[permanant]` is not a mark")
    assert bad["error"].startswith("memory_remember mark: 'always' is not one of")
    assert missing["error"].startswith("memory_remember arguments: 'text' is a required property")
    assert [line["content"] for line in history(workspace)] == [
        "- [permanent] Allergic to peanuts."]


def test_remember_half_a_surrogate_pair_stays_in_history_and_dream_files_a_replacement(
    workspace: Path,
) -> None:
    """Hostile input through the Python API: a lone surrogate (``"\\ud800"``) is kept in the
    history, escaped, but was read back as it came, and the next Dream crashed with
    UnicodeEncodeError writing USER.md."""
    with Memory(workspace, clock=_clock) as memory:
        memory.remember("Lives in Porto \ud800 near the river.")
        result = memory.dream()
    assert history(workspace)[-1]["content"] == "- [durable] Lives in Porto \ud800 near the river."
    assert result.status == "committed", result
    assert "Porto \ufffd near the river" in (workspace / "USER.md").read_text("utf-8")
