"""The documents of the search index: what one indexed text is, its FTS columns, and how rows
are added to and taken out of the ``docs`` and ``fts`` tables (the schema is in
:mod:`nanomem.search.index`).

A document is a memory-file line (``file``), a history entry (``history``) or an archived turn
(``archive``). Its ``uid`` is stable while its text is there (``f:<hash>``, ``h:<cursor>``,
``a:<record id>``), so indexing a text twice adds it once.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from nanomem.search import prior, related, terms, vectors
from nanomem.search.rank import parse_day
from nanomem.vocab import is_pinned

COLUMNS = ("uid, source, path, line, cursor, session_key, role, name, said_at, day, pinned, body, "
           "near, seq, units")


@dataclass(frozen=True)
class Doc:
    """One indexed text (a memory-file line, a history entry or an archived turn)."""

    uid: str
    source: str
    body: str
    said_at: str = ""
    path: str | None = None
    line: int | None = None
    cursor: int | None = None
    session_key: str | None = None
    role: str | None = None
    name: str | None = None
    pinned: bool = False
    near: str = ""
    seq: int | None = None  # an archived turn's position in its session (archive order)

    def row(self) -> tuple[Any, ...]:
        return (self.uid, self.source, self.path, self.line, self.cursor, self.session_key,
                self.role, self.name, self.said_at, parse_day(self.said_at), int(self.pinned),
                self.body, self.near, self.seq, prior.plan_content_units(self.body))


def render_fts_row(source: str, pinned: bool, body: str, name: str | None = None,
                   near: str = "") -> tuple[str, ...]:
    """The FTS columns of a document (pure): Latin text, CJK pairs, source tags, speaker, and
    the previous turn's Latin text and CJK pairs, and the text's single CJK characters. The speaker column holds a name's Latin words
    and its CJK pairs alike, so that a Chinese name is matched (and weighs little when it is in
    half the turns) as a Latin one is.

    >>> render_fts_row("archive", False, "Lives in 北京", "Ana", "where?")
    ('lives in  ', '北京 京', 'srcarchive', 'ana', 'where?', '', '北 京')
    >>> render_fts_row("archive", False, "好", "孟晓棠")[3]
    '孟晓 晓棠 棠'
    """
    tags = f"src{source}" + (" srcpin" if pinned else "")
    who = " ".join(filter(None, (terms.render_latin(name or "").strip(),
                                 terms.render_cjk_terms(name or ""))))
    return (terms.render_latin(body), terms.render_cjk_terms(body), tags,
            who, terms.render_latin(near), terms.render_cjk_terms(near), terms.render_cjk_chars(body))


def plan_file_docs(rel: str, text: str, skip: frozenset[str] = frozenset()) -> list[Doc]:
    """The documents of one memory file (pure): each non-blank line that is neither a heading
    nor template text written for people (``skip``). Ids are stable while the line is there.

    >>> [d.line for d in plan_file_docs("USER.md", "# User\\n\\n- Likes tea\\n- Likes tea\\n")]
    [3, 4]
    """
    docs: list[Doc] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):  # as the prompt block counts
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped in skip:
            continue
        digest = hashlib.sha256(f"{rel}\0{stripped}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
        seen[digest] = seen.get(digest, 0) + 1
        uid = f"f:{digest}" + (f".{seen[digest]}" if seen[digest] > 1 else "")
        docs.append(Doc(uid, "file", line, path=rel, line=number, pinned=is_pinned(stripped)))
    return docs


def insert_docs(db: sqlite3.Connection, docs: Iterable[Doc]) -> tuple[int, float | None]:
    """Add the documents whose uid is not indexed yet; ``(how many, the latest said-at day)``."""
    rows = [doc.row() for doc in docs]
    if not rows:
        return 0, None
    first = (db.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()[0]) + 1
    days = [row[9] for row in rows if row[9] is not None]
    fresh: list[tuple[Any, ...]] = []
    fts_rows: list[tuple[Any, ...]] = []
    known = _existing_uids(db, [row[0] for row in rows])
    for row in rows:
        if row[0] in known:
            continue
        known.add(row[0])
        rowid = first + len(fresh)
        fresh.append((rowid, *row))
        fts_rows.append((rowid, *render_fts_row(row[1], bool(row[10]), row[11], row[7], row[12])))
    db.executemany(f"INSERT INTO docs(rowid, {COLUMNS}) VALUES "
                   "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", fresh)
    db.executemany("INSERT INTO fts(rowid, latin, cjk, src, who, nlatin, ncjk, cjk1) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", fts_rows)
    related.write_rows(db, [(row[0], row[12]) for row in fresh])  # (rowid, body)
    return len(fresh), max(days) if days else None


def delete_docs(db: sqlite3.Connection, where: str, args: Sequence[Any]) -> int:
    """Take the documents ``where`` selects out of the index (rows, FTS terms, related words,
    vectors)."""
    gone = db.execute(f"SELECT rowid, source, pinned, body, name, near FROM docs WHERE {where}",
                      args).fetchall()
    db.executemany("INSERT INTO fts(fts, rowid, latin, cjk, src, who, nlatin, ncjk, cjk1) "
                   "VALUES ('delete', ?, ?, ?, ?, ?, ?, ?, ?)",
                   [(rowid, *render_fts_row(source, bool(pinned), body, name, near))
                    for rowid, source, pinned, body, name, near in gone])
    related.delete_rows(db, [(row[0], row[3]) for row in gone])
    vectors.delete_rows(db, [row[0] for row in gone])
    db.execute(f"DELETE FROM docs WHERE {where}", args)
    return len(gone)


def delete_rowids(db: sqlite3.Connection, rowids: Sequence[int]) -> int:
    """:func:`delete_docs` for a list of rowids."""
    gone = 0
    for start in range(0, len(rowids), 500):
        part = list(rowids[start:start + 500])
        gone += delete_docs(db, "rowid IN (" + ",".join("?" * len(part)) + ")", part)
    return gone


def fetch_docs(db: sqlite3.Connection, rowids: list[int],
               columns: str = COLUMNS) -> Iterator[tuple[Any, ...]]:
    """``(rowid, *columns)`` of the given documents, 500 at a time."""
    for start in range(0, len(rowids), 500):
        part = rowids[start:start + 500]
        marks = ",".join("?" * len(part))
        yield from db.execute(f"SELECT rowid, {columns} FROM docs WHERE rowid IN ({marks})", part)


def _existing_uids(db: sqlite3.Connection, uids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(uids), 500):
        part = uids[start:start + 500]
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in db.execute(f"SELECT uid FROM docs WHERE uid IN ({marks})", part))
    return found
