"""Benchmark of the history log: append, read_since, status and compaction against size.

    python benchmarks/history.py           # 10k, 100k and 1M entries (about two minutes)
    python benchmarks/history.py --quick   # 10k and 100k, fewer concurrent appends

Prints one table of measured figures (medians), the 1M/10k (or 100k/10k) ratios, and the
duplicate cursors when 8 processes append at once: nanomem's locked append versus, for
contrast, a naive appender that reads the last cursor and appends without a lock (the
failure DESIGN §9 measured in nanobot). The big files are written directly, line by line;
``max_history_entries`` is set high so no compaction runs during the append measurement.

Status (the pending count with every entry pending, the dream cursor and the write cursor) and
compaction (keeping 1,000 entries, every entry processed) each run once in a fresh process
that reports its wall time and peak RSS (including Python and the import of nanomem):
``resource.getrusage``, or on Linux ``VmHWM``, because ``ru_maxrss`` carries the parent's peak
across ``exec``. The append floor is one ``write`` + ``fsync`` of a line of the same size
to a file in the same directory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nanomem.config import Config
from nanomem.store.history import History
from nanomem.store.sessions import (
    Session,
    append_messages,
    append_session_lines,
    save_session,
    session_lock,
)
from nanomem.store.workspace import Workspace

NEW = 20

WORKER = """
import json, os, sys, time
from pathlib import Path
root, mode, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
go = root / "go"
while not go.exists():
    time.sleep(0.001)
if mode == "nanomem":
    from nanomem.config import Config
    from nanomem.store.history import History
    from nanomem.store.workspace import Workspace
    history = History(Workspace(root), Config(max_history_entries=10**9))
    for i in range(count):
        history.append(f"entry {i} from {os.getpid()}")
else:  # naive: read the last cursor, append last + 1, no lock
    path = root / "memory" / "history.jsonl"
    for i in range(count):
        last = 0
        if path.exists():
            lines = path.read_bytes().splitlines()
            for raw in reversed(lines):
                try:
                    last = json.loads(raw)["cursor"]
                    break
                except ValueError:  # a line another process is still writing
                    continue
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"cursor": last + 1, "timestamp": "", "content": f"e{i}"}) + "\\n")
"""


def build(root: Path, entries: int) -> History:
    memory = root / "memory"
    memory.mkdir(parents=True)
    with open(memory / "history.jsonl", "w", encoding="utf-8") as handle:
        chunk: list[str] = []
        for cursor in range(1, entries + 1):
            chunk.append(json.dumps({
                "cursor": cursor, "timestamp": "2025-03-01 09:15",
                "content": f"- [durable] User mentioned project KX-{cursor % 9973} and a budget of {cursor} EUR.",
                "kind": "summary",
            }) + "\n")
            if len(chunk) == 10_000:
                handle.write("".join(chunk))
                chunk.clear()
        handle.write("".join(chunk))
        handle.flush()
        os.fsync(handle.fileno())  # so append timings do not pay for flushing the build
    (memory / ".cursor").write_text(f"{entries}\n")
    (memory / ".dream_cursor").write_text(f"{entries - NEW}\n")
    return History(Workspace(root), Config(max_history_entries=10**9))


def median_ms(action, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        action()
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(samples)


def measure_size(base: Path, entries: int, repeat: int) -> tuple[float, ...]:
    root = base / f"ws-{entries}"
    history = build(root, entries)
    dream = history.read_dream_cursor()
    assert len(history.read_since(dream)) == NEW
    read = median_ms(lambda: history.read_since(dream), repeat)
    append = median_ms(lambda: history.append("User prefers metric units."), repeat)
    size_mb = (root / "memory" / "history.jsonl").stat().st_size / 1e6
    last = history.last_cursor()
    (root / "memory" / ".dream_cursor").write_text("0\n")  # everything pending
    status = in_child(root, "status")
    assert status["out"][0] == last, status
    (root / "memory" / ".dream_cursor").write_text(f"{last}\n")  # everything processed
    compact = in_child(root, "compact")
    kept = sum(1 for _ in open(root / "memory" / "history.jsonl", "rb"))
    assert kept == 1000 and len(list(history.iter_entries())) == last, (kept, compact)
    shutil.rmtree(root)
    return (append, read, size_mb, status["ms"], status["peak_mb"], compact["ms"],
            compact["peak_mb"])


CHILD = """
import json, resource, sys, time
from pathlib import Path
from nanomem.config import Config
from nanomem.store.history import History
from nanomem.store.workspace import Workspace
root, mode = Path(sys.argv[1]), sys.argv[2]
history = History(Workspace(root), Config(max_history_entries=1000))
start = time.perf_counter_ns()
if mode == "status":
    out = [history.pending_count(), history.read_dream_cursor(), history.last_cursor()]
