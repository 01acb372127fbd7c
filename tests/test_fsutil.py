"""atomic_write and FileLock: the two I/O primitives everything else relies on."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nanomem.errors import LockError
from nanomem.store.fsutil import LOCK_TIMEOUT_SECONDS, FileLock, atomic_write, default_lock_timeout


def test_atomic_write_replaces_content_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.txt"
    atomic_write(target, "first")
    atomic_write(target, b"second \xff")
    assert target.read_bytes() == b"second \xff"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.txt"]


def test_atomic_write_keeps_old_content_when_the_write_fails(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(TypeError):
        atomic_write(target, 12345)  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_file_lock_non_blocking_acquire_fails_while_another_holder_has_it(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    first, second = FileLock(path), FileLock(path)
    assert first.acquire(blocking=False)
    try:
        assert not second.acquire(blocking=False)
    finally:
        first.release()
    assert second.acquire(blocking=False)
    second.release()


@pytest.mark.slow
def test_file_lock_excludes_another_process(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    script = textwrap.dedent(
        f"""
        from nanomem.store.fsutil import FileLock
        lock = FileLock({str(path)!r})
        print("got" if lock.acquire(blocking=False) else "busy")
        """
    )
    with FileLock(path):
        busy = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    free = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert busy.stdout.strip() == "busy"
    assert free.stdout.strip() == "got"


def test_file_lock_times_out_with_an_error_naming_the_holder_pid(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    holder = FileLock(path)
    holder.acquire()
    try:
        assert path.read_text().strip() == str(os.getpid())
        with pytest.raises(LockError, match=rf"\.lock: still held by pid {os.getpid()} after 0.05 s"):
            FileLock(path, timeout=0.05).acquire()
    finally:
        holder.release()
    assert FileLock(path, timeout=0.05).acquire()


def test_file_lock_timeout_defaults_to_the_environment_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NANOMEM_LOCK_TIMEOUT", "2.5")
    assert default_lock_timeout() == 2.5
    for bad in ("nan", "-1", "soon", "inf"):
        monkeypatch.setenv("NANOMEM_LOCK_TIMEOUT", bad)
        assert default_lock_timeout() == LOCK_TIMEOUT_SECONDS == 30.0


def test_file_lock_on_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    path.mkdir()
    with pytest.raises(LockError, match=r"\.lock: is a directory, not a lock file; remove it") as info:
        FileLock(path).acquire()
    assert info.value.exit_code == 2
