"""The places a fact lives in the workspace, each a scrubber: find its files, scrub their bytes.

A :class:`Place` knows three things: which files it holds (:meth:`Place.paths`), how to scrub the
bytes of one file (:meth:`Place.scrub`, pure) and which lock guards a rewrite of it. The
orchestration (:mod:`nanomem.forget.run`) plans every place before it writes anything, so a dry
run and a real run see the same edits; git history is the one place that is not files here
(:mod:`nanomem.versions.rewrite`).

======== ===================================================== ==============================
place    files                                                 unit that goes
======== ===================================================== ==============================
files    SOUL.md, USER.md, memory/MEMORY.md                    a line (pinned: refused)
pending  memory/PENDING.md                                     a whole question (a line when
                                                               the file is malformed)
history  memory/history*.jsonl (main, overflow, compacted)     a line of an entry; an entry
                                                               left empty is a tombstone
archive  memory/archive/*.jsonl                                a line of a record's strings
sessions sessions/*.jsonl                                      a line of a message's strings
audit    memory/dream-audit.jsonl                              a line of a record's strings
legacy   memory/HISTORY.md, memory/HISTORY.md.bak*             a line
index    memory/index.sqlite3* (derived)                       the whole file; rebuilt by search
======== ===================================================== ==============================

>>> m = Matcher.literal("peanuts")
>>> line = b'{"cursor": 4, "timestamp": "2026-01-02 10:00", "content": "- [durable] peanuts"}\\n'
>>> HISTORY.scrub("memory/history.jsonl", line, m).new
b'{"cursor": 4, "timestamp": "2026-01-02 10:00", "content": "", "kind": "forgotten"}\\n'
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nanomem.dream.audit import is_audit_name
from nanomem.forget.match import Matcher
from nanomem.store.fsutil import FileLock
from nanomem.store.sessions import session_lock
from nanomem.store.workspace import Workspace
from nanomem.errors import WorkspaceError
from nanomem.store.memfiles import read_memory_file
from nanomem.store.pending import PendingBook, parse_pending, render_pending
from nanomem.vocab import MEMORY_FILES, PENDING

TOMBSTONE_KIND = "forgotten"


@dataclass(frozen=True)
class Scrubbed:
    """What scrubbing one file gives: the new bytes (None: delete it) and where lines went."""

    new: bytes | None
    removed: int = 0
    where: tuple[str, ...] = ()
    tombstones: int = 0
    refused: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileEdit:
    """One planned change of one file of a place."""

    place: str
    rel: str
    old: bytes
    scrubbed: Scrubbed

    @property
    def changes(self) -> bool:
        return self.scrubbed.new != self.old


Scrub = Callable[[str, bytes, Matcher], Scrubbed]
Lister = Callable[[Workspace], list[str]]
Locker = Callable[[Workspace, str], "FileLock | None"]


@dataclass(frozen=True)
class Place:
    """One place a fact lives (see the module docstring)."""

    name: str
    lister: Lister
    scrubber: Scrub
    locker: Locker = field(default=lambda ws, rel: None)

    def paths(self, workspace: Workspace) -> list[str]:
        """Workspace-relative POSIX paths of the files this place holds now."""
        return self.lister(workspace)

    def scrub(self, rel: str, data: bytes, matcher: Matcher) -> Scrubbed:
        """The file's bytes without the text (pure)."""
        return self.scrubber(rel, data, matcher)

    def lock(self, workspace: Workspace, rel: str) -> FileLock | None:
        """The lock a writer of ``rel`` must hold, or None when the caller's locks suffice."""
        return self.locker(workspace, rel)


