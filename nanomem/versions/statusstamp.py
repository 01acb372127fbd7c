"""The status stamp: what ``nanomem status`` needs from git, written at each commit, so that
reading status does not load dulwich (issue 15: ``status`` under 100 ms).

After every commit it makes, :class:`~nanomem.versions.gitstore.GitStore` writes
``<git dir>/nanomem-status.json``: the sha it moved HEAD to, the blob id of each memory file in
that commit, the newest ``dream:`` commit on the first-parent line (sha, time, subject) and the
newest valid ``Dream-Cursor:`` trailer. :func:`read_stamped_status` trusts the stamp only while
HEAD, read from the git dir's plain files (``HEAD``, the loose ref, ``packed-refs``), is still
that sha; the files are then dirty exactly when their git blob ids differ from the stamp's.
Anything else (no stamp, a damaged one, HEAD moved by the ``git`` CLI or a forget rewrite, a
HEAD this module does not read) returns None and the caller asks dulwich, as before.

Reading never writes: only the commit path writes the stamp.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nanomem.store.fsutil import atomic_write
from nanomem.versions.commits import CommitInfo, commit_kind, split_message
from nanomem.vocab import VERSIONED_FILES

log = logging.getLogger(__name__)

STAMP = "nanomem-status.json"
VERSION = 1
_SHA = re.compile(r"[0-9a-f]{40}")
_BRANCH = re.compile(r"refs/(?!.*\.\.)[\w./-]+")


@dataclass(frozen=True)
class DreamMark:
    """The newest ``dream:`` commit: its full sha, time (ISO 8601) and subject."""

    sha: str
    time: str
    subject: str


@dataclass(frozen=True)
class StatusStamp:
    """What the commit path wrote: HEAD, the committed blob id per memory file, the newest
    dream commit and the newest valid ``Dream-Cursor`` trailer on the first-parent line."""

    head: str
    blobs: Mapping[str, str] = field(default_factory=dict)
    last_dream: DreamMark | None = None
    dream_cursor: int | None = None


@dataclass(frozen=True)
class StampedStatus:
    """Status's repository part, from a stamp that matches HEAD."""

    head: str
    uncommitted: tuple[str, ...]
    last_dream: DreamMark | None
    dream_cursor: int | None


