"""The quality conversations replayed with every memory file capped at 1,500 characters.

The main benchmark never fills a file (its caps are 4,000-12,000 characters). This one does, so
it shows what a full file costs: per conversation, the facts of the Dream batches, how many the
ledger says were skipped for a full file (``skipped: cap``), how many lines were moved out to
``memory/MOVED.md`` to make room, and the recall health (facts and moved lines that search finds
in its top 5 after each Dream). Figures are printed, never asserted::

    python -m benchmarks.quality.tight_caps [--cap 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from benchmarks.quality.replay import replay_conversation
from benchmarks.quality.scenarios import load_conversations
from nanomem.vocab import MEMORY_FILES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=int, default=1500, help="characters per memory file")
    args = parser.parse_args(argv)
    caps = dict.fromkeys(MEMORY_FILES, args.cap)
    rows, totals = [], [0, 0, 0, 0, 0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        for conversation in load_conversations():
            result = asyncio.run(replay_conversation(conversation, Path(tmp) / conversation.id,
                                                     overrides={"file_caps": caps}))
            moved_path = Path(tmp) / conversation.id / "memory" / "MOVED.md"
            moved = sum(1 for line in moved_path.read_text("utf-8").splitlines()
                        if "<!-- moved from" in line) if moved_path.is_file() else 0
            skipped = count_cap_skips(Path(tmp) / conversation.id)
            row = (result.facts, result.accounted, skipped, moved, result.recall_found,
                   result.recall_checked)
            totals = [a + b for a, b in zip(totals, row)]
            rows.append((conversation.id, *row))
    print(f"every memory file capped at {args.cap:,} characters (offline engine)\n")
    print(f"{'conversation':<16} {'facts':>6} {'accounted':>10} {'skipped: cap':>13} "
          f"{'moved out':>10} {'recall health':>14}")
    for name, facts, accounted, skipped, moved, found, checked in [*rows, ("TOTAL", *totals)]:
        print(f"{name:<16} {facts:>6} {accounted:>10} {skipped:>13} {moved:>10} "
              f"{f'{found}/{checked}':>14}")
    return 0


def count_cap_skips(root: Path) -> int:
    """Facts the ledger lines of the workspace's audit say were skipped for a full file."""
    audit = root / "memory" / "dream-audit.jsonl"
    lines = audit.read_text("utf-8").splitlines() if audit.is_file() else []
    records = [json.loads(line) for line in lines]
    return sum(1 for record in records if record.get("kind") == "ledger"
               for fact in record.get("facts") or []
               if fact.get("state") == "skipped" and fact.get("reason") == "cap")


if __name__ == "__main__":
    raise SystemExit(main())
