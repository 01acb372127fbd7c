"""The one atomic write and the one inter-process file lock.

Every rewrite in nanomem (cursor files, compaction, markdown, session files) goes through
:func:`atomic_write`: write a temp file in the same directory, fsync it, rename it over the
target, fsync the directory. A reader sees the old bytes or the new bytes, never a mix.

:class:`FileLock` is an advisory lock held on a separate lock file (``fcntl.flock`` on POSIX,
``msvcrt.locking`` on Windows). It excludes other *processes*, not only threads::

    with FileLock(ws.history_lock):
        ...  # allocate a cursor and append

    lock = FileLock(ws.dream_lock)
    if not lock.acquire(blocking=False):
        return "already running"
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt
else:
    import fcntl


def atomic_write(path: Path, data: bytes | str, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` atomically (temp file, fsync, rename, fsync dir).

    >>> atomic_write(Path("/tmp/x.txt"), "hello")  # doctest: +SKIP
    """
    path = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            try:
                os.chmod(tmp_name, path.stat().st_mode & 0o7777)
            except OSError:
                pass
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make a rename inside ``directory`` durable (a no-op where the OS cannot)."""
    if os.name == "nt":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class FileLock:
    """An exclusive advisory lock on ``path``, shared by threads and processes.

    Re-entrant neither across threads nor within one: hold it for one short critical section.
    A thread lock guards the same object used from several threads of one process, because
    ``flock`` locks belong to the open file description, not the thread.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._thread_lock = threading.Lock()

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return ``False`` at once if it is held."""
        if not self._thread_lock.acquire(blocking):
            return False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except BaseException:
            self._thread_lock.release()
            raise
        try:
            if not _lock_fd(fd, blocking):
                os.close(fd)
                self._thread_lock.release()
                return False
        except BaseException:
            os.close(fd)
            self._thread_lock.release()
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        """Release the lock taken by :meth:`acquire`."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock_fd(fd)
        finally:
            os.close(fd)
            self._thread_lock.release()

    @property
    def held(self) -> bool:
        """Whether this object currently holds the lock."""
        return self._fd is not None

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _lock_fd(fd: int, blocking: bool) -> bool:
    if sys.platform == "win32":  # pragma: no cover
        mode = msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK
        try:
            msvcrt.locking(fd, mode, 1)
        except OSError:
            return False
        return True
    flags = fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB
    try:
        fcntl.flock(fd, flags)
    except BlockingIOError:
        return False
    return True


def _unlock_fd(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
