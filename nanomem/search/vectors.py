"""Document vectors for dense retrieval, in the search index's own SQLite file.

Table ``vectors(rowid, model, vec)``: one row per document (``docs.rowid``), the vector as a
float32 BLOB (stdlib :mod:`array`, little-endian). It is created on first use, filled
incrementally (documents without a vector are embedded, :data:`SYNC_BATCH` at a time) and
derived like the rest of the index: a table made by another model, or one whose vectors do not
all have one size (damaged), is dropped and filled again, with a warning.

Search is brute force: the cosine of the query with every stored vector (among the documents
the filters allow), in pure Python. That is fine up to about 100,000 documents (a few hundred
milliseconds per search); beyond that an approximate index would be needed, which is not built.
"""

from __future__ import annotations

import heapq
import logging
import math
import sqlite3
import sys
from array import array
from collections.abc import Sequence
from typing import Protocol

logger = logging.getLogger(__name__)

SYNC_BATCH = 512  # documents embedded per round (the client batches its requests further)
_TABLE = "CREATE TABLE IF NOT EXISTS vectors(rowid INTEGER PRIMARY KEY, model TEXT NOT NULL, vec BLOB NOT NULL)"


class Embedder(Protocol):
    """What dense retrieval needs: a model name and texts to vectors (raises ProviderError)."""

    model: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def render_vector(values: Sequence[float]) -> bytes:
    """A unit-length float32 little-endian BLOB (pure).

    >>> parse_vector(render_vector([3.0, 4.0]))
    [0.6000000238418579, 0.800000011920929]
    """
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    packed = array("f", (v / norm for v in values))
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def parse_vector(blob: bytes) -> list[float]:
    """The floats of a BLOB written by :func:`render_vector` (pure)."""
    packed = array("f")
    packed.frombytes(blob)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tolist()


def plan_top(query: Sequence[float], rows: Sequence[tuple[int, list[float]]],
             limit: int) -> list[int]:
    """The rowids of the ``limit`` rows most similar to ``query`` by cosine, best first (pure;
    stored vectors are unit length, so the dot product is the cosine up to the query's norm).

    >>> plan_top([1.0, 0.0], [(1, [0.0, 1.0]), (2, [1.0, 0.0])], 1)
    [2]
    """
    scored = ((sum(a * b for a, b in zip(query, vec)), rowid) for rowid, vec in rows)
    return [rowid for score, rowid in heapq.nlargest(limit, scored) if score > 0]


def has_table(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'vectors'").fetchone() is not None


def write_missing(db: sqlite3.Connection, embedder: Embedder) -> int:
    """Embed the documents that have no vector yet; return how many were added.

    A table made by another model, or with vectors of mixed sizes, is emptied first. Each round
    commits on its own, so an endpoint failing midway keeps what was done (ProviderError
    propagates to the caller, who falls back to BM25)."""
    db.execute(_TABLE)
    models = {m for (m,) in db.execute("SELECT DISTINCT model FROM vectors")}
    sizes = {n for (n,) in db.execute("SELECT DISTINCT length(vec) FROM vectors")}
    if models - {embedder.model} or len(sizes) > 1 or any(n % 4 or not n for n in sizes):
        logger.warning("search: the vectors in the index are from another model or damaged; "
                       "embedding every document again")
        db.execute("DELETE FROM vectors")
    added = 0
    while True:
        todo = db.execute("SELECT d.rowid, d.body FROM docs d LEFT JOIN vectors v ON "
                          "v.rowid = d.rowid WHERE v.rowid IS NULL ORDER BY d.rowid LIMIT ?",
                          (SYNC_BATCH,)).fetchall()
        if not todo:
            return added
        vectors = embedder.embed([body for _, body in todo])
        db.executemany("INSERT OR REPLACE INTO vectors(rowid, model, vec) VALUES (?, ?, ?)",
                       [(rowid, embedder.model, render_vector(vec))
                        for (rowid, _), vec in zip(todo, vectors)])
        added += len(todo)


def read_ranking(db: sqlite3.Connection, query: Sequence[float], limit: int, where: str,
                 args: Sequence[object]) -> list[int]:
    """The rowids of the ``limit`` documents nearest ``query`` among ``docs d WHERE where``."""
    if not has_table(db):
        return []
    rows = [(rowid, parse_vector(blob)) for rowid, blob in db.execute(
        f"SELECT v.rowid, v.vec FROM vectors v JOIN docs d ON d.rowid = v.rowid WHERE {where}",
        tuple(args))]
    return plan_top(query, rows, limit)


def delete_rows(db: sqlite3.Connection, rowids: Sequence[int]) -> None:
    """Drop the vectors of deleted documents (their rowids may be reused)."""
    if rowids and has_table(db):
        db.executemany("DELETE FROM vectors WHERE rowid = ?", [(r,) for r in rowids])
