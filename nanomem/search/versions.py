"""A changed fact's other version: the turn of another session that restates the best hits.

A fact that changed is said twice, on two days: "the weigh-off is at the Exhibition grounds
again this year" in one session, "the weigh-off is moving, now it's at the fire hall" in a later
one. A question about it ("Where is the weigh-off held this year?", "What date was it
originally planned for?", 最早报的是什么班？) cites both, and is often put in one version's
words, so the other version, which says little but its new value, ranks far below. The two
versions share the words of the thing that changed, and the question does not say them all:
the old date's turn and the change turn share "Saturday" and "October"; 报了个班，学快板 and
快板我不学了，改学手风琴了 share 快板.

So, when the question asks for a value that changed (:func:`nanomem.search.prior.plan_asks_change`),
each of the :data:`SEEDS` best archived turns lends its *version neighbour* a share of its
relevance: among the :data:`POOL` best candidates, the archived turn of another session that
shares the most terms with the seed beyond the question's own (at least :data:`SHARED`)::

    relevance'(v) = max(relevance(v), PULL × relevance(seed))

so the other version ranks right below the version the question found. A turn of the seed's
own session is no other version (it continues the same talk), and neither is a memory-file
line or a history entry (distilled copies of turns).

>>> plan_versions({1: 9.0, 2: 1.0, 3: 2.0},
...               {1: ("s1", "the weigh-off moved to the fire hall on Sunday"),
...                2: ("s0", "the weigh-off is at the Exhibition grounds, Sunday, fire drill"),
...                3: ("s1", "fire hall parking on Sunday")}, "where is the weigh-off now?")
{1: 9.0, 2: 7.2, 3: 2.0}
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from nanomem.search import prior, terms

SEEDS = 3  # the best archived turns whose other version is looked for
POOL = 60  # the best candidates among which a seed's other version is looked for
SHARED = 2  # terms a version neighbour shares with its seed, beyond the question's
PULL = 0.8  # the share of its seed's relevance a version neighbour gets at least


def plan_versions(relevance: Mapping[int, float], turns: Mapping[int, tuple[str, str]],
                  query: str) -> dict[int, float]:
    """``relevance`` with each seed's version neighbour pulled up (pure); ``turns`` maps the
    rowid of each archived turn among the candidates to its ``(day, text)``: a turn said on
    another day is of another session."""
    asked = set(terms.plan_terms(query))
    best = sorted((r for r in relevance if r in turns), key=lambda r: -relevance[r])[:POOL]
    words = {r: set(terms.plan_terms(turns[r][1])) - asked for r in best}
    out = dict(relevance)
    for seed in best[:SEEDS]:
        others = [r for r in best if turns[r][0] != turns[seed][0]]
        shared = {r: len(words[r] & words[seed]) for r in others}
        if not shared or max(shared.values()) < SHARED:
            continue
        neighbour = max(others, key=lambda r: (shared[r], relevance[r]))
        out[neighbour] = max(out[neighbour], PULL * relevance[seed])
    return out


def read_versions(db: sqlite3.Connection, relevance: Mapping[int, float], query: str) -> dict[int, float]:
    """:func:`plan_versions` over the index's archived turns, when ``query`` asks for a value
    that changed; ``relevance`` as it is otherwise."""
    if not prior.plan_asks_change(query):
        return dict(relevance)
    best = sorted(relevance, key=lambda r: -relevance[r])[:POOL + SEEDS]
    sql = (f"SELECT rowid, substr(said_at, 1, 10), body FROM docs "
           f"WHERE rowid IN ({','.join('?' * len(best))}) AND source = 'archive'")
    turns = {rowid: (day, body) for rowid, day, body in db.execute(sql, best)}
    return plan_versions(relevance, turns, query)
