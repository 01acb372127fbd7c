"""The status stamp: ``nanomem status`` reads the repository part from the stamp the last
commit wrote, and says exactly what dulwich would (text and ``--json``), including after a
commit made with the real ``git`` CLI and after a hand edit."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nanomem.cli import main
from nanomem.versions.statusstamp import (
    STAMP,
    StatusStamp,
    blob_id,
    parse_stamp,
    read_head,
    read_stamp,
    read_stamped_status,
    render_stamp,
)
from nanomem.status import locate_git_dir
from nanomem.store.memfiles import read_memory_files
from nanomem.store.workspace import Workspace
from tests.gitstore_fixtures import append, git, open_store

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git CLI")


def _status(root: Path) -> tuple[str, dict]:
    outputs = []
    for extra in ([], ["--json"]):
        out, err = io.StringIO(), io.StringIO()
        assert main(["-w", str(root), "status", *extra], stdout=out, stderr=err) == 0, err.getvalue()
        outputs.append(out.getvalue())
    return outputs[0], json.loads(outputs[1])


def _both_paths(root: Path) -> tuple[tuple[str, dict], tuple[str, dict]]:
    """Status on the stamp's fast path, then with the stamp moved away (dulwich)."""
    stamp = locate_git_dir(root) / STAMP
    assert _fresh(root), "the stamp should match HEAD here"
    fast = _status(root)
    saved = stamp.read_bytes()
    stamp.unlink()
    try:
        slow = _status(root)
    finally:
        stamp.write_bytes(saved)
    return fast, slow


def _fresh(root: Path) -> bool:
    data = read_memory_files(Workspace(root))
    return read_stamped_status(locate_git_dir(root), data) is not None


def test_status_stamp_path_equals_dulwich_after_init_and_a_hand_edit(workspace: Path) -> None:
    open_store(workspace).close()
    fast, slow = _both_paths(workspace)
    assert fast == slow and fast[1]["uncommitted"] == []
    append(workspace / "USER.md", "- edited by hand\n")
    (workspace / "SOUL.md").unlink()
    fast, slow = _both_paths(workspace)
    assert fast == slow and fast[1]["uncommitted"] == ["SOUL.md", "USER.md"]


def test_status_stamp_path_equals_dulwich_in_a_separate_git_dir(workspace: Path) -> None:
    (workspace.parent / ".git").mkdir()  # inside another repository: .nanomem.git, bare
    open_store(workspace).close()
    assert (workspace / ".nanomem.git" / STAMP).is_file()
    append(workspace / "memory" / "MEMORY.md", "- budget 4200\n")
    fast, slow = _both_paths(workspace)
    assert fast == slow and fast[1]["uncommitted"] == ["memory/MEMORY.md"]
    assert fast[1]["git_dir"] == str(workspace.absolute() / ".nanomem.git")


