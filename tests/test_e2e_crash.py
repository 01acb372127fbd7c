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

FACTS = "## Facts\n"


def _assert_consistent_after_kill(ws: Path) -> None:
    """The promises of DESIGN §7 about a killed process, checked from the files and git."""
    fsck(git_dir_of(ws))
    text = dream_cursor(ws)
    assert (int(text) if text else 0) <= max([0, *_dream_trailers(ws)])
    if memory_bytes(ws) != committed_bytes(ws):  # not a committed state: picked up as manual:
        run = nanomem(ws, "dream", "--json")
        assert run.rc == 0, run.err
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
from nanomem import gitstore, history
where = sys.argv[1]
if where == "before-commit":
    original = gitstore.GitStore.commit
    def commit(self, subject, *a, **k):
        if subject.startswith("dream:"):
            os.kill(os.getpid(), signal.SIGKILL)
        return original(self, subject, *a, **k)
    gitstore.GitStore.commit = commit
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
    assert nanomem(ws, "append", "- [durable] User lives in Lyon.").rc == 0
    assert nanomem(ws, "dream").rc == 0
    assert dream_cursor(ws) == "1"
    assert nanomem(ws, "append", "- [durable] Project KX-7731 ships in May.").rc == 0
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


def test_append_kill9_mid_loop_leaves_unique_cursors_and_no_torn_neighbours(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    loop = (
        "import sys\n"
        "from nanomem import Memory\n"
        "mem = Memory(sys.argv[1])\n"
        "i = 0\n"
        "while True:\n"
        "    i += 1\n"
        "    mem.history.append(f'- [durable] writer {sys.argv[2]} fact {i} ' + 'x' * 300)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", loop, str(ws), str(n)], env=base_env())
        for n in range(3)
    ]
    history = ws / "memory" / "history.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
        not history.exists() or history.read_bytes().count(b"\n") < 60
    ):
        time.sleep(0.05)
    for proc in procs:
        proc.send_signal(signal.SIGKILL)
    for proc in procs:
        proc.wait(10)

    raw = history.read_bytes()
    lines = raw.split(b"\n")
    complete, tail = lines[:-1], lines[-1]
    assert len(complete) >= 60
    import json

    cursors = [json.loads(line)["cursor"] for line in complete]  # every complete line parses
    assert cursors == sorted(set(cursors))  # unique and strictly increasing
    # a torn last line (killed mid-write) is at most one, and the next append still works
    run = nanomem(ws, "append", "- [durable] after the crash")
    assert run.rc == 0, run.err
    new_cursor = int(run.out.strip())
    assert new_cursor > max(cursors)
    entries = history_lines_tolerant(history)
    assert [e["cursor"] for e in entries][-1] == new_cursor
    assert set(cursors) <= {e["cursor"] for e in entries}  # no neighbour was lost
    assert tail == b"" or len(tail) < 400


def history_lines_tolerant(path: Path) -> list[dict]:
    import json

    out = []
    for line in path.read_bytes().split(b"\n"):
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_status_after_kills_reports_pending_entries_for_the_next_dream(tmp_path: Path) -> None:
    """An append killed before its cursor file write is still seen by Dream (not hidden)."""
    ws = init_ws(tmp_path)
    assert nanomem(ws, "append", "- [durable] User lives in Lyon.").rc == 0
    (ws / "memory" / ".cursor").write_text("")  # as if killed mid-write without atomicity
    run = nanomem(ws, "status", "--json")
    assert run.rc == 0, run.err
    assert run.json()["pending"] == 1
    assert len(history_lines(ws)) == 1
