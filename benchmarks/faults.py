"""Fault injection: ``kill -9`` at random write points of each operation, then every invariant.

    python benchmarks/faults.py                  # 32 trials, seed 11
    python benchmarks/faults.py --trials 200 --seed 3
    python benchmarks/faults.py --seconds 30     # as many trials as fit in 30 s
    python benchmarks/faults.py --only forget --only answer-yes --seconds 60

Each trial copies a fresh workspace (``nanomem init``, appends, a committed Dream; then what
the operation needs, ``benchmarks/faultcases.py``), then runs one operation (``append``,
offline ``consolidate``, offline ``dream``, ``restore``, ``forget``, ``pending yes 1`` and
``pending no 1``, a Dream that compacts history, ``compact``) in a child process that kills itself
with SIGKILL at its k-th file-system write call (``os.open``, ``write``, ``pwrite``, ``fsync``,
``replace``, ``rename``, ``unlink``, ``mkdir``, ``ftruncate``, ``link``), k drawn at random
below the count a calibration run of that operation made. Then the recovery the design
specifies runs (the same forget again, the consolidation again; then the next ``nanomem
dream``) and these invariants are checked:

* ``recovers``: each recovery step exits 0 (no stale lock, journal or cursor blocks it) and
  leaves no ``*.lock`` in the git dir and no write or forget journal;
* ``history``: every line of ``history*.jsonl`` parses; cursors are unique and increasing;
* ``no_lost_append``: every append acknowledged (exit 0) before or by the killed run is in history;
* ``no_duplicate``: no history content and no memory-file fact line appears twice (no redo);
* ``committed_state``: after the recovery the memory files and ``memory/PENDING.md`` equal
  HEAD, and no new ``manual:`` commit exists (nobody edited by hand: one would be a
  misattributed write);
* ``dream_cursor``: the dream cursor is not past the newest ``Dream-Cursor:`` trailer;
* ``fsck``: ``git fsck --strict`` is clean;
* ``audited``: every ``dream:`` commit is named by a line of ``memory/dream-audit*.jsonl`` (by
  its sha, or by one a forget rewrote into it), and no line naming a commit is there twice;
* each operation's own (``faultcases.INVARIANTS``): ``forget_gone`` and ``forget_kept``,
  ``answer_once``, ``archive``, ``compaction``.

History is read as ``History.iter_entries`` reads it (a segment's name range is
authoritative). It prints the trials, the kills, each broken invariant with its trial, and
what was lost. The suite runs a few seconds of it (``tests/test_crash_random.py``).
"""

from __future__ import annotations

import argparse
import json
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
if str(REPO) not in sys.path:  # run as a script: python benchmarks/faults.py
    sys.path.insert(0, str(REPO))

from benchmarks.faultcases import (INVARIANTS, MEMORY_FILES, Facts, env, git,  # noqa: E402
                                   git_dir, history_entries, nanomem, operation_args, prepare,
                                   recover, subjects)

_SHA = re.compile(r'"commit": "([0-9a-f]{40})"')
OPERATIONS = ("append", "consolidate", "dream", "restore", "forget", "answer-yes", "answer-no",
              "compact")

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
             "ftruncate", "link"):
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


def _child(ws: Path, k: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _CHILD, str(k), "-w", str(ws), *args],
                          capture_output=True, text=True, env=env(), timeout=120)


def _calls(proc: subprocess.CompletedProcess[str]) -> int | None:
    found = re.findall(r"FAULTS-CALLS (\d+)", proc.stderr)
    return int(found[-1]) if found else None


def _copy(root: Path, operation: str, name: str) -> tuple[Path, Facts]:
    template, facts = prepare(root, operation)
    ws = root / name
    shutil.copytree(template, ws, symlinks=True)
    return ws, facts


def calibrate(root: Path, operations: tuple[str, ...] = OPERATIONS) -> dict[str, int]:
    """How many write calls each operation makes when it is not killed."""
    counts = {}
    for operation in operations:
        ws, _ = _copy(root, operation, f"calibrate-{operation}")
        proc = _child(ws, 0, *operation_args(ws, operation))
        if proc.returncode != 0:
            raise RuntimeError(f"{operation} failed unkilled: {proc.stderr[-300:]}")
        counts[operation] = max(1, _calls(proc) or 1)
        shutil.rmtree(ws, ignore_errors=True)
    return counts


