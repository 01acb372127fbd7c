"""The index's high-water marks (table ``marks``) and how a file rewritten under them is noticed.

Each source keeps a mark of what is indexed:

- ``history``: the last history cursor indexed;
- ``archive:<segment>``: the byte offset reached in an archive segment and a hash of the
  :data:`TAIL_CHECK` bytes before it (a segment rewritten before the offset changes it);
- ``file:<path>``: a memory file's stat signature and content hash;
- ``history_files``: the history files' stat signatures (inode, size, mtime) as one JSON
  object, each segment's under ``hseg:<first>-<last>`` and ``history.jsonl``'s under ``hmain``,
  with the hash of its last :data:`TAIL_CHECK` bytes (one mark, so an update reads one value).

The history marks let an update tell an append (the same inode, grown, the bytes before the old
end unchanged: nothing to check) and a compaction or promotion (the same bytes under other
names) from an entry rewritten in place (a hand edit, a tool, a renumbering): the cursor ranges
of every history file whose signature changed are checked against the index, entry by entry
(:mod:`nanomem.search.historydocs`). Cost: a ``stat`` per history file and one 64-byte read per
update; the check reads only the files that changed.

Not noticed: an edit inside ``history.jsonl`` that keeps its inode and its length, made in the
same clock tick as the last update (the file's mtime does not move), or made together with an
append while leaving the 64 bytes before the old end as they were.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from nanomem.store.historyfile import Segment

TAIL_CHECK = 64
HISTORY_FILES = "history_files"
HISTORY_SEGMENT = "hseg:"
HISTORY_MAIN = "hmain"

Range = tuple[int, int | None]  # cursors first..last, inclusive; ``None``: no upper end


def set_mark(db: sqlite3.Connection, name: str, value: str) -> None:
    db.execute("INSERT INTO marks(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET "
               "value = excluded.value", (name, value))


def parse_offset_mark(value: str | None) -> tuple[int, str]:
    """``(offset, tail hash)`` of an ``offset:hash`` mark; ``(0, "")`` when absent or malformed.

    >>> parse_offset_mark("120:ab12"), parse_offset_mark(None), parse_offset_mark("x:1")
    ((120, 'ab12'), (0, ''), (0, ''))
    """
    if not value:
        return 0, ""
    offset, _, check = value.partition(":")
    return (int(offset), check) if offset.isdigit() else (0, "")


def read_tail_hash(path: Path, offset: int) -> str:
    """A hash of the bytes just before ``offset``: a rewritten file changes it."""
    with open(path, "rb") as handle:
        start = max(0, offset - TAIL_CHECK)
        handle.seek(start)
        return hashlib.sha256(handle.read(offset - start)).hexdigest()[:16]


def read_history_marks(segments: list[Segment], main: Path) -> dict[str, str]:
    """The history marks the files have now: read before their entries are, so that a rewrite
    made while they are read is seen by the next update."""
    found: dict[str, str] = {}
    for seg in segments:
        signature = _signature(seg.path)
        if signature is not None:
            found[f"{HISTORY_SEGMENT}{seg.first}-{seg.last}"] = signature
    signature = _signature(main)
    if signature is not None:
        try:
            found[HISTORY_MAIN] = f"{signature}:{read_tail_hash(main, int(signature.split(':')[1]))}"
        except OSError:
            pass
    return found


def render_history_marks(found: Mapping[str, str]) -> str:
    """The ``history_files`` mark (pure, canonical: equal signatures give equal text).

    >>> render_history_marks({"hmain": "7:8:3:cd", "hseg:1-9": "5:90:1"})
    '{"hmain": "7:8:3:cd", "hseg:1-9": "5:90:1"}'
    """
    return json.dumps(dict(found), sort_keys=True)


def parse_history_marks(value: str | None) -> dict[str, str]:
    """The signatures a ``history_files`` mark holds; ``{}`` when absent or damaged (pure).

    >>> parse_history_marks('{"hmain": "7:8:3:cd"}'), parse_history_marks("[1]"), parse_history_marks(None)
    ({'hmain': '7:8:3:cd'}, {}, {})
    """
    try:
        data = json.loads(value or "{}")
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


def check_appended(old: str | None, new: str | None, main: Path) -> bool:
    """Whether ``history.jsonl`` only grew since ``old`` was taken (or is unchanged): the same
    inode, no smaller, the mtime unmoved unless it grew, the bytes before the old end the same."""
    if old == new:
        return True
    if not old or not new:
        return old == new
    ino, size, mtime, check = old.split(":")
    now_ino, now_size, now_mtime, _ = new.split(":")
    if ino != now_ino or int(now_size) < int(size) or (now_size == size and now_mtime != mtime):
        return False
    try:
        return read_tail_hash(main, int(size)) == check
    except OSError:
        return False


def plan_history_checks(old: Mapping[str, str], new: Mapping[str, str],
                        main_appended: bool) -> list[Range]:
    """The cursor ranges whose entries must be checked against the index (pure): those of each
    segment that is new, gone or changed, and everything above the segments when
    ``history.jsonl`` did not only grow. A segment renamed from ``overflow`` to ``compacted``
    keeps its range and signature and costs nothing.

    >>> plan_history_checks({"hseg:1-9": "5:90:1", "hmain": "6:40:2:ab"},
    ...                     {"hseg:1-9": "5:90:1", "hseg:10-20": "6:50:2", "hmain": "7:8:3:cd"}, False)
    [(10, None)]
    >>> plan_history_checks({"hseg:1-9": "5:90:1"}, {"hseg:1-9": "5:90:1"}, True)
    []
    """
    olds, news = _segments(old), _segments(new)
    changed = sorted(name for name in olds.keys() | news.keys() if old.get(name) != new.get(name))
    ranges: list[Range] = [olds.get(name) or news[name] for name in changed]
    if not main_appended:
        ranges.append((min(_top(old), _top(new)) + 1, None))
    return merge_ranges(ranges)


def merge_ranges(ranges: list[Range]) -> list[Range]:
    """Overlapping or touching ranges joined, lowest first (pure).

    >>> merge_ranges([(5, 9), (1, 4), (12, None), (20, 30)])
    [(1, 9), (12, None)]
    """
    merged: list[Range] = []
    for first, last in sorted(ranges, key=lambda r: r[0]):
        if merged and (merged[-1][1] is None or first <= merged[-1][1] + 1):
            top = merged[-1][1]
            merged[-1] = (merged[-1][0], None if top is None or last is None else max(top, last))
        else:
            merged.append((first, last))
    return merged


def _segments(marks: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    out = {}
    for name in marks:
        if name.startswith(HISTORY_SEGMENT):
            first, _, last = name[len(HISTORY_SEGMENT):].partition("-")
            if first.isdigit() and last.isdigit():
                out[name] = (int(first), int(last))
    return out


def _top(marks: Mapping[str, str]) -> int:
    return max((last for _, last in _segments(marks).values()), default=0)


def _signature(path: Path) -> str | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return f"{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}"
