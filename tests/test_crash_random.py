"""A seeded, time-bounded randomized crash test (issue 11, evidence): ``kill -9`` at a random
write call of append, offline consolidate, offline Dream and restore, then every invariant of
``benchmarks/faults.py`` (history parses, cursors unique and increasing, no lost append, no
redo, the files equal HEAD with no misattributed ``manual:`` commit, the dream cursor within
the committed Dreams, ``git fsck --strict`` clean, no stale lock or journal left)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.faults import OPERATIONS, render_report, run_campaign

pytestmark = pytest.mark.slow  # every trial starts processes


def test_kill9_at_random_write_calls_of_each_operation_breaks_no_invariant(tmp_path: Path) -> None:
    trials = run_campaign(tmp_path, seed=20261201, seconds=3.0)
    report = render_report(trials, 0)
    assert {t.operation for t in trials} == set(OPERATIONS), report
    assert sum(t.killed for t in trials) >= len(OPERATIONS) // 2, report  # the kills happened
    assert [b for t in trials for b in t.broken] == [], report
    assert sum(t.lost for t in trials) == 0, report
