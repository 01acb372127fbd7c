"""Fault injection: ``kill -9`` at random write points of each operation, then every invariant.

    python benchmarks/faults.py                  # 32 trials, seed 11 (about two minutes)
    python benchmarks/faults.py --trials 200 --seed 3
    python benchmarks/faults.py --seconds 30     # as many trials as fit in 30 s

Each trial copies a fresh workspace (``nanomem init``, appends, a committed Dream), then runs one
operation (``append``, offline ``consolidate``, offline ``dream``, ``restore``) in a child
process that kills itself with SIGKILL at its k-th file-system write call (``os.open``,
``write``, ``pwrite``, ``fsync``, ``replace``, ``rename``, ``unlink``, ``mkdir``,
``ftruncate``), k drawn at random below the count a calibration run of that operation made.
Then the next ``nanomem dream`` runs (the recovery) and these invariants are checked:

* ``recovers``: the next run exits 0 (no stale lock, journal or cursor blocks it) and leaves no
  ``*.lock`` in the git dir and no write journal;
* ``history``: every line of ``history*.jsonl`` parses; cursors are unique and increasing;
* ``no_lost_append``: every append acknowledged (exit 0) before or by the killed run is in history;
* ``no_duplicate``: no history content and no memory-file fact line appears twice (no redo);
* ``committed_state``: after the recovery the memory files equal HEAD, and no ``manual:``
  commit exists (nobody edited by hand: one would be a misattributed write);
* ``dream_cursor``: the dream cursor is not past the newest ``Dream-Cursor:`` trailer;
* ``fsck``: ``git fsck --strict`` is clean.

It prints the trials, the kills, each broken invariant with its trial, and what was lost. The
suite runs a few seconds of it (``tests/test_crash_random.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OPERATIONS = ("append", "consolidate", "dream", "restore")

_CHILD = r"""
import functools, os, signal, sys
k, calls = int(sys.argv[1]), [0]
def counted(real, *a, **kw):
    calls[0] += 1
    if calls[0] == k:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*a, **kw)
def wrap(name):
    # a partial, not a function: Python 3.10's pathlib keeps os functions as class attributes
    # of its accessor, where a plain function would be bound as a method
    setattr(os, name, functools.partial(counted, getattr(os, name)))
for name in ("open", "write", "pwrite", "fsync", "replace", "rename", "unlink", "mkdir",
             "ftruncate"):
    wrap(name)
from nanomem.cli import main
rc = main(sys.argv[2:])
sys.stderr.write(f"\nFAULTS-CALLS {calls[0]}\n")
sys.exit(rc)
"""


@dataclass
class Trial:
    """One trial's operation, kill point and verdicts."""

    number: int
    operation: str
    k: int
    killed: bool = False
    broken: list[str] = field(default_factory=list)
    lost: int = 0


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANOMEM_", "GIT_"))}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Faults", GIT_AUTHOR_EMAIL="f@example.com",
               GIT_COMMITTER_NAME="Faults", GIT_COMMITTER_EMAIL="f@example.com",
               PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    return env


def _nanomem(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanomem", "-w", str(ws), *args],
                          capture_output=True, text=True, env=_env(), timeout=120)


def _child(ws: Path, k: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _CHILD, str(k), "-w", str(ws), *args],
                          capture_output=True, text=True, env=_env(), timeout=120)


def _git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    git_dir = ws / ".nanomem.git" if (ws / ".nanomem.git").is_dir() else ws / ".git"
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True,
                          text=True, env=_env())


