"""The search index notices history entries rewritten under its marks (hand edits, tools, forget)."""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.config import Config
from nanomem.memory import Memory
from nanomem.store.fsutil import atomic_write


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


@pytest.fixture
def mem(workspace: Path) -> Memory:
    memory = Memory(workspace, config=Config(max_history_entries=2), clock=_clock)
    yield memory
    memory.close()


def _texts(mem: Memory, query: str) -> list[str]:
    return [h.text for h in mem.search(query, sources=["history"])]


def _later(path: Path) -> None:
    """What a person's edit does to the mtime: it moves on (tests run within one clock tick)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def test_index_notices_a_history_entry_replaced_by_a_tool(mem: Memory) -> None:
    mem.history.append("- [durable] Booked the Lisbon hotel.", session_key="cli")
    mem.history.append("- [durable] Likes green tea.", session_key="cli")
    assert _texts(mem, "Lisbon") == ["- [durable] Booked the Lisbon hotel."]

    path = mem.history.path
    atomic_write(path, path.read_bytes().replace(b"Lisbon", b"Porto"))

    assert _texts(mem, "Lisbon") == []
    assert _texts(mem, "Porto") == ["- [durable] Booked the Porto hotel."]
    assert _texts(mem, "tea") == ["- [durable] Likes green tea."]


def test_index_notices_a_same_length_edit_in_place(mem: Memory) -> None:
    mem.history.append("- [durable] Booked the Lisbon hotel.", session_key="cli")
    mem.history.append("- [durable] Likes green tea.", session_key="cli")
    assert _texts(mem, "Lisbon")
    path = mem.history.path
    inode = path.stat().st_ino

    with open(path, "r+b") as handle:  # the same inode, the same length
        data = handle.read()
        handle.seek(0)
        handle.write(data.replace(b"Lisbon", b"Madrid"))
    _later(path)

    assert path.stat().st_ino == inode
    assert _texts(mem, "Lisbon") == []
    assert _texts(mem, "Madrid") == ["- [durable] Booked the Madrid hotel."]


def test_index_notices_an_edit_in_place_followed_by_an_append(mem: Memory) -> None:
    mem.history.append("- [durable] Booked the Lisbon hotel.", session_key="cli")
    assert _texts(mem, "Lisbon")
    path = mem.history.path
    path.write_bytes(path.read_bytes().replace(b"Lisbon", b"Rome"))  # truncate and write

    mem.history.append("- [durable] Bought a kayak.", session_key="cli")

    assert _texts(mem, "Lisbon") == []
    assert _texts(mem, "Rome") == ["- [durable] Booked the Rome hotel."]
    assert _texts(mem, "kayak") == ["- [durable] Bought a kayak."]


def test_index_drops_an_entry_deleted_from_history_by_hand(mem: Memory) -> None:
    for text in ("Booked the Lisbon hotel.", "Likes green tea.", "Bought a kayak."):
        mem.history.append(f"- [durable] {text}", session_key="cli")
    assert _texts(mem, "tea")
    path = mem.history.path
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(line for line in lines if b"tea" not in line))

    assert _texts(mem, "tea") == []
    assert _texts(mem, "kayak") == ["- [durable] Bought a kayak."]


def test_index_notices_an_entry_edited_in_a_compacted_segment(mem: Memory) -> None:
    for i in range(8):
        mem.history.append(f"- [durable] fact number {i} about otters", session_key="cli")
    mem.history.write_dream_cursor(8)
    assert mem.history.compact() > 0
    segment = mem.history.segments()[0].path
    assert b"number 0 " in segment.read_bytes()
    assert len(_texts(mem, "otters")) == 8

    atomic_write(segment, segment.read_bytes().replace(b"number 0 about otters",
                                                       b"number 0 about beavers"))

    assert len(_texts(mem, "otters")) == 7
    assert _texts(mem, "beavers") == ["- [durable] fact number 0 about beavers"]


def test_index_takes_a_compaction_for_a_move_not_a_rewrite(
    mem: Memory, caplog: pytest.LogCaptureFixture,
) -> None:
    for i in range(8):
        mem.history.append(f"- [durable] fact number {i} about otters", session_key="cli")
    mem.index.update()
    mem.history.write_dream_cursor(8)

    assert mem.history.compact() > 0
    with caplog.at_level(logging.WARNING):
        stats = mem.index.update()

    assert (stats.history, stats.rebuilt) == (0, False)
    assert "changed on disk" not in caplog.text
    assert sorted(h.cursor for h in mem.search("otters", k=20, sources=["history"])) == list(range(1, 9))


def test_index_notices_a_history_rewritten_by_an_older_nanomem(mem: Memory) -> None:
    """An index built before the history marks existed checks the history once."""
    mem.history.append("- [durable] Booked the Lisbon hotel.", session_key="cli")
    assert _texts(mem, "Lisbon")
    mem.index._healthy(lambda db: db.execute("DELETE FROM marks WHERE name LIKE 'h%' AND "
                                             "name != 'history'"))
    path = mem.history.path
    atomic_write(path, path.read_bytes().replace(b"Lisbon", b"Porto"))

    assert _texts(mem, "Lisbon") == []


def test_forget_leaves_nothing_findable_when_only_the_index_still_holds_the_text(
    mem: Memory,
) -> None:
    mem.history.append("- [durable] Cousin is Zanzibar Quokka.", session_key="cli")
    mem.history.append("- [durable] Likes green tea.", session_key="cli")
    assert _texts(mem, "Zanzibar")
    path = mem.history.path  # the person removed the line by hand; the index has not looked since
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(line for line in lines if b"Zanzibar" not in line))

    receipt = mem.forget("Zanzibar Quokka")

    assert receipt.status == "forgotten", receipt.hits
    assert not any(b"Zanzibar" in p.read_bytes()
                   for p in mem.workspace.memory_dir.glob("index.sqlite3*"))
    assert mem.search("Zanzibar") == []
    assert _texts(mem, "tea") == ["- [durable] Likes green tea."]


def test_forget_of_a_history_entry_leaves_the_index_without_it(mem: Memory) -> None:
    mem.history.append("- [durable] Cousin is Zanzibar Quokka.", session_key="cli")
    mem.history.append("- [durable] Likes green tea.", session_key="cli")
    other = Memory(mem.workspace.root, clock=_clock)  # another process holds the index open
    try:
        assert [h.text for h in other.search("Zanzibar")]

        assert mem.forget("Zanzibar Quokka").status == "forgotten"

        assert other.search("Zanzibar") == [] and mem.search("Zanzibar") == []
        lines = [json.loads(line) for line in mem.history.path.read_text("utf-8").splitlines()]
        assert [entry["content"] for entry in lines] == ["", "- [durable] Likes green tea."]
    finally:
        other.close()
