"""End to end: ``kill -9`` at points of a Dream run and of append loops (DESIGN §3.5, §7).

After every kill: the memory files equal a committed state or are picked up as ``manual:``; the
dream cursor never points past a committed Dream; ``git fsck --strict`` is clean; the next
``nanomem dream`` succeeds.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.e2e_support import (
    base_env,
    cli,
    committed_bytes,
    dream_cursor,
    fake_edit,
    fake_finish,
    fsck,
    git_dir_of,
    history_lines,
    init_ws,
    memory_bytes,
    nanomem,
    openai_env,
    popen_nanomem,
    subjects,
)
from tests.fakellm import FakeLLM

pytestmark = pytest.mark.slow  # every test here starts a process or a server

FACTS = "## Facts\n"


def _assert_consistent_after_kill(ws: Path, *, every_dream_commits: bool = True) -> None:
    """The promises of DESIGN §7 about a killed process, checked from the files and git.

    With ``every_dream_commits`` (each Dream of the test changes a file), the dream cursor may
    not pass the newest ``Dream-Cursor:`` trailer; a Dream with no changes advances it without
    a commit, by design."""
    fsck(git_dir_of(ws))
    text = dream_cursor(ws)
    if every_dream_commits:
        assert (int(text) if text else 0) <= max([0, *_dream_trailers(ws)])
    if memory_bytes(ws) != committed_bytes(ws):  # not a committed state:
        journaled = (ws / "memory" / ".write-journal.json").exists()
        run = nanomem(ws, "dream", "--json")
        assert run.rc == 0, run.err
        if journaled:  # a killed Dream or restore: completed as its own commit, not manual:
            assert run.json()["manual_commit"] is None
            assert not (ws / "memory" / ".write-journal.json").exists()
        else:  # a hand edit: picked up as manual:
            assert run.json()["manual_commit"] is not None
            assert any(s.startswith("manual:") for s in subjects(ws))
        assert memory_bytes(ws) == committed_bytes(ws)


def _dream_trailers(ws: Path) -> list[int]:
    from tests.e2e_support import git

    out = git(git_dir_of(ws), "log", "--format=%(trailers:key=Dream-Cursor,valueonly)")
    return [int(v) for v in out.split() if v.strip().isdigit()]


def test_dream_kill9_while_waiting_for_the_model_changes_nothing(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    assert nanomem(ws, "append", "- [durable] User lives in Lyon.").rc == 0
    before_files, before_head = memory_bytes(ws), subjects(ws)
    arrived = threading.Event()
    fake = FakeLLM(on_request=lambda body: arrived.set())
    fake.enqueue_timeout(30.0)
    with fake.serve() as url:
        proc = popen_nanomem(ws, "dream", env=openai_env(url))
        assert arrived.wait(30), "the Dream never called the model"
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert memory_bytes(ws) == before_files
    assert subjects(ws) == before_head
    assert dream_cursor(ws) in ("", "0")
    _assert_consistent_after_kill(ws)

    fake2 = FakeLLM()
    fake2.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                              fake_finish()])
    with fake2.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    assert run.json()["status"] == "committed"
    assert dream_cursor(ws) == "1"
    assert "- User lives in Lyon." in (ws / "USER.md").read_text()


_KILL_SCRIPT = r"""
import os, signal, sys
from nanomem.versions import gitstore
from nanomem.store import history
where = sys.argv[1]
if where == "before-commit":
    original = gitstore.GitStore.commit
    def commit(self, subject, *a, **k):
        if subject.startswith("dream:"):
            os.kill(os.getpid(), signal.SIGKILL)
        return original(self, subject, *a, **k)
    gitstore.GitStore.commit = commit
elif where == "before-restore-commit":
    original = gitstore.GitStore._commit_files
    def commit_files(self, files, message):
        if message.startswith("restore:"):
            os.kill(os.getpid(), signal.SIGKILL)
        return original(self, files, message)
    gitstore.GitStore._commit_files = commit_files
elif where == "before-cursor":
    def write_dream_cursor(self, n):
        os.kill(os.getpid(), signal.SIGKILL)
    history.History.write_dream_cursor = write_dream_cursor