def _session(ws: Path) -> Path:
    """A session of 40 turns (about 10k tokens), each holding a distinct fact."""
    lines = [json.dumps({"_type": "metadata", "key": "cli:faults", "created_at":
                         "2026-11-30T10:00:00", "updated_at": "2026-11-30T10:00:00",
                         "metadata": {}, "last_consolidated": 0})]
    for n in range(40):
        lines.append(json.dumps({"role": "user", "content":
                                 f"Remember that crate {n} holds {n * 7} bolts. " + "filler " * 90}))
        lines.append(json.dumps({"role": "assistant", "content": f"Noted: crate {n}."}))
    path = ws / "sessions" / "faults.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def prepare(root: Path, operation: str) -> tuple[Path, list[int]]:
    """A workspace with three acknowledged appends and a committed Dream of the first (of all
    three before a restore, so that there is a Dream to undo); made once per operation."""
    ws = root / f"template-{operation}"
    if not ws.exists():
        assert _nanomem(ws, "init", str(ws)).returncode == 0
        cursors = [int(_nanomem(ws, "append", "- [durable] User keeps crate A in Lyon.").stdout)]
        assert _nanomem(ws, "dream").returncode == 0
        for tag in ("B", "C"):
            out = _nanomem(ws, "append", f"- [durable] User keeps crate {tag} in Porto.")
            cursors.append(int(out.stdout.strip()))
        if operation == "restore":
            assert _nanomem(ws, "dream").returncode == 0
        if operation == "consolidate":
            _session(ws)
        (ws / "acknowledged.json").write_text(json.dumps(cursors))
    return ws, json.loads((ws / "acknowledged.json").read_text())


def operation_args(ws: Path, operation: str) -> tuple[str, ...]:
    if operation == "append":
        return ("append", "- [durable] User keeps crate Z in Oslo.")
    if operation == "consolidate":
        return ("consolidate", str(ws / "sessions" / "faults.jsonl"), "--context-window", "6000")
    if operation == "dream":
        return ("dream",)
    return ("restore", _git(ws, "log", "-1", "--format=%H").stdout.strip())


def _calls(proc: subprocess.CompletedProcess[str]) -> int | None:
    found = re.findall(r"FAULTS-CALLS (\d+)", proc.stderr)
    return int(found[-1]) if found else None


def _copy(root: Path, operation: str, name: str) -> tuple[Path, list[int]]:
    template, acknowledged = prepare(root, operation)
    ws = root / name
    shutil.copytree(template, ws, symlinks=True)
    return ws, acknowledged


def calibrate(root: Path) -> dict[str, int]:
    """How many write calls each operation makes when it is not killed."""
    counts = {}
    for operation in OPERATIONS:
        ws, _ = _copy(root, operation, f"calibrate-{operation}")
        proc = _child(ws, 0, *operation_args(ws, operation))
        if proc.returncode != 0:
            raise RuntimeError(f"{operation} failed unkilled: {proc.stderr[-300:]}")
        counts[operation] = max(1, _calls(proc) or 1)
        shutil.rmtree(ws, ignore_errors=True)
    return counts


def _history_entries(ws: Path) -> tuple[list[dict], list[str]]:
    entries, problems = [], []
    for path in sorted((ws / "memory").glob("history*.jsonl")):
        cursors = []
        for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                problems.append(f"{path.name} line {number} does not parse")
                continue
            entries.append(entry)
            cursors.append(entry.get("cursor"))
        if cursors != sorted(set(cursors)):
            problems.append(f"{path.name}: cursors not unique and increasing")
    return entries, problems


