"""``/memory moved``: every line Dream moved out of a full file, newest first, bounded, with the
count of the rest and where they are (issue 13; nanomem.movedlist)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.cli import main
from nanomem.commands import Command, parse_command
from nanomem.memory import Memory
from nanomem.movedlist import MAX_CHARS, render_moved_list
from nanomem.store.moved import MovedLine, plan_append, write_moved_text


@pytest.fixture
def memory(workspace: Path) -> Iterator[Memory]:
    mem = Memory(workspace, clock=lambda: datetime(2026, 11, 30, 16, 40))
    mem.store  # creates the repository with its init: commit
    yield mem
    mem.close()


def _move(memory: Memory, texts: list[str]) -> None:
    lines = [MovedLine(text, "USER.md", f"2026-11-{1 + i % 28:02d}") for i, text in enumerate(texts)]
    write_moved_text(memory.workspace, plan_append("", lines)[0])


def test_parse_command_reads_memory_moved() -> None:
    assert parse_command("/memory moved") == Command("memory", text="moved")


def test_memory_moved_lists_every_moved_line_newest_first(memory: Memory) -> None:
    _move(memory, [f"- Visited museum number {n} last spring" for n in range(8)])

    reply = memory.handle_command("/memory moved")
    status = memory.handle_command("/memory")

    assert reply is not None and status is not None
    rows = [line for line in reply.splitlines() if line.startswith("- ")]
    assert rows[0] == "- Visited museum number 7 last spring (from USER.md, 2026-11-08)"
    assert [row.split(" (from")[0] for row in rows] == [
        f"- Visited museum number {n} last spring" for n in reversed(range(8))]
    assert "8 lines Dream moved out of a full memory file" in reply and "not shown" not in reply
    assert "`/memory moved` lists all" in status  # /memory still shows the newest three
    assert status.count("Visited museum number") == 3


def test_memory_moved_is_bounded_and_counts_the_rest(memory: Memory) -> None:
    _move(memory, [f"- Fact number {n}" for n in range(60)])

    reply = memory.handle_command("/memory moved")

    assert reply is not None
    rows = [line for line in reply.splitlines() if line.startswith("- ")]
    assert len(rows) == 50 and rows[0].startswith("- Fact number 59 ") and rows[-1].startswith("- Fact number 10 ")
    assert reply.splitlines()[-1] == ("… and 10 older lines not shown: read `memory/MOVED.md` in the "
                                      "workspace, or find one with `/recall WORDS` (`nanomem search WORDS`).")


def test_render_moved_list_stays_within_its_character_bound() -> None:
    lines = [MovedLine("- " + f"{n} " + "long words " * 40, "USER.md", "2026-11-30") for n in range(40)]

    reply = render_moved_list(lines)

    assert len(reply) <= MAX_CHARS + 200  # the bound, plus the closing line that counts the rest
    assert "older lines not shown" in reply.splitlines()[-1]


def test_memory_moved_says_so_when_nothing_was_moved(memory: Memory) -> None:
    reply = memory.handle_command("/memory moved")

    assert reply == ("**No moved lines**: Dream has moved nothing out of a full memory file "
                     "(`memory/MOVED.md` is empty).")


def _status_text(workspace: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert main(["-w", str(workspace), "status"], stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize(("count", "rest"), [(14, "… and 4 older: nanomem command \"/memory moved\" lists all 14"),
                                             (60, "… and 50 older: nanomem command \"/memory moved\" lists the "
                                                  "newest 50; memory/MOVED.md holds all 60")])
def test_cli_status_says_the_total_shows_the_newest_ten_and_where_the_rest_are(
    memory: Memory, count: int, rest: str,
) -> None:
    _move(memory, [f"- Visited museum number {n} last spring" for n in range(count)])

    text = _status_text(memory.workspace.root)

    assert f"moved out     {count} line(s) to memory/MOVED.md since 2026-11-01; newest 10:" in text
    shown = [line.strip() for line in text.splitlines() if "Visited museum number" in line]
    assert shown == [f"Visited museum number {n} last spring (from USER.md, 2026-11-{1 + n % 28:02d})"
                     for n in reversed(range(count - 10, count))]
    assert rest in text
    reply = memory.handle_command("/memory moved")  # the command it names does list them
    assert reply is not None and reply.count("Visited museum number") == min(count, 50)


def test_cli_status_names_no_rest_when_every_moved_line_is_shown(memory: Memory) -> None:
    _move(memory, ["- Likes figs", "- Keeps bees"])

    text = _status_text(memory.workspace.root)

    assert "moved out     2 line(s) to memory/MOVED.md since 2026-11-01; newest 2:" in text
    assert "Keeps bees (from USER.md, 2026-11-02)" in text and "older" not in text
