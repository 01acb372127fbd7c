"""Search hits and how they are ranked (pure).

The score of a document for a query is::

    score = relevance × boost × recency

- ``relevance`` is SQLite FTS5's BM25 (``-bm25(fts)``, so larger is better; k1 = 1.2, b = 0.75);
  with dense retrieval on (``[search] embeddings``), the documents are ranked by this score
  first, and that order is then fused with the vector (cosine) ranking by reciprocal rank,
  :func:`fuse_ranks`: ``1 / (RRF_K + bm25_rank) + 1 / (RRF_K + vector_rank)``, a ranking a
  document is absent from adding nothing. The boosts and priors shape the BM25 order before
  the fusion (applied after it, they reordered the fused top, whose steps are a few per cent),
  so an empty vector ranking leaves the BM25 order as it is.
- ``boost`` is :data:`FILE_BOOST` for a line of a memory file (distilled and checked by the
  gates), :data:`PIN_BOOST` for a pinned line, 1 for history entries and archived turns. A line
  copied word for word from a turn among the hits folds into that turn with the line's score
  (:func:`nanomem.search.collapse.plan_collapse`), so the file boost also lifts every turn a
  memory file quotes, a chatty one as much as the one that holds the fact; hence a mild 1.25
  (1.5 before session 26: docs/recall.md, *Stop 26*).
- ``recency`` is the prior ``RECENCY_FLOOR + (1 - RECENCY_FLOOR) × 0.5 ** (age / HALF_LIFE_DAYS)``
  where ``age`` is the number of days between when the text was said and the newest text in the
  index (not the wall clock, so a replayed or imported conversation ranks the same as a live
  one). A turn said today weighs 1.0, one said 30 days before the newest weighs 0.875, a very
  old one 0.75: a mild prior that breaks ties toward what is newer (a fact that changed) without
  hiding what is old. Memory-file lines have no date and weigh 1.0.

>>> round(recency_prior(0.0), 3), round(recency_prior(30.0), 3), round(recency_prior(3650.0), 3)
(1.0, 0.875, 0.75)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

SOURCES: tuple[str, ...] = ("file", "history", "archive")
FILE_BOOST = 1.25
PIN_BOOST = 2.0
RECENCY_FLOOR = 0.75
HALF_LIFE_DAYS = 30.0
RRF_K = 60
_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class Hit:
    """One search result.

    ``source`` is ``file`` (a line of a memory file: ``path`` and ``line``), ``history`` (an
    entry of the history: ``cursor``) or ``archive`` (an archived turn: ``session_key``, ``role``,
    ``name``). ``timestamp`` is when it was said (``YYYY-MM-DD HH:MM``; ``""`` for file lines).
    ``id`` is stable across updates and rebuilds of the index.
    """

    id: str
    source: str
    text: str
    score: float
    timestamp: str = ""
    path: str | None = None
    line: int | None = None
    cursor: int | None = None
    session_key: str | None = None
    role: str | None = None
    name: str | None = None
    pinned: bool = False

    @property
    def speaker(self) -> str:
        """Who said it: ``name (role)``, the role, ``history`` or the file path.

        >>> Hit("a:1", "archive", "hi", 1.0, role="user", name="Ana").speaker
        'Ana (user)'
        """
        if self.source == "file":
            return self.path or "file"
        if self.source == "history":
            return "history"
        if self.name:
            return f"{self.name} ({self.role})" if self.role else self.name
        return self.role or "?"

    @property
    def date(self) -> str:
        """The day it was said, ``YYYY-MM-DD`` (``""`` when unknown)."""
        return self.timestamp[:10]


def parse_day(timestamp: str) -> float | None:
    """Days since 1970 of a ``YYYY-MM-DD HH:MM`` stamp, or ``None`` when it is not one.

    >>> parse_day("1970-01-02 12:00"), parse_day("")
    (1.5, None)
    """
    try:
        moment = datetime.strptime(timestamp[:16], "%Y-%m-%d %H:%M")
    except ValueError:
        try:
            moment = datetime.strptime(timestamp[:10], "%Y-%m-%d")
        except ValueError:
            return None
    return (moment - _EPOCH).total_seconds() / 86400.0


def recency_prior(age_days: float) -> float:
    """The recency factor of a text said ``age_days`` before the newest one."""
    age = max(0.0, age_days)
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * 0.5 ** (age / HALF_LIFE_DAYS)


def score_hit(relevance: float, *, source: str, pinned: bool, day: float | None,
              newest_day: float | None) -> float:
    """``relevance × boost × recency`` (see the module docstring).

    >>> score_hit(2.0, source="file", pinned=True, day=None, newest_day=None)
    4.0
    >>> score_hit(2.0, source="archive", pinned=False, day=10.0, newest_day=40.0)
    1.75
    """
    boost = PIN_BOOST if pinned else FILE_BOOST if source == "file" else 1.0
    if day is None or newest_day is None:
        return relevance * boost
    return relevance * boost * recency_prior(newest_day - day)


def fuse_ranks(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal-rank fusion: ``sum(1 / (k + rank))`` over the rankings a document is in.

    >>> fused = fuse_ranks([[7, 8], [8, 9]])
    >>> max(fused, key=fused.get)
    8
    """
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused
