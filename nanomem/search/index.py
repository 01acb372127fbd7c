"""The derived search index: ``memory/index.sqlite3``, SQLite FTS5 over everything said.

It covers the memory files and ``memory/MOVED.md`` line by line, every history entry and every
archived turn, and is never a source of truth: delete it and the next search rebuilds it.

- **Incremental.** Per-source high-water marks live in the ``marks`` table: the last history
  cursor indexed, the byte offset reached in each archive segment (with a hash of the bytes
  before it, so a rewritten segment is noticed), and each memory file's size, mtime and hash.
  :meth:`SearchIndex.update` reads only what is past them, so its cost follows what is new.
- **Self-healing.** A missing file is built; a file with another schema version, or one that
  SQLite cannot read (corrupt, not a database), is deleted and rebuilt with a warning. A
  workspace where the index cannot be written gets an in-memory index for the call, with a
  warning. Never an error.
- **Bounded.** With ``caps`` a memory file is indexed up to its read ceiling only
  (:func:`nanomem.store.memfiles.read_memory_head`, warned of once): a 20 MB ``USER.md`` is not
  800,000 documents.
- **Bookkeeping.** Nothing but this module writes it; Dream's path gate refuses it, git never
  tracks it.

Text is indexed as :mod:`nanomem.search.terms` describes; ranking is :mod:`nanomem.search.rank`.
With an ``embedder`` (``[search] embeddings = true``) the documents also get vectors
(:mod:`nanomem.search.vectors`) and a search fuses the BM25 and the vector rankings; an
embeddings endpoint that fails makes that search BM25 only, with a warning.
"""

from __future__ import annotations

import hashlib
import heapq
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanomem.errors import NanomemError, ProviderError
from nanomem.search import inflect, prior, related, terms, vectors, versions, window
from nanomem.search.collapse import plan_collapse
from nanomem.search.docs import Doc, delete_docs, fetch_docs, insert_docs, plan_file_docs
from nanomem.search.historydocs import update_history
from nanomem.search.marks import parse_offset_mark, read_tail_hash, set_mark
from nanomem.search.rank import SOURCES, Hit, fuse_ranks, score_hit
from nanomem.store.archive import Archive, read_records
from nanomem.store.history import History
from nanomem.store.memfiles import plan_head, read_ceiling, read_memory_file, read_memory_head
from nanomem.store.moved import read_moved_bytes
from nanomem.store.workspace import Workspace, template_lines
from nanomem.vocab import MOVED_MD
from nanomem.text.redact import redact_for_model

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 7  # 5: docs.units (the length prior's content units); 6: the related table;
# 7: a speaker's CJK name in the speaker column, and the cjk1 column of single CJK characters
CANDIDATES = 200  # BM25 candidates fetched before the boosts and the recency prior re-rank
NEAR_CHARS = 300  # how much of the previous turn of the session an archived turn is indexed with
# Column weights of bm25(): the text, its CJK pairs, the source tags (never matched), the
# speaker's name, and the previous turn of the same session (Latin and CJK), which lets an
# elliptical answer ("he's a beagle") be found by the question it answers ("what dog is Biscuit?"),
# and the text's single CJK characters (a weaker match than a pair: see docs/recall.md, *CJK*).
UNIGRAM_WEIGHT = 0.3
WEIGHTS = f"1.0, 1.0, 0.0, 1.0, 0.3, 0.3, {UNIGRAM_WEIGHT}"
MATCHED = ("latin", "cjk", "who", "nlatin", "ncjk")
COMMON_SHARE = 0.02  # a query term in more than 2 % of the documents (and over COMMON_FLOOR) ...
COMMON_FLOOR = 1000  # ... is left out of the search, like a stop word
COMMON_RECENT = 2000  # a query of common terms only ranks the newest this many documents it matches
_SCHEMA = """
CREATE TABLE docs(
    rowid INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
    path TEXT, line INTEGER, cursor INTEGER, session_key TEXT, role TEXT, name TEXT,
    said_at TEXT NOT NULL, day REAL, pinned INTEGER NOT NULL, body TEXT NOT NULL,
    near TEXT NOT NULL, seq INTEGER, units REAL NOT NULL);
CREATE INDEX docs_by_path ON docs(source, path);
CREATE INDEX docs_by_turn ON docs(session_key, seq);
CREATE TABLE marks(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chunks(session_key TEXT NOT NULL, chunk TEXT NOT NULL, said_at TEXT NOT NULL,
    PRIMARY KEY(session_key, chunk)) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts USING fts5(latin, cjk, src, who, nlatin, ncjk, cjk1, content='',
    tokenize='""" + terms.TOKENIZER + """');
""" + related.SCHEMA

