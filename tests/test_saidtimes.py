"""When a history entry's words were said: the latest said_at of its chunk at the archive's tail."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from nanomem.store.archive import Archive
from nanomem.store.historyfile import HistoryEntry
from nanomem.store.saidtimes import SaidTimes
from nanomem.store.workspace import Workspace


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def _said(day: int, minute: int, text: str = "hello") -> dict[str, object]:
    return {"role": "user", "content": text, "timestamp": f"2026-05-{day:02d}T09:{minute:02d}:00"}


def _entry(cursor: int, chunk: str | None, key: str | None = "cli") -> HistoryEntry:
    return HistoryEntry(cursor, "2026-05-09 10:00", f"- [durable] fact {cursor}", key, None, chunk)


def test_said_times_gives_the_latest_said_at_of_the_entrys_chunk(workspace: Path) -> None:
    ws = Workspace(workspace)
    archive = Archive(ws, clock=_clock)
    archive.append_messages([_said(2, 5), _said(2, 40)], session_key="cli", start=0, chunk="aa11")
    archive.append_messages([_said(3, 1)], session_key="web", start=0, chunk="aa11")

    said = SaidTimes(ws.archive_dir).read([_entry(1, "aa11/2"), _entry(2, "aa11/1", "web"),
                                           _entry(3, None), _entry(4, "zz99/1")])

    assert said == {1: "2026-05-02 09:40", 2: "2026-05-03 09:01"}


def test_said_times_finds_a_chunk_in_an_older_segment_within_the_limit(workspace: Path) -> None:
    ws = Workspace(workspace)
    archive = Archive(ws, clock=_clock, segment_max_bytes=200)
    archive.append_messages([_said(1, 7, "first " * 40)], session_key="cli", start=0, chunk="c1")
    for i in range(5):
        archive.append_messages([_said(4, i, "later " * 40)], session_key="cli", start=i + 1,
                                chunk=f"n{i}")

    assert len(archive.segments()) > 2
    assert SaidTimes(ws.archive_dir).read([_entry(1, "c1/1")]) == {1: "2026-05-01 09:07"}
    assert SaidTimes(ws.archive_dir, limit=600).read([_entry(1, "c1/1")]) == {}  # too far back


def test_said_times_skips_a_torn_last_line(workspace: Path) -> None:
    ws = Workspace(workspace)
    Archive(ws, clock=_clock).append_messages([_said(2, 5)], session_key="cli", start=0, chunk="t1")
    segment = Archive(ws).segments()[-1]
    with open(segment, "ab") as handle:
        handle.write(b'{"id": "x", "session_key": "cli", "index": 1, "role": "user", '
                     b'"said_at": "2026-05-07 09:00", "text": "torn", "chunk": "t1"')

    assert SaidTimes(ws.archive_dir).read([_entry(1, "t1/1")]) == {1: "2026-05-02 09:05"}


def test_said_times_sees_a_chunk_archived_after_it_was_first_missed(workspace: Path) -> None:
    ws = Workspace(workspace)
    archive = Archive(ws, clock=_clock)
    archive.append_messages([_said(2, 5)], session_key="cli", start=0, chunk="old")
    said = SaidTimes(ws.archive_dir)

    assert said.read([_entry(1, "new/1")]) == {}
    archive.append_messages([_said(6, 30)], session_key="cli", start=1, chunk="new")

    assert said.read([_entry(1, "new/1")]) == {1: "2026-05-06 09:30"}


def test_said_times_reads_a_record_that_starts_exactly_at_the_window_edge(workspace: Path) -> None:
    ws = Workspace(workspace)
    archive = Archive(ws, clock=_clock)
    archive.append_messages([_said(2, 5)], session_key="cli", start=0, chunk="e1")
    said = SaidTimes(ws.archive_dir)
    assert said.read([_entry(1, "e2/1")]) == {}  # missed: remembered with the archive's end
    archive.append_messages([_said(8, 45)], session_key="cli", start=1, chunk="e2")

    assert said.read([_entry(1, "e2/1")]) == {1: "2026-05-08 09:45"}  # only the new bytes read


def test_said_times_takes_an_entrys_own_said_at_without_reading_the_archive(workspace: Path) -> None:
    ws = Workspace(workspace)
    entry = HistoryEntry(1, "2026-05-09 10:00", "- [durable] fact", "cli", None, "gone/1",
                         said_at="2026-03-01 08:00")

    assert SaidTimes(ws.archive_dir).read([entry, _entry(2, "gone/1")]) == {1: "2026-03-01 08:00"}
