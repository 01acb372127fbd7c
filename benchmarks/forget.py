"""Benchmark of forget (DESIGN §10): the time of one forget at 100, 1,000 and 10,000 commits.

    python benchmarks/forget.py            # 100, 1,000 and 10,000 commits
    python benchmarks/forget.py --quick    # 100 and 1,000

The worst case: the fact sits in USER.md from the third commit on, so every commit after it is
rewritten; history holds one entry per ten commits (a tenth of them hold the fact) and a session
holds it too. The history is built straight into a pack with dulwich objects, as `git gc` would
leave it. Figures are wall time of ``Memory.forget`` (plan, files, rewrite, switch, receipt,
prune, sweep), with the time between steps, and the ratio to the smallest history.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from nanomem.memory import Memory

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gitstore import build_deep  # noqa: E402  (the same deep history as the gitstore benchmark)

FACT = "Zanzibar Quokka"


def build(root: Path, depth: int) -> None:
    """A workspace ``depth`` commits deep whose USER.md holds the fact from commit 3 on."""
    planted = f"- Cousin is {FACT}\n".encode()
    store, _ = build_deep(root, depth, lambda i: planted if i >= 2 else b"")
    store.close()
    lines = []
    for cursor in range(1, depth // 10 + 1):
        text = f"- [durable] {FACT} called" if cursor % 10 == 0 else f"- [durable] fact {cursor}"
        lines.append(json.dumps({"cursor": cursor, "timestamp": "2026-01-01 10:00",
                                 "content": text}) + "\n")
    (root / "memory" / "history.jsonl").write_text("".join(lines))
    (root / "memory" / ".dream_cursor").write_text(f"{depth // 10}\n")
    session = [{"_type": "metadata", "key": "cli", "last_consolidated": 0},
               {"role": "user", "content": f"My cousin is {FACT}."}]
    (root / "sessions" / "cli.jsonl").write_text("".join(json.dumps(m) + "\n" for m in session))


def bench(base: Path, depth: int) -> tuple[float, dict[str, float], int]:
    root = base / f"ws-{depth}"
    build(root, depth)
    marks: list[tuple[str, float]] = []
    with Memory(root) as mem:
        t0 = time.perf_counter()
        receipt = mem.forget(FACT, on_step=lambda name: name.startswith("file:") or
                             marks.append((name, time.perf_counter())))
        total = time.perf_counter() - t0
    assert receipt.status == "forgotten", receipt.hits
    steps, last = {}, t0
    for name, at in marks:
        steps[name] = at - last
        last = at
    steps["sweep"] = t0 + total - last
    return total, steps, len(receipt.sha_map)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 commits only")
    args = parser.parse_args()
    depths = (100, 1_000) if args.quick else (100, 1_000, 10_000)
    base = Path(tempfile.mkdtemp(prefix="nanomem-bench-forget-"))
    try:
        results = {}
        print("forget time (fact in every commit from the third on, all of them rewritten)")
        for depth in depths:
            total, steps, rewritten = bench(base, depth)
            results[depth] = total
            ratio = total / results[depths[0]]
            print(f"  {depth:>6} commits: {total:8.3f} s  ({rewritten} rewritten)  "
                  f"ratio to {depths[0]}: {ratio:6.1f}x  per commit: "
                  f"{total / depth * 1000:6.2f} ms")
            print("         " + "  ".join(f"{name} {secs:.3f}s" for name, secs in steps.items()))
        if len(depths) > 1:
            first, last = depths[0], depths[-1]
            print(f"  {last // first}x the commits cost {results[last] / results[first]:.1f}x "
                  "the time")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
