"""Benchmark ``Memory.record_turn`` under budget: the one call of the hot path, through the API.

Prints, measured in this run, the median cost of recording one turn (a user and an assistant
message) into a session that already holds 50, 500 and 5,000 messages, with the context window
large enough that nothing is archived, and the 5,000/50 ratio: a turn should cost about the same
whatever the session's length. ``memory_context=""`` isolates the append and the budget check
from rendering the prompt block; the default (``Memory.context`` at the full budget) is shown
beside it.

    python benchmarks/turns.py            # about a minute
    python benchmarks/turns.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from nanomem import Memory
from nanomem.config import load_config
from nanomem.store.sessions import new_session, render_session
from nanomem.store.workspace import template_dir

NOW = datetime(2026, 11, 30, 12, 0)


def prepared(root: Path, size: int) -> Memory:
    """A fresh workspace whose session ``bench`` holds ``size`` unarchived messages."""
    shutil.copytree(template_dir(), root)
    (root / "sessions").mkdir(exist_ok=True)
    session = new_session("bench", now=NOW)
    messages = tuple(
        {"role": "user" if i % 2 == 0 else "assistant",
         "content": f"message {i}: the deadline for project KX-{i:04d} moved to Friday.",
         "timestamp": (NOW + timedelta(seconds=i)).isoformat(timespec="seconds")}
        for i in range(size)
    )
    session = dataclasses.replace(session, messages=messages)
    mem = Memory(root, config=dataclasses.replace(load_config(root), context_window=10_000_000))
    mem.workspace.session_path("bench").write_text(render_session(session), "utf-8")
    return mem


def median_ms(mem: Memory, rounds: int, memory_context: str | None) -> float:
    costs = []
    for i in range(rounds):
        turn = [{"role": "user", "content": f"turn {i}: I prefer tea in the morning."},
                {"role": "assistant", "content": "Noted."}]
        start = time.perf_counter()
        result = mem.record_turn("bench", turn, memory_context=memory_context)
        costs.append((time.perf_counter() - start) * 1000)
        assert result.status == "recorded", result
    return statistics.median(costs)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    rounds = 5 if args.quick else 30
    sizes = (50, 500, 5000)
    print(f"record_turn under budget, median of {rounds} turns (ms)")
    print(f"{'messages':>9} {'no context':>11} {'with context':>13}")
    figures: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            bare = median_ms(prepared(Path(tmp) / f"a{size}", size), rounds, "")
            full = median_ms(prepared(Path(tmp) / f"b{size}", size), rounds, None)
            figures[size] = (bare, full)
            print(f"{size:>9,} {bare:>11.2f} {full:>13.2f}")
    (b50, f50), (b5k, f5k) = figures[50], figures[5000]
    print(f"ratio 5,000/50: {b5k / b50:.2f}x without the context block, "
          f"{f5k / f50:.2f}x with it")


if __name__ == "__main__":
    main()
