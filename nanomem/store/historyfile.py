"""The ``history.jsonl`` file format and its seeking reader: pure-ish, no locks.

One JSON object per line, cursors strictly increasing down the file::

    {"cursor": 41, "timestamp": "2025-03-01 09:15", "content": "- [durable] ...", "kind": "summary"}

:func:`parse_line` and :func:`render_line` are the line format (a malformed line is a
:class:`LineProblem`, never an exception); :class:`LineReader` finds lines by byte offset, so
``read_since`` binary-searches instead of scanning; :func:`list_segments` lists the segments
``history.<kind>-<first>-<last>.jsonl`` (kind ``overflow`` or ``compacted``): the name's range is
authoritative, so a reader ignores any line of a segment outside it. Locks, cursors files and compaction policy
live in :mod:`nanomem.store.history`.

>>> parse_line(render_line(HistoryEntry(7, "2025-03-01 09:15", "hi")).decode()).content
'hi'
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from nanomem.errors import StoreFileError
from nanomem.store.fsutil import os_error_fix
from nanomem.text.sanitize import replace_lone_surrogates

logger = logging.getLogger(__name__)

_SCAN_WINDOW = 4096
_TAIL_BLOCK = 8192
_CURSOR_PREFIX = re.compile(rb'^\{\s*"cursor"\s*:\s*([1-9][0-9]{0,18})\s*[,}]')
_SEGMENT = re.compile(r"^history\.(overflow|compacted)-([0-9]+)-([0-9]+)\.jsonl$")
SEGMENT_KINDS = ("overflow", "compacted")
SUMMARY_MAX_CHARS = 8000  # the longest entry of kind "summary", in characters
ENTRY_MAX_CHARS = 64000  # the longest entry of any kind
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
    chunk: str | None = None
    said_at: str | None = None  # when the words were said (``YYYY-MM-DD HH:MM``), if not ``timestamp``

    def to_json(self) -> dict[str, object]:
        """The line's JSON object: optional fields only when set."""
        data = {"cursor": self.cursor, "timestamp": self.timestamp, "content": self.content}
        optional = {"session_key": self.session_key, "kind": self.kind, "chunk": self.chunk,
                    "said_at": self.said_at}
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
               for key in ("timestamp", "session_key", "kind", "chunk", "said_at")}
    # a lone surrogate stays escaped in the file (nothing lost) but is read as U+FFFD: no
    # memory file, request or commit can hold one
    return HistoryEntry(cursor, text_or["timestamp"] or "", replace_lone_surrogates(content),
                        text_or["session_key"], text_or["kind"], text_or["chunk"],
                        text_or["said_at"])


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


class MalformedLines:
    """Malformed lines met during one read; :meth:`emit` logs one warning per kind."""

    def __init__(self, warn: Callable[..., None] | None = None) -> None:
        self._seen: dict[str, tuple[int, Path, str, int]] = {}  # kind -> (count, file, detail, at)
        self._warn = warn  # ``warn(key, message, *args)``: a reader that warns once per key

    def add(self, problem: LineProblem, path: Path, offset: int) -> None:
        if problem.kind != "blank":
            count, *first = self._seen.get(problem.kind, (0, path, problem.detail, offset))
            self._seen[problem.kind] = (count + 1, *first)  # type: ignore[assignment]

    def emit(self) -> None:
        for kind, (count, path, detail, at) in sorted(self._seen.items()):
            message = "%s: skipped %d line(s) with %s (first at line %d: %s); repair or remove them"
            args = (path.name, count, _PROBLEM_LABELS[kind], line_number(path, at), detail)
            if self._warn is not None:  # the same damage read again is not news
                self._warn(("malformed", kind, str(path), count, at), message, *args)
            else:
                logger.warning(message, *args)


def line_number(path: Path, offset: int) -> int:
    """The 1-based line that starts at byte ``offset`` (counted only when a warning needs it)."""
    newlines, remaining = 0, offset
    try:
        with path.open("rb") as handle:
            while remaining > 0:
                block = handle.read(min(remaining, 1 << 20))
                if not block:
                    break
                newlines += block.count(b"\n")
                remaining -= len(block)
    except OSError:
        return 0
    return newlines + 1


