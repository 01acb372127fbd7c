"""Cursor order in ``history.jsonl``: a cheap check, and a renumbering that drops nothing.

Cursors increase down the file (DESIGN §1), and the binary search of ``read_since`` relies on
it. Two files concatenated (``cat old.jsonl new.jsonl``) break it and hide the second file's
entries from Dream; one outlying huge cursor (a hand edit, a corrupt line) pushes every later
cursor out of range and makes the newest ``keep`` entries a lie. :func:`sample_order` finds both
with 64 probes, :func:`renumber` gives every misplaced entry a cursor after the good ones:

- a **run** of entries whose cursors restart (the second of two concatenated files) is
  renumbered in place, continuing from the entry before it;
- an **isolated** misplaced entry (a duplicate, a lone dip, a huge outlier) moves to the end
  with the next free cursor, so no good entry changes its cursor;
- a renumbered line keeps its old cursor as ``"renumbered_from"``.

>>> [(e.cursor, e.content) for e in renumber_entries(
...     [HistoryEntry(c, "", str(c)) for c in (1, 2, 9_000_000, 3, 1, 2)])]
[(1, '1'), (2, '2'), (3, '3'), (4, '1'), (5, '2'), (6, '9000000')]
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO, TypeVar

from nanomem.store.fsutil import fsync_dir
from nanomem.store.historyfile import HistoryEntry, LineReader

OUTLIER_GAP = 1_000_000
PROBES = 64

T = TypeVar("T")


def sample_order(reader: LineReader, probes: int = PROBES) -> str | None:
    """``"unsorted"`` or ``"outlier"`` when probes at evenly spaced offsets (and the last two
    entries) are out of order or end in a jump above ``OUTLIER_GAP``; else ``None``."""
    cursors = []
    for k in range(probes + 1):
        start = reader.next_start(reader.size * k // probes)
        found = reader.first_entry(start, None) if start < reader.size else None
        if found is not None:
            cursors.append(found[2].cursor)
    tail = reader.last_entries(2)
    if any(later < earlier for earlier, later in zip(cursors, cursors[1:])):
        return "unsorted"
    if tail and cursors and tail[0].cursor < cursors[-1]:
        return "unsorted"
    if len(tail) == 2 and tail[0].cursor - tail[1].cursor > OUTLIER_GAP:
        return "outlier"
    return None


def renumber(items: Iterable[tuple[T, int | None]]) -> Iterator[tuple[T, int | None, int | None]]:
    """``(item, old cursor, new cursor)`` for each ``(item, cursor)``; ``cursor`` ``None`` is
    a line that is not an entry (passed through as is). ``new`` differs from ``old`` only for a
    misplaced entry; isolated ones come last. Streams, holding only the isolated entries."""
    prev, deferred = 0, []
    pending: list[tuple[T, int | None]] = []
    stream = iter(items)

    def next_entry() -> tuple[T, int] | None:
        for item, cursor in stream:
            if cursor is None:
                pending.append((item, None))
                continue
            return item, cursor
        return None

    current = next_entry()
    while current is not None:
        passed, pending[:] = list(pending), []
        following = next_entry()
        for item, _ in passed:
            yield item, None, None
        item, cursor = current
        after = following[1] if following is not None else None
        misplaced = cursor <= prev or cursor > prev + OUTLIER_GAP or (
            after is not None and prev < after < cursor)
        if not misplaced:
            prev = cursor
            yield item, cursor, cursor
        elif after is None or after > prev + 1 or after <= prev:  # room here, or a run
            prev += 1
            yield item, cursor, prev
        else:
            deferred.append((item, cursor))
        current = following
    for item, _ in pending:
        yield item, None, None
    for item, cursor in deferred:
        prev += 1
        yield item, cursor, prev


def renumber_entries(entries: Iterable[HistoryEntry]) -> Iterator[HistoryEntry]:
    """:func:`renumber` over parsed entries: what a reader sees of an unrepaired file."""
    for entry, old, new in renumber((e, e.cursor) for e in entries):
        yield entry if new == old or new is None else replace(entry, cursor=new)


def render_renumbered(raw: bytes, old: int, new: int) -> bytes:
    """The line ``raw`` with cursor ``new`` and ``"renumbered_from": old`` (other fields kept)."""
    data = json.loads(raw)
    data["cursor"] = new
    data["renumbered_from"] = old
    try:
        return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data) + "\n").encode("ascii")


def _lines(reader: LineReader) -> Iterator[tuple[tuple[bytes, HistoryEntry | None], int | None]]:
    for offset, _, raw in reader.iter_from(0):
        result = reader.entry(raw, offset)
        entry = result if isinstance(result, HistoryEntry) else None
        yield (raw, entry), (entry.cursor if entry is not None else None)


def iter_in_order(reader: LineReader) -> Iterator[HistoryEntry]:
    """Every entry of the file as :func:`renumber` numbers it (a full read, in cursor order)."""
    for (_, entry), old, new in renumber(_lines(reader)):
        if entry is not None and new is not None:
            yield entry if new == old else replace(entry, cursor=new)


def rewrite_in_order(reader: LineReader, out: BinaryIO) -> tuple[int, int]:
    """Write the renumbered file to ``out``; return ``(entries renumbered, highest cursor)``."""
    changed = top = 0
    for (raw, entry), old, new in renumber(_lines(reader)):
        if entry is not None and new is not None and old is not None and new != old:
            out.write(render_renumbered(raw.rstrip(b"\r\n"), old, new))
            changed += 1
        else:
            out.write(raw if raw.endswith(b"\n") or entry is None else raw + b"\n")
        top = max(top, new or 0)
    return changed, top


def repair_file(path: Path, reader: LineReader) -> tuple[int, int]:
    """Replace ``path`` (read through ``reader``) by its renumbered copy: temp file, fsync,
    rename, fsync of the directory. Returns :func:`rewrite_in_order`'s counts."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            counts = rewrite_in_order(reader, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)
    return counts
