"""A changed fact's other version: the turn of another day that restates one of the best hits.

A fact that changed is said twice, on two days: "the weigh-off is at the Exhibition grounds
again this year" in one session, "the weigh-off is moving, the Exhibition grounds are double
booked, now it's at the fire hall" in a later one. A question about it ("Where is the weigh-off
held this year?", "What date was it originally planned for?", 最早报的是什么班？) cites both, and
is often put in one version's words, so the other version, which says little but its value,
ranks far below. The two versions share the words of the thing that changed, which the question
does not say: the old date's turn and the change turn share "Saturday" and "October".

So, when the question asks for a value that changed (:func:`nanomem.search.prior.plan_asks_change`),
each of the :data:`SEEDS` best archived turns lends its *version neighbour* a share of its
relevance::

    relevance'(v) = max(relevance(v), PULL × relevance(seed))

so that the other version ranks right below the version the question found. The version
neighbour is, among the :data:`POOL` best candidates, the archived turn that

- was said on another day than the seed (a turn of the seed's own day continues the same talk),
- was said by the seed's speaker (the one whose fact it is tells both versions; an assistant's
  long reply restates a person's words and was pulled up in their place),
- shares the most terms with the seed beyond the question's own, at least :data:`SHARED`
  (two shared words were most often chance: "put" and "quick", "away" and "three"),
- makes a pair with the seed of which one reports a change
  (:func:`nanomem.search.prior.plan_reports_change`: "moved", "instead", 改, 不…了): two
  statements of a fact that never changed are no versions.

Memory-file lines and history entries are neither seeds nor neighbours (distilled copies).

>>> plan_versions({1: 9.0, 2: 1.0, 3: 2.0},
...               {1: ("d1", "Ida", "the quiz night moved out of the Fox tavern, it's Monday 4th May now"),
...                2: ("d0", "Ida", "the quiz night is at the Fox tavern, Friday 8th May"),
...                3: ("d1", "Ida", "Fox tavern, May, on a Monday")}, "when is the quiz night now?")
{1: 9.0, 2: 7.2, 3: 2.0}
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from nanomem.search import prior, terms

SEEDS = 2  # the best archived turns whose other version is looked for
POOL = 60  # the best candidates among which a seed's other version is looked for
SHARED = 3  # terms a version neighbour shares with its seed, beyond the question's
PULL = 0.8  # the share of its seed's relevance a version neighbour gets at least

Turn = tuple[str, str, str]  # (the day it was said, its speaker, its text)


def plan_versions(relevance: Mapping[int, float], turns: Mapping[int, Turn],
                  query: str) -> dict[int, float]:
    """``relevance`` with each seed's version neighbour pulled up (pure); ``turns`` maps the
    rowid of each archived turn among the candidates to its ``(day, speaker, text)``."""
    asked = set(terms.plan_terms(query))
    best = sorted((r for r in relevance if r in turns), key=lambda r: -relevance[r])[:POOL]
    words = {r: set(terms.plan_terms(turns[r][2])) - asked for r in best}
    out = dict(relevance)
    for seed in best[:SEEDS]:
        others = [r for r in best if _may_be_versions(turns[seed], turns[r])]
        shared = {r: len(words[r] & words[seed]) for r in others}
        if not shared or max(shared.values()) < SHARED:
            continue
        neighbour = max(others, key=lambda r: (shared[r], relevance[r]))
        out[neighbour] = max(out[neighbour], PULL * relevance[seed])
    return out


def _may_be_versions(seed: Turn, other: Turn) -> bool:
    """Whether ``other`` may tell another version of ``seed``'s fact: another day, the same
    speaker, and one of the two reports a change."""
    return (other[0] != seed[0] and other[1] == seed[1]
            and (prior.plan_reports_change(seed[2]) or prior.plan_reports_change(other[2])))


def read_versions(db: sqlite3.Connection, relevance: Mapping[int, float], query: str) -> dict[int, float]:
    """:func:`plan_versions` over the index's archived turns, when ``query`` asks for a value
    that changed; ``relevance`` as it is otherwise."""
    if not prior.plan_asks_change(query):
        return dict(relevance)
    best = sorted(relevance, key=lambda r: -relevance[r])[:POOL + SEEDS]
    sql = (f"SELECT rowid, substr(said_at, 1, 10), coalesce(name, role, ''), body FROM docs "
           f"WHERE rowid IN ({','.join('?' * len(best))}) AND source = 'archive'")
    turns = {rowid: (day, who, body) for rowid, day, who, body in db.execute(sql, best)}
    return plan_versions(relevance, turns, query)