class LineReader:
    """Line access by byte offset on a file opened in binary mode."""

    def __init__(self, handle: BinaryIO, path: Path, problems: MalformedLines) -> None:
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

    def offset_above(self, cursor: int) -> int:
        """The byte offset of the first entry with a cursor ``> cursor`` (the size if none)."""
        for line_start, _, raw in self.iter_from(self.seek_after(cursor)):
            result = self.entry(raw, line_start, quick=True)
            if isinstance(result, HistoryEntry) and result.cursor > cursor:
                return line_start
        return self.size

    def count_above(self, start: int, cursor: int) -> int:
        """Entries above ``cursor`` from ``start`` on: a prefix match per line, a full parse
        (and a malformed-line warning) only for a line without the usual prefix."""
        count = 0
        for line_start, _, raw in self.iter_from(start):
            quick = _CURSOR_PREFIX.match(raw)
            if quick:
                count += int(quick.group(1)) > cursor
                continue
            result = self.entry(raw, line_start)
            count += isinstance(result, HistoryEntry) and result.cursor > cursor
        return count

    def iter_since(self, cursor: int, upto: int | None = None) -> Iterator[HistoryEntry]:
        """Entries with ``cursor < c <= upto`` in file order, starting at a binary search."""
        for line_start, _, raw in self.iter_from(self.seek_after(cursor)):
            quick = _CURSOR_PREFIX.match(raw)
            if quick and (int(quick.group(1)) <= cursor
                          or (upto is not None and int(quick.group(1)) > upto)):
                continue
            result = self.entry(raw, line_start)
            if (isinstance(result, HistoryEntry) and result.cursor > cursor
                    and (upto is None or result.cursor <= upto)):
                yield result

    def read_since(self, cursor: int, limit: int | None,
                   upto: int | None = None) -> list[HistoryEntry]:
        out: list[HistoryEntry] = []
        for result in self.iter_since(cursor, upto):
            if limit is not None and len(out) >= limit and result.cursor != out[-1].cursor:
                break
            out.append(result)
        out.sort(key=lambda e: e.cursor)
        return out

    def iter_backward(self) -> Iterator[bytes]:
        """The file's lines (without newline), last first, read backwards in blocks."""
        end = self.size
        carry: list[bytes] = []  # the pieces of a line that spans blocks, last piece first
        while end > 0:
            begin = max(0, end - _TAIL_BLOCK)
            self.handle.seek(begin)
            block = self.handle.read(end - begin)
            if begin > 0 and b"\n" not in block:  # inside a long line: split each byte once,
                carry.append(block)               # never the growing carry (a 5 MB line took
                end = begin                       # minutes: quadratic in its length)
                continue
            lines = block.split(b"\n")
            lines[-1] += b"".join(reversed(carry))
            carry = [lines.pop(0)] if begin > 0 else []
            yield from reversed(lines)
            end = begin

    def last_entries(self, count: int) -> list[HistoryEntry]:
        """The last ``count`` valid entries (cursor prefix only), newest first."""
        out: list[HistoryEntry] = []
        for raw in self.iter_backward():
            result = self.entry(raw, -1, quick=True)
            if isinstance(result, HistoryEntry):
                out.append(result)
                if len(out) == count:
                    break
        return out

    def last_cursor(self) -> int:
        """Cursor of the last valid line, reading backwards from the end in blocks."""
        found = self.last_entries(1)
        return found[0].cursor if found else 0


