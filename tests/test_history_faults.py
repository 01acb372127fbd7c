"""The history log under faults (issue 11): a dream cursor above history, a cursor file that
cannot be written, chunks archived twice, locks that never free, compaction that must not lose."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from pathlib import Path

import pytest

from nanomem.config import Config
from nanomem.consolidate.run import consolidate
from nanomem.engines.offline.engine import OfflineEngine
from nanomem.errors import HistoryError, LockError, StoreFileError
from nanomem.store.fsutil import FileLock
from nanomem.store.history import History
from nanomem.store.sessions import Session, load_session, save_session
from nanomem.store.workspace import Workspace
from tests.test_consolidator import config_for, turns
from tests.test_history import NOW, make_history

def main_cursors(root: Path) -> list[int]:
    text = (root / "memory" / "history.jsonl").read_text(encoding="utf-8")
    return [json.loads(line)["cursor"] for line in text.splitlines() if line.strip()]


# item 2: a dream cursor above history ----------------------------------------------------------


def test_dream_cursor_above_history_is_clamped_to_the_last_dream_trailer(
    workspace: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    make_history(workspace).append_many([f"e{i}" for i in range(1, 51)])
    history = make_history(workspace, dream_cursor_fallback=lambda: 30)
    (workspace / "memory" / ".dream_cursor").write_text("1000\n")
    with caplog.at_level(logging.WARNING):
        assert history.read_dream_cursor() == 30
    assert "above every cursor in history; clamped to 30" in caplog.text
    assert (workspace / "memory" / ".dream_cursor").read_text() == "1000\n"  # reading never writes
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == list(range(31, 51))
    assert history.pending_count() == 20
    new = history.append("after the repair")  # a writer repairs the file, the entry stays pending
    assert (workspace / "memory" / ".dream_cursor").read_text() == "30\n"
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())][-1] == new
    assert history.pending_count() == 21


def test_dream_cursor_above_history_without_git_is_clamped_to_the_last_cursor(workspace: Path) -> None:
    history = make_history(workspace)
    history.append_many([f"e{i}" for i in range(1, 6)])
    (workspace / "memory" / ".dream_cursor").write_text("999\n")
    assert history.read_dream_cursor() == 5
    new = history.append("next")  # above the old value (DESIGN §1) and pending, never hidden
    assert new == 1000
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == [new]


def test_compact_never_moves_an_entry_after_the_clamped_dream_cursor_out_of_reach(
    workspace: Path,
) -> None:
    make_history(workspace).append_many([f"e{i}" for i in range(1, 41)])
    history = make_history(workspace, config=Config(max_history_entries=5),
                           dream_cursor_fallback=lambda: 12)
    (workspace / "memory" / ".dream_cursor").write_text("5000\n")
    assert history.compact() == 12
    assert (workspace / "memory" / ".dream_cursor").read_text() == "12\n"  # repaired by the writer
    assert [s.path.name for s in history.segments()] == ["history.compacted-1-12.jsonl"]
    assert main_cursors(workspace) == list(range(13, 41))
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == list(range(13, 41))


# item 4: a cursor file that cannot be written, a chunk archived twice ---------------------------


def test_append_succeeds_when_the_cursor_hint_cannot_be_written(
    workspace: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    history = make_history(workspace)
    history.append("first")
    hint = workspace / "memory" / ".cursor"
    hint.unlink()
    hint.mkdir()  # os.replace onto a directory fails
    with caplog.at_level(logging.WARNING):
        assert history.append("second") == 2
    assert "cannot update the write-cursor hint" in caplog.text
    assert history.append("third") == 3  # derived from the last line: no gap, no duplicate
    assert main_cursors(workspace) == [1, 2, 3]


def test_append_many_with_the_chunk_already_archived_writes_nothing(workspace: Path) -> None:
    history = make_history(workspace)
    first = history.append_many(["a", "b"], session_key="cli:t", kind="summary", chunk="f00d/4")
    history.append("from another session", session_key="cli:other")
    again = history.append_many(["a", "b"], session_key="cli:t", kind="summary", chunk="f00d/4")
    assert again == first == [1, 2]
    assert main_cursors(workspace) == [1, 2, 3]
    line = json.loads((workspace / "memory" / "history.jsonl").read_text().splitlines()[0])
    assert line["chunk"] == "f00d/4" and line["session_key"] == "cli:t"


def _consolidate(path: Path, ws: Path, config: Config):  # type: ignore[no-untyped-def]
    history = History(Workspace(ws), config, clock=lambda: NOW)
    return asyncio.run(consolidate(path, history=history, engine=OfflineEngine(), config=config,
                                   clock=lambda: NOW))


@pytest.mark.parametrize("late_turn", [False, True])
def test_consolidate_after_a_kill_before_the_session_save_archives_nothing_twice(
    workspace: Path, late_turn: bool,
) -> None:
    messages = turns(30)
    messages[0] = {"role": "user", "content": "My name is Ana and I live in Lisbon. " + messages[0]["content"]}
    path = workspace / "sessions" / "t.jsonl"
    save_session(path, Session(key="cli:t", messages=tuple(messages)))
    before = path.read_bytes()
    config = config_for(messages, 0.8, max_consolidate_rounds=1)
    first = _consolidate(path, workspace, config)
    assert first.status == "archived" and first.cursors
    archived = load_session(path).last_consolidated
    lines = (workspace / "memory" / "history.jsonl").read_bytes()
    path.write_bytes(before)  # the kill: history has the chunk, the session never advanced
    if late_turn:
        save_session(path, Session(key="cli:t", messages=tuple(
            [*messages, {"role": "user", "content": "one more turn"}])))
    second = _consolidate(path, workspace, config)
    assert (workspace / "memory" / "history.jsonl").read_bytes() == lines
    assert load_session(path).last_consolidated == archived
    assert second.cursors == first.cursors


# item 13: locks -------------------------------------------------------------------------------


def test_append_times_out_with_the_lock_holder_pid(workspace: Path) -> None:
    history = make_history(workspace, lock_timeout=0.05)
    history.append("first")
    holder = FileLock(workspace / "memory" / ".history.lock")
    holder.acquire()
    try:
        with pytest.raises(HistoryError, match=rf"still held by pid {os.getpid()}"):
            history.append("second")
    finally:
        holder.release()
    assert history.append("second") == 2


def test_append_with_a_directory_as_lock_is_a_clear_exit_2_error(workspace: Path) -> None:
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / ".history.lock").mkdir()
    with pytest.raises(LockError, match=r"\.history\.lock: is a directory") as info:
        make_history(workspace).append("x")
    assert info.value.exit_code == 2


# the append's failure paths -------------------------------------------------------------------


def test_append_that_fails_and_cannot_roll_back_says_so(workspace: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    history = make_history(workspace)
    history.append("first")

    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    def stuck(fd: int, size: int) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "write", full)
    monkeypatch.setattr(os, "ftruncate", stuck)
    with pytest.raises(HistoryError, match="and so did cutting back .* free some disk space"):
        history.append("second")
    monkeypatch.undo()
    assert [e.content for e in history.read_since(0)] == ["first"]


def test_append_that_fails_and_rolls_back_says_nothing_was_written(workspace: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    history = make_history(workspace)
    history.append("first")

    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(HistoryError, match=r"history\.jsonl: append failed \(No space left on device\); "
                                           r"nothing was written; free some disk space") as info:
        history.append("second")
    monkeypatch.undo()
    assert isinstance(info.value.__cause__, OSError)
    assert [e.content for e in history.read_since(0)] == ["first"]


def test_append_that_cannot_open_the_file_says_so(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    history = make_history(workspace)
    history.append("first")
    real_open = os.open

    def denied(path: str, flags: int, *args: int, **kwargs: int) -> int:
        if flags & os.O_APPEND:
            raise OSError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(HistoryError, match=r"cannot open for append \(Permission denied\); make the file writable"):
        history.append("second")
    monkeypatch.undo()
    assert [e.content for e in history.read_since(0)] == ["first"]


# item 14 and DESIGN §10: compaction moves, never deletes ----------------------------------------


def test_compact_moves_processed_entries_to_a_segment_that_iter_entries_reads(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=10))
    history.append_many([f"e{i}" for i in range(1, 101)])
    history.write_dream_cursor(95)
    assert history.compact() == 90
    assert main_cursors(workspace) == list(range(91, 101))
    assert [s.path.name for s in history.segments()] == ["history.compacted-1-90.jsonl"]
    assert [e.cursor for e in history.iter_entries()] == list(range(1, 101))
    assert [e.cursor for e in history.iter_entries(since=80)] == list(range(81, 101))
    assert [e.content for e in history.iter_entries(since=89)][:2] == ["e90", "e91"]


def test_append_never_compacts(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=2))
    history.write_dream_cursor(0)
    for i in range(60):
        history.append(f"e{i}")
    assert main_cursors(workspace) == list(range(1, 61)) and history.segments() == []


def test_a_reader_started_before_a_compaction_still_sees_every_entry(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=5))
    history.append_many([f"e{i}" for i in range(1, 41)])
    history.write_dream_cursor(40)
    reader = history.iter_entries()
    seen = [next(reader).cursor]
    assert make_history(workspace, config=Config(max_history_entries=5)).compact() == 35
    seen.extend(e.cursor for e in reader)
    assert seen == list(range(1, 41))


def test_pending_count_is_the_cursor_span_after_the_dream_cursor(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=3))
    for i in range(1, 101):
        history.append(f"e{i}")
        history.compact()
    history.write_dream_cursor(17)
    assert history.overflow_files()
    assert history.pending_count() == 83 == len(history.read_since(17))


# item 12: unsorted and outlying cursors -------------------------------------------------------


def write_entries(root: Path, cursors: list[int], name: str = "history.jsonl") -> None:
    path = root / "memory" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"cursor": c, "timestamp": "2025-01-01 00:00",
                                        "content": f"e{c}"}) + "\n" for c in cursors))


def test_two_concatenated_history_files_hide_nothing_from_dream(
    workspace: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    write_entries(workspace, list(range(1, 801)) + list(range(1, 301)))
    (workspace / "memory" / ".dream_cursor").write_text("800\n")
    history = make_history(workspace)
    before = (workspace / "memory" / "history.jsonl").read_bytes()
    assert history.order_problem() == "unsorted"
    with caplog.at_level(logging.WARNING):
        pending = history.read_since(history.read_dream_cursor())
    assert "cursors are out of order" in caplog.text
    assert [e.cursor for e in pending] == list(range(801, 1101))
    assert [e.content for e in pending][:2] == ["e1", "e2"]  # the second file's entries
    assert history.pending_count() == 300
    assert (workspace / "memory" / "history.jsonl").read_bytes() == before  # reading never writes
    assert history.append("new") == 1101  # the writer repairs first
    lines = [json.loads(x) for x in (workspace / "memory" / "history.jsonl").read_text().splitlines()]
    assert [x["cursor"] for x in lines] == list(range(1, 1102))
    assert lines[800]["renumbered_from"] == 1 and lines[800]["content"] == "e1"
    assert history.pending_count() == 301 and history.order_problem() is None


def test_one_huge_cursor_at_the_end_does_not_make_compaction_move_everything(workspace: Path) -> None:
    write_entries(workspace, [*range(1, 61), 10**15])
    (workspace / "memory" / ".dream_cursor").write_text("40\n")
    history = make_history(workspace, config=Config(max_history_entries=5))
    history.compact()
    lines = [json.loads(x) for x in (workspace / "memory" / "history.jsonl").read_text().splitlines()]
    assert [x["cursor"] for x in lines] == list(range(41, 62))  # only processed entries moved
    assert lines[-1]["renumbered_from"] == 10**15
    assert [e.cursor for e in history.iter_entries()] == list(range(1, 62))
    assert history.append("next") == 62


def test_a_huge_cursor_in_the_middle_moves_to_the_end_and_others_keep_theirs(workspace: Path) -> None:
    write_entries(workspace, [1, 2, 3, 10**15, 4, 5])
    history = make_history(workspace)
    assert history.append("next") == 7
    cursors = [(x["cursor"], x["content"]) for x in map(
        json.loads, (workspace / "memory" / "history.jsonl").read_text().splitlines())]
    assert cursors == [(1, "e1"), (2, "e2"), (3, "e3"), (4, "e4"), (5, "e5"),
                       (6, f"e{10**15}"), (7, "next")]


def test_a_huge_cursor_file_or_segment_name_does_not_inflate_the_next_cursor(
    workspace: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    write_entries(workspace, [1, 2, 3], name="history.overflow-1-999999999999.jsonl")
    write_entries(workspace, [4, 5])
    (workspace / "memory" / ".cursor").write_text(f"{10**15}\n")
    history = make_history(workspace)
    with caplog.at_level(logging.WARNING):
        assert history.append("next") == 6
    assert "ignored as corrupt" in caplog.text and "is named up to cursor" in caplog.text
    assert [e.cursor for e in history.iter_entries()] == [1, 2, 3, 4, 5, 6]


# item 15: store files that cannot be used ------------------------------------------------------


def test_a_history_symlink_loop_is_a_one_line_exit_2_error(workspace: Path) -> None:
    path = workspace / "memory" / "history.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.symlink_to(path)
    history = make_history(workspace)
    for action in (lambda: history.append("x"), lambda: history.read_since(0), history.pending_count):
        with pytest.raises(StoreFileError, match=r"history\.jsonl: .*symlink loop; replace the link") as info:
            action()
        assert info.value.exit_code == 2


def kill_9_once_grown(script: str, arg: Path, grows: Path, size: int) -> None:
    """Run ``script`` (which prints ``go`` then writes forever), SIGKILL it once ``grows``
    reaches ``size`` bytes (or after 30 s)."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-c", script, str(arg)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"go\n"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not grows.exists() or grows.stat().st_size < size):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()


@pytest.mark.slow
def test_kill_9_during_appends_leaves_a_readable_history(workspace: Path) -> None:
    script = ("import sys\nfrom nanomem.store.history import History\n"
              "from nanomem.store.workspace import Workspace\n"
              "h = History(Workspace(sys.argv[1]))\nprint('go', flush=True)\n"
              "while True:\n    h.append_many(['x' * 5000, 'y' * 7000])\n")
    kill_9_once_grown(script, workspace, workspace / "memory" / "history.jsonl", 200_000)
    history = make_history(workspace)
    cursors = [e.cursor for e in history.read_since(0)]
    assert len(cursors) >= 20 and cursors == list(range(1, len(cursors) + 1))
    # a kill inside the write leaves a torn last line; its cursor, when its prefix survived, is
    # not handed out again, so the cursors in the file stay increasing (docs/history.md)
    raw = (workspace / "memory" / "history.jsonl").read_bytes()
    torn = re.match(rb'\{"cursor": ?(\d+)', raw.rsplit(b"\n", 1)[-1])
    expected = max(cursors[-1], int(torn.group(1)) if torn else 0) + 1
    assert history.append("after the kill") == expected
    assert [e.cursor for e in history.read_since(cursors[-1])] == [expected]
