"""Forget end to end: the real CLI, the real git CLI, and ``kill -9`` at every step."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nanomem.forget.run import STEPS
from nanomem.versions.gitstore import locate_git_dir
from tests.e2e_support import base_env, nanomem
from tests.forget_fixtures import FACT, byte_hits, plant
from tests.gitstore_fixtures import git, git_bytes

pytestmark = pytest.mark.slow

_KILL_AT = r"""
import os, signal, sys
from nanomem.memory import Memory
ws, at, fact = sys.argv[1:4]
def on_step(name):
    if name == at or (at == "file" and name.startswith("file:")):
        os.kill(os.getpid(), signal.SIGKILL)
with Memory(ws) as mem:
    mem.forget(fact, on_step=on_step)
"""


def _git_dir(ws: Path) -> str:
    return str(locate_git_dir(ws)[0])


def _assert_no_object_holds_it(ws: Path) -> None:
    dump = git_bytes(f"--git-dir={_git_dir(ws)}", "cat-file", "--batch-all-objects", "--batch")
    assert dump and b"zanzibar" not in dump.lower() and b"quokka" not in dump.lower()


def test_forget_cli_leaves_no_object_and_fsck_strict_is_clean(workspace: Path) -> None:
    plant(workspace)
    dump = git_bytes(f"--git-dir={_git_dir(workspace)}", "cat-file", "--batch-all-objects", "--batch")
    assert b"zanzibar" in dump.lower()

    run = nanomem(workspace, "forget", FACT, "--json")

    assert run.rc == 0, run.err
    assert run.json()["status"] == "forgotten" and run.json()["sweep"]["hits"] == 0
    _assert_no_object_holds_it(workspace)
    git(f"--git-dir={_git_dir(workspace)}", "fsck", "--strict", "--no-dangling")
    assert byte_hits(workspace) == []
    log = git(f"--git-dir={_git_dir(workspace)}", "log", "--format=%s")
    assert log.splitlines()[0].startswith("forget: ") and len(log.splitlines()) == 24  # 23 old ones + the receipt
    assert git("status", "--porcelain", cwd=workspace) == ""


def _old_and_new_user(ws: Path) -> tuple[str, str]:
    old = (ws / "USER.md").read_text("utf-8")
    new = "".join(line for line in old.splitlines(keepends=True) if FACT not in line)
    return old, new


def _assert_each_place_whole(ws: Path, old_user: str, new_user: str, old_shas: set[str]) -> None:
    assert (ws / "USER.md").read_text("utf-8") in (old_user, new_user)
    for path in [*(ws / "memory").rglob("*.jsonl"), *(ws / "sessions").glob("*.jsonl")]:
        for line in path.read_text("utf-8").splitlines():
            json.loads(line)  # every line whole
    git(f"--git-dir={_git_dir(ws)}", "fsck", "--strict")
    head = git(f"--git-dir={_git_dir(ws)}", "rev-parse", "HEAD").strip()
    head_user = git(f"--git-dir={_git_dir(ws)}", "show", "HEAD:USER.md")
    if head in old_shas:
        assert FACT in head_user  # the old history, whole
    else:
        assert FACT not in head_user  # the new one
        assert (ws / "USER.md").read_text("utf-8") == new_user


@pytest.mark.parametrize("at", ["journal", "file", *STEPS[1:]])
def test_forget_kill9_at_each_step_leaves_a_consistent_state_and_a_rerun_finishes(
    workspace: Path, at: str
) -> None:
    shas = set(plant(workspace)["shas"])
    old_user, new_user = _old_and_new_user(workspace)
    manual = git(f"--git-dir={_git_dir(workspace)}", "log", "--format=%s").count("manual:")

    killed = subprocess.run([sys.executable, "-c", _KILL_AT, str(workspace), at, FACT],
                            env=base_env(), capture_output=True, text=True, timeout=120)

    assert killed.returncode == -9, killed.stderr
    _assert_each_place_whole(workspace, old_user, new_user, shas)
    rerun = nanomem(workspace, "forget", FACT, "--json")
    assert rerun.rc == 0, rerun.err + rerun.out
    receipt = rerun.json()
    assert receipt["status"] == "forgotten" and receipt["commits_rewritten"] >= 21
    assert receipt["counts"]["files"] == 1 and receipt["counts"]["history"] >= 4
    _assert_no_object_holds_it(workspace)
    assert byte_hits(workspace) == []
    log = (workspace / "memory" / "forget-log.jsonl").read_text("utf-8").splitlines()
    subjects = git(f"--git-dir={_git_dir(workspace)}", "log", "--format=%s").splitlines()
    assert len(log) == 1 and sum(s.startswith("forget:") for s in subjects) == 1
    # the files the killed run scrubbed are its own write, not a hand edit (session 27)
    assert sum(s.startswith("manual:") for s in subjects) == manual, subjects[:4]
    assert not (workspace / "memory" / ".forget-journal.json").exists()
