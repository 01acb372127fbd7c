"""Compaction of ``history.jsonl``: move its head into a segment, never delete (DESIGN §10).

:func:`plan_cut` is the pure rule; :func:`move_head` is the I/O. The head (every line up to the
cut) leaves ``history.jsonl`` without being copied: the file is hard-linked under the segment's
name, ``history.jsonl`` is replaced by a copy of its tail, and the segment is truncated to the
head. Cost: a binary search, the tail's bytes and a few renames, whatever the head's size.

A kill at any step leaves every entry readable: before the replace both names hold the same
file; after it, the segment may still hold the tail beyond its name's range, which readers
ignore. A reader that opened the old ``history.jsonl`` sees the head truncated away, so readers
re-open the path when its inode changed (``History.iter_entries``).

>>> plan_cut(first=1, last=30, dream=12, keep=5, cap=50)
(12, 'compacted')
>>> plan_cut(first=1, last=8, dream=8, keep=5, cap=50) is None  # within 2 x keep: nothing
True
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

from nanomem.errors import HistoryError
from nanomem.store.fsutil import fsync_dir
from nanomem.store.historyfile import (
    LineReader,
    MalformedLines,
    Segment,
    segment_name,
)

logger = logging.getLogger(__name__)

_COPY_BLOCK = 1 << 20


def plan_cut(*, first: int, last: int, dream: int, keep: int, cap: int) -> tuple[int, str] | None:
    """``(cut, kind)``: move the entries with cursors ``<= cut`` into a segment of ``kind``.

    - processed entries move once the file spans more than ``2 × keep`` cursors, down to the
      newest ``keep`` (so each segment holds at least ``keep`` entries);
    - when more than ``cap`` cursors of the file are unprocessed (Dream has not run for a long
      time), everything but the newest ``keep`` moves, into an ``overflow`` segment;
    - nothing after ``dream`` ever moves into a ``compacted`` segment.
    """
    keep = max(keep, 1)
    if last - max(dream, first - 1) > cap:
        cut = last - keep
    elif last - first + 1 > 2 * keep:
        cut = min(dream, last - keep)
        if cut - first + 1 < keep:
            return None
    else:
        return None
    if cut < first:
        return None
    return cut, ("compacted" if cut <= dream else "overflow")


def move_head(main: Path, segment: Path, cut: int) -> int:
    """Move the lines of ``main`` before the first entry above ``cut`` into ``segment``.

    Returns the number of bytes moved (0: nothing to move). Caller holds the history lock.
    """
    if segment.exists() and not _same_file(segment, main):
        raise HistoryError(f"{segment}: already exists and is not a copy of {main.name}; move it "
                           "aside (it holds history entries) and compact again")
    with open(main, "rb") as handle:
        reader = LineReader(handle, main, MalformedLines())
        offset = reader.offset_above(cut)
        if offset == 0:
            return 0
        tmp = _copy_tail(handle, main, offset)
    try:
        linked = _link(main, segment)
        if not linked:  # no hard links here: copy the head instead (slower, same result)
            _copy_head(main, segment, offset)
        fsync_dir(main.parent)
        os.replace(tmp, main)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    fsync_dir(main.parent)
    if linked:
        with open(segment, "r+b") as seg:
            seg.truncate(offset)
            seg.flush()
            os.fsync(seg.fileno())
    return offset


def promote(segment: Segment) -> Segment:
    """Rename a fully processed ``overflow`` segment to ``compacted`` (content unchanged)."""
    target = segment.path.with_name(segment_name(segment.first, segment.last, "compacted"))
    if target.exists():
        return segment
    os.rename(segment.path, target)
    fsync_dir(target.parent)
    return Segment(segment.first, segment.last, "compacted", target)


def _copy_tail(handle: BinaryIO, main: Path, offset: int) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{main.name}.", suffix=".tmp", dir=main.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            handle.seek(offset)
            shutil.copyfileobj(handle, out, _COPY_BLOCK)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.chmod(name, main.stat().st_mode & 0o7777)
        except OSError:
            pass
    except BaseException:
        _unlink_quietly(Path(name))
        raise
    return Path(name)


def _copy_head(main: Path, segment: Path, offset: int) -> None:
    fd, name = tempfile.mkstemp(prefix=f".{segment.name}.", suffix=".tmp", dir=segment.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(main, "rb") as source:
            left = offset
            while left > 0 and (block := source.read(min(left, _COPY_BLOCK))):
                out.write(block)
                left -= len(block)
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, segment)
    except BaseException:
        _unlink_quietly(Path(name))
        raise


def _link(main: Path, segment: Path) -> bool:
    if segment.exists():  # a compaction killed after linking: the same file already
        return True
    try:
        os.link(main, segment)
    except (AttributeError, NotImplementedError, PermissionError):
        return False
    except OSError as exc:
        if exc.errno in (errno.EXDEV, errno.EOPNOTSUPP, errno.EPERM, errno.EMLINK):
            return False
        raise
    return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
