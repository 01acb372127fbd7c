"""Helpers for the end-to-end tests (tests/test_e2e_*.py): the real CLI, the real git CLI.

Every helper runs what a user runs: ``python -m nanomem`` in a subprocess (or ``cli.main``
in-process where a subprocess adds nothing) and ``git`` against the memory repository.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanomem.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
API_KEY = "sk-test-SECRETe2eKEY0123456789abcdefXYZ"


@dataclass(frozen=True)
class Run:
    """The outcome of one CLI call."""

    rc: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def base_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: no NANOMEM_* leak from the developer, a git identity."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANOMEM_", "GIT_"))}
    env.update(
        GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Test Person", GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="Test Person", GIT_COMMITTER_EMAIL="t@example.com",
        PYTHONPATH=str(REPO_ROOT), PYTHONDONTWRITEBYTECODE="1",
    )
    env.update(extra)
    return env


def nanomem(ws: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60,
            cwd: Path | None = None) -> Run:
    """``python -m nanomem -w WS ARGS`` as a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-m", "nanomem", "-w", str(ws), *args], capture_output=True, text=True,
        env=env or base_env(), timeout=timeout, cwd=cwd or ws.parent,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def popen_nanomem(ws: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``python -m nanomem -w WS ARGS`` without waiting."""
    return subprocess.Popen(
        [sys.executable, "-m", "nanomem", "-w", str(ws), *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env or base_env(), cwd=ws.parent,
    )


def cli(*argv: str) -> Run:
    """``nanomem.cli.main(argv)`` in-process, capturing stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), stdout=out, stderr=err)
    return Run(rc, out.getvalue(), err.getvalue())


def git(git_dir: Path, *args: str, check: bool = True, work_tree: Path | None = None) -> str:
    """The real git CLI against ``git_dir``; returns stdout (text, undecodable bytes replaced)."""
    cmd = ["git", f"--git-dir={git_dir}"]
    if work_tree is not None:
        cmd.append(f"--work-tree={work_tree}")
    proc = subprocess.run([*cmd, *args], capture_output=True, env=base_env())
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")


def fsck(git_dir: Path) -> None:
    """Assert ``git fsck --strict`` is clean (exit 0, no error or warning lines) and that no
    commit has the same tree as its first parent (an empty commit)."""
    proc = subprocess.run(["git", f"--git-dir={git_dir}", "fsck", "--strict", "--no-dangling"],
                          capture_output=True, text=True, env=base_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "error" not in proc.stderr.lower() and "warning" not in proc.stderr.lower(), proc.stderr
    trees = {}
    log = subprocess.run(["git", f"--git-dir={git_dir}", "log", "--all", "--format=%H %T %P"],
                         capture_output=True, text=True, env=base_env(), check=True).stdout
    for line in log.splitlines():
        sha, tree, *parents = line.split()
        trees[sha] = (tree, parents)
    for sha, (tree, parents) in trees.items():  # DESIGN §5: no empty commits, ever
        assert not parents or trees[parents[0]][0] != tree, f"empty commit {sha}"


def all_git_objects(git_dir: Path) -> bytes:
    """The contents of every object in the repository (loose and packed), concatenated."""
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True, env=base_env(), check=True,
    )
    return listing.stdout


def init_ws(parent: Path, name: str = "ws") -> Path:
    """``nanomem init`` a fresh workspace under ``parent`` (in-process); returns its path."""
    root = parent / name
    run = cli("init", str(root))
    assert run.rc == 0, run.err
    return root


def git_dir_of(ws: Path) -> Path:
    nested = ws / ".nanomem.git"
    return nested if nested.is_dir() else ws / ".git"


def history_lines(ws: Path) -> list[dict[str, Any]]:
    path = ws / "memory" / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def memory_bytes(ws: Path) -> dict[str, bytes | None]:
    """The three memory files' bytes (None for a missing one)."""
    out: dict[str, bytes | None] = {}
    for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        path = ws / rel
        out[rel] = path.read_bytes() if path.exists() else None
    return out


def committed_bytes(ws: Path, rev: str = "HEAD") -> dict[str, bytes | None]:
    """The memory files as committed at ``rev`` (via ``git show``)."""
    out: dict[str, bytes | None] = {}
    for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        proc = subprocess.run(["git", f"--git-dir={git_dir_of(ws)}", "show", f"{rev}:{rel}"],
                              capture_output=True, env=base_env())
        out[rel] = proc.stdout if proc.returncode == 0 else None
    return out


def subjects(ws: Path) -> list[str]:
    """Commit subjects, newest first."""
    return git(git_dir_of(ws), "log", "--format=%s").splitlines()


def dream_cursor(ws: Path) -> str:
    path = ws / "memory" / ".dream_cursor"
    return path.read_text("utf-8").strip() if path.exists() else ""


def fake_edit(path: str, old: str, new: str) -> tuple[str, dict[str, str]]:
    """A FakeLLM ``edit_file`` call."""
    return ("edit_file", {"path": path, "old_text": old, "new_text": new})


def fake_finish(status: str = "updated", note: str = "done") -> tuple[str, dict[str, str]]:
    return ("finish", {"status": status, "note": note})


def openai_env(base_url: str, **extra: str) -> dict[str, str]:
    """A shell environment pointing nanomem at an OpenAI-compatible endpoint with the test key."""
    return base_env(NANOMEM_PROVIDER="openai", NANOMEM_BASE_URL=base_url,
                    NANOMEM_MODEL="fake-model", NANOMEM_API_KEY=API_KEY, **extra)
