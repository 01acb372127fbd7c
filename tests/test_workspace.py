"""Workspace paths and ``init_workspace`` from the template."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanomem.errors import WorkspaceError
from nanomem.store.workspace import MEMORY_FILES, Workspace, init_workspace


def test_workspace_paths_follow_the_nanobot_layout(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    rel = {name: getattr(ws, name).relative_to(tmp_path).as_posix()
           for name in ("soul", "user", "memory_md", "history", "cursor", "dream_cursor")}
    assert rel == {
        "soul": "SOUL.md",
        "user": "USER.md",
        "memory_md": "memory/MEMORY.md",
        "history": "memory/history.jsonl",
        "cursor": "memory/.cursor",
        "dream_cursor": "memory/.dream_cursor",
    }
    assert list(ws.memory_paths()) == list(MEMORY_FILES)


def test_init_workspace_copies_template_with_pin_instructions(tmp_path: Path) -> None:
    created = init_workspace(tmp_path / "ws")
    root = tmp_path / "ws"
    for rel in MEMORY_FILES:
        assert rel in created
        assert "<!-- pin -->" in (root / rel).read_text(encoding="utf-8")
    assert (root / "prompts").is_dir()
    assert not (root / "prompts" / ".keep").exists()
    assert "[provider]" in (root / "nanomem.toml").read_text(encoding="utf-8")


def test_init_workspace_is_idempotent_and_never_overwrites(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    init_workspace(root)
    (root / "USER.md").write_text("my own notes\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert init_workspace(root) == []
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert after == before


def test_init_workspace_refuses_a_file_in_the_way(tmp_path: Path) -> None:
    blocker = tmp_path / "ws"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceError, match="not a directory"):
        init_workspace(blocker)
