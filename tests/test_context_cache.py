"""Memory.context reuses unchanged memory files and blocks; the cached block is the uncached one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from nanomem.memory import Memory
from nanomem.store.workspace import MEMORY_FILES, init_workspace
from nanomem.text import context as context_module

HOUR_NS = 3600 * 10**9


def _clear_memos() -> None:
    for table in (context_module._REDACTED, context_module._LINES, context_module._BLOCKS):
        table.clear()


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    init_workspace(root)
    old = time.time_ns() - HOUR_NS
    for n, rel in enumerate(MEMORY_FILES):
        lines = [f"- fact {n}.{i} about tea, Lisbon and the budget" for i in range(60)]
        (root / rel).write_text(f"# {rel}\n\n- [pinned] rule {n}\n" + "\n".join(lines) + "\n", "utf-8")
        os.utime(root / rel, ns=(old, old))
    return root


def _uncached(root: Path, budget: int, query: str | None = None) -> str:
    _clear_memos()
    with Memory(root) as fresh:
        return fresh.context(budget, query=query)


def test_context_cached_equals_uncached_byte_for_byte(workspace: Path) -> None:
    with Memory(workspace) as mem:
        for budget in (1500, 300):
            first = mem.context(budget)
            again = mem.context(budget)
            assert again == first == _uncached(workspace, budget)
        assert mem.context(1500, query="tea") == _uncached(workspace, 1500, query="tea")


def test_context_sees_a_same_size_edit_with_a_new_mtime(workspace: Path) -> None:
    target = workspace / MEMORY_FILES[-1]
    with Memory(workspace) as mem:
        before = mem.context(1500)
        text = target.read_text("utf-8").replace("rule 2", "RULE 2")
        target.write_text(text, "utf-8")
        then = time.time_ns() - HOUR_NS // 2
        os.utime(target, ns=(then, then))
        after = mem.context(1500)
    assert after != before and "RULE 2" in after
    assert after == _uncached(workspace, 1500)


def test_context_rereads_a_file_written_in_the_same_tick_it_was_read(workspace: Path) -> None:
    target = workspace / MEMORY_FILES[-1]
    with Memory(workspace) as mem:
        target.write_text(target.read_text("utf-8").replace("rule 2", "rule X"), "utf-8")
        stamp = time.time_ns() + 10**9  # modified "now" as far as the read can tell
        os.utime(target, ns=(stamp, stamp))
        assert "rule X" in mem.context(1500)  # read just after the write: racily clean
        target.write_text(target.read_text("utf-8").replace("rule X", "rule Y"), "utf-8")
        os.utime(target, ns=(stamp, stamp))  # same size, same mtime: only the racy rule sees it
        assert "rule Y" in mem.context(1500)