def open_log(path: Path) -> BinaryIO | None:
    """``path`` opened for binary reading, or ``None`` when it does not exist."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreFileError(f"{path}: cannot read ({exc.strerror}); {os_error_fix(exc)}") from exc



def read_into(out: list[HistoryEntry], handle: BinaryIO | None, path: Path, floor: int,
               limit: int | None, problems: MalformedLines, upto: int | None = None) -> int:
    """Extend ``out`` with ``path``'s entries above ``floor`` (and at most ``upto``); return
    the new floor. ``handle`` is closed."""
    if handle is None:
        return floor
    with handle:
        left = None if limit is None else limit - len(out)
        if left == 0:
            return floor
        out.extend(LineReader(handle, path, problems).read_since(floor, left, upto))
    return max(floor, out[-1].cursor) if out else floor


def read_tail_cursor(path: Path) -> int:
    """Cursor of the last valid line of ``path`` (0 when missing or without entries)."""
    handle = open_log(path)
    if handle is None:
        return 0
    with handle:
        return LineReader(handle, path, MalformedLines()).last_cursor()


@dataclass(frozen=True, order=True)
class Segment:
    """A file of entries moved out of ``history.jsonl``: cursors ``first`` to ``last``.

    ``kind`` is ``overflow`` (it held unprocessed entries when it was cut) or ``compacted``
    (every entry processed). Lines outside ``first..last`` are not part of it.
    """

    first: int
    last: int
    kind: str
    path: Path


def segment_name(first: int, last: int, kind: str = "overflow") -> str:
    """The file name of a segment holding cursors ``first`` to ``last``.

    >>> segment_name(3, 9), segment_name(1, 2, "compacted")
    ('history.overflow-3-9.jsonl', 'history.compacted-1-2.jsonl')
    """
    return f"history.{kind}-{first}-{last}.jsonl"


def list_segments(directory: Path) -> list[Segment]:
    """The segments in ``directory``, oldest (lowest first cursor) first."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StoreFileError(f"{directory}: cannot list ({exc.strerror}); {os_error_fix(exc)}") from exc
    matches = [m for m in map(_SEGMENT.match, names) if m and 1 <= int(m[2]) <= int(m[3])]
    return sorted(Segment(int(m[2]), int(m[3]), m[1], directory / m[0]) for m in matches)


@dataclass(frozen=True)
class ChunkRecord:
    """The newest consolidated chunk of a session found in history: its tag and cursors."""

    tag: str
    cursors: tuple[int, ...]


def find_chunk(path: Path, session_key: str) -> ChunkRecord | None:
    """The newest entry of ``session_key`` in the file at ``path``, if it carries a chunk tag:
    that tag and the cursors of its run of entries. Reads backwards from the end and stops at
    the session's newest entry."""
    handle = open_log(path)
    if handle is None:
        return None
    needle = json.dumps(session_key, ensure_ascii=False).encode("utf-8", "replace")
    tag, cursors = None, []
    with handle:
        for raw in LineReader(handle, path, MalformedLines()).iter_backward():
            if needle not in raw and tag is None:
                continue
            entry = parse_line_bytes(raw)
            if not isinstance(entry, HistoryEntry):
                continue
            if tag is not None:
                if entry.session_key != session_key or entry.chunk != tag:
                    break
                cursors.append(entry.cursor)
            elif entry.session_key == session_key:
                if entry.chunk is None:
                    return None
                tag, cursors = entry.chunk, [entry.cursor]
    return ChunkRecord(tag, tuple(sorted(cursors))) if tag is not None else None


def open_segment(seg: Segment) -> BinaryIO | None:
    """A segment opened for reading; a segment renamed meanwhile (overflow to compacted) is
    found under its other name."""
    handle = open_log(seg.path)
    if handle is None:
        for kind in ("compacted", "overflow"):
            if kind != seg.kind:
                handle = open_log(seg.path.with_name(segment_name(seg.first, seg.last, kind)))
    return handle


def entries_of(handle: BinaryIO, path: Path, floor: int, problems: MalformedLines,
                upto: int | None = None) -> Generator[HistoryEntry, None, int]:
    """Yield ``path``'s entries above ``floor`` (and at most ``upto``); return the new floor.
    Closes ``handle``."""
    top = floor
    with handle:
        for entry in LineReader(handle, path, problems).iter_since(floor, upto):
            top = max(top, entry.cursor)
            yield entry
    return top
