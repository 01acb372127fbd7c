"""Benchmark of the search index: search latency, incremental update, rebuild and size.

    python benchmarks/search.py            # 10k and 100k archived turns (about two minutes)
    python benchmarks/search.py --quick    # 2k and 20k

For each size a fresh workspace gets that many archived turns (two speakers, one session per
day, Zipf-distributed words from a 6,000-word vocabulary, one turn in ten in Chinese) plus one
history entry per ten turns, written through ``Archive.append`` and ``History.append_many``.
Then, in one run:

- **rebuild**: ``SearchIndex.rebuild()`` from nothing (every turn and entry read and indexed);
- **size**: the index file (after a WAL checkpoint) against the archive it indexes;
- **search**: ``Memory.search(q, k=8)`` for 200 queries of two to four words (one in ten Chinese),
  including the update check that every search makes; p50 and p95;
- **update after one consolidation**: 30 times, a chunk of 10 turns goes to the archive and one
  summary to the history, then ``SearchIndex.update()``; median.

Prints the figures per size and the ratio of the largest size to the smallest.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from nanomem.config import Config
from nanomem.memory import Memory
from nanomem.store.workspace import init_workspace

SEED = 12
QUERIES = 200
UPDATES = 30
_ZH = "我们今天明天昨天上周下周北京上海医院学校公司朋友孩子妈妈爸爸电影音乐跑步爬山旅行工作会议生日蛋糕咖啡茶猫狗"


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    """Pronounceable made-up words, most frequent first."""
    consonants, vowels = "bcdfghklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        n = rng.choice((2, 2, 3, 3, 4))
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(n)))
    return sorted(words, key=lambda w: (len(w), w))


class TextMaker:
    """Turn texts with Zipf-distributed words (pure, seeded)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words = vocabulary(rng)
        self.weights = [1.0 / (rank + 1) for rank in range(len(self.words))]

    def latin(self, low: int, high: int) -> str:
        n = self.rng.randint(low, high)
        return " ".join(self.rng.choices(self.words, self.weights, k=n))

    def chinese(self, low: int, high: int) -> str:
        n = self.rng.randint(low, high)
        return "".join(self.rng.choice(_ZH) for _ in range(n)) + "。"

    def turn(self) -> str:
        return self.chinese(8, 30) if self.rng.random() < 0.1 else self.latin(6, 30)

    def query(self) -> str:
        return self.chinese(2, 4) if self.rng.random() < 0.1 else self.latin(2, 4)


def fill(memory: Memory, turns: int, maker: TextMaker, start: datetime) -> None:
    """``turns`` archived turns in chunks of 10, one day per 40 turns, one summary per chunk."""
    index = 0
    while index < turns:
        when = start + timedelta(days=index // 40, minutes=index % 40)
        chunk = [{"role": "user" if i % 2 == 0 else "assistant", "name": "Ana" if i % 2 == 0 else "Bo",
                  "content": maker.turn(), "timestamp": (when + timedelta(seconds=i)).isoformat()}
                 for i in range(min(10, turns - index))]
        memory.archive.append_messages(chunk, session_key="bench", start=index, chunk=f"c{index}")
        memory.history.append_many([f"- [durable] {maker.latin(5, 12)}"], session_key="bench",
                                   kind="summary")
        index += len(chunk)


def measure(turns: int, root: Path) -> dict[str, float]:
    rng = random.Random(SEED)
    maker = TextMaker(rng)
    ws = root / f"ws-{turns}"
    init_workspace(ws)
    config = Config(max_history_entries=10**9)
    clock = datetime(2026, 5, 1, 12, 0)
    memory = Memory(ws, config=config, clock=lambda: clock)
    fill(memory, turns, maker, datetime(2025, 1, 1, 9, 0))
    archive_bytes = sum(p.stat().st_size for p in memory.archive.segments())

    started = time.perf_counter()
    stats = memory.index.rebuild()
    rebuild = time.perf_counter() - started
    docs = stats.archive + stats.history + stats.files
    db = memory.index._connect()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = sum(p.stat().st_size for p in ws.joinpath("memory").glob("index.sqlite3*"))

    queries = [maker.query() for _ in range(QUERIES)]
    latencies = []
    for query in queries:
        started = time.perf_counter()
        memory.search(query, k=8)
        latencies.append(time.perf_counter() - started)

    updates = []
    for n in range(UPDATES):
        base = turns + 10 * n
        chunk = [{"role": "user", "name": "Ana", "content": maker.turn(),
                  "timestamp": "2026-05-01T12:00:00"} for _ in range(10)]
        memory.archive.append_messages(chunk, session_key="bench", start=base, chunk=f"u{n}")
        memory.history.append_many([f"- [durable] {maker.latin(5, 12)}"], session_key="bench",
                                   kind="summary")
        started = time.perf_counter()
        added = memory.index.update()
        updates.append(time.perf_counter() - started)
        assert added.archive == 10 and added.history == 1, added
    memory.close()
    latencies.sort()
    return {
        "turns": turns, "docs": docs, "rebuild_s": rebuild, "index_mb": size / 2**20,
        "archive_mb": archive_bytes / 2**20,
        "search_p50_ms": 1000 * statistics.median(latencies),
        "search_p95_ms": 1000 * latencies[int(0.95 * len(latencies)) - 1],
        "update_ms": 1000 * statistics.median(updates),
    }


ROWS = (
    ("search p50 (ms)", "search_p50_ms", "{:.2f}"),
    ("search p95 (ms)", "search_p95_ms", "{:.2f}"),
    ("update after one consolidation (ms)", "update_ms", "{:.2f}"),
    ("full rebuild (s)", "rebuild_s", "{:.2f}"),
    ("index size (MiB)", "index_mb", "{:.1f}"),
    ("archive size (MiB)", "archive_mb", "{:.1f}"),
    ("documents indexed", "docs", "{:,.0f}"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2k and 20k turns")
    args = parser.parse_args()
    sizes = (2_000, 20_000) if args.quick else (10_000, 100_000)
    root = Path(tempfile.mkdtemp(prefix="nanomem-search-bench-"))
    try:
        results = [measure(n, root) for n in sizes]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    small, big = results[0], results[-1]
    header = f"{'archived turns':<38}" + "".join(f"{r['turns']:>14,}" for r in results)
    print(header + f"{'ratio':>10}")
    print("-" * len(header + " " * 10))
    for label, key, fmt in ROWS:
        cells = "".join(f"{fmt.format(r[key]):>14}" for r in results)
        ratio = big[key] / small[key] if small[key] else float("nan")
        print(f"{label:<38}{cells}{ratio:>9.1f}x")
    print(f"\n{QUERIES} queries of 2-4 words (1 in 10 Chinese), k=8; {UPDATES} updates of 10 turns + "
          "1 history entry each; targets at 100k: search p50 < 20 ms, update < 5 ms")


if __name__ == "__main__":
    main()