def blob_id(data: bytes) -> str:
    """The git object id of a blob holding ``data``.

    >>> blob_id(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def _blobs(files: Mapping[str, bytes]) -> dict[str, str]:
    return {rel: blob_id(files[rel]) for rel in VERSIONED_FILES if rel in files}


def render_stamp(stamp: StatusStamp) -> str:
    mark = stamp.last_dream
    return json.dumps({
        "version": VERSION, "head": stamp.head, "blobs": dict(stamp.blobs),
        "last_dream": None if mark is None else
        {"sha": mark.sha, "time": mark.time, "subject": mark.subject},
        "dream_cursor": stamp.dream_cursor,
    }, ensure_ascii=False, sort_keys=True) + "\n"


def parse_stamp(text: str) -> StatusStamp | None:
    """The stamp in ``text``; None for anything but a well-formed stamp of this version.

    >>> parse_stamp(render_stamp(StatusStamp("a" * 40, {"USER.md": "b" * 40}))).blobs
    {'USER.md': 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'}
    >>> parse_stamp("{") is None
    True
    """
    try:
        raw = json.loads(text)
        if not isinstance(raw, dict) or raw.get("version") != VERSION:
            return None
        head, blobs, mark, cursor = raw["head"], raw["blobs"], raw["last_dream"], raw["dream_cursor"]
        if not (isinstance(head, str) and _SHA.fullmatch(head) and isinstance(blobs, dict)):
            return None
        if not all(rel in VERSIONED_FILES and isinstance(sha, str) and _SHA.fullmatch(sha)
                   for rel, sha in blobs.items()):
            return None
        if cursor is not None and (type(cursor) is not int or cursor < 0):
            return None
        last = None
        if mark is not None:
            if not all(isinstance(mark.get(k), str) for k in ("sha", "time", "subject")):
                return None
            last = DreamMark(mark["sha"], mark["time"], mark["subject"])
        return StatusStamp(head, dict(blobs), last, cursor)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def plan_stamp(previous: StatusStamp | None, info: CommitInfo, message: str,
               files: Mapping[str, bytes]) -> StatusStamp | None:
    """The stamp after commit ``info`` (with raw ``message``) of ``files``, carried on from
    ``previous`` when that was the stamp of the commit's first parent; None when the dream
    marks must be found by walking the history instead (``previous`` is stale or missing).

    The rules are those of ``GitStore.latest("dream")`` and ``GitStore.last_dream_cursor()``:
    the newest commit whose first message line is a ``dream:`` subject, and the newest such
    commit whose ``Dream-Cursor`` trailer is an integer.
    """
    blobs = _blobs(files)
    parent = info.parents[0] if info.parents else None
    if parent is None:
        last, cursor = None, None
    elif previous is not None and previous.head == parent:
        last, cursor = previous.last_dream, previous.dream_cursor
    else:
        return None
    if commit_kind(message.split("\n", 1)[0]) == "dream":
        last = DreamMark(info.sha, info.time, info.subject)
        trailer = split_message(message)[2].get("Dream-Cursor")
        if trailer is not None:
            try:
                cursor = int(trailer)
            except ValueError:
                pass
    return StatusStamp(info.sha, blobs, last, cursor)


def read_stamp(git_dir: Path) -> StatusStamp | None:
    try:
        return parse_stamp((Path(git_dir) / STAMP).read_text("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def write_commit_stamp(git_dir: Path, info: CommitInfo, message: str, files: Mapping[str, bytes],
                       walk: Callable[[], tuple[CommitInfo | None, int | None]]) -> None:
    """Write the stamp for the commit just made; ``walk`` finds the dream marks the slow way
    (newest dream commit, newest dream cursor) when the previous stamp cannot be carried on.
    A failure to write is logged: status then asks dulwich."""
    stamp = plan_stamp(read_stamp(git_dir), info, message, files)
    if stamp is None:
        latest, cursor = walk()
        mark = None if latest is None else DreamMark(latest.sha, latest.time, latest.subject)
        stamp = StatusStamp(info.sha, _blobs(files), mark, cursor)
    try:
        atomic_write(Path(git_dir) / STAMP, render_stamp(stamp))
    except OSError as exc:
        log.warning("%s/%s: not written (%s); `nanomem status` reads git instead", git_dir, STAMP,
                    exc)


def read_head(git_dir: Path) -> str | None:
    """HEAD's sha from the git dir's plain files, or None when this reader cannot tell for
    sure (no commit yet, a detached or unusual HEAD, a ref it does not parse): the caller then
    asks dulwich, which also reports what is wrong."""
    git_dir = Path(git_dir)
    try:
        head = (git_dir / "HEAD").read_text("ascii").strip()
        if _SHA.fullmatch(head):
            return head
        if not head.startswith("ref: ") or not _BRANCH.fullmatch(head[5:]):
            return None
        ref = head[5:]
        try:
            value = (git_dir / ref).read_text("ascii").strip()
            return value if _SHA.fullmatch(value) else None
        except FileNotFoundError:
            pass
        with open(git_dir / "packed-refs", encoding="ascii") as handle:
            for line in handle:
                sha, _, name = line.rstrip("\n").partition(" ")
                if name == ref and _SHA.fullmatch(sha):
                    return sha
    except (OSError, UnicodeDecodeError):
        return None
    return None


def read_stamped_status(git_dir: Path, files: Mapping[str, bytes]) -> StampedStatus | None:
    """Status's repository part from the stamp, given the memory files as read now (what
    ``GitStore.dirty_files`` compares); None when the stamp is missing or HEAD moved since."""
    stamp = read_stamp(git_dir)
    if stamp is None or read_head(git_dir) != stamp.head:
        return None
    dirty = tuple(sorted(rel for rel in VERSIONED_FILES
                         if stamp.blobs.get(rel) != (blob_id(files[rel]) if rel in files else None)))
    return StampedStatus(stamp.head, dirty, stamp.last_dream, stamp.dream_cursor)
