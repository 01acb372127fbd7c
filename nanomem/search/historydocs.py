"""History entries in the search index: new ones by cursor, rewritten ones found and re-indexed.

An update reads the entries above the last cursor indexed (the ``history`` mark). Before that it
compares the history files' marks with those of the last update
(:func:`nanomem.search.marks.plan_history_checks`): for each cursor range whose file changed
other than by an append, the entries on disk are compared with the documents indexed, and only
those that differ are replaced; an entry gone from the files leaves the index. A compaction
moves entries without changing them, so its check replaces nothing (and warns of nothing).

An entry is indexed with the time its words were said: its own ``said_at`` (written by the
consolidator), else the latest ``said_at`` of its chunk's archived turns (table ``chunks``),
else its archiving time.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing

from nanomem.search.docs import Doc, delete_rowids
from nanomem.search.marks import (
    HISTORY_FILES,
    HISTORY_MAIN,
    check_appended,
    parse_history_marks,
    plan_history_checks,
    read_history_marks,
    render_history_marks,
    set_mark,
)
from nanomem.store.history import History
from nanomem.store.historyfile import HistoryEntry

logger = logging.getLogger(__name__)

BATCH = 2000

Insert = Callable[[Iterable[Doc]], int]


def update_history(db: sqlite3.Connection, marks: dict[str, str], history: History,
                   insert: Insert) -> int:
    """Bring the history documents up to date; return how many were (re-)indexed."""
    done = int(marks.get("history", "0") or 0)
    now = read_history_marks(history.segments(), history.path)
    rendered, added = render_history_marks(now), 0
    if rendered != marks.get(HISTORY_FILES):  # the usual update: one string compared
        if done:
            old = parse_history_marks(marks.get(HISTORY_FILES))
            appended = check_appended(old.get(HISTORY_MAIN), now.get(HISTORY_MAIN), history.path)
            for first, last in plan_history_checks(old, now, appended):
                changed, top = _recheck(db, history, insert, first, last)
                added += changed
                if last is None:
                    done = top  # everything above ``first`` was read: the mark is what is there now
        set_mark(db, HISTORY_FILES, rendered)
    if history.last_cursor() > done:
        batch, top = [], done
        for entry in history.iter_entries(done):
            batch.append(_doc(db, entry))
            top = max(top, entry.cursor)
            if len(batch) >= BATCH:
                added += insert(batch)
                batch = []
        added += insert(batch)
        done = top
    if str(done) != marks.get("history", "0"):
        set_mark(db, "history", str(done))
    return added


def _recheck(db: sqlite3.Connection, history: History, insert: Insert, first: int,
             last: int | None) -> tuple[int, int]:
    """Compare the entries with cursors ``first..last`` with their documents; replace those that
    differ, drop those gone. Returns ``(documents re-indexed, the highest cursor read)``."""
    top = first - 1
    indexed = {uid: (rowid, body, said, key) for rowid, uid, body, said, key in db.execute(
        "SELECT rowid, uid, body, said_at, session_key FROM docs WHERE source = 'history' AND "
        "cursor >= ? AND cursor <= ?", (first, last if last is not None else 2 ** 62))}
    stale: list[int] = []
    fresh: list[Doc] = []
    with closing(history.iter_entries(first - 1)) as entries:
        for entry in entries:
            if last is not None and entry.cursor > last:
                break
            top = max(top, entry.cursor)
            doc = _doc(db, entry)
            row = indexed.pop(doc.uid, None)
            if row is not None and row[1:] == (doc.body, doc.said_at, doc.session_key):
                continue
            if row is not None:
                stale.append(row[0])
            fresh.append(doc)
    stale += [row[0] for row in indexed.values()]  # entries no longer in any history file
    if stale:
        logger.warning("search: %d history entr%s with cursors %d-%s changed on disk; indexing "
                       "them again", len(stale), "y" if len(stale) == 1 else "ies", first,
                       last if last is not None else "end")
    delete_rowids(db, stale)
    return insert(fresh), top


def _doc(db: sqlite3.Connection, entry: HistoryEntry) -> Doc:
    said = entry.said_at or _read_chunk_said_at(db, entry.session_key, entry.chunk)
    return Doc(f"h:{entry.cursor}", "history", entry.content, said_at=said or entry.timestamp,
               cursor=entry.cursor, session_key=entry.session_key)


def _read_chunk_said_at(db: sqlite3.Connection, session_key: str | None,
                        tag: str | None) -> str | None:
    """When the last message of a history entry's chunk was said (the consolidator tags an
    entry ``<fingerprint>/<count>``, and the chunk's archived turns carry the fingerprint)."""
    if not tag or session_key is None:
        return None
    found = db.execute("SELECT said_at FROM chunks WHERE session_key = ? AND chunk = ?",
                       (session_key, tag.split("/")[0])).fetchone()
    return found[0] if found else None