from nanomem.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("where", ["before-commit", "before-cursor"])
def test_dream_kill9_between_write_commit_and_cursor_keeps_promises(
    tmp_path: Path, where: str
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    assert cli("-w", str(ws), "dream").rc == 0
    assert dream_cursor(ws) == "1"
    assert cli("-w", str(ws), "append", "- [durable] Project KX-7731 ships in May.").rc == 0
    proc = subprocess.run(
        [sys.executable, "-c", _KILL_SCRIPT, where, "-w", str(ws), "dream"],
        capture_output=True, text=True, env=base_env(), timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    _assert_consistent_after_kill(ws)

    run = nanomem(ws, "dream", "--json")
    assert run.rc == 0, run.err
    assert run.json()["status"] in ("committed", "no_changes", "nothing_to_do")
    assert nanomem(ws, "status", "--json").json()["dream_cursor"] == 2
    assert (ws / "memory" / "MEMORY.md").read_text().count("KX-7731 ships in May") == 1
    assert memory_bytes(ws) == committed_bytes(ws)
    # the second run resumes where the committed Dream ended: no entry is processed twice
    if where == "before-cursor":
        assert run.json()["status"] == "nothing_to_do"
    fsck(git_dir_of(ws))


_WRITER = """
import sys
import time
from nanomem import Memory
mem = Memory(sys.argv[1])
with open(sys.argv[3], "a") as log:
    i = 0
    while True:
        # stay at most AHEAD entries past the Dream cursor: the backlog left at the kill is
        # then one Dream run, not several of up to 25 s each (a timeout under load)
        while mem.history.last_cursor() - mem.history.read_dream_cursor() > AHEAD:
            time.sleep(0.05)
        i += 1
        cursor = mem.history.append(f"- [durable] writer {sys.argv[2]} fact {i} " + "x" * 200)
        log.write(f"{cursor}\\n")
        log.flush()
"""

_WRITER_AHEAD = 200  # the most entries a writer runs ahead of the Dream cursor

_DREAMER = """
import sys
from nanomem import Memory
mem = Memory(sys.argv[1])
while True:
    mem.dream()
"""


def _all_history_entries(ws: Path) -> list[dict]:
    """Every parseable line of history.jsonl and of its segments, within each segment's range
    (``history.<kind>-<first>-<last>.jsonl``: a compaction killed mid-way may leave the tail
    that stayed in history.jsonl beyond it, which no reader reads)."""
    import json
    import re

    out = []
    for path in sorted((ws / "memory").glob("history*.jsonl")):
        named = re.match(r"history\.[a-z]+-(\d+)-(\d+)\.jsonl$", path.name)
        for line in path.read_bytes().split(b"\n"):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if named and not int(named[1]) <= entry.get("cursor", 0) <= int(named[2]):
                continue
            out.append(entry)
    return out


def test_append_and_dream_kill9_mid_loop_keep_cursors_unique_and_lose_nothing_pending(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text("[history]\nmax_history_entries = 4\n")
    logs = [tmp_path / f"writer{n}.log" for n in range(3)]
    writer = _WRITER.replace("AHEAD", str(_WRITER_AHEAD))
    procs = [
        subprocess.Popen([sys.executable, "-c", writer, str(ws), str(n), str(logs[n])],
                         env=base_env())
        for n in range(3)
    ]
    procs.append(subprocess.Popen([sys.executable, "-c", _DREAMER, str(ws)], env=base_env(),
                                  stderr=subprocess.DEVNULL))
    def written() -> int:
        return sum(log.read_text().count("\n") for log in logs if log.exists())

    def in_their_loops() -> bool:
        return (written() >= 150 and all(log.exists() for log in logs)
                and any(s.startswith("dream:") for s in subjects(ws)))

    # Kill only once every process is in its loop: 150 appends and a Dream committed mid-run.
    # The deadline bounds a wait for a condition (a hung process), it times nothing.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not in_their_loops():
        time.sleep(0.1)
    assert in_their_loops(), (written(), subjects(ws))
    for proc in procs:
        proc.send_signal(signal.SIGKILL)
    for proc in procs:
        proc.wait(10)

    granted = [int(line) for log in logs for line in log.read_text().split() if line.isdigit()]
    assert len(granted) >= 150
    assert len(granted) == len(set(granted))  # zero duplicate cursors across processes
    status = nanomem(ws, "status", "--json")
    assert status.rc == 0, status.err
    processed = status.json()["dream_cursor"]
    on_disk = [e["cursor"] for e in _all_history_entries(ws)]
    assert len(on_disk) == len(set(on_disk)), sorted(c for c in on_disk if on_disk.count(c) > 1)
    missing = {c for c in granted if c > processed} - set(on_disk)
    assert not missing, (processed, sorted(missing))  # nothing pending was dropped or torn
    assert any(s.startswith("dream:") for s in subjects(ws))
    _assert_consistent_after_kill(ws, every_dream_commits=False)

    run = nanomem(ws, "append", "- [durable] after the crash")
    assert run.rc == 0, run.err
    assert int(run.out) > max(granted)
    # one run handles at most batch_entries x max_batches entries, and how many were written
    # before the kill depends on how long the first Dream took (its recall self-test included)
    for _ in range(50):
        final = nanomem(ws, "dream", "--json")
        assert final.rc == 0, final.err
        if final.json()["status"] == "nothing_to_do":
            break
    assert final.json()["dream_cursor_after"] == int(run.out), final.out
    fsck(git_dir_of(ws))


def test_status_after_kills_reports_pending_entries_for_the_next_dream(tmp_path: Path) -> None:
    """An append killed before its cursor file write is still seen by Dream (not hidden)."""
    ws = init_ws(tmp_path)
    assert nanomem(ws, "append", "- [durable] User lives in Lyon.").rc == 0
    (ws / "memory" / ".cursor").write_text("")  # as if killed mid-write without atomicity
    run = nanomem(ws, "status", "--json")
    assert run.rc == 0, run.err
    assert run.json()["pending"] == 1
    assert len(history_lines(ws)) == 1


_KILL_AT_BACKUP = r"""
import os, signal, sys
real_replace = os.replace
def replace(src, dst, *a, **k):
    if str(dst).endswith("HISTORY.md.bak"):
        os.kill(os.getpid(), signal.SIGKILL)
    return real_replace(src, dst, *a, **k)
os.replace = replace
from nanomem.cli import main
sys.exit(main(sys.argv[1:]))
"""

LEGACY = (
    "[2025-03-01 09:15] User set up the Berlin project; budget 40k EUR.\n\n"
    "[2025-03-02 18:40] User prefers short answers.\n"
)


def test_migration_kill9_before_the_backup_rename_finishes_on_the_next_run(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    legacy = ws / "memory" / "HISTORY.md"
    legacy.write_text(LEGACY)
    proc = subprocess.run([sys.executable, "-c", _KILL_AT_BACKUP, "-w", str(ws), "status"],
                          capture_output=True, text=True, env=base_env(), timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    run = nanomem(ws, "status", "--json")
    assert run.rc == 0, run.err
    assert run.json()["cursor"] == 2 and run.json()["pending"] == 0
    assert len(history_lines(ws)) == 2
    assert not legacy.exists()
    assert (ws / "memory" / "HISTORY.md.bak").read_text() == LEGACY


def test_restore_kill9_before_its_commit_is_completed_as_restore_by_the_next_run(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    done = cli("-w", str(ws), "dream", "--json").json()
    assert done["status"] == "committed"
    proc = subprocess.run(
        [sys.executable, "-c", _KILL_SCRIPT, "before-restore-commit", "-w", str(ws), "restore",
         done["commit"][:7]],
        capture_output=True, text=True, env=base_env(), timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "User lives in Lyon." not in (ws / "USER.md").read_text()  # written, not committed
    _assert_consistent_after_kill(ws)  # the next run completes the journaled restore
    assert "User lives in Lyon." not in (ws / "USER.md").read_text()
    assert subjects(ws)[0].startswith("restore:")
    assert not any(s.startswith("manual:") for s in subjects(ws))
    assert nanomem(ws, "status", "--json").json()["dream_cursor"] == 1


_KILL_AT_UNLINK = r"""
import os, pathlib, signal, sys
real_unlink = pathlib.Path.unlink
def unlink(self, *a, **k):
    if self.name == "HISTORY.md":
        os.kill(os.getpid(), signal.SIGKILL)
    return real_unlink(self, *a, **k)
pathlib.Path.unlink = unlink
from nanomem.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_migration_kill9_after_writing_history_finishes_without_a_second_copy(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    legacy = ws / "memory" / "HISTORY.md"
    legacy.write_text(LEGACY)
    proc = subprocess.run([sys.executable, "-c", _KILL_AT_UNLINK, "-w", str(ws), "status"],
                          capture_output=True, text=True, env=base_env(), timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert legacy.exists() and len(history_lines(ws)) == 2  # killed before the last step
    run = nanomem(ws, "status", "--json")
    assert run.rc == 0, run.err
    assert run.json()["cursor"] == 2 and run.json()["pending"] == 0
    assert len(history_lines(ws)) == 2  # not migrated twice
    assert not legacy.exists()
    assert sorted(p.name for p in (ws / "memory").glob("HISTORY.md.bak*")) == ["HISTORY.md.bak"]
    assert (ws / "memory" / "HISTORY.md.bak").read_text() == LEGACY
