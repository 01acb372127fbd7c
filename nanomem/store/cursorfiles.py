"""The two cursor files: ``memory/.cursor`` (a hint) and ``memory/.dream_cursor`` (durable).

Both hold a decimal number and a newline, as nanobot writes them. ``.dream_cursor`` is written
atomically (temp file, fsync, rename); ``.cursor`` in place by one small write, without fsync
or rename: the write cursor is derived from the last line of ``history.jsonl``, so the hint
may lag after a crash and an append pays one fsync and no metadata update.

>>> read_cursor_file(Path("/nonexistent/.cursor"))
(None, 'missing')
"""

from __future__ import annotations

import os
from pathlib import Path

from nanomem.errors import StoreFileError
from nanomem.store.fsutil import atomic_write, os_error_fix


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
