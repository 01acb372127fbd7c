"""Reading never writes: read-only commands in a plain directory create no repository."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from nanomem.cli import main
from nanomem.memory import Memory


def _tree(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}


def _cli(workspace: Path, *argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["-w", str(workspace), *argv], stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("argv", [
    ("log",), ("log", "--json"), ("restore",), ("restore", "--json"),
    ("command", "/dream-log"), ("command", "/dream-restore"), ("status",),
])
def test_cli_read_only_commands_leave_a_plain_directory_byte_identical(
    workspace: Path, argv: tuple[str, ...]
) -> None:
    before = _tree(workspace)

    code, output = _cli(workspace, *argv)

    assert code == 0, output
    assert _tree(workspace) == before
    assert not (workspace / ".git").exists() and not (workspace / ".gitignore").exists()


def test_memory_read_only_calls_create_no_repository(workspace: Path) -> None:
    before = _tree(workspace)

    with Memory(workspace) as mem:
        assert mem.log() is None
        assert mem.versions() == []
        assert "No Dream commit yet" in (mem.handle_command("/dream-log") or "")
        assert "No versions yet" in (mem.handle_command("/dream-restore") or "")
        assert "no memory repository" in (mem.handle_command("/dream-log abcd") or "")
        assert "no memory repository" in (mem.handle_command("/dream-restore abcd") or "")
    code, output = _cli(workspace, "log", "abcd")
    assert code == 2 and "no memory repository" in output

    assert _tree(workspace) == before
