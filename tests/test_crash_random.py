"""A seeded, time-bounded randomized crash test (issue 11, evidence): ``kill -9`` at a random
write call of append, offline consolidate (history and the archive), offline Dream, restore,
``/memory yes 1`` and a Dream that compacts history, then every invariant of
``benchmarks/faults.py`` (history parses, cursors unique and increasing, no lost append, no
redo, the files and PENDING.md equal HEAD with no misattributed ``manual:`` commit, the dream
cursor within the committed Dreams, ``git fsck --strict`` clean, no stale lock or journal left)
and the operation's own (each turn archived once and found by search; an answer committed and
audited at most once; every cursor still read after a compaction).

``forget`` and ``/memory no`` run in the benchmark only (``--only forget``): a forget trial
takes seconds; the forget's kills at each of its steps are ``tests/test_forget_e2e.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.faults import render_report, run_campaign

pytestmark = pytest.mark.slow  # every trial starts processes

IN_THE_SUITE = ("append", "consolidate", "dream", "restore", "answer-yes", "compact")


def test_kill9_at_random_write_calls_of_each_operation_breaks_no_invariant(tmp_path: Path) -> None:
    trials = run_campaign(tmp_path, seed=20261201, seconds=3.0, operations=IN_THE_SUITE)
    report = render_report(trials, 0)
    assert {t.operation for t in trials} == set(IN_THE_SUITE), report
    assert sum(t.killed for t in trials) >= len(IN_THE_SUITE) // 2, report  # the kills happened
    assert [b for t in trials for b in t.broken] == [], report
    assert sum(t.lost for t in trials) == 0, report
