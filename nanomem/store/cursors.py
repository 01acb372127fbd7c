"""The cursors of the history log: the two cursor files, the next cursor to hand out, the
write cursor and the dream cursor (DESIGN §1, §7; the rules are in docs/history.md).

``memory/.cursor`` (a hint) and ``memory/.dream_cursor`` (durable) both hold a decimal number
and a newline, as nanobot writes them. ``.dream_cursor`` is written atomically (temp file,
fsync, rename); ``.cursor`` in place by one small write, without fsync or rename: the write
cursor is derived from the last line of ``history.jsonl``, so the hint may lag after a crash
and an append pays one fsync and no metadata update. :class:`Cursors` decides what the files
are worth against the history files: a new cursor goes above every cursor ever handed out, an
outlying value is ignored as corrupt, and a damaged or too-high dream cursor is recovered.

>>> read_cursor_file(Path("/nonexistent/.cursor"))
(None, 'missing')
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from nanomem.errors import StoreFileError
from nanomem.store.fsutil import atomic_write, os_error_fix
from nanomem.store.historyfile import list_segments, read_tail_cursor
from nanomem.store.historyorder import OUTLIER_GAP
from nanomem.store.workspace import Workspace

__all__ = ["Cursors", "read_cursor_file", "write_cursor_file", "write_cursor_hint"]

WarnOnce = Callable[..., None]  # (key, message, *args): log ``message`` once per ``key``


def read_cursor_file(path: Path) -> tuple[int | None, str]:
    """``(value, state)``: state is ``ok``, ``missing`` or ``garbage`` (value ``None``)."""
    try:
        text = path.read_bytes()[:64].decode("ascii").strip()
    except FileNotFoundError:
        return None, "missing"
    except (OSError, UnicodeDecodeError):
        return None, "garbage"
    return (int(text), "ok") if text.isdigit() else (None, "garbage")


def write_cursor_file(path: Path, cursor: int) -> None:
    """Replace a cursor file atomically; a failure is a :class:`StoreFileError` naming the fix."""
    try:
        atomic_write(path, f"{cursor}\n")
    except OSError as exc:
        raise StoreFileError(f"{path}: cannot write cursor ({exc.strerror}); "
                           f"{os_error_fix(exc)}") from exc


def write_cursor_hint(path: Path, cursor: int) -> OSError | None:
    """Overwrite ``path`` in place with one small write (no rename, no fsync); return the
    error instead of raising. Cursors only grow, so the file is cut only when it held more."""
    data = f"{cursor}\n".encode("ascii")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.pwrite(fd, data, 0)
            if os.fstat(fd).st_size > len(data):
                os.ftruncate(fd, len(data))
        finally:
            os.close(fd)
    except OSError as exc:
        return exc
    return None


class Cursors:
    """The cursors of one workspace's history, read from the cursor files and checked against
    the history files. ``main_tail`` gives the last cursor of ``history.jsonl``; ``fallback``
    the dream cursor of the last dream commit (asked at most once); ``warn_once`` logs a
    warning once per key. Writes here expect the caller to hold the history lock."""

    def __init__(self, workspace: Workspace, *, main_tail: Callable[[], int],
                 fallback: Callable[[], int | None] | None, warn_once: WarnOnce) -> None:
        self.workspace = workspace
        self._main_tail = main_tail
        self._fallback = fallback
        self._fallback_cache: tuple[int | None] | None = None
        self._warn_once = warn_once

    def next_base_locked(self) -> int:
        """The largest cursor ever handed out, as far as the files tell."""
        known = self.history_high()
        dream_raw = read_cursor_file(self.workspace.dream_cursor)[0]
        dream = self.dream_state(locked=True)[0]  # a writer repairs a clamped value first
        # ... but a new cursor still goes above the file's old value (DESIGN §1)
        candidates = [read_cursor_file(self.workspace.cursor)[0],
                      dream_raw if dream_raw is not None else dream]
        base = known
        for name, value in zip((".cursor", ".dream_cursor"), candidates):
            if value is None or value <= known:
                continue
            if value > known + OUTLIER_GAP:
                self._warn_once(("outlier", name, value), "memory/%s holds %d, more than %d above "
                                "every cursor in history (%d); ignored as corrupt", name, value,
                                OUTLIER_GAP, known)
                continue
            base = max(base, value)
        return base

    def history_high(self) -> int:
        """The highest cursor in ``history.jsonl`` or a segment (a segment's name is checked
        against its last line when it would decide, so a corrupt name cannot inflate it)."""
        tail = self._main_tail()
        segments = list_segments(self.workspace.memory_dir)
        top = max((seg.last for seg in segments), default=0)
        if top <= tail:
            return tail
        lower = max((seg.last for seg in segments if seg.last < top), default=0)
        for seg in segments:
            if seg.last == top:
                held = read_tail_cursor(seg.path)
                if held < seg.last:
                    self._warn_once(("segment-name", seg.path.name), "memory/%s is named up to "
                                    "cursor %d but its last entry is %d; using %d", seg.path.name,
                                    seg.last, held, max(held, seg.first))
                    top = max(held, seg.first)
        return max(tail, lower, top)

    def last_cursor(self) -> int:
        """The write cursor: the largest cursor in history (or in the ``.cursor`` hint)."""
        known = self.history_high()
        hint = read_cursor_file(self.workspace.cursor)[0]
        return hint if hint is not None and known < hint <= known + OUTLIER_GAP else known

    def write_hint(self, cursor: int) -> None:
        """``.cursor`` is a hint (no fsync): a failure warns, the entry is saved all the same."""
        error = write_cursor_hint(self.workspace.cursor, cursor)
        if error is not None:
            self._warn_once(("cursor-hint", error.errno), "%s: cannot update the write-cursor "
                            "hint (%s); the entry is saved and the cursor is read from "
                            "history.jsonl", self.workspace.cursor, error.strerror)

    def write_dream(self, cursor: int) -> None:
        """Replace ``.dream_cursor`` atomically (the caller holds the history lock)."""
        write_cursor_file(self.workspace.dream_cursor, cursor)

    def dream_state(self, *, locked: bool) -> tuple[int, bool]:
        """``(dream cursor, trusted)``; an untrusted value never moves entries in that call.

        A damaged file with no git fallback is repaired with the write cursor, so entries
        appended later stay pending instead of sliding behind a moving recovered value. Only
        a caller holding the lock (a writer) repairs a file; a reader just uses the value.
        """
        path = self.workspace.dream_cursor
        value, state = read_cursor_file(path)
        if value is not None:
            return self._clamped(value, locked=locked), True
        recovered = self._call_fallback()
        if recovered is not None:
            self._warn_once((state, recovered), "%s is %s; using dream cursor %d from the last "
                            "dream commit", path, "missing" if state == "missing" else "damaged",
                            recovered)
            return recovered, True
        if state == "missing":
            return 0, True
        tail = self.history_high()
        self._warn_once(("garbage", tail), "%s is damaged and no dream commit names a cursor; "
                        "marking everything up to cursor %d as processed so the archive is not "
                        "replayed; edit the file to change that", path, tail)
        if locked:
            write_cursor_file(path, tail)
        return tail, False

    def _clamped(self, value: int, *, locked: bool) -> int:
        """A dream cursor above every cursor in history cannot be right: clamp it to the last
        ``Dream-Cursor:`` trailer (when lower) and to the last cursor in history."""
        high = self.history_high()
        if value <= high:
            return value
        trailer = self._call_fallback()
        clamped = min(high, trailer) if trailer is not None else high
        source = f"the last dream commit's Dream-Cursor {trailer}" if trailer is not None and \
            trailer < high else f"the last cursor in history, {high}"
        self._warn_once(("clamp", value, clamped), "%s holds %d, above every cursor in history; "
                        "clamped to %d (%s) so no entry is hidden from Dream",
                        self.workspace.dream_cursor, value, clamped, source)
        if locked:
            write_cursor_file(self.workspace.dream_cursor, clamped)
        return clamped

    def _call_fallback(self) -> int | None:
        """The git fallback's dream cursor, asked at most once per object."""
        if self._fallback is not None and self._fallback_cache is None:
            value = self._fallback()
            self._fallback_cache = (value if type(value) is int and value >= 0 else None,)
        return self._fallback_cache[0] if self._fallback_cache else None
