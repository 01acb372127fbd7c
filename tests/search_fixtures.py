"""Shared set-up of the search tests: a Memory on a fixed clock and turns said into its archive."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.memory import Memory


def fixed_clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def say(mem: Memory, texts: list[str], *, key: str = "cli", day: int = 8) -> None:
    """Archive ``texts`` as one chunk of session ``key``, said on 2026-05-``day`` one minute apart
    (user and assistant in turn)."""
    mem.archive.append_messages(
        [{"role": "user" if i % 2 == 0 else "assistant", "content": text,
          "timestamp": f"2026-05-{day:02d}T09:{i:02d}:00"} for i, text in enumerate(texts)],
        session_key=key, start=0, chunk=f"{key}{day}")


@pytest.fixture
def mem(workspace: Path) -> Iterator[Memory]:
    memory = Memory(workspace, clock=fixed_clock)
    yield memory
    memory.close()
