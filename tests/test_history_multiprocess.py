"""Real processes appending (and compacting) at once: unique cursors, no torn lines, no loss."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nanomem.config import Config
from nanomem.store.history import History
from nanomem.store.workspace import Workspace

pytestmark = pytest.mark.slow

APPENDER = """
import json, os, sys, time
from pathlib import Path
from nanomem.config import Config
from nanomem.store.history import History
from nanomem.store.workspace import Workspace
root, name, count, keep = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
history = History(Workspace(root), Config(max_history_entries=keep))
go = root / "go"
(root / f"ready-{os.getpid()}").touch()
while not go.exists():
    time.sleep(0.002)
cursors = [history.append(f"{name} entry {i} " + "x" * (i * 37 % 300)) for i in range(count)]
print(json.dumps(cursors))
"""

COMPACTOR = """
import os, sys, time
from pathlib import Path
from nanomem.config import Config
from nanomem.store.history import History
from nanomem.store.workspace import Workspace
root, rounds = Path(sys.argv[1]), int(sys.argv[2])
history = History(Workspace(root), Config(max_history_entries=3))
go = root / "go"
(root / f"ready-{os.getpid()}").touch()
while not go.exists():
    time.sleep(0.002)
for _ in range(rounds):
    history.write_dream_cursor(history.last_cursor() // 2)
    history.compact()
"""


def wait_until_ready(root: Path, procs: list[subprocess.Popen[str]], timeout: float = 60.0) -> None:
    """Wait until every process has imported nanomem and waits at the start line."""
    deadline = time.monotonic() + timeout
    waiting = list(procs)
    while waiting and time.monotonic() < deadline:
        for proc in waiting:
            assert proc.poll() is None, proc.communicate()[1]
        waiting = [p for p in waiting if not (root / f"ready-{p.pid}").exists()]
        time.sleep(0.01)
    assert not waiting, f"{len(waiting)} processes never reached the start line"


def run_processes(root: Path, commands: list[list[str]]) -> list[str]:
    procs = [
        subprocess.Popen([sys.executable, "-c", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for cmd in commands
    ]
    wait_until_ready(root, procs)
    (root / "go").write_text("go")
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(out)
    return outputs


def test_append_from_eight_processes_gives_unique_increasing_cursors_and_whole_lines(workspace: Path) -> None:
    writers, per_writer = 8, 25
    outputs = run_processes(
        workspace,
        [[APPENDER, str(workspace), f"w{n}", str(per_writer), "100000"] for n in range(writers)],
    )
    cursors = [c for out in outputs for c in json.loads(out)]
    assert sorted(cursors) == list(range(1, writers * per_writer + 1))
    for out in outputs:
        mine = json.loads(out)
        assert mine == sorted(mine)
    raw = (workspace / "memory" / "history.jsonl").read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.decode("utf-8").splitlines()
    assert len(lines) == writers * per_writer
    in_file = [json.loads(line)["cursor"] for line in lines]
    assert in_file == list(range(1, writers * per_writer + 1))
    assert (workspace / "memory" / ".cursor").read_text().strip() == str(writers * per_writer)


def test_compact_racing_appenders_loses_no_unprocessed_entry(workspace: Path) -> None:
    writers, per_writer = 4, 30
    commands = [[APPENDER, str(workspace), f"w{n}", str(per_writer), "3"] for n in range(writers)]
    commands.append([COMPACTOR, str(workspace), "25"])
    outputs = run_processes(workspace, commands)
    appended = sorted(c for out in outputs[:writers] for c in json.loads(out))
    assert appended == list(range(1, writers * per_writer + 1))
    history = History(Workspace(workspace), Config(max_history_entries=3))
    dream = history.read_dream_cursor()
    assert [e.cursor for e in history.read_since(dream)] == [c for c in appended if c > dream]