def check(ws: Path, acknowledged: list[int]) -> tuple[list[str], int]:
    """Run the recovery (the next ``nanomem dream``) and check every invariant."""
    broken: list[str] = []
    recovery = _nanomem(ws, "dream", "--json")
    git_dir = ws / ".nanomem.git" if (ws / ".nanomem.git").is_dir() else ws / ".git"
    if recovery.returncode != 0:
        broken.append(f"recovers: rc {recovery.returncode}: {recovery.stderr.strip()[-200:]}")
    if list(git_dir.rglob("*.lock")) != [p for p in git_dir.rglob("nanomem.lock")]:
        broken.append("recovers: a stale .lock is left in the git dir")
    if (ws / "memory" / ".write-journal.json").exists():
        broken.append("recovers: the write journal is left")
    entries, problems = _history_entries(ws)
    broken += [f"history: {p}" for p in problems]
    on_disk = {e.get("cursor") for e in entries}
    raw = (ws / "memory" / ".dream_cursor").read_text().strip() \
        if (ws / "memory" / ".dream_cursor").exists() else "0"
    dream_cursor = int(raw) if raw.isdigit() else 0
    lost = [c for c in acknowledged if c not in on_disk and c > dream_cursor]
    if lost:
        broken.append(f"no_lost_append: cursors {lost} acknowledged but gone")
    contents = Counter(e.get("content") for e in entries if e.get("kind") != "forgotten")
    twice = [c for c, n in contents.items() if n > 1]
    if twice:
        broken.append(f"no_duplicate: history holds {len(twice)} entries twice")
    for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        path = ws / rel
        lines = [x for x in path.read_text("utf-8", "replace").splitlines()
                 if x.startswith("- ")] if path.exists() else []
        if len(lines) != len(set(lines)):
            broken.append(f"no_duplicate: {rel} holds a line twice (a redone batch)")
        shown = _git(ws, "show", f"HEAD:{rel}")
        committed = shown.stdout.encode() if shown.returncode == 0 else None
        if (path.read_bytes() if path.exists() else None) != committed:
            broken.append(f"committed_state: {rel} differs from HEAD after the recovery")
    subjects = _git(ws, "log", "--format=%s").stdout.splitlines()
    if any(s.startswith("manual:") for s in subjects):
        broken.append("committed_state: a manual: commit (a killed write misattributed)")
    trailers = [int(v) for v in _git(ws, "log", "--format=%(trailers:key=Dream-Cursor,valueonly)")
                .stdout.split() if v.isdigit()]
    if dream_cursor > max([0, *trailers]):
        broken.append(f"dream_cursor: {dream_cursor} past the newest Dream-Cursor {max([0, *trailers])}")
    fsck = _git(ws, "fsck", "--strict")
    if fsck.returncode != 0:
        broken.append(f"fsck: {(fsck.stdout + fsck.stderr).strip()[:200]}")
    return broken, len(lost)


def run_trial(root: Path, number: int, operation: str, k: int) -> Trial:
    trial = Trial(number, operation, k)
    ws, acknowledged = _copy(root, operation, f"t{number}-{operation}")
    proc = _child(ws, k, *operation_args(ws, operation))
    trial.killed = proc.returncode == -9
    if not trial.killed and operation == "append" and proc.returncode == 0:
        acknowledged.append(int(proc.stdout.strip().splitlines()[0]))
    trial.broken, trial.lost = check(ws, acknowledged)
    if not trial.broken:
        shutil.rmtree(ws, ignore_errors=True)
    return trial


def run_campaign(root: Path, *, seed: int, trials: int | None = None,
                 seconds: float | None = None) -> list[Trial]:
    """Trials round-robin over the operations, each killed at a random write call."""
    rng = random.Random(seed)
    counts = calibrate(root)
    done: list[Trial] = []
    deadline = time.monotonic() + seconds if seconds is not None else None
    number = 0
    while True:
        if trials is not None and number >= trials:
            break
        if deadline is not None and time.monotonic() > deadline and number >= len(OPERATIONS):
            break
        operation = OPERATIONS[number % len(OPERATIONS)]
        done.append(run_trial(root, number, operation, rng.randint(1, counts[operation])))
        number += 1
    return done


def render_report(trials: list[Trial], seconds: float) -> str:
    kills = sum(t.killed for t in trials)
    broken = [t for t in trials if t.broken]
    lines = [f"trials {len(trials)}, kills {kills}, broken invariants {sum(len(t.broken) for t in broken)} "
             f"in {len(broken)} trials, appends lost {sum(t.lost for t in trials)}, "
             f"{seconds:.0f} s"]
    for operation in OPERATIONS:
        mine = [t for t in trials if t.operation == operation]
        lines.append(f"  {operation:<12} trials {len(mine):>3}  kills {sum(t.killed for t in mine):>3}  "
                     f"broken {sum(bool(t.broken) for t in mine):>3}")
    for t in broken:
        lines += [f"  trial {t.number} {t.operation} k={t.k}: {b}" for b in t.broken]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=None, help="a time budget instead")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", action="store_true", help="keep the workspaces of broken trials")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="nanomem-faults-"))
    start = time.monotonic()
    trials = run_campaign(root, seed=args.seed, trials=None if args.seconds else args.trials,
                          seconds=args.seconds)
    print(render_report(trials, time.monotonic() - start))
    if args.keep and any(t.broken for t in trials):
        print(f"workspaces of broken trials: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if any(t.broken for t in trials) else 0


if __name__ == "__main__":
    sys.exit(main())
