"""What a search means to its callers (pure): checking ``Memory.search``'s arguments, and turning
the hits of a query into the inputs of the prompt block (:mod:`nanomem.text.context`).

>>> check_search_args("boat", k=0)
Traceback (most recent call last):
...
ValueError: search needs k >= 1, not 0
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nanomem.search.rank import SOURCES, Hit
from nanomem.search.terms import plan_words
from nanomem.text.context import RecalledTurn, render_snippet

RECALL_HITS = 24  # hits a query-aware context() asks the index for, at the least
TOKENS_PER_HIT = 20  # ... and one more per this many tokens of budget (turns are short)
_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2})?$")


def check_search_args(query: object, *, k: object, since: object = None, until: object = None,
                      sources: Sequence[str] | None = None) -> None:
    """Raise ``ValueError`` naming the bad argument and the fix; return ``None`` when all are good."""
    if not isinstance(query, str):
        raise ValueError(f"search needs a query string, not {type(query).__name__}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"search needs k >= 1, not {k!r}")
    unknown = [s for s in (sources or ()) if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown search source {unknown[0]!r}; use one of {', '.join(SOURCES)}")
    for label, value in (("since", since), ("until", until)):
        if value is not None and not _DAY.match(str(value)):
            raise ValueError(f"search {label} {value!r} is not a date; use YYYY-MM-DD "
                             "or 'YYYY-MM-DD HH:MM'")


def plan_recall_k(budget_tokens: int) -> int:
    """How many hits a query-aware ``context(budget_tokens, query=)`` asks the index for: enough
    short turns to fill the budget, so the block is not cut short by running out of hits.

    >>> plan_recall_k(1000), plan_recall_k(2000)
    (50, 100)
    """
    return max(RECALL_HITS, budget_tokens // TOKENS_PER_HIT)


def plan_recall(hits: Sequence[Hit], query: str, *, dream_cursor: int
                ) -> tuple[dict[str, dict[int, float]], list[RecalledTurn]]:
    """``(relevance, recalled)`` for :func:`~nanomem.text.context.render_context`: the score of
    each memory-file line hit (by path, then 0-based line), and the recalled turns, archived
    turns first, then processed history entries (pending ones are shown in full elsewhere)."""
    relevance: dict[str, dict[int, float]] = {}
    recalled: list[RecalledTurn] = []
    later: list[RecalledTurn] = []
    words = plan_words(query)
    for hit in hits:
        if hit.source == "file" and hit.path is not None and hit.line is not None:
            relevance.setdefault(hit.path, {})[hit.line - 1] = hit.score
        elif hit.source == "archive":
            recalled.append(RecalledTurn(hit.date, hit.speaker, render_snippet(hit.text, words)))
        elif hit.cursor is not None and hit.cursor <= dream_cursor:
            later.append(RecalledTurn(hit.date, "history", render_snippet(hit.text, words)))
    return relevance, recalled + later