def test_status_stamp_carries_the_last_dream_and_its_cursor(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- tea\n")
    dream = store.commit("dream: tea", "USER.md +1", {"Dream-Cursor": 7})
    append(workspace / "USER.md", "- coffee\n")
    store.commit("dream: coffee", trailers={"Dream-Cursor": "x"})  # a bad trailer is skipped
    append(workspace / "SOUL.md", "- brief\n")
    store.commit("manual: SOUL.md")
    store.close()
    fast, slow = _both_paths(workspace)
    assert fast == slow
    last = fast[1]["last_dream"]
    assert last["subject"] == "dream: coffee" and last["dream_cursor"] == 7
    assert dream is not None and last["sha"] != dream.sha


@pytest.mark.slow
@needs_git
def test_status_after_a_git_cli_commit_falls_back_then_the_next_commit_restamps(
        workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- tea\n")
    store.commit("dream: tea", trailers={"Dream-Cursor": 3})
    append(workspace / "USER.md", "- edited with git\n")
    git("commit", "-q", "-am", "edit in an editor", cwd=workspace)
    assert not _fresh(workspace)  # HEAD moved: the stamp is not trusted
    text, data = _status(workspace)
    assert data["head"] == git("rev-parse", "HEAD", cwd=workspace).strip()
    assert data["uncommitted"] == [] and data["last_dream"]["dream_cursor"] == 3
    append(workspace / "SOUL.md", "- brief\n")
    store.commit("manual: SOUL.md")  # the stale stamp is rebuilt by walking the history
    store.close()
    fast, slow = _both_paths(workspace)
    assert fast == slow and fast[1]["last_dream"]["subject"] == "dream: tea"
    git("pack-refs", "--all", cwd=workspace)  # HEAD's branch now only in packed-refs
    assert not (workspace / ".git" / "refs" / "heads" / "main").exists()
    fast, slow = _both_paths(workspace)
    assert fast == slow


@pytest.mark.slow
def test_cli_status_loads_no_dulwich_nor_jsonschema_while_the_stamp_matches(
        workspace: Path) -> None:
    open_store(workspace).close()
    probe = ("import io, sys; from nanomem.cli import main; "
             f"code = main(['-w', {str(workspace)!r}, 'status'], stdout=io.StringIO()); "
             "print(code, 'dulwich' in sys.modules, 'jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "False", "False"]
    (workspace / ".git" / STAMP).unlink()
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split()[:2] == ["0", "True"]


def test_status_never_writes_the_stamp(workspace: Path) -> None:
    open_store(workspace).close()
    stamp = workspace / ".git" / STAMP
    stamp.unlink()
    _status(workspace)
    assert not stamp.exists()


def test_read_stamp_refuses_a_damaged_or_foreign_stamp(workspace: Path) -> None:
    open_store(workspace).close()
    stamp = workspace / ".git" / STAMP
    good = stamp.read_text("utf-8")
    assert read_stamp(workspace / ".git") is not None
    for bad in ("", "{", "[]", good.replace('"version": 1', '"version": 2'),
                good.replace('"SOUL.md"', '"../etc/passwd"')):
        stamp.write_text(bad, "utf-8")
        assert read_stamp(workspace / ".git") is None
        assert _status(workspace)[1]["head"] == read_head(workspace / ".git")


def test_read_head_reads_loose_and_packed_refs_and_gives_up_on_the_unusual(tmp_path: Path) -> None:
    git_dir = tmp_path / "g"
    (git_dir / "refs" / "heads").mkdir(parents=True)
    sha, other = "a" * 40, "b" * 40
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    assert read_head(git_dir) is None  # no commit yet
    (git_dir / "packed-refs").write_text(f"# pack-refs with: peeled\n{other} refs/heads/main\n")
    assert read_head(git_dir) == other
    (git_dir / "refs" / "heads" / "main").write_text(sha + "\n")
    assert read_head(git_dir) == sha  # a loose ref wins over packed-refs
    (git_dir / "HEAD").write_text(other + "\n")
    assert read_head(git_dir) == other  # detached
    (git_dir / "HEAD").write_text("ref: ../../etc/passwd\n")
    assert read_head(git_dir) is None


def test_render_stamp_round_trips_and_blob_id_is_git_hash_object() -> None:
    stamp = StatusStamp("c" * 40, {"USER.md": blob_id(b"- tea\n")}, None, 4)
    assert parse_stamp(render_stamp(stamp)) == stamp
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_forget_leaves_no_trace_in_the_status_stamp(workspace: Path) -> None:
    from tests.forget_fixtures import FACT, close_opened, memory

    store = open_store(workspace)
    append(workspace / "USER.md", f"- {FACT} is a cousin\n")
    store.commit(f"dream: {FACT} noted", trailers={"Dream-Cursor": 1})
    store.close()
    stamp = workspace / ".git" / STAMP
    assert FACT in stamp.read_text("utf-8")
    try:
        assert memory(workspace).forget(FACT).status == "forgotten"
    finally:
        close_opened()
    assert FACT.lower() not in stamp.read_text("utf-8").lower()
    fast, slow = _both_paths(workspace)
    assert fast == slow
