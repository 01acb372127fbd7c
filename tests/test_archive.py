"""The verbatim archive: records, segments, idempotent appends, torn lines, the Consolidator hook."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.memory import Memory
from nanomem.store.archive import (
    RECORD_MAX_CHARS,
    Archive,
    parse_record,
    plan_records,
    read_records,
)
from nanomem.store.sessions import append_messages, load_session
from nanomem.store.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def _turns(n: int, day: int = 8) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(n):
        out.append({"role": "user", "content": f"Turn {i}: we painted a sunrise last week.",
                    "timestamp": f"2026-05-{day:02d}T14:{i % 60:02d}:00", "name": "Ana"})
        out.append({"role": "assistant", "content": f"Lovely, number {i}.",
                    "timestamp": f"2026-05-{day:02d}T14:{i % 60:02d}:30"})
    return out


def _lines(ws: Path) -> list[dict[str, object]]:
    out = []
    for path in sorted((ws / "memory" / "archive").glob("archive-*.jsonl")):
        out.extend(json.loads(line) for line in path.read_text("utf-8").splitlines() if line)
    return out


def test_plan_records_keeps_said_at_name_and_text_and_redacts_secrets() -> None:
    messages = [{"role": "user", "name": "Ana", "timestamp": "2026-05-08T14:03:59+02:00",
                 "content": "my key is sk-proj-Abc123def456ghi789jkl012 ok"}]

    [record] = plan_records(messages, session_key="cli", start=4, chunk="c", now="2026-05-09 10:00")

    assert (record.said_at, record.name, record.index, record.archived_at) == (
        "2026-05-08 14:03", "Ana", 4, "2026-05-09 10:00")
    assert record.text == "my key is [REDACTED:openai-key] ok"


def test_plan_records_splits_a_long_message_into_parts_without_cutting_text() -> None:
    text = "word " * (RECORD_MAX_CHARS // 5) + "tail"
    records = plan_records([{"role": "user", "content": text}], session_key="s", start=0,
                           chunk=None, now="2026-05-09 10:00")

    assert [r.part for r in records] == [(1, 2), (2, 2)]
    assert "".join(r.text for r in records) == text
    assert len({r.id for r in records}) == 2


def test_plan_records_summarises_tool_output_but_keeps_the_call_name() -> None:
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "read_page", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "1", "content": "x" * 5000},
    ]

    call, result = plan_records(messages, session_key="s", start=0, chunk=None, now="2026-05-09 10:00")

    assert call.text == "-> read_page({})"
    assert len(result.text) < 600 and result.text.endswith("[4500 chars of tool output omitted]")


def test_plan_records_ids_are_stable_and_distinct() -> None:
    first = plan_records(_turns(2), session_key="s", start=0, chunk=None, now="2026-05-09 10:00")
    again = plan_records(_turns(2), session_key="s", start=0, chunk=None, now="2026-06-01 00:00")

    assert [r.id for r in first] == [r.id for r in again]
    assert len({r.id for r in first}) == 4


def test_archive_append_is_idempotent_for_the_same_chunk(workspace: Path) -> None:
    archive = Archive(Workspace(workspace), clock=_clock)

    written = archive.append_messages(_turns(3), session_key="cli", start=0, chunk="f1")
    again = archive.append_messages(_turns(3), session_key="cli", start=0, chunk="f1")
    other_session = archive.append_messages(_turns(3), session_key="tg", start=0, chunk="f1")

    assert (written, again, other_session) == (6, 0, 6)
    assert len(_lines(workspace)) == 12


def test_archive_starts_a_new_segment_when_the_active_one_is_full(workspace: Path) -> None:
    archive = Archive(Workspace(workspace), clock=_clock, segment_max_bytes=500)
    for n in range(4):
        archive.append_messages(_turns(2), session_key="cli", start=4 * n, chunk=f"c{n}")

    names = [p.name for p in archive.segments()]

    assert names == ["archive-000001.jsonl", "archive-000002.jsonl",
                     "archive-000003.jsonl", "archive-000004.jsonl"]
    assert len(list(archive.iter_records())) == 16


def test_read_records_skips_a_torn_last_line_and_the_next_append_starts_fresh(workspace: Path) -> None:
    archive = Archive(Workspace(workspace), clock=_clock)
    archive.append_messages(_turns(1), session_key="cli", start=0, chunk="a")
    segment = archive.segments()[0]
    with open(segment, "ab") as handle:
        handle.write(b'{"id": "torn", "session_key": "cli", "ro')

    before = [r.text for _, r in read_records(segment)]
    archive.append_messages(_turns(1, day=9), session_key="cli", start=2, chunk="b")
    after = [r.said_at for r in archive.iter_records()]

    assert len(before) == 2
    assert after == ["2026-05-08 14:00", "2026-05-08 14:00", "2026-05-09 14:00", "2026-05-09 14:00"]
    assert parse_record(segment.read_bytes().split(b"\n")[2]) is None  # the torn fragment stays


def test_consolidate_archives_every_message_of_the_chunk_verbatim(workspace: Path) -> None:
    session = workspace / "sessions" / "cli.jsonl"
    append_messages(session, _turns(30), key="cli", clock=_clock)
    mem = Memory(workspace, clock=_clock)

    result = mem.consolidate("cli", context_window=5_600)

    archived = _lines(workspace)
    messages = load_session(session).messages[: result.archived_messages]
    assert result.status == "archived" and result.archived_messages > 0
    assert [(r["role"], r["text"], r["said_at"]) for r in archived] == [
        (m["role"], m["content"], m["timestamp"].replace("T", " ")[:16]) for m in messages]
    assert archived[0]["name"] == "Ana" and archived[0]["session_key"] == "cli"


def test_archive_survives_the_host_clearing_its_sessions(workspace: Path) -> None:
    session = workspace / "sessions" / "cli.jsonl"
    append_messages(session, _turns(30), key="cli", clock=_clock)
    mem = Memory(workspace, clock=_clock)
    mem.consolidate("cli", context_window=5_600)

    session.unlink()
    hits = Memory(workspace, clock=_clock).search("painted sunrise", sources=["archive"])

    assert hits and all(h.source == "archive" for h in hits) and "sunrise" in hits[0].text
    assert hits[0].timestamp.startswith("2026-05-08 14:")


def test_history_format_is_unchanged_by_the_archive(workspace: Path) -> None:
    session = workspace / "sessions" / "cli.jsonl"
    append_messages(session, _turns(30), key="cli", clock=_clock)
    Memory(workspace, clock=_clock).consolidate("cli", context_window=5_600)

    lines = (workspace / "memory" / "history.jsonl").read_text("utf-8").splitlines()

    for line in lines:  # what nanobot reads: cursor, timestamp, content (+ optional fields)
        data = json.loads(line)
        assert {"cursor", "timestamp", "content"} <= set(data) <= {
            "cursor", "timestamp", "content", "session_key", "kind", "chunk", "said_at"}
        assert type(data["cursor"]) is int and isinstance(data["content"], str)


_KILLER = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    from pathlib import Path
    from nanomem.store.archive import Archive
    from nanomem.store.workspace import Workspace
    archive = Archive(Workspace(Path(sys.argv[1])))
    n = 0
    print("ready", flush=True)
    while True:
        msgs = [{"role": "user", "content": "line %d " % n + "x" * 3000,
                 "timestamp": "2026-05-08T10:00:00"}]
        archive.append_messages(msgs, session_key="k", start=n, chunk="c%d" % n)
        n += 1
    """
)


