"""The history log: ``memory/history.jsonl`` and its two cursors (DESIGN §1, §7, §9).

The line format and the seeking reader are in :mod:`nanomem.store.historyfile`, the cursor files
and what they are worth in :mod:`nanomem.store.cursors`; this module is the log's API: appends
under a lock, reading, compaction and overflow.

>>> h = History(Workspace(Path("ws")), Config())      # doctest: +SKIP
>>> h.append("User prefers metric units.")           # doctest: +SKIP
1

Appends hold ``memory/.history.lock`` (a process lock) and take a cursor above the last line,
the ``.cursor`` hint, the dream cursor and every segment; one fsync per append. ``read_since``
binary-searches byte offsets. ``compact`` (never on the append path) moves old entries into
segments ``memory/history.<compacted|overflow>-<first>-<last>.jsonl``; nothing is deleted, and
:meth:`History.iter_entries` streams every entry of every segment. docs/history.md has the rules.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Generator, Iterable
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from nanomem.config import Config
from nanomem.errors import HistoryError
from nanomem.store import compaction
from nanomem.store.cursors import Cursors, write_cursor_file
from nanomem.store.historyorder import iter_in_order, repair_file, sample_order
from nanomem.store.fsutil import FileLock
from nanomem.store.historyappend import append_lines, check_append, plan_content
from nanomem.store.historyfile import (  # the caps and the entry are part of this API too
    ENTRY_MAX_CHARS,
    SUMMARY_MAX_CHARS,
    ChunkRecord,
    HistoryEntry,
    LineReader,
    MalformedLines,
    Segment,
    entries_of,
    find_chunk,
    list_segments,
    open_segment,
    open_log,
    segment_name,
)
from nanomem.store.workspace import Workspace

if TYPE_CHECKING:
    from nanomem.store.legacy import MigrationResult

logger = logging.getLogger(__name__)

__all__ = ["ENTRY_MAX_CHARS", "SUMMARY_MAX_CHARS", "History", "HistoryEntry"]

OVERFLOW_FACTOR = 10
EXACT_COUNT_BYTES = 1 << 20
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"


class History:
    """The history log of one workspace. See the module docstring and docs/history.md."""

    def __init__(self, workspace: Workspace, config: Config | None = None, *,
                 clock: Callable[[], datetime] | None = None,
                 dream_cursor_fallback: Callable[[], int | None] | None = None,
                 lock_timeout: float | None = None) -> None:
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.config = config or Config()
        self._clock = clock or datetime.now
        self._lock = FileLock(self.workspace.history_lock, timeout=lock_timeout)
        self._migration_checked = False
        self._warned: set[tuple[object, ...]] = set()
        self._order_cache: tuple[tuple[int, int, int], str | None] | None = None
        self.path = self.workspace.history
        self._cursors = Cursors(self.workspace, main_tail=self._main_tail,
                                fallback=dream_cursor_fallback, warn_once=self._warn_once)

    # appending ---------------------------------------------------------------------------------

    def append(self, text: str, *, session_key: str | None = None, kind: str | None = None,
               chunk: str | None = None, said_at: str | None = None) -> int:
        """Redact, cap and append one entry; return its cursor.

        >>> History(Workspace(Path("ws"))).append("note")  # doctest: +SKIP
        1
        """
        return self.append_many([text], session_key=session_key, kind=kind, chunk=chunk,
                                said_at=said_at)[0]

    def append_many(self, texts: Iterable[str], *, session_key: str | None = None,
                    kind: str | None = None, chunk: str | None = None,
                    said_at: str | None = None) -> list[int]:
        """Append several entries under one lock, in one write: all of them or none.

        ``chunk`` tags every entry (the consolidator's chunk fingerprint): when the newest
        chunk of ``session_key`` already has that tag, nothing is written and its cursors are
        returned, so a retry after a kill never archives the chunk twice. ``said_at``
        (``YYYY-MM-DD HH:MM``): when the entries' words were said, if not at the archiving time.
        """
        check_append(session_key=session_key, kind=kind, chunk=chunk, said_at=said_at)
        if isinstance(texts, (str, bytes)):
            raise HistoryError("append_many takes a list of texts; use append() for one text")
        contents = [plan_content(text, kind) for text in texts]
        if not contents:
            return []
        self._ensure_migrated()
        with self._lock:
            if chunk is not None and session_key is not None:
                done = self.find_chunk(session_key)
                if done is not None and done.tag == chunk:
                    logger.info("chunk %s of session %s is already in history (cursors %s); "
                                "not appended again", chunk, session_key, list(done.cursors))
                    return list(done.cursors)
            self._repair_order_locked()
            base = self._cursors.next_base_locked()
            stamp = self._clock().strftime(TIMESTAMP_FORMAT)
            said = said_at if said_at != stamp else None  # the archiving time needs no second field
            entries = [HistoryEntry(base + i, stamp, content, session_key, kind, chunk, said)
                       for i, content in enumerate(contents, start=1)]
            clean = self._order_cache is not None and self._order_cache[1] is None
            append_lines(self.path, entries)
            if clean:  # appending above every cursor keeps the order: no need to sample again
                stat = os.stat(self.path)
                self._order_cache = ((stat.st_ino, stat.st_size, stat.st_mtime_ns), None)
            self._cursors.write_hint(entries[-1].cursor)
        return [entry.cursor for entry in entries]

    def _main_tail(self) -> int:
        """The last cursor of ``history.jsonl``: its last line's, or, when cursors are out of
        order, the highest after renumbering (a full read, only then)."""
        handle = open_log(self.path)
        if handle is None:
            return 0
        with handle:
            reader = LineReader(handle, self.path, MalformedLines(self._warn_once))
            if self._order_problem(handle) is None:
                return reader.last_cursor()
            return max((e.cursor for e in iter_in_order(reader)), default=0)

    def last_cursor(self) -> int:
        """The write cursor: the largest cursor in history (or in the ``.cursor`` hint)."""
        self._ensure_migrated()
        return self._cursors.last_cursor()

    # reading -----------------------------------------------------------------------------------

    def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Entries with a cursor greater than ``cursor``, in cursor order, at most ``limit``.

        Costs in proportion to the entries returned: a binary search over byte offsets finds
        the first one. Segments are read first, so nothing is hidden.
        """
        _check_count(cursor, "read_since needs a cursor >= 0")
        if limit is not None:
            _check_count(limit, "read_since needs a limit >= 0 or None")
        if limit == 0:
            return []
        out: list[HistoryEntry] = []
        with closing(self.iter_entries(cursor)) as entries:
            for entry in entries:
                if limit is not None and len(out) >= limit and entry.cursor != out[-1].cursor:
                    break
                out.append(entry)
        out.sort(key=lambda e: e.cursor)
        return out

    def iter_entries(self, since: int = 0) -> Generator[HistoryEntry, None, None]:
        """Stream every entry with a cursor above ``since``: compacted and overflow segments,
        then ``history.jsonl``, in cursor order, one file open at a time (bounded memory).

        A segment whose range ends at or below ``since`` is skipped by its name alone, and
        each file is entered by a binary search, so reading what is new since a cursor costs
        in proportion to what is new.
        """
        _check_count(since, "iter_entries needs a cursor >= 0")
        self._ensure_migrated()
        problems, floor = MalformedLines(self._warn_once), since
        main = open_log(self.path)  # before listing segments, so a concurrent move is seen
        try:
            for seg in self.segments():
                if seg.last > floor:
                    handle = open_segment(seg)
                    if handle is not None:
                        floor = yield from entries_of(handle, seg.path, floor, problems, seg.last)
            if main is not None:
                inode = os.fstat(main.fileno()).st_ino
                if self._order_problem(main) is not None:  # read whole, as the repair numbers it
                    floor = yield from self._entries_in_order(main, floor, problems)
                else:
                    floor = yield from entries_of(main, self.path, floor, problems)
                main = None
                again = open_log(self.path)  # compaction replaced the file while we read
                if again is not None and os.fstat(again.fileno()).st_ino != inode:
                    yield from entries_of(again, self.path, floor, problems)
                elif again is not None:
                    again.close()
        finally:
            if main is not None:
                main.close()
            problems.emit()

    def order_problem(self) -> str | None:
        """``"unsorted"`` or ``"outlier"`` when cursors in ``history.jsonl`` are out of order
        (64 probes, cached while the file is unchanged: cheap enough for ``status``)."""
        handle = open_log(self.path)
        if handle is None:
            return None
        with handle:
            return self._order_problem(handle)

    def _order_problem(self, handle: BinaryIO) -> str | None:
        """``"unsorted"``/``"outlier"`` when cursors are out of order (a sampled check, cached
        while the file is unchanged), else ``None``. Warns once."""
        stat = os.fstat(handle.fileno())
        key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        if self._order_cache is None or self._order_cache[0] != key:
            self._order_cache = (key, sample_order(LineReader(handle, self.path, MalformedLines(self._warn_once))))
        problem = self._order_cache[1]
        if problem is not None:
            self._warn_once(("order", key), "%s: cursors are out of order (%s: two history files "
                            "joined, or an outlying cursor); reading the whole file, and the next "
                            "append or compaction renumbers the misplaced entries (nothing is "
                            "dropped)", self.path, "an outlying last cursor" if problem ==
                            "outlier" else "a cursor lower than one before it")
        return problem

    def _entries_in_order(self, handle: BinaryIO, floor: int,
                          problems: MalformedLines) -> Generator[HistoryEntry, None, int]:
        top = floor
        with handle:
            for entry in iter_in_order(LineReader(handle, self.path, problems)):
                if entry.cursor > floor:
                    top = max(top, entry.cursor)
                    yield entry
        return top

    def _repair_order_locked(self) -> None:
        """Renumber misplaced entries (``historyorder``) in one atomic rewrite; a writer's job."""
        handle = open_log(self.path)
        if handle is None:
            return
        with handle:
            if self._order_problem(handle) is None:
                return
            changed, top = repair_file(self.path, LineReader(handle, self.path, MalformedLines(self._warn_once)))
        self._order_cache = None
        logger.warning("%s: renumbered %d misplaced entries (now up to cursor %d; the old cursor "
                       "is kept as \"renumbered_from\"); nothing was dropped", self.path, changed, top)

    def segments(self) -> list[Segment]:
        """Every segment (``compacted`` and ``overflow``), lowest first cursor first."""
        return list_segments(self.workspace.memory_dir)

    def overflow_files(self) -> list[Path]:
        """Overflow segments (holding unprocessed entries when they were cut), oldest first."""
        return [seg.path for seg in self.segments() if seg.kind == "overflow"]

    def pending_count(self) -> int:
        """Entries after the dream cursor, without reading every line.

        A segment counts the cursor values of its name's range after the dream cursor.
        ``history.jsonl`` is entered by a binary search; when at most 1 MiB follows, its lines
        are counted (a prefix match each; malformed lines warn), otherwise the cursor span is
        used. Exact for
        nanomem's own appends, an upper bound across cursor gaps, and 0 exactly when nothing
        is pending. docs/history.md.
        """
        dream = self.read_dream_cursor()
        total = sum(seg.last - max(seg.first - 1, dream)
                    for seg in self.segments() if seg.last > dream)
        main = open_log(self.path)
        if main is None:
            return total
        problems = MalformedLines(self._warn_once)
        with main:
            reader = LineReader(main, self.path, problems)
            if self._order_problem(main) is not None:
                total += sum(1 for e in iter_in_order(reader) if e.cursor > dream)
                problems.emit()
                return total
            start = reader.offset_above(dream)
            if start >= reader.size:
                return total
            if reader.size - start <= EXACT_COUNT_BYTES:
                total += reader.count_above(start, dream)
                problems.emit()
                return total
            first = reader.first_entry(start, None)
            last = reader.last_cursor()
        return total + max(1, last - (first[2].cursor - 1 if first else dream))

    def find_chunk(self, session_key: str) -> ChunkRecord | None:
        """The newest entry of ``session_key`` in ``history.jsonl``, if it carries a chunk
        tag: that tag and the cursors of its run of entries (see :func:`find_chunk`)."""
        return find_chunk(self.path, session_key)

    # the dream cursor --------------------------------------------------------------------------

    def read_dream_cursor(self) -> int:
        """The dream cursor; a damaged file is recovered, never read as 0, and a value above
        every cursor in history is clamped (docs/history.md)."""
        self._ensure_migrated()
        return self._cursors.dream_state(locked=False)[0]

    def write_dream_cursor(self, cursor: int) -> None:
        """Record that Dream has processed everything up to ``cursor`` (atomic, locked)."""
        _check_count(cursor, "the dream cursor must be an integer >= 0")
        with self._lock:
            self._cursors.write_dream(cursor)

    def _warn_once(self, key: tuple[object, ...], message: str, *args: object) -> None:
        if key not in self._warned:
            self._warned.add(key)
            logger.warning(message, *args)

    # compaction --------------------------------------------------------------------------------

    def compact(self) -> int:
        """Move old entries out of ``history.jsonl`` into segments; return how many processed
        entries moved (counted by cursor). Nothing is deleted; rules in docs/history.md.

        Costs a binary search and a copy of the kept tail, whatever the history size.
        """
        self._ensure_migrated()
        with self._lock:
            try:
                return self._compact_locked()
            except OSError as exc:
                raise HistoryError(f"{self.path}: compaction failed ({exc.strerror}); nothing "
                                   "was lost and the next compaction retries") from exc

    def _overflow_cap(self) -> int:
        return OVERFLOW_FACTOR * max(self.config.max_history_entries, 1)

    def _compact_locked(self) -> int:
        self._repair_order_locked()
        dream, trusted = self._cursors.dream_state(locked=True)
        dream = dream if trusted else 0
        moved = 0
        for seg in self.segments():
            if seg.kind == "overflow" and seg.last <= dream:
                compaction.promote(seg)
                moved += seg.last - seg.first + 1
        main = open_log(self.path)
        if main is None:
            return moved
        with main:
            reader = LineReader(main, self.path, MalformedLines(self._warn_once))
            found, last = reader.first_entry(0, None), reader.last_cursor()
        if found is None:
            return moved
        first = found[2].cursor
        plan = compaction.plan_cut(first=first, last=last, dream=dream,
                                   keep=self.config.max_history_entries, cap=self._overflow_cap())
        if plan is None:
            return moved
        cut, kind = plan
        segment = self.workspace.memory_dir / segment_name(first, cut, kind)
        if compaction.move_head(self.path, segment, cut) == 0:
            return moved
        if kind == "overflow":
            logger.warning("history entries %d-%d moved to memory/%s: Dream has not run for a "
                           "long time; run `nanomem dream`", first, cut, segment.name)
        return moved + max(0, min(cut, dream) - first + 1)

    def _ensure_migrated(self) -> None:
        if not self._migration_checked:
            self._migration_checked = True
            if self.workspace.legacy_history.is_file():
                self.migrate_legacy()

    def migrate_legacy(self) -> MigrationResult:
        """Move ``memory/HISTORY.md`` into ``history.jsonl`` once (rules in nanomem.store.legacy)."""
        from nanomem.store.migration import migrate_locked  # loaded only where a legacy file is

        self._migration_checked = True

        def write_cursors(cursor: int) -> None:
            write_cursor_file(self.workspace.dream_cursor, cursor)
            write_cursor_file(self.workspace.cursor, cursor)

        with self._lock:
            return migrate_locked(self.workspace.legacy_history, self.path,
                                  base=self._cursors.next_base_locked,
                                  now=self._clock().strftime(TIMESTAMP_FORMAT),
                                  write_cursors=write_cursors)


def _check_count(value: object, message: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HistoryError(f"{message}, not {value!r}")
