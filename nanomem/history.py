"""The history log: ``memory/history.jsonl`` and its two cursors (DESIGN §1, §7, §9).

One JSON object per line, cursors strictly increasing down the file::

    {"cursor": 41, "timestamp": "2025-03-01 09:15", "content": "- [durable] ...", "kind": "summary"}

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

import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from nanomem.config import Config
from nanomem.errors import HistoryError
from nanomem.fsutil import FileLock, atomic_write, fsync_dir
from nanomem.redact import redact
from nanomem.workspace import Workspace

if TYPE_CHECKING:
    from nanomem.migrate import MigrationResult

logger = logging.getLogger(__name__)

SUMMARY_MAX_CHARS = 8000
ENTRY_MAX_CHARS = 64000
OVERFLOW_FACTOR = 10
KINDS: tuple[str, ...] = ("summary", "raw")
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"

_SCAN_WINDOW = 4096
_TAIL_BLOCK = 8192
_CURSOR_PREFIX = re.compile(rb'^\{\s*"cursor"\s*:\s*([1-9][0-9]{0,18})\s*[,}]')
_SEGMENT = re.compile(r"^history\.overflow-([0-9]+)-([0-9]+)\.jsonl$")
_PROBLEM_LABELS = {"invalid-json": "invalid JSON", "not-an-object": "JSON that is not an object",
                   "bad-cursor": "a cursor that is not a positive integer",
                   "bad-content": "a missing or non-string content"}


@dataclass(frozen=True)
class HistoryEntry:
    """One line of ``history.jsonl``."""

    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None
    kind: str | None = None

    def to_json(self) -> dict[str, object]:
        """The line's JSON object: optional fields only when set."""
        data = {"cursor": self.cursor, "timestamp": self.timestamp, "content": self.content}
        optional = {"session_key": self.session_key, "kind": self.kind}
        return {**data, **{key: value for key, value in optional.items() if value is not None}}


@dataclass(frozen=True)
class LineProblem:
    """Why a line is not an entry. ``kind`` is one of ``_PROBLEM_LABELS`` or ``blank``."""

    kind: str
    detail: str


def parse_line(line: str) -> HistoryEntry | LineProblem:
    """Parse one line; a malformed line becomes a :class:`LineProblem`, never an exception.

    >>> parse_line('{"cursor": 3, "timestamp": "2025-01-01 10:00", "content": "hi"}').cursor
    3
    >>> parse_line('{"cursor": true, "content": "hi"}').kind
    'bad-cursor'
    """
    if not line.strip():
        return LineProblem("blank", "")
    try:
        data = json.loads(line)
    except ValueError as exc:
        return LineProblem("invalid-json", f"{exc.__class__.__name__}: {exc}")
    if not isinstance(data, dict):
        return LineProblem("not-an-object", f"a JSON {type(data).__name__}")
    cursor = data.get("cursor")
    if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 1:
        return LineProblem("bad-cursor", f"cursor {cursor!r}")
    content = data.get("content")
    if not isinstance(content, str):
        return LineProblem("bad-content", f"content {content!r:.40}")
    text_or = {key: data[key] if isinstance(data.get(key), str) else None
               for key in ("timestamp", "session_key", "kind")}
    return HistoryEntry(cursor, text_or["timestamp"] or "", content,
                        text_or["session_key"], text_or["kind"])


def render_line(entry: HistoryEntry) -> bytes:
    """One JSON line with its newline, UTF-8; lone surrogates are escaped, not lost.

    >>> render_line(HistoryEntry(1, "2025-01-01 10:00", "é"))
    b'{"cursor": 1, "timestamp": "2025-01-01 10:00", "content": "\\xc3\\xa9"}\\n'
    """
    data = entry.to_json()
    try:
        return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data, ensure_ascii=True) + "\n").encode("ascii")