def scrub_lines(data: bytes, matcher: Matcher, *, include_pinned: bool = True,
                is_pinned: Callable[[str], bool] | None = None) -> Scrubbed:
    """A text file without its matching lines; a pinned one is refused unless ``include_pinned``.

    >>> scrub_lines(b"a\\nbob <!-- pin -->\\n", Matcher.literal("bob"), include_pinned=False,
    ...             is_pinned=lambda line: line.rstrip().endswith("<!-- pin -->")).refused
    ('line 2 (pinned)',)
    """
    text = data.decode("utf-8", "surrogateescape")
    if not matcher.matches(text):
        return Scrubbed(data)
    kept: list[str] = []
    where: list[str] = []
    refused: list[str] = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if not matcher.matches(line):
            kept.append(line)
        elif not include_pinned and is_pinned is not None and is_pinned(line):
            kept.append(line)
            refused.append(f"line {number} (pinned)")
        else:
            where.append(f"line {number}")
    if not where and not refused:  # the text spans lines: the whole file held it
        return Scrubbed(b"", 1, ("the whole file",))
    new = "".join(kept).encode("utf-8", "surrogateescape")
    return Scrubbed(new, len(where), tuple(where), refused=tuple(refused))


def scrub_jsonl(data: bytes, matcher: Matcher, *,
                tombstone: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
                label: Callable[[int, dict[str, Any]], str] | None = None) -> Scrubbed:
    """A JSON-lines file with the text scrubbed from every string of every record.

    Lines without the text stay byte for byte. ``tombstone(record)`` may replace a record that
    held nothing but the text. A line that is not JSON and holds the text goes whole.
    """
    if not matcher.matches(data.decode("utf-8", "replace")) and not _escaped_match(data, matcher):
        return Scrubbed(data)
    out: list[bytes] = []
    where: list[str] = []
    removed = tombstones = 0
    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if matcher.matches(raw.decode("utf-8", "replace")):
                removed += 1
                where.append(f"line {number} (not JSON, removed)")
            else:
                out.append(raw)
            continue
        new, count = matcher.scrub_value(record)
        if not count:
            out.append(raw)
            continue
        removed += count
        name = label(number, record) if label else f"line {number}"
        if tombstone is not None and isinstance(new, dict):
            replaced = tombstone(new)
            if replaced is not None:
                new = replaced
                tombstones += 1
                name += " (tombstone)"
        where.append(name)
        ending = b"\n" if raw.endswith(b"\n") else b""
        out.append(json.dumps(new, ensure_ascii=False).encode("utf-8", "surrogatepass") + ending)
    return Scrubbed(b"".join(out), removed, tuple(where), tombstones)


def _escaped_match(data: bytes, matcher: Matcher) -> bool:
    """Whether a JSON-escaped form (``\\u00e9``) of the text is in ``data``."""
    if b"\\" not in data:
        return False
    for raw in data.splitlines():
        try:
            if matcher.matches(json.dumps(json.loads(raw), ensure_ascii=False)):
                return True
        except ValueError:
            continue
    return False


def _history_tombstone(record: dict[str, Any]) -> dict[str, Any] | None:
    """An entry whose content is gone keeps its cursor and time: ``kind: forgotten``."""
    if record.get("content") != "":
        return None
    keep: dict[str, Any] = {key: record[key] for key in ("cursor", "timestamp") if key in record}
    return {**keep, "content": "", "kind": TOMBSTONE_KIND}


def _history_label(number: int, record: dict[str, Any]) -> str:
    cursor = record.get("cursor")
    return f"cursor {cursor}" if isinstance(cursor, int) else f"line {number}"


def _session_label(number: int, record: dict[str, Any]) -> str:
    return "metadata" if record.get("_type") == "metadata" else f"message {number - 1}"