@pytest.mark.slow
def test_archive_survives_kill_9_mid_append(workspace: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _KILLER, str(workspace)],
                            stdout=subprocess.PIPE, cwd=REPO)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    archive = Archive(Workspace(workspace))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sum(1 for _ in archive.iter_records()) < 50:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()

    survived = [r.text.split()[1] for r in archive.iter_records()]
    archive.append_messages([{"role": "user", "content": "after the kill"}], session_key="k",
                            start=10**6, chunk="after")
    texts = [r.text for r in archive.iter_records()]

    assert len(survived) >= 50
    assert survived == [str(i) for i in range(len(survived))]  # whole records, in order
    assert texts[-1] == "after the kill" and len(texts) == len(survived) + 1


def test_record_turn_archives_the_turns_it_consolidates(workspace: Path) -> None:
    from nanomem.config import load_config

    config = load_config(workspace, overrides={"context_window": 5_600})
    mem = Memory(workspace, config=config, clock=_clock)
    turns = _turns(30)
    for i in range(0, len(turns), 2):
        mem.record_turn("cli", turns[i:i + 2])

    archived = _lines(workspace)

    assert archived and archived[0]["text"] == "Turn 0: we painted a sunrise last week."
    assert [r["index"] for r in archived] == list(range(len(archived)))