else:
    out = [history.compact(), len(history.segments())]
ms = (time.perf_counter_ns() - start) / 1e6
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
try:  # ru_maxrss survives exec (the benchmark's own peak); VmHWM is this process's alone
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")]
    peak = int(hwm[0].split()[1]) / 1024
except (OSError, IndexError, ValueError):
    pass
print(json.dumps({"ms": ms, "peak_mb": peak, "out": out}))
"""


def in_child(root: Path, mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(root), mode], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def floor_ms(base: Path, repeat: int) -> float:
    """One write + fsync of a history-sized line on an O_APPEND file: the cost of durability."""
    path = base / "floor.jsonl"
    line = (json.dumps({"cursor": 1, "timestamp": "2025-03-01 09:15",
                        "content": "User prefers metric units."}) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        return median_ms(lambda: (os.write(fd, line), os.fsync(fd)), repeat)
    finally:
        os.close(fd)
        path.unlink()


def session_append_ms(base: Path, messages: int, repeat: int) -> tuple[float, float]:
    """``(append_session_lines, append_messages)`` medians on a session of ``messages``."""
    path = base / f"session-{messages}.jsonl"
    turn = [{"role": "user", "content": "What did we decide about the metric units?"}]
    save_session(path, Session(key="cli", messages=tuple(
        {"role": "user" if i % 2 else "assistant", "content": f"message {i} " + "word " * 40}
        for i in range(messages))))
    def lines() -> None:
        with session_lock(path):
            append_session_lines(path, turn)
    raw = median_ms(lines, repeat)
    full = median_ms(lambda: append_messages(path, turn, key="cli"), repeat)
    path.unlink()
    return raw, full


def duplicates(base: Path, mode: str, procs: int, per_proc: int) -> tuple[int, int]:
    root = base / f"conc-{mode}"
    (root / "memory").mkdir(parents=True)
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(root), mode, str(per_proc)])
        for _ in range(procs)
    ]
    time.sleep(0.5)
    (root / "go").write_text("go")
    for worker in workers:
        worker.wait(timeout=300)
    cursors = [json.loads(line)["cursor"] for line in
               (root / "memory" / "history.jsonl").read_text("utf-8").splitlines() if line.strip()]
    shutil.rmtree(root)
    return len(cursors) - len(set(cursors)), procs * per_proc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip 1M entries, fewer appends")
    args = parser.parse_args(argv)
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    repeat = 50 if args.quick else 200
    per_proc = 100 if args.quick else 300
    with tempfile.TemporaryDirectory(prefix="nanomem-bench-") as tmp:
        base = Path(tmp)
        floor = floor_ms(base, repeat)
        turns = {n: session_append_ms(base, n, min(repeat, 50)) for n in (50, 5000)}
        rows = {size: measure_size(base, size, repeat) for size in sizes}
        locked = duplicates(base, "nanomem", 8, per_proc)
        naive = duplicates(base, "naive", 8, per_proc)
    first, last = sizes[0], sizes[-1]
    label = f"{last // 1000}k/{first // 1000}k" if last < 1_000_000 else "1M/10k"
    header = f"{'measure':52}" + "".join(f"{f'{s:,}':>12}" for s in sizes) + f"{label:>10}"
    print(header)
    print("-" * len(header))
    names = [f"append (ms, median of {repeat})", f"read_since({NEW} new) (ms, median of {repeat})",
             "history.jsonl size (MB)", "status, all pending (ms, fresh process)",
             "status, all pending: peak RSS (MB)", "compact, keep 1,000 (ms, fresh process)",
             "compact, keep 1,000: peak RSS (MB)"]
    for index, name in enumerate(names):
        values = [rows[s][index] for s in sizes]
        print(f"{name:52}" + "".join(f"{v:>12.3f}" for v in values) + f"{values[-1] / values[0]:>9.2f}x")
    print(f"{'append floor: write + fsync of one line (ms)':52}{floor:>12.3f}"
          f"   append at {last:,} = {rows[last][0] / floor:.2f}x the floor")
    for index, name in enumerate(["session: append the turn's lines (ms)",
                                  "session: append_messages, returns the parsed session (ms)"]):
        small, big = turns[50][index], turns[5000][index]
        print(f"{name:52}{small:>12.3f}{big:>12.3f}   at 5,000 / at 50 messages = {big / small:.2f}x")
    print(f"{'duplicate cursors, 8 processes (nanomem)':52}{f'{locked[0]} of {locked[1]}':>12}")
    print(f"{'duplicate cursors, 8 processes (naive, no lock)':52}{f'{naive[0]} of {naive[1]}':>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
