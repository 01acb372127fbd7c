"""The history log: ``memory/history.jsonl`` and its two cursors (DESIGN §1, §7, §9).

The line format and the seeking reader are in :mod:`nanomem.store.historyfile`; this module is the
log's API: appends under a lock, the cursor files, compaction and overflow.

>>> h = History(Workspace(Path("ws")), Config())      # doctest: +SKIP
>>> h.append("User prefers metric units.")           # doctest: +SKIP
1

Appends hold ``memory/.history.lock`` (a process lock) and take a cursor above the last line,
``.cursor``, the dream cursor and every overflow segment. ``read_since`` binary-searches byte
offsets. ``compact`` drops processed entries and moves a pile of unprocessed ones into
``memory/history.overflow-<first>-<last>.jsonl``, which ``read_since`` still reads.
docs/history.md has the rules.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from nanomem.config import Config
from nanomem.errors import HistoryError
from nanomem.store.fsutil import FileLock, atomic_write, fsync_dir
from nanomem.store.historyfile import (
    HistoryEntry,
    LineReader,
    MalformedLines,
    cap_content,
    list_segments,
    open_log,
    parse_line_bytes,
    read_into,
    read_tail_cursor,
    render_line,
    segment_name,
)
from nanomem.text.redact import redact
from nanomem.store.workspace import Workspace

if TYPE_CHECKING:
    from nanomem.store.legacy import MigrationResult

logger = logging.getLogger(__name__)

SUMMARY_MAX_CHARS = 8000
ENTRY_MAX_CHARS = 64000
OVERFLOW_FACTOR = 10
KINDS: tuple[str, ...] = ("summary", "raw")
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"


class History:
    """The history log of one workspace. See the module docstring and docs/history.md."""

    def __init__(self, workspace: Workspace, config: Config | None = None, *,
                 clock: Callable[[], datetime] | None = None,
                 dream_cursor_fallback: Callable[[], int | None] | None = None) -> None:
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.config = config or Config()
        self._clock = clock or datetime.now
        self._fallback = dream_cursor_fallback
        self._fallback_cache: tuple[int | None] | None = None
        self._lock = FileLock(self.workspace.history_lock)
        self._migration_checked = False
        self._warned: set[tuple[str, int]] = set()
        self.path = self.workspace.history

    def append(self, text: str, *, session_key: str | None = None, kind: str | None = None) -> int:
        """Redact, cap and append one entry; return its cursor.

        >>> History(Workspace(Path("ws"))).append("note")  # doctest: +SKIP
        1
        """
        return self.append_many([text], session_key=session_key, kind=kind)[0]

    def append_many(self, texts: Iterable[str], *, session_key: str | None = None,
                    kind: str | None = None) -> list[int]:
        """Append several entries under one lock, in one write: all of them or none."""
        if kind is not None and kind not in KINDS:
            raise HistoryError(f"history entry kind {kind!r} is unknown; use one of {KINDS}")
        if session_key is not None and not isinstance(session_key, str):
            raise HistoryError(f"session_key must be a string, not {type(session_key).__name__}")
        if isinstance(texts, (str, bytes)):
            raise HistoryError("append_many takes a list of texts; use append() for one text")
        contents = [self._prepare(text, kind) for text in texts]
        if not contents:
            return []
        self._ensure_migrated()
        with self._lock:
            base = self._next_base_locked()
            stamp = self._clock().strftime(TIMESTAMP_FORMAT)
            entries = [HistoryEntry(base + i, stamp, content, session_key, kind)
                       for i, content in enumerate(contents, start=1)]
            self._append_lines_locked(entries)
            self._write_cursor_file(self.workspace.cursor, entries[-1].cursor)
            self._rotate_if_needed_locked(entries[-1].cursor)
        return [entry.cursor for entry in entries]

    def _prepare(self, text: str, kind: str | None) -> str:
        if not isinstance(text, str):
            raise HistoryError(f"history entry must be text, not {type(text).__name__}")
        if not text.strip():
            raise HistoryError("refusing to append an empty history entry; pass some text")
        redaction = redact(text)
        if redaction.total:
            logger.info("redacted %s before writing history", dict(redaction.counts))
        limit = SUMMARY_MAX_CHARS if kind == "summary" else ENTRY_MAX_CHARS
        content = cap_content(redaction.text, limit)
        if len(content) != len(redaction.text):
            logger.warning("history entry of %d chars cut to %d", len(redaction.text), limit)
        return content

    def _append_lines_locked(self, entries: list[HistoryEntry]) -> None:
        payload, path = b"".join(render_line(entry) for entry in entries), self.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise HistoryError(f"{path}: cannot open for append ({exc.strerror})") from exc
        try:
            size = os.fstat(fd).st_size
            if size > 0:
                os.lseek(fd, size - 1, os.SEEK_SET)
                if os.read(fd, 1) != b"\n":  # a torn last line: start on a fresh line
                    payload = b"\n" + payload
            written = 0
            try:
                while written < len(payload):
                    written += os.write(fd, payload[written:])
                os.fsync(fd)
            except OSError as exc:
                os.ftruncate(fd, size)
                raise HistoryError(f"{path}: append failed ({exc.strerror}); nothing was "
                                   "written, check disk space and permissions") from exc
        finally:
            os.close(fd)

    def _next_base_locked(self) -> int:
        segment_last = max((last for _, last, _ in self._segments()), default=0)
        return max(self._write_cursor(), self._dream_state(locked=True)[0], segment_last)

    def _write_cursor(self) -> int:
        written = self._read_cursor_file(self.workspace.cursor)[0] or 0
        return max(read_tail_cursor(self.path), written)

    def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Entries with a cursor greater than ``cursor``, in cursor order, at most ``limit``.

        Costs in proportion to the entries returned: a binary search over byte offsets finds
        the first one. Overflow segments are read first, so nothing is hidden.
        """
        _check_count(cursor, "read_since needs a cursor >= 0")
        if limit is not None:
            _check_count(limit, "read_since needs a limit >= 0 or None")
        if limit == 0:
            return []
        self._ensure_migrated()
        out: list[HistoryEntry] = []
        problems, floor = MalformedLines(), cursor
        main = open_log(self.path)  # before listing segments, so a concurrent rotation is seen
        try:
            for _, last, path in self._segments():
                if last > floor:
                    floor = read_into(out, open_log(path), path, floor, limit, problems)
            read_into(out, main, self.path, floor, limit, problems)
        finally:
            if main is not None:
                main.close()
            problems.emit()
        return out

    def last_cursor(self) -> int:
        """The write cursor: the larger of ``.cursor`` and the last line's cursor."""
        self._ensure_migrated()
        return self._write_cursor()

    def pending_count(self) -> int:
        """Entries after the dream cursor (overflow segments included)."""
        return len(self.read_since(self.read_dream_cursor()))

    def overflow_files(self) -> list[Path]:
        """Overflow segments (unprocessed entries moved out of ``history.jsonl``), oldest first."""
        return [path for _, _, path in self._segments()]

    def _segments(self) -> list[tuple[int, int, Path]]:
        return list_segments(self.workspace.memory_dir)

    def read_dream_cursor(self) -> int:
        """The dream cursor; a damaged file is recovered, never read as 0 (docs/history.md)."""
        self._ensure_migrated()
        return self._dream_state(locked=False)[0]

    def write_dream_cursor(self, cursor: int) -> None:
        """Record that Dream has processed everything up to ``cursor`` (atomic, locked)."""
        _check_count(cursor, "the dream cursor must be an integer >= 0")
        with self._lock:
            self._write_cursor_file(self.workspace.dream_cursor, cursor)

    def _dream_state(self, *, locked: bool) -> tuple[int, bool]:
        """``(dream cursor, trusted)``; an untrusted value never drops entries in that call.

        A damaged file with no git fallback is repaired with the write cursor, so entries
        appended later stay pending instead of sliding behind a moving recovered value.
        """
        path = self.workspace.dream_cursor
        value, state = self._read_cursor_file(path)
        if value is not None:
            return value, True
        recovered = self._call_fallback()
        if recovered is not None:
            if (state, recovered) not in self._warned:
                self._warned.add((state, recovered))
                logger.warning("%s is %s; using dream cursor %d from the last dream commit",
                               path, "missing" if state == "missing" else "damaged", recovered)
            return recovered, True
        if state == "missing":
            return 0, True
        tail = self._write_cursor()
        logger.warning("%s is damaged and no dream commit names a cursor; marking everything up to "
                       "cursor %d as processed so the archive is not replayed; edit the file to "
                       "change that", path, tail)
        if locked:
            self._write_cursor_file(path, tail)
        else:
            with self._lock:
                if self._read_cursor_file(path)[0] is None:
                    self._write_cursor_file(path, tail)
        return tail, False

    def _call_fallback(self) -> int | None:
        """The git fallback's dream cursor, asked at most once per History object."""
        if self._fallback is not None and self._fallback_cache is None:
            value = self._fallback()
            self._fallback_cache = (value if type(value) is int and value >= 0 else None,)
        return self._fallback_cache[0] if self._fallback_cache else None

    @staticmethod
    def _read_cursor_file(path: Path) -> tuple[int | None, str]:
        try:
            text = path.read_bytes().decode("ascii").strip()
        except FileNotFoundError:
            return None, "missing"
        except (OSError, UnicodeDecodeError):
            return None, "garbage"
        return (int(text), "ok") if text.isdigit() else (None, "garbage")

    @staticmethod
    def _write_cursor_file(path: Path, cursor: int) -> None:
        try:
            atomic_write(path, f"{cursor}\n")
        except OSError as exc:
            raise HistoryError(f"{path}: cannot write cursor ({exc.strerror})") from exc

    def compact(self) -> int:
        """Drop processed entries beyond ``max_history_entries``; return how many were dropped.

        Never drops an entry after the dream cursor; a pile of more than ``10 ×
        max_history_entries`` unprocessed cursors moves, oldest first, to an overflow segment.
        """
        self._ensure_migrated()
        with self._lock:
            try:
                return self._compact_locked()
            except OSError as exc:
                raise HistoryError(f"{self.path}: compaction failed ({exc.strerror}); nothing "
                                   "was lost and the next compaction retries") from exc

    def _rotate_if_needed_locked(self, last: int) -> None:
        """Compact when the cursors in the file span more than the overflow cap (O(1) check)."""
        with open(self.path, "rb") as handle:
            found = LineReader(handle, self.path, MalformedLines()).first_entry(0, None)
        if found is not None and last - found[2].cursor + 1 > self._overflow_cap():
            self._compact_locked()

    def _overflow_cap(self) -> int:
        return OVERFLOW_FACTOR * max(self.config.max_history_entries, 1)

    def _compact_locked(self) -> int:
        dream, trusted = self._dream_state(locked=True)
        drop_upto = dream if trusted else 0
        keep = self.config.max_history_entries
        dropped = self._drop_processed_segments(drop_upto)
        if not self.path.exists():
            return dropped
        raw_lines = self.path.read_bytes().split(b"\n")
        if raw_lines[-1] == b"":
            raw_lines.pop()
        parsed = [parse_line_bytes(raw) for raw in raw_lines]
        cursors = [p.cursor for p in parsed if isinstance(p, HistoryEntry)]
        if not cursors:
            return dropped
        last = max(cursors)
        unprocessed = [c for c in cursors if c > drop_upto]
        rotate = bool(unprocessed) and last - min(unprocessed) + 1 > self._overflow_cap()
        kept: list[bytes] = []
        moved: list[tuple[bytes, int]] = []
        for raw, entry in zip(raw_lines, parsed):
            cursor = entry.cursor if isinstance(entry, HistoryEntry) else None
            old = cursor if cursor is not None and cursor <= last - keep else None
            if old is not None and old <= drop_upto:
                dropped += 1
            elif old is not None and rotate:
                moved.append((raw, old))
            elif raw.strip():
                kept.append(raw)
        if moved:
            name = segment_name(moved[0][1], moved[-1][1])
            atomic_write(self.workspace.memory_dir / name, b"".join(r + b"\n" for r, _ in moved))
            logger.warning("%d unprocessed history entries moved to memory/%s: Dream has not run "
                           "for a long time; run `nanomem dream`", len(moved), name)
        if moved or dropped or len(kept) != len(raw_lines):
            atomic_write(self.path, b"".join(line + b"\n" for line in kept))
        return dropped

    def _drop_processed_segments(self, dream: int) -> int:
        dropped = 0
        for _, last, path in self._segments():
            if last <= dream:
                dropped += sum(1 for raw in path.read_bytes().split(b"\n") if raw.strip())
                path.unlink()
        if dropped:
            fsync_dir(self.workspace.memory_dir)
        return dropped

    def _ensure_migrated(self) -> None:
        if not self._migration_checked:
            self._migration_checked = True
            if self.workspace.legacy_history.is_file():
                self.migrate_legacy()

    def migrate_legacy(self) -> MigrationResult:
        """Move ``memory/HISTORY.md`` into ``history.jsonl`` once (rules in nanomem.store.legacy)."""
        from nanomem.store.legacy import MigrationResult, backup_path, plan_migration  # cycle-free

        self._migration_checked = True
        legacy = self.workspace.legacy_history
        if not legacy.is_file():
            return MigrationResult("nothing_to_do", reason="no memory/HISTORY.md")
        with self._lock:
            try:
                original = legacy.read_bytes()
            except OSError as exc:
                raise HistoryError(f"{legacy}: cannot read ({exc.strerror})") from exc
            if self.path.exists() and self.path.stat().st_size > 0:
                if _find_backup(legacy, original):  # a migration killed before its last step
                    legacy.unlink()
                    fsync_dir(legacy.parent)
                    return MigrationResult("migrated", reason="finished an interrupted migration")
                logger.info("memory/HISTORY.md left alone: history.jsonl already has entries")
                return MigrationResult("skipped", reason="history.jsonl is not empty")
            now = self._clock().strftime(TIMESTAMP_FORMAT)
            entries = plan_migration(original.decode("utf-8", errors="replace"),
                                     base=self._next_base_locked(), now=now)
            # The byte-identical backup first, then cursors and entries, then the original goes:
            # a crash at any step re-runs safely or finishes above.
            backup = _find_backup(legacy, original)
            if backup is None:
                backup = backup_path(legacy)
                atomic_write(backup, original)
            if entries:
                self._write_cursor_file(self.workspace.dream_cursor, entries[-1].cursor)
                self._write_cursor_file(self.workspace.cursor, entries[-1].cursor)
                atomic_write(self.path, b"".join(render_line(e) for e in entries))
            legacy.unlink()
            fsync_dir(legacy.parent)
        logger.info("migrated %d entries from HISTORY.md (kept as %s)", len(entries), backup.name)
        first, last = (entries[0].cursor, entries[-1].cursor) if entries else (None, None)
        return MigrationResult("migrated", len(entries), first, last, backup=backup)


def _find_backup(legacy: Path, original: bytes) -> Path | None:
    """A ``HISTORY.md.bak*`` beside ``legacy`` that holds exactly ``original``, if any."""
    for candidate in sorted(legacy.parent.glob(legacy.name + ".bak*")):
        try:
            if candidate.read_bytes() == original:
                return candidate
        except OSError:
            continue
    return None


def _check_count(value: object, message: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HistoryError(f"{message}, not {value!r}")

