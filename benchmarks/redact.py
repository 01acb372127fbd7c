"""Benchmark of redaction: what ``redact`` costs on ordinary and adversarial text.

    python benchmarks/redact.py           # every case, about 10 seconds
    python benchmarks/redact.py --quick   # fewer repetitions

Every history append, memory-file commit and Dream prompt runs :func:`nanomem.text.redact.redact`
(27 secret kinds, the long-hex and the entropy rule). Prints the median time per call and per
KB for each case, and each case's ratio to ordinary prose, so a rule that backtracks badly on
some input shows as a large ratio. The inputs are built in the run; nothing is read from disk.
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nanomem.text.redact import redact  # noqa: E402
from tests.secret_kinds import FAKES  # noqa: E402


def cases() -> dict[str, str]:
    rng = random.Random(0)
    prose = ("User prefers metric units and lives in Lyon; the budget for project Atlas is "
             "4,500 EUR. ") * 50
    return {
        "prose 4 KB": prose[:4000],
        "prose with 27 secrets": " ".join(f.text for f in FAKES),
        "random base64 64 KB, no space": "".join(
            rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(64000)),
        "one letter x 64 KB": "a" * 64000,
        "'a:' after :// x 64 KB": "x://" + "a:" * 32000,
        "'@' after a URL user x 64 KB": "postgres://u:" + "@" * 64000,
        "'password is x1…' x 2,000": ("password is " + "x1" * 10) * 2000,
    }


def median_seconds(text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        redact(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 9
    rows = [(name, len(text), median_seconds(text, repeat)) for name, text in cases().items()]
    base = rows[0][2] / rows[0][1]
    print(f"{'case':34} {'chars':>7} {'ms/call':>9} {'ms/KB':>7} {'x prose/KB':>11}")
    for name, size, seconds in rows:
        per_kb = seconds / size * 1000
        print(f"{name:34} {size:7,} {seconds * 1e3:9.2f} {per_kb * 1e3:7.3f} "
              f"{seconds / size / base:11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