def cap_content(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, ending with a visible marker.

    >>> cap_content("abcdefghij" * 10, 40)
    'abcdefghijabcdefg\\n… [truncated 83 chars]'
    """
    if len(text) <= limit:
        return text
    keep = limit
    while True:
        marker = f"\n… [truncated {len(text) - keep} chars]"
        if keep + len(marker) <= limit:
            return text[:keep] + marker
        keep = limit - len(marker)


def parse_line_bytes(raw: bytes) -> HistoryEntry | LineProblem:
    """:func:`parse_line` for a line read as bytes (invalid UTF-8 is ``invalid-json``)."""
    try:
        return parse_line(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return LineProblem("invalid-json", f"not UTF-8 ({exc.reason})")


class _Problems:
    """Malformed lines met during one read; :meth:`emit` logs one warning per kind."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[int, str, str, int]] = {}  # kind -> (count, file, detail, at)

    def add(self, problem: LineProblem, path: Path, offset: int) -> None:
        if problem.kind != "blank":
            count, *first = self._seen.get(problem.kind, (0, path.name, problem.detail, offset))
            self._seen[problem.kind] = (count + 1, *first)  # type: ignore[assignment]

    def emit(self) -> None:
        for kind, (count, name, detail, at) in sorted(self._seen.items()):
            logger.warning("%s: skipped %d line(s) with %s (first at byte %d: %s); repair or "
                           "remove them", name, count, _PROBLEM_LABELS[kind], at, detail)


class _Lines:
    """Line access by byte offset on a file opened in binary mode."""

    def __init__(self, handle: BinaryIO, path: Path, problems: _Problems) -> None:
        self.handle, self.path, self.problems = handle, path, problems
        self.size = os.fstat(handle.fileno()).st_size

    def next_start(self, pos: int) -> int:
        """Offset of the first line that starts at or after ``pos``."""
        if pos <= 0:
            return 0
        self.handle.seek(pos - 1)
        rest = self.handle.readline()
        return pos - 1 + len(rest) if rest.endswith(b"\n") else self.size

    def iter_from(self, start: int, stop: int | None = None) -> Iterator[tuple[int, int, bytes]]:
        """Yield ``(start, next_start, line)`` from ``start`` (a line start) until ``stop``/EOF."""
        self.handle.seek(start)
        position = start
        while (stop is None or position < stop) and (raw := self.handle.readline()):
            yield position, position + len(raw), raw
            position += len(raw)

    def entry(self, raw: bytes, offset: int, *, quick: bool = False) -> HistoryEntry | LineProblem:
        """Parse a line; ``quick`` reads just the cursor prefix when it can (search probes)."""
        if quick:
            match = _CURSOR_PREFIX.match(raw)
            if match:
                return HistoryEntry(int(match.group(1)), "", "")
        result = parse_line_bytes(raw.rstrip(b"\r\n"))
        if isinstance(result, LineProblem):
            if raw.endswith(b"\n") or result.kind == "blank":
                self.problems.add(result, self.path, offset)
            else:  # unterminated last line: an append in progress or a torn write
                logger.debug("%s: unterminated last line at %d", self.path.name, offset)
        return result

    def first_entry(self, start: int, stop: int | None) -> tuple[int, int, HistoryEntry] | None:
        for line_start, next_start, raw in self.iter_from(start, stop):
            result = self.entry(raw, line_start, quick=True)
            if isinstance(result, HistoryEntry):
                return line_start, next_start, result
        return None

    def seek_after(self, cursor: int) -> int:
        """A line start before which every entry has a cursor ``<= cursor`` (binary search)."""
        lo, hi, probe_hi = 0, self.size, self.size
        while probe_hi - lo > _SCAN_WINDOW:
            mid = (lo + probe_hi) // 2
            start = self.next_start(mid)
            if start >= hi:
                probe_hi = mid
                continue
            found = self.first_entry(start, hi)
            if found is None or found[2].cursor > cursor:
                hi = probe_hi = start
            else:
                lo = found[1]
        return lo

    def read_since(self, cursor: int, limit: int | None) -> list[HistoryEntry]:
        out: list[HistoryEntry] = []
        for line_start, _, raw in self.iter_from(self.seek_after(cursor)):
            quick = _CURSOR_PREFIX.match(raw)
            if quick and int(quick.group(1)) <= cursor:
                continue
            result = self.entry(raw, line_start)
            if not isinstance(result, HistoryEntry) or result.cursor <= cursor:
                continue
            if limit is not None and len(out) >= limit and result.cursor != out[-1].cursor:
                break
            out.append(result)
        out.sort(key=lambda e: e.cursor)
        return out

    def last_cursor(self) -> int:
        """Cursor of the last valid line, reading backwards from the end in blocks."""
        end, carry = self.size, b""
        while end > 0:
            begin = max(0, end - _TAIL_BLOCK)
            self.handle.seek(begin)
            block = self.handle.read(end - begin) + carry
            lines = block.split(b"\n")
            carry = lines[0] if begin > 0 else b""
            for raw in reversed(lines if begin == 0 else lines[1:]):
                result = self.entry(raw, -1, quick=True)
                if isinstance(result, HistoryEntry):
                    return result.cursor
            end = begin
        return 0


def _open(path: Path) -> BinaryIO | None:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HistoryError(f"{path}: cannot read ({exc.strerror}); check permissions") from exc


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
        return max(self._tail_cursor(self.path), written)

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
        problems, out, floor = _Problems(), [], cursor
        main = _open(self.path)  # before listing segments, so a concurrent rotation is seen
        try:
            for _, last, path in self._segments():
                if last > floor:
                    floor = _read_into(out, _open(path), path, floor, limit, problems)
            _read_into(out, main, self.path, floor, limit, problems)
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

    def _tail_cursor(self, path: Path) -> int:
        handle = _open(path)
        if handle is None:
            return 0
        with handle:
            return _Lines(handle, path, _Problems()).last_cursor()

    def _segments(self) -> list[tuple[int, int, Path]]:
        try:
            names = os.listdir(self.workspace.memory_dir)
        except FileNotFoundError:
            return []
        matches = [m for m in map(_SEGMENT.match, names) if m]
        return sorted((int(m[1]), int(m[2]), self.workspace.memory_dir / m[0]) for m in matches)

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
            found = _Lines(handle, self.path, _Problems()).first_entry(0, None)
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
            old = isinstance(entry, HistoryEntry) and entry.cursor <= last - keep
            if old and entry.cursor <= drop_upto:
                dropped += 1
            elif old and rotate:
                moved.append((raw, entry.cursor))
            elif raw.strip():
                kept.append(raw)
        if moved:
            name = f"history.overflow-{moved[0][1]}-{moved[-1][1]}.jsonl"
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
        """Move ``memory/HISTORY.md`` into ``history.jsonl`` once (rules in nanomem.migrate)."""
        from nanomem.migrate import MigrationResult, backup_path, plan_migration  # cycle-free

        self._migration_checked = True
        legacy = self.workspace.legacy_history
        if not legacy.is_file():
            return MigrationResult("nothing_to_do", reason="no memory/HISTORY.md")
        with self._lock:
            if self.path.exists() and self.path.stat().st_size > 0:
                logger.info("memory/HISTORY.md left alone: history.jsonl already has entries")
                return MigrationResult("skipped", reason="history.jsonl is not empty")
            try:
                text = legacy.read_bytes().decode("utf-8", errors="replace")
            except OSError as exc:
                raise HistoryError(f"{legacy}: cannot read ({exc.strerror})") from exc
            now = self._clock().strftime(TIMESTAMP_FORMAT)
            entries = plan_migration(text, base=self._next_base_locked(), now=now)
            if entries:  # cursors first: a crash before the rename re-runs safely above them
                self._write_cursor_file(self.workspace.dream_cursor, entries[-1].cursor)
                self._write_cursor_file(self.workspace.cursor, entries[-1].cursor)
                atomic_write(self.path, b"".join(render_line(e) for e in entries))
            backup = backup_path(legacy)
            os.replace(legacy, backup)
            fsync_dir(legacy.parent)
        logger.info("migrated %d entries from HISTORY.md (kept as %s)", len(entries), backup.name)
        cursors = [entries[0].cursor, entries[-1].cursor] if entries else [None, None]
        return MigrationResult("migrated", len(entries), *cursors, backup=backup)


def _check_count(value: object, message: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HistoryError(f"{message}, not {value!r}")


def _read_into(out: list[HistoryEntry], handle: BinaryIO | None, path: Path, floor: int,
               limit: int | None, problems: _Problems) -> int:
    """Extend ``out`` with ``path``'s entries above ``floor``; return the new floor."""
    if handle is None:
        return floor
    with handle:
        left = None if limit is None else limit - len(out)
        if left == 0:
            return floor
        out.extend(_Lines(handle, path, problems).read_since(floor, left))
    return max(floor, out[-1].cursor) if out else floor
