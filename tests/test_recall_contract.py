"""Issue 12's contract where no other test held it: frozen hits, search after history
compaction, the prompt block's order of priority at every budget, concurrent archive appends,
and nanobot's own reader on a workspace nanomem wrote (history format unchanged)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
import time
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.config import Config
from nanomem.memory import Memory
from nanomem.search.rank import Hit
from nanomem.store.archive import Archive, read_records
from nanomem.store.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent
PIN = "- Contract KX-7731 renews every March with the Porto office. <!-- pin -->"
RELEVANT = "- The dentist appointment is on June 3 at the Porto clinic."


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def test_hit_is_frozen_and_search_returns_at_most_8_by_default(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.archive.append_messages(
            [{"role": "user", "name": "Ana", "content": f"The kayak trip, part {i}.",
              "timestamp": "2026-05-08T14:03:00"} for i in range(20)],
            session_key="cli", start=0, chunk="k1")
        hits = mem.search("kayak trip")

    assert len(hits) == 8
    hit = hits[0]
    assert (hit.source, hit.session_key, hit.role, hit.name, hit.timestamp) == (
        "archive", "cli", "user", "Ana", "2026-05-08 14:03")
    assert isinstance(hit.score, float) and "kayak" in hit.text
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.text = "changed"  # type: ignore[misc]
    assert dataclasses.is_dataclass(Hit)


def test_search_finds_a_processed_entry_after_compaction_moved_it_and_the_index_was_deleted(
    workspace: Path,
) -> None:
    config = Config(max_history_entries=3)
    with Memory(workspace, config=config, clock=_clock) as mem:
        mem.history.append_many([f"- [durable] Note {i} about the glacier hike." for i in range(9)]
                                + ["- [durable] Booked the Lisbon ferry."])
        before = [h.cursor for h in mem.search("Lisbon ferry", sources=["history"])]
        mem.history.write_dream_cursor(10)
        moved = mem.history.compact()
        after = [h.cursor for h in mem.search("Lisbon ferry", sources=["history"])]
    (workspace / "memory" / "index.sqlite3").unlink()
    with Memory(workspace, config=config, clock=_clock) as mem:
        rebuilt = [h.cursor for h in mem.search("glacier hike", k=20, sources=["history"])]

    assert moved > 0 and list((workspace / "memory").glob("history.compacted-*.jsonl"))
    assert before == after == [10]
    assert sorted(c for c in rebuilt if c is not None) == list(range(1, 10))


def _priority_workspace(workspace: Path) -> None:
    facts = "".join(f"- Project fact {i} about the Atlas rollout schedule here.\n" for i in range(60))
    (workspace / "memory" / "MEMORY.md").write_text(
        "# Memory\n" + facts + RELEVANT + "\n" + PIN + "\n", "utf-8")


def test_context_keeps_the_order_of_priority_at_every_budget(workspace: Path) -> None:
    _priority_workspace(workspace)
    with Memory(workspace, clock=_clock) as mem:
        mem.archive.append_messages(
            [{"role": "user", "name": "Caroline", "timestamp": "2026-05-0{}T09:00:00".format(d),
              "content": f"My dentist said the appointment on day {d} went well enough."}
             for d in range(1, 6)], session_key="cli", start=0, chunk="d1")
        mem.history.append_many([f"- [durable] Pending decision {i} about the garden shed."
                                 for i in range(5)])
        texts = [mem.context(budget, query="when is the dentist appointment?")
                 for budget in range(20, 700, 15)]

    seen_all, had = False, (False, False)
    for text in texts:
        pinned, relevant = PIN in text, RELEVANT in text
        assert pinned >= had[0] and relevant >= had[1], text  # more budget never loses them
        had = (pinned, relevant)
        pending = [i for i in range(5) if f"Pending decision {i} " in text]
        recalled = "] Caroline (user): My dentist" in text
        assert relevant <= pinned, text  # pinned lines first
        assert bool(pending) <= relevant and recalled <= relevant, text  # then relevant lines
        assert pending == list(range(5 - len(pending), 5)), text  # pending: newest first
        seen_all = seen_all or (relevant and pending and recalled)
    assert seen_all and "[2026-05-05] Caroline (user): My dentist" in texts[-1]


_APPENDER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from nanomem.store.archive import Archive
    from nanomem.store.workspace import Workspace
    root, name = Path(sys.argv[1]), sys.argv[2]
    archive = Archive(Workspace(root), segment_max_bytes=64 * 1024)
    (root / f"ready-{name}").touch()
    while not (root / "go").exists():
        time.sleep(0.002)
    for i in range(150):
        text = f"{name} turn {i} " + "y" * (i * 53 % 900)
        archive.append_messages([{"role": "user", "content": text}], session_key=name, start=i,
                                chunk=f"{name}-{i}")
    """
)


@pytest.mark.slow
def test_archive_appends_from_two_processes_are_whole_and_none_is_lost(workspace: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", _APPENDER, str(workspace), name], cwd=REPO,
                              env=env, stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    deadline = time.monotonic() + 60
    while not all((workspace / f"ready-{n}").exists() for n in "ab"):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.01)
    (workspace / "go").touch()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err

    archive = Archive(Workspace(workspace))
    segments = archive.segments()
    lines = sum(len(p.read_bytes().splitlines()) for p in segments)
    records = [r for p in segments for _, r in read_records(p)]
    assert len(segments) > 1 and lines == len(records) == 300  # no torn, no interleaved line
    for name in "ab":
        assert [r.index for r in records if r.session_key == name] == list(range(150))


_NANOBOT_READS = (
    "import json, sys; from pathlib import Path\n"
    "from nanobot.agent.memory import MemoryStore\n"
    "store = MemoryStore(Path(sys.argv[1]))\n"
    "entries = store.read_unprocessed_history(0)\n"
    "print(json.dumps([[e['cursor'], e['timestamp'], e['content']] for e in entries]"
    " + [store.get_last_dream_cursor(), store._next_cursor()]))\n"
)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("NANOMEM_NANOBOT_PYTHON"),
                    reason="set NANOMEM_NANOBOT_PYTHON to a python with nanobot-ai 0.3.5")
def test_nanobot_reads_the_history_that_nanomem_wrote_with_the_archive_on(
    workspace: Path, tmp_path: Path,
) -> None:
    """The real reader: nanobot-ai 0.3.5's MemoryStore, on history with chunk tags and kinds."""
    from nanomem.store.sessions import append_messages

    turns = [{"role": "user" if i % 2 == 0 else "assistant",
              "content": f"I always take the 7:40 train to work, note {i}.",
              "timestamp": f"2026-04-20T09:{i:02d}:00"} for i in range(40)]
    append_messages(workspace / "sessions" / "cli.jsonl", turns, key="cli", clock=_clock)
    with Memory(workspace, clock=_clock) as mem:
        assert mem.consolidate("cli", context_window=5_600).status == "archived"
        mem.remember("Prefers the window seat.")
        mem.history.write_dream_cursor(1)
        ours = mem.history.read_since(0)
    assert ours and any(e.chunk for e in ours) and list((workspace / "memory").glob("archive/*"))

    proc = subprocess.run(
        [os.environ["NANOMEM_NANOBOT_PYTHON"], "-c", _NANOBOT_READS, str(workspace)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)},
    )

    assert proc.returncode == 0, proc.stderr
    *entries, dream_cursor, next_cursor = json.loads(proc.stdout)
    assert entries == [[e.cursor, e.timestamp, e.content] for e in ours]
    assert (dream_cursor, next_cursor) == (1, ours[-1].cursor + 1)