@dataclass(frozen=True)
class UpdateStats:
    """What one :meth:`SearchIndex.update` added (and whether it rebuilt from scratch)."""

    files: int = 0
    history: int = 0
    archive: int = 0
    rebuilt: bool = False


class SearchIndex:
    """The index of one workspace. Open per use; every method keeps the file healthy."""

    def __init__(self, workspace: Workspace, *, history: History, archive: Archive,
                 path: Path | None = None, embedder: vectors.Embedder | None = None,
                 caps: Mapping[str, int] | None = None) -> None:
        self.workspace = workspace
        self.caps = dict(caps or {})  # each memory file's cap: it is read up to its ceiling
        self.embedder = embedder
        self.history = history
        self.archive = archive
        self.path = path if path is not None else workspace.index
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._identity: tuple[int, int] | None = None
        self._newest: float | None = None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            if self._identity is None or _identity(self.path) == self._identity:
                return self._db
            self.close()  # deleted or replaced meanwhile (a forget, another rebuild): reopen
        target = self.path
        if not self.path.parent.is_dir() or not os.access(self.path.parent, os.W_OK):
            logger.warning("%s cannot be written; searching an in-memory index built for this "
                           "call", self.path)
            target = Path(":memory:")
        db = _open(target)
        try:
            self._prepare(db)
        except sqlite3.DatabaseError as exc:
            db.close()
            if _is_busy(exc):
                raise
            logger.warning("%s is unreadable (%s); rebuilding it from the files", self.path, exc)
            self.remove_files()
            db = _open(target)
            self._prepare(db)
        self._db = db
        # A host that never calls close() still closes the connection when the index is
        # collected (Python 3.13 warns about a connection left to the garbage collector).
        weakref.finalize(self, db.close)
        self._identity = None if str(target) == ":memory:" else _identity(self.path)
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise sqlite3.DatabaseError(f"schema version {version}, expected {SCHEMA_VERSION}")
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        if version == 0:
            db.execute("BEGIN IMMEDIATE")
            try:
                if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        db.execute("SELECT count(*) FROM marks").fetchone()  # reads a page: corruption shows here

    def remove_files(self) -> None:
        """Delete the index file and its WAL companions (the next use rebuilds it)."""
        self.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                Path(str(self.path) + suffix).unlink()
            except FileNotFoundError:
                pass

    def _healthy(self, action: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``action``; an index found corrupt meanwhile is rebuilt once and ``action`` rerun."""
        with self._lock:
            return self._run_healthy(action)

    def _run_healthy(self, action: Callable[[sqlite3.Connection], Any]) -> Any:
        try:
            return action(self._connect())
        except sqlite3.DatabaseError as exc:
            if _is_busy(exc):
                raise NanomemError(f"{self.path}: busy ({exc}); try again") from exc
            logger.warning("%s is damaged (%s); rebuilding it from the files", self.path, exc)
            self.remove_files()
            db = self._connect()
            self._update(db)
            return action(db)

    def update(self, files: Mapping[str, bytes] | None = None) -> UpdateStats:
        """Index what is new (cost in proportion to it); ``files``: the bytes memory files are
        about to have (Dream's self-test), which the next update compares by hash."""
        return self._healthy(lambda db: self._update(db, files or {}))

    def rebuild(self) -> UpdateStats:
        """Throw the index away and build it again from the files."""
        self.remove_files()
        stats = self.update()
        return UpdateStats(stats.files, stats.history, stats.archive, rebuilt=True)

    def _update(self, db: sqlite3.Connection, files: Mapping[str, bytes] | None = None) -> UpdateStats:
        self._newest = None  # the latest said-at day among the documents this update adds
        db.execute("BEGIN IMMEDIATE")
        try:
            marks = dict(db.execute("SELECT name, value FROM marks"))
            rebuilt = not marks
            stats = UpdateStats(
                files=self._update_files(db, marks, files or {}),
                archive=self._update_archive(db, marks),  # first: history dates come from it
                history=update_history(db, marks, self.history, lambda docs: self._insert(db, docs)),
                rebuilt=rebuilt,
            )
            if stats.history or stats.archive:
                newest = [float(marks["newest_day"])] if marks.get("newest_day") else []
                newest += [self._newest] if self._newest is not None else []
                if newest:
                    set_mark(db, "newest_day", repr(max(newest)))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return stats

    def _update_files(self, db: sqlite3.Connection, marks: dict[str, str], staged: Mapping[str, bytes]) -> int:
        changed: dict[str, str] = {}  # the memory files and memory/MOVED.md, whose lines are file lines
        for rel, path in {**self.workspace.memory_paths(), MOVED_MD: self.workspace.path(MOVED_MD)}.items():
            try:
                stat = path.lstat() if rel == MOVED_MD else path.stat()
                signature = "staged" if rel in staged else f"{stat.st_size}:{stat.st_mtime_ns}"
            except FileNotFoundError:
                signature = "missing"
            if rel in staged or marks.get(f"file:{rel}", "").split("|")[0] != signature:
                changed[rel] = signature
        if not changed:
            return 0
        try:
            contents = {**self._read_files(), MOVED_MD: read_moved_bytes(self.workspace) or b""}
        except NanomemError as exc:
            logger.warning("search: memory files not indexed: %s", exc)
            return 0
        added = 0
        skip = template_lines()
        for rel, signature in changed.items():
            data = staged.get(rel, contents.get(rel, b""))
            if rel in staged and rel in self.caps:
                data = plan_head(data, read_ceiling(self.caps[rel]))
            digest = hashlib.sha256(data).hexdigest()[:16]
            old = marks.get(f"file:{rel}", "")
            if old.split("|")[-1] != digest or not old:
                delete_docs(db, "source = 'file' AND path = ?", (rel,))
                text = redact_for_model(data.decode("utf-8", "surrogateescape"))
                added += self._insert(db, plan_file_docs(rel, text, skip))
            set_mark(db, f"file:{rel}", f"{signature}|{digest}")
        return added

    def _read_files(self) -> dict[str, bytes]:
        """The memory files as the index reads them: each up to its read ceiling."""
        files: dict[str, bytes] = {}
        for rel in self.workspace.memory_paths():
            if rel in self.caps:
                head = read_memory_head(self.workspace, rel, self.caps[rel])
                data = None if head is None else head.data
            else:
                data = read_memory_file(self.workspace, rel)
            if data is not None:
                files[rel] = data
        return files

    def _update_archive(self, db: sqlite3.Connection, marks: dict[str, str]) -> int:
        added, moved = 0, set()
        chunks: dict[tuple[str, str], str] = {}  # (session key, chunk) -> its last said-at time
        for path in self.archive.segments():
            name = f"archive:{path.name}"
            offset, check = parse_offset_mark(marks.get(name))
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            if size == offset and offset == 0:
                continue
            if offset and (size < offset or read_tail_hash(path, offset) != check):
                logger.warning("search: %s was rewritten; indexing it again", path.name)
                delete_docs(db, "source = 'archive' AND path = ?", (path.name,))
                offset = 0
                for key in [k for k in marks if k.startswith("near:")]:
                    marks[key] = ""  # what preceded the segment's first turns is not known
                    moved.add(key)
            elif size == offset:
                continue
            end = offset
            batch: list[Doc] = []
            for end, record in read_records(path, offset):
                near = marks.get(f"near:{record.session_key}", "")
                seq = int(marks.get(f"seq:{record.session_key}", "0") or 0)
                batch.append(Doc(f"a:{record.id}", "archive", record.text, said_at=record.said_at,
                                 path=path.name, session_key=record.session_key,
                                 role=record.role, name=record.name, near=near, seq=seq))
                if record.chunk:
                    place = (record.session_key, record.chunk)
                    chunks[place] = max(chunks.get(place, ""), record.said_at)
                marks[f"near:{record.session_key}"] = record.text[-NEAR_CHARS:]
                marks[f"seq:{record.session_key}"] = str(seq + 1)
                moved.update((f"near:{record.session_key}", f"seq:{record.session_key}"))
                if len(batch) >= 2000:
                    added += self._insert(db, batch)
                    batch = []
            added += self._insert(db, batch)
            if end != offset:
                set_mark(db, name, f"{end}:{read_tail_hash(path, end)}")
        for key in moved:
            set_mark(db, key, marks[key])
        db.executemany("INSERT INTO chunks VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET said_at = "
                       "max(said_at, excluded.said_at)", [(*p, t) for p, t in chunks.items()])
        return added

    def _insert(self, db: sqlite3.Connection, docs: Iterable[Doc]) -> int:
        added, newest = insert_docs(db, docs)
        if newest is not None:
            self._newest = newest if self._newest is None else max(self._newest, newest)
        return added

    def search(self, query: str, *, k: int = 8, since: str | None = None,
               until: str | None = None, sources: Sequence[str] | None = None,
               collapse: bool = True, files: Mapping[str, bytes] | None = None) -> list[Hit]:
        """The ``k`` best hits for ``query`` (the index is brought up to date first, see :meth:`update`).

        With ``collapse`` a memory-file line or history entry copied word for word from an
        archived turn among the hits is folded into that turn (:func:`plan_collapse`)."""
        if not terms.plan_terms(query) or k <= 0:
            return []
        wanted = tuple(sources) if sources else SOURCES
        self.update(files)
        dense = self._embed_query(query) if self.embedder is not None else None
        return self._healthy(lambda db: self._search(db, *self._match(db, query), k, since, until,
                                                      wanted, collapse, dense, query))

    def _embed_query(self, query: str) -> list[float] | None:
        """The query's vector, after embedding the documents that have none; ``None`` (BM25
        only, with a warning) when the embeddings endpoint fails."""
        embedder = self.embedder
        assert embedder is not None
        try:
            self._healthy(lambda db: vectors.write_missing(db, embedder))
            return embedder.embed([query])[0]
        except ProviderError as exc:
            logger.warning("search: embeddings unavailable (%s); ranking by BM25 only", exc)
            return None

    @staticmethod
    def _match(db: sqlite3.Connection, query: str) -> tuple[str, bool, str]:
        """The MATCH expression, whether only the newest matches are to be ranked, and the
        MATCH expression of the query words' irregular forms (``""`` when there are none;
        :mod:`nanomem.search.inflect`). A term found in more than ``max(COMMON_SHARE ×
        documents, COMMON_FLOOR)`` documents acts as a stop word and is left out; when every
        term is that common, all are kept but only the newest ``COMMON_RECENT`` documents they
        match are ranked (a common form is left out). Both bound the cost of a search in a big
        index and change nothing in a small one."""
        words = terms.plan_terms(query)
        chars = terms.plan_cjk_chars(query)  # single characters, matched in cjk1 only
        forms = inflect.plan_terms(query)  # caught for catch: the forms Porter's stems miss
        total = db.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()[0]
        cap = max(int(COMMON_SHARE * total), COMMON_FLOOR)
        rare = words
        column = "{" + " ".join(MATCHED) + "} : "
        if total > cap:
            probe = f"SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT {cap + 1})"
            rare = [w for w in words if db.execute(probe, (column + w,)).fetchone()[0] <= cap]
            forms = [f for f in forms if db.execute(probe, (column + f,)).fetchone()[0] <= cap]
            chars = [c for c in chars if db.execute(probe, ("cjk1 : " + c,)).fetchone()[0] <= cap]
        expression = column + "(" + " OR ".join(rare or words) + ")"
        if chars:
            expression = "(" + expression + " OR cjk1 : (" + " OR ".join(chars) + "))"
        forms_expression = column + "(" + " OR ".join(forms) + ")" if forms else ""
        return expression, not rare, forms_expression

    def _search(self, db: sqlite3.Connection, match: str, newest: bool, forms: str, k: int,
                since: str | None, until: str | None, sources: tuple[str, ...], collapse: bool,
                dense: list[float] | None = None, query: str = "") -> list[Hit]:
        if set(sources) != set(SOURCES):
            kept = " AND src : (" + " OR ".join(f"src{s}" for s in sources) + ")"
            match, forms = match + kept, forms and forms + kept
        dated = since is not None or until is not None
        limit = max(CANDIDATES, 4 * k)
        queries = [(match, newest)]
        if "file" in sources and not dated:  # the few memory-file lines get their own candidates
            queries.append((match + " AND src : srcfile", False))
        relevance: dict[int, float] = {}
        for expression, recent in queries:
            relevance.update(_read_bm25(db, expression, recent, limit, since, until))
        if forms:  # a form's matches count less than the word the question says
            for rowid, score in _read_bm25(db, forms, False, limit, since, until).items():
                relevance[rowid] = relevance.get(rowid, 0.0) + inflect.FORM_WEIGHT * score
        where = "d.source IN (" + ",".join("?" * len(sources)) + ")"
        wargs: tuple[Any, ...] = tuple(sources)
        if dated:
            where += " AND d.source != 'file' AND d.said_at >= ? AND d.said_at <= ?"
            wargs += (since or "", (until or "9999") + "\uffff")
        for rowid, score in related.read_related(db, query, limit, where, wargs,
                                                 (COMMON_SHARE, COMMON_FLOOR)).items():
            relevance[rowid] = relevance.get(rowid, 0.0) + score  # the words a text implies
        if "archive" in sources:  # a turn shares its relevance with its session window
            relevance = window.read_window(db, relevance, where, wargs, seeds=max(4 * k, 50))
        relevance = prior.read_priors(db, relevance, query)  # how much a turn says; the answer's kind
        if "archive" in sources:  # a changed fact's other version, said on another day
            relevance = versions.read_versions(db, relevance, query)
        # The vectors vote for their k nearest only: in an index smaller than the candidate
        # depth every document is "near", and every BM25 hit would win the fusion bonus.
        ranking = None if dense is None else vectors.read_ranking(db, dense, k, where, wargs)
        return self._rank(db, relevance, k, collapse, ranking)

    @staticmethod
    def _rank(db: sqlite3.Connection, relevance: dict[int, float], k: int,
              collapse: bool = True, ranking: list[int] | None = None) -> list[Hit]:
        """The best hits by ``relevance × boost × recency``; with a vector ``ranking`` (dense
        retrieval), by the reciprocal-rank fusion of that final BM25 order with it, so that the
        boosts and priors shape the BM25 ranking before the fusion, not the fused scores after
        it (an empty ``ranking`` leaves the BM25 order as it is)."""
        if not relevance and not ranking:
            return []
        newest_mark = db.execute("SELECT value FROM marks WHERE name = 'newest_day'").fetchone()
        newest = float(newest_mark[0]) if newest_mark and newest_mark[0] else None
        scored = []  # scores from the few columns they need; whole rows only for the best
        for rowid, uid, source, pinned, day in fetch_docs(db, list(relevance),
                                                           "uid, source, pinned, day"):
            score = score_hit(relevance[rowid], source=source, pinned=bool(pinned), day=day,
                              newest_day=newest)
            scored.append((-score, uid, rowid))
        scored.sort()
        if ranking is not None:  # reciprocal-rank fusion of the BM25 and the vector rankings
            fused = fuse_ranks([[rowid for _, _, rowid in scored], ranking])
            uids = {rowid: uid for _, uid, rowid in scored}
            uids.update((rowid, uid) for rowid, uid in
                        fetch_docs(db, [r for r in fused if r not in uids], "uid"))
            scored = sorted((-fused[rowid], uids[rowid], rowid) for rowid in fused if rowid in uids)
        best = {rowid: -neg for neg, _, rowid in scored[:max(4 * k, 32) if collapse else k]}
        hits: list[Hit] = []
        for row in fetch_docs(db, list(best)):
            rowid, uid, source, path, line, cursor, key, role, name, said, _, pinned, body = row[:13]
            hits.append(Hit(uid, source, body, best[rowid], timestamp=said, path=path, line=line,
                            cursor=cursor, session_key=key, role=role, name=name,
                            pinned=bool(pinned)))
        hits.sort(key=lambda h: (-h.score, h.id))
        return plan_collapse(hits)[:k] if collapse else hits

    def count(self) -> int:
        """Documents in the index."""
        return self._healthy(lambda db: db.execute("SELECT count(*) FROM docs").fetchone()[0])


def _read_bm25(db: sqlite3.Connection, expression: str, recent: bool, limit: int,
               since: str | None, until: str | None) -> dict[int, float]:
    """The ``limit`` best BM25 matches of ``expression`` (rowid -> relevance), ranked inside
    SQLite; or, when ``recent`` (common terms only), the newest ``COMMON_RECENT`` matches (FTS5
    walks them in rowid order and stops), ranked here. With ``since``/``until``, dated texts
    only (file lines have no date), filtered inside SQLite."""
    order, count = ("1 DESC", COMMON_RECENT) if recent else ("2 DESC", limit)
    if since is not None or until is not None:
        sql = (f"SELECT f.rowid, -bm25(fts, {WEIGHTS}) FROM fts f JOIN docs d "
               "ON d.rowid = f.rowid WHERE fts MATCH ? AND d.source != 'file' "
               f"AND d.said_at >= ? AND d.said_at <= ? ORDER BY {order} LIMIT ?")
        args: tuple[Any, ...] = (expression, since or "", (until or "9999") + "\uffff", count)
    else:
        sql = f"SELECT rowid, -bm25(fts, {WEIGHTS}) FROM fts WHERE fts MATCH ? ORDER BY {order} LIMIT ?"
        args = (expression, count)
    found = db.execute(sql, args).fetchall()
    return dict(heapq.nlargest(limit, found, key=lambda row: row[1]) if recent else found)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


def _open(target: Path) -> sqlite3.Connection:
    # One connection per SearchIndex, guarded by its lock (Memory may be used from threads).
    return sqlite3.connect(str(target), timeout=10.0, isolation_level=None, check_same_thread=False)


def _is_busy(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)