def check(ws: Path, operation: str, facts: Facts) -> tuple[list[str], int]:
    """Run the recovery (``operation``'s own, then the next ``nanomem dream``) and check every
    invariant: the common ones, then ``operation``'s (``faultcases.INVARIANTS``)."""
    broken = recover(ws, operation)
    recovery = nanomem(ws, "dream", "--json")
    if recovery.returncode != 0:
        broken.append(f"recovers: rc {recovery.returncode}: {recovery.stderr.strip()[-200:]}")
    repo = git_dir(ws)
    if list(repo.rglob("*.lock")) != [p for p in repo.rglob("nanomem.lock")]:
        broken.append("recovers: a stale .lock is left in the git dir")
    for journal in (".write-journal.json", ".forget-journal.json"):
        if (ws / "memory" / journal).exists():
            broken.append(f"recovers: memory/{journal} is left")
    entries, problems = history_entries(ws)
    broken += [f"history: {p}" for p in problems]
    on_disk = {e.get("cursor") for e in entries}
    raw = (ws / "memory" / ".dream_cursor").read_text().strip() \
        if (ws / "memory" / ".dream_cursor").exists() else "0"
    dream_cursor = int(raw) if raw.isdigit() else 0
    lost = [c for c in facts["acknowledged"] if c not in on_disk and c > dream_cursor]
    if lost:
        broken.append(f"no_lost_append: cursors {lost} acknowledged but gone")
    contents = Counter(e.get("content") for e in entries if e.get("kind") != "forgotten")
    twice = [c for c, n in contents.items() if n > 1]
    if twice:
        broken.append(f"no_duplicate: history holds {len(twice)} entries twice")
    for rel in (*MEMORY_FILES, "memory/PENDING.md"):
        path = ws / rel
        lines = [x for x in path.read_text("utf-8", "replace").splitlines()
                 if x.startswith("- ")] if path.exists() and rel in MEMORY_FILES else []
        if len(lines) != len(set(lines)):
            broken.append(f"no_duplicate: {rel} holds a line twice (a redone batch)")
        shown = git(ws, "show", f"HEAD:{rel}")
        committed = shown.stdout.encode() if shown.returncode == 0 else None
        if (path.read_bytes() if path.exists() else None) != committed:
            broken.append(f"committed_state: {rel} differs from HEAD after the recovery")
    if sum(s.startswith("manual:") for s in subjects(ws)) > facts["manual"]:
        broken.append("committed_state: a manual: commit (a killed write misattributed)")
    trailers = [int(v) for v in git(ws, "log", "--format=%(trailers:key=Dream-Cursor,valueonly)")
                .stdout.split() if v.isdigit()]
    if dream_cursor > max([0, *trailers]):
        broken.append(f"dream_cursor: {dream_cursor} past the newest Dream-Cursor {max([0, *trailers])}")
    broken += _audit_invariants(ws)
    fsck = git(ws, "fsck", "--strict")
    if fsck.returncode != 0:
        broken.append(f"fsck: {(fsck.stdout + fsck.stderr).strip()[:200]}")
    if operation in INVARIANTS:
        broken += INVARIANTS[operation](ws, facts)
    return broken, len(lost)


def _audit_invariants(ws: Path) -> list[str]:
    """``audited``: each ``dream:`` commit has its audit lines, none of them twice. A line may
    name the commit's sha before a forget rewrote it (``memory/forget-log.jsonl``'s maps)."""
    named = Counter(line for path in sorted((ws / "memory").glob("dream-audit*.jsonl"))
                    for line in path.read_text("utf-8", "replace").splitlines()
                    if '"commit": "' in line)
    rewritten: dict[str, str] = {}
    log = ws / "memory" / "forget-log.jsonl"
    for line in (log.read_text("utf-8", "replace").splitlines() if log.exists() else []):
        rewritten.update(json.loads(line).get("sha_map") or {})
    def now(sha: str) -> str:  # through every forget since
        seen = set()
        while sha in rewritten and sha not in seen:
            seen.add(sha)
            sha = rewritten[sha]
        return sha
    audited = {now(sha) for line in named for sha in _SHA.findall(line)}
    shas = git(ws, "log", "--format=%H %s").stdout.splitlines()
    unaudited = [sha[:7] for sha, _, subject in (s.partition(" ") for s in shas)
                 if subject.startswith("dream:") and sha not in audited]
    broken = [f"audited: dream: commit {', '.join(unaudited)} has no audit line"] if unaudited else []
    if any(n > 1 for n in named.values()):
        broken.append("audited: an audit line naming a commit is there twice")
    return broken


def run_trial(root: Path, number: int, operation: str, k: int) -> Trial:
    """Copy ``operation``'s template, run it killed at write call ``k``, then :func:`check`."""
    trial = Trial(number, operation, k)
    ws, facts = _copy(root, operation, f"t{number}-{operation}")
    proc = _child(ws, k, *operation_args(ws, operation))
    trial.killed = proc.returncode == -9
    if not trial.killed and operation == "append" and proc.returncode == 0:
        facts["acknowledged"].append(int(proc.stdout.strip().splitlines()[0]))
    trial.broken, trial.lost = check(ws, operation, facts)
    if not trial.broken:
        shutil.rmtree(ws, ignore_errors=True)
    return trial


def run_campaign(root: Path, *, seed: int, trials: int | None = None,
                 seconds: float | None = None,
                 operations: tuple[str, ...] = OPERATIONS) -> list[Trial]:
    """Trials round-robin over ``operations``, each killed at a random write call (each
    operation at least once, whatever the time budget)."""
    rng = random.Random(seed)
    counts = calibrate(root, operations)
    done: list[Trial] = []
    deadline = time.monotonic() + seconds if seconds is not None else None
    number = 0
    while True:
        if trials is not None and number >= trials:
            break
        if deadline is not None and time.monotonic() > deadline and number >= len(operations):
            break
        operation = operations[number % len(operations)]
        done.append(run_trial(root, number, operation, rng.randint(1, counts[operation])))
        number += 1
    return done


def render_report(trials: list[Trial], seconds: float) -> str:
    kills = sum(t.killed for t in trials)
    broken = [t for t in trials if t.broken]
    lines = [f"trials {len(trials)}, kills {kills}, broken invariants {sum(len(t.broken) for t in broken)} "
             f"in {len(broken)} trials, appends lost {sum(t.lost for t in trials)}, "
             f"{seconds:.0f} s"]
    for operation in dict.fromkeys(t.operation for t in trials):
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
    parser.add_argument("--only", action="append", choices=OPERATIONS, default=None,
                        metavar="OPERATION", help=f"only these operations (repeatable): "
                        f"{', '.join(OPERATIONS)}")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="nanomem-faults-"))
    start = time.monotonic()
    trials = run_campaign(root, seed=args.seed, trials=None if args.seconds else args.trials,
                          seconds=args.seconds, operations=tuple(args.only or OPERATIONS))
    print(render_report(trials, time.monotonic() - start))
    if args.keep and any(t.broken for t in trials):
        print(f"workspaces of broken trials: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if any(t.broken for t in trials) else 0


if __name__ == "__main__":
    sys.exit(main())
