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

A blocking acquire waits at most ``timeout`` seconds (default :data:`LOCK_TIMEOUT_SECONDS`, or
the ``NANOMEM_LOCK_TIMEOUT`` environment variable), then raises :class:`LockError` naming the
holder's pid, which every holder writes into the lock file. A lock path that is a directory (or
otherwise cannot be opened) is a :class:`LockError` too, never a traceback.
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from nanomem.errors import LockError

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


def os_error_fix(exc: OSError) -> str:
    """The fix to name in a one-line message for an OS error on a workspace file.

    >>> os_error_fix(OSError(28, 'No space left on device'))
    'free some disk space and retry'
    """
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return "free some disk space and retry"
    if exc.errno == errno.ELOOP:
        return "the path is a symlink loop; replace the link with a regular file"
    if exc.errno == errno.EISDIR:
        return "the path is a directory; move it aside"
    if exc.errno in (errno.EPERM, errno.EACCES, errno.EROFS):
        return "make the file writable (chmod u+w; chattr -i for an immutable file)"
    return "check the disk and the file's permissions"
# Builds the error ``append_durably`` raises: from the stage that failed ("open" or "write"),
# the OSError, and the one cutting the file back raised too (None when the cut succeeded).
AppendError = Callable[[str, OSError, OSError | None], Exception]


def write_fully(fd: int, payload: bytes) -> None:
    """Write all of ``payload`` to ``fd`` (``os.write`` may write less than asked), then fsync."""
    written = 0
    while written < len(payload):
        written += os.write(fd, payload[written:])
    os.fsync(fd)


def read_tail(path: Path, limit: int) -> bytes:
    """The last ``limit`` bytes of ``path`` (all of it when shorter; b"" when absent)."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - limit))
            return handle.read()
    except FileNotFoundError:
        return b""


def append_durably(path: Path, payload: bytes, *, error: AppendError | None = None) -> None:
    """Append ``payload`` to ``path`` in one ``write`` on an ``O_APPEND`` descriptor, then fsync.

    The caller holds the file's lock. When the file ends in a torn line (a crash mid-write) the
    payload starts on a fresh line, so the torn fragment stays one malformed line that readers
    skip. If the write fails the file is truncated back to its old size: all of ``payload`` or
    none of it. A failure raises ``error(stage, exc, cut_error)`` (chained to ``exc``) when
    ``error`` is given, else the ``OSError`` itself.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        if error is None:
            raise
        raise error("open", exc, None) from exc
    try:
        size = os.fstat(fd).st_size
        if size > 0:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":  # a torn last line: start on a fresh line
                payload = b"\n" + payload
        try:
            write_fully(fd, payload)
        except OSError as exc:
            try:
                os.ftruncate(fd, size)
            except OSError as again:
                if error is None:
                    raise
                raise error("write", exc, again) from exc
            if error is None:
                raise
            raise error("write", exc, None) from exc
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    """Make a rename inside ``directory`` durable (a no-op where the OS cannot)."""
    if sys.platform == "win32":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


LOCK_TIMEOUT_SECONDS = 30.0
_POLL_MAX = 0.01


def default_lock_timeout() -> float:
    """``NANOMEM_LOCK_TIMEOUT`` (seconds) when set to a positive number, else 30."""
    raw = os.environ.get("NANOMEM_LOCK_TIMEOUT", "")
    try:
        value = float(raw)
    except ValueError:
        return LOCK_TIMEOUT_SECONDS
    return value if value > 0 and value == value and value != float("inf") else LOCK_TIMEOUT_SECONDS


def read_lock_holder(path: Path) -> int | None:
    """The pid written into a lock file by its last holder, if readable."""
    try:
        text = Path(path).read_bytes()[:32].decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class FileLock:
    """An exclusive advisory lock on ``path``, shared by threads and processes.

    Re-entrant neither across threads nor within one: hold it for one short critical section.
    A thread lock guards the same object used from several threads of one process, because
    ``flock`` locks belong to the open file description, not the thread.
    """

    def __init__(self, path: Path, *, timeout: float | None = None) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._fd: int | None = None
        self._thread_lock = threading.Lock()

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return ``False`` at once if it is held.

        A blocking acquire raises :class:`LockError` after ``timeout`` seconds.
        """
        timeout = self.timeout if self.timeout is not None else default_lock_timeout()
        deadline = time.monotonic() + timeout
        if not self._thread_lock.acquire(blocking, timeout if blocking else -1):
            if blocking:
                raise self._timed_out(timeout)
            return False
        try:
            fd = self._open()
        except BaseException:
            self._thread_lock.release()
            raise
        try:
            got = self._lock_until(fd, blocking, deadline)
            if got:
                _write_pid(fd)
        except BaseException:
            os.close(fd)
            self._thread_lock.release()
            raise
        if not got:
            os.close(fd)
            self._thread_lock.release()
            if blocking:
                raise self._timed_out(timeout)
            return False
        self._fd = fd
        return True

    @staticmethod
    def _lock_until(fd: int, blocking: bool, deadline: float) -> bool:
        delay = 0.001
        while not _lock_fd(fd, False):
            left = deadline - time.monotonic()
            if not blocking or left <= 0:
                return False
            time.sleep(min(delay, left))
            delay = min(delay * 2, _POLL_MAX)
        return True

    def _open(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except IsADirectoryError as exc:
            raise LockError(f"{self.path}: is a directory, not a lock file; remove it "
                            f"(rmdir {self.path}) and retry") from exc
        except OSError as exc:
            hint = ("a symlink loop; remove the link" if exc.errno == errno.ELOOP
                    else "check the permissions of the file and its directory")
            raise LockError(f"{self.path}: cannot open lock file ({exc.strerror}); {hint}") from exc

    def _timed_out(self, timeout: float) -> LockError:
        pid = read_lock_holder(self.path)
        holder = f"pid {pid}" if pid is not None else "another process"
        return LockError(f"{self.path}: still held by {holder} after {timeout:g} s; wait for it "
                         "to finish or stop it (set NANOMEM_LOCK_TIMEOUT to wait longer)")

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


def _write_pid(fd: int) -> None:
    """Record the holder's pid in the lock file (best effort: the lock is what counts).

    One fixed-width write, no truncation: a metadata change per acquire would cost as much as
    the fsync of an append on a journalling file system.
    """
    try:
        os.pwrite(fd, f"{os.getpid():<20}\n".encode("ascii"), 0)
    except (OSError, AttributeError):  # pragma: no cover - pwrite is missing on Windows
        pass


def _lock_fd(fd: int, blocking: bool) -> bool:
    if sys.platform == "win32":  # pragma: no cover
        mode = msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK
        try:
            os.lseek(fd, 0, os.SEEK_SET)
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