def _list(directory: str, accept: Callable[[str], bool]) -> Lister:
    def lister(workspace: Workspace) -> list[str]:
        folder = workspace.path(directory)
        try:
            names = sorted(os.listdir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [f"{directory}/{name}" for name in names
                if accept(name) and (folder / name).is_file() and not (folder / name).is_symlink()]
    return lister


def _memory_files(workspace: Workspace) -> list[str]:
    return [rel for rel in MEMORY_FILES if workspace.path(rel).is_file()]


def _history_lock(workspace: Workspace, rel: str) -> FileLock:
    """Appends and compaction hold it: an append waits for the rewrite, then goes on."""
    return FileLock(workspace.history_lock)


def _session_lock(workspace: Workspace, rel: str) -> FileLock:
    return session_lock(workspace.path(rel))


def _archive_lock(workspace: Workspace, rel: str) -> FileLock:
    return FileLock(workspace.path("memory/archive/.lock"))


def memory_file_place(*, include_pinned: bool, is_pinned: Callable[[str], bool]) -> Place:
    """The memory files; a pinned line that holds the text is refused unless ``include_pinned``."""
    return Place("files", _memory_files, lambda rel, data, m: scrub_lines(
        data, m, include_pinned=include_pinned, is_pinned=is_pinned))


def scrub_pending(rel: str, data: bytes, matcher: Matcher) -> Scrubbed:
    """``memory/PENDING.md`` without the questions that hold the text (each goes whole, so the
    file stays valid); a malformed file loses the matching lines instead."""
    text = data.decode("utf-8", "surrogateescape")
    if not matcher.matches(text):
        return Scrubbed(data)
    try:
        book = parse_pending(text)
    except WorkspaceError:
        return scrub_lines(data, matcher)
    gone = [q for q in book.questions if matcher.matches(
        "\n".join((q.old_text, q.new_text, q.reason, q.question, q.batch)))]
    kept = PendingBook(tuple(q for q in book.questions if q not in gone), book.next_number)
    new = render_pending(kept).encode("utf-8", "surrogateescape")
    lines = scrub_lines(new, matcher)  # what is left outside the questions (the prose, by hand)
    return Scrubbed(lines.new, len(gone) + lines.removed,
                    tuple(f"question {q.number}" for q in gone) + lines.where)


PENDING_PLACE = Place("pending", lambda ws: [PENDING] if ws.path(PENDING).is_file() else [],
                      scrub_pending)
HISTORY = Place(
    "history",
    _list("memory", lambda n: n.startswith("history") and n.endswith(".jsonl")),
    lambda rel, data, m: scrub_jsonl(data, m, tombstone=_history_tombstone, label=_history_label),
    _history_lock,
)
ARCHIVE = Place(
    "archive",
    _list("memory/archive", lambda n: n.endswith(".jsonl")),
    lambda rel, data, m: scrub_jsonl(data, m),
    _archive_lock,
)
SESSIONS = Place(
    "sessions",
    _list("sessions", lambda n: n.endswith(".jsonl")),
    lambda rel, data, m: scrub_jsonl(data, m, label=_session_label),
    _session_lock,
)
AUDIT = Place(
    "audit",
    _list("memory", is_audit_name),  # dream-audit.jsonl and its rotations dream-audit.N.jsonl
    lambda rel, data, m: scrub_jsonl(data, m),
)
MOVED = Place(
    "moved",  # memory/MOVED.md: lines moved out of a full memory file (never a pinned one)
    _list("memory", lambda n: n == "MOVED.md"),
    lambda rel, data, m: scrub_lines(data, m),
)
LEGACY = Place(
    "legacy",
    _list("memory", lambda n: n == "HISTORY.md" or n.startswith("HISTORY.md.bak")),
    lambda rel, data, m: scrub_lines(data, m),
)
INDEX_NAMES = ("index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm", "index.sqlite3-journal")
INDEX = Place(
    "index",
    _list("memory", lambda n: n in INDEX_NAMES),
    lambda rel, data, m: Scrubbed(None, 0, ("derived: deleted, the next search rebuilds it",)),
)


def places(*, include_pinned: bool, keep_sessions: bool,
           is_pinned: Callable[[str], bool]) -> tuple[Place, ...]:
    """Every file place in the order a run scrubs them (the index last: it is derived)."""
    found = [memory_file_place(include_pinned=include_pinned, is_pinned=is_pinned),
             PENDING_PLACE, MOVED, HISTORY, ARCHIVE, AUDIT, LEGACY]
    if not keep_sessions:
        found.append(SESSIONS)
    return tuple(found)


def read_file(workspace: Workspace, rel: str) -> bytes | None:
    """The bytes of ``rel``, or None when it vanished (a memory file through the one reader and
    its symlink policy)."""
    if rel in MEMORY_FILES:
        return read_memory_file(workspace, rel)
    try:
        return Path(workspace.path(rel)).read_bytes()
    except FileNotFoundError:
        return None
