"""Helpers shared by the test_gitstore_*.py files: a stepping clock, the git CLI, stores."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

from nanomem.config import Config
from nanomem.versions.gitstore import GitStore

CONFIG = Config(author_name="Memory Bot", author_email="bot@example.com")


class StepClock:
    """Injected clock: each call is one minute after the previous one."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=2)))

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def open_store(root: Path, **kwargs) -> GitStore:
    """Open (or create) the memory repository of ``root`` with a stepping clock."""
    return GitStore.open(root, CONFIG, clock=kwargs.pop("clock", StepClock()), **kwargs)


def git_bytes(*args: str, cwd: Path | None = None) -> bytes:
    """Run the real git CLI; return stdout as bytes (fails the test on a non-zero exit)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr!r}")
    return done.stdout


def git(*args: str, cwd: Path | None = None) -> str:
    """Run the real git CLI; return stdout as text."""
    return git_bytes(*args, cwd=cwd).decode("utf-8", "replace")


def append(path: Path, text: str) -> None:
    """Append a line to a memory file, as a person or Dream would."""
    path.write_bytes(path.read_bytes() + text.encode("utf-8"))
