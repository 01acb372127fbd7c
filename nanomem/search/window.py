"""Session windows: an archived turn is scored with the turns around it.

Conversation is elliptical and topical. "In Kumasi, in August" answers "where's the wedding?",
which follows "Kofi's brother is getting married": the words of a question are spread over a
few neighbouring turns, and the turn that holds the answer often shares none of them. So the
BM25 relevance of each archived turn is smoothed over its session window (score propagation
between neighbouring passages, as in passage retrieval)::

    relevance'(t) = relevance(t) + sum over j in 1..WINDOW of
                    BEFORE_WEIGHT ** j × relevance(t - j) + AFTER_WEIGHT ** j × relevance(t + j)

where ``t ± j`` is the turn ``j`` places before or after in the same session (in the order they
were archived) and ``relevance`` is 0 for a turn BM25 did not find. A turn next to two matches
can thus be found although it matches nothing itself. The window leans forward
(``BEFORE_WEIGHT`` > ``AFTER_WEIGHT``): in a conversation the turn before a reply sets its topic
(a question, then its answer: "where's the wedding?" / "in Kumasi, in August"), so a turn
takes more from the turns before it than from the turns after it. Memory-file lines and
history entries are not turns and keep their relevance.

>>> smoothed = plan_window({1: 4.0}, {1: ("s", 7), 2: ("s", 8), 3: ("s", 9), 4: ("t", 8), 5: ("s", 6)})
>>> {rowid: round(score, 2) for rowid, score in smoothed.items()}
{1: 4.0, 2: 3.2, 3: 2.56, 5: 2.0}
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

WINDOW = 2  # turns on each side that share a turn's relevance
BEFORE_WEIGHT = 0.8  # the turn j places before passes on BEFORE_WEIGHT ** j of its relevance
AFTER_WEIGHT = 0.5  # the turn j places after passes on AFTER_WEIGHT ** j of its relevance
_CHUNK = 300  # candidates per neighbour query (3 variables each, under SQLite's old 999 limit)


def plan_window(relevance: Mapping[int, float], turns: Mapping[int, tuple[str, int]]
                ) -> dict[int, float]:
    """The smoothed relevance of every document in ``relevance`` or ``turns`` (pure).

    ``turns`` maps the rowid of each archived turn to its ``(session key, position)``; a
    document not in it (a file line, a history entry) keeps its relevance. A turn with no
    relevance of its own and none from its neighbours is left out."""
    at = {place: rowid for rowid, place in turns.items()}
    out = {rowid: score for rowid, score in relevance.items() if rowid not in turns}
    for rowid, (key, seq) in turns.items():
        score = relevance.get(rowid, 0.0)
        for step in range(1, WINDOW + 1):
            for weight, other in ((BEFORE_WEIGHT ** step, at.get((key, seq - step))),
                                  (AFTER_WEIGHT ** step, at.get((key, seq + step)))):
                if other is not None:
                    score += weight * relevance.get(other, 0.0)
        if score > 0:
            out[rowid] = score
    return out


def read_window(db: sqlite3.Connection, relevance: Mapping[int, float], where: str = "1",
                args: Sequence[object] = (), *, seeds: int | None = None) -> dict[int, float]:
    """:func:`plan_window` over the index: the archived turns among the ``seeds`` best of
    ``relevance`` (all by default) and their neighbours (those that ``docs d WHERE where``
    allows), each with its smoothed relevance; the other documents keep theirs."""
    rowids = sorted(relevance, key=lambda rowid: -relevance[rowid])[:seeds]
    places: list[tuple[str, int]] = []
    for start in range(0, len(rowids), 500):
        part = rowids[start:start + 500]
        places += db.execute(
            f"SELECT session_key, seq FROM docs WHERE rowid IN ({','.join('?' * len(part))}) "
            "AND +source = 'archive' AND seq IS NOT NULL", part).fetchall()  # by rowid, not source
    turns: dict[int, tuple[str, int]] = {}
    for start in range(0, len(places), _CHUNK):
        chunk = places[start:start + _CHUNK]
        values = ",".join("(?, ?, ?)" for _ in chunk)
        flat = [x for key, seq in chunk for x in (key, seq - WINDOW, seq + WINDOW)]
        sql = (f"WITH c(k, lo, hi) AS (VALUES {values}) SELECT d.rowid, d.session_key, d.seq "
               "FROM c JOIN docs d ON d.session_key = c.k AND d.seq BETWEEN c.lo AND c.hi "
               f"WHERE d.source = 'archive' AND ({where})")
        for rowid, key, seq in db.execute(sql, [*flat, *args]):
            turns[rowid] = (key, seq)
    return plan_window(relevance, turns)
