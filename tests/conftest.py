"""Shared fixtures: a fresh workspace copied from ``workspace_template/``."""

from __future__ import annotations

import multiprocessing.process
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = REPO_ROOT / "workspace_template"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace directory holding a copy of the template (no git repository yet)."""
    root = tmp_path / "ws"
    shutil.copytree(TEMPLATE, root, ignore=shutil.ignore_patterns(".keep"))
    (root / "sessions").mkdir(exist_ok=True)
    (root / "prompts").mkdir(exist_ok=True)
    return root


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's NANOMEM_* settings or a real git identity."""
    for var in ("NANOMEM_PROVIDER", "NANOMEM_BASE_URL", "NANOMEM_API_KEY", "NANOMEM_MODEL",
                "NANOMEM_CONSOLIDATE_MODEL", "NANOMEM_DREAM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Person")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Person")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")


@pytest.fixture(autouse=True)
def _slow_mark_is_honest(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that starts a process or a server must be marked ``slow``, so that
    ``pytest -m "not slow"`` stays a fast loop; an unmarked one fails here, naming itself."""
    if request.node.get_closest_marker("slow") is not None:
        return

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError(
            f"{request.node.nodeid} starts a process or a server: mark it @pytest.mark.slow"
        )

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse)
    monkeypatch.setattr(socket.socket, "bind", refuse)
    monkeypatch.setattr(os, "fork", refuse)
