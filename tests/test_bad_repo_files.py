"""Bad repository and memory files are one-line exit-2 errors naming the file and the fix, or
a warning that names the fix, never "internal error" (issue 11, item 15 leftovers)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e_support import cli, git_dir_of, init_ws


def _workspace_with_a_dream(tmp_path: Path) -> Path:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    assert cli("-w", str(ws), "dream").rc == 0
    return ws


@pytest.mark.parametrize("command", [("dream",), ("log",), ("restore",)])
def test_head_pointing_outside_the_repository_is_an_exit_2_error_naming_head(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    head = git_dir_of(ws) / "HEAD"
    head.write_text("ref: ../../../etc/passwd\n")
    run = cli("-w", str(ws), *command)
    assert run.rc == 2, run.err
    assert "internal error" not in run.err
    assert "HEAD: points to b'../../../etc/passwd'" in run.err
    assert "write `ref: refs/heads/main` into it" in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert head.read_text() == "ref: ../../../etc/passwd\n"  # nothing written through it


def test_head_pointing_outside_the_repository_makes_status_warn_not_fail(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    (git_dir_of(ws) / "HEAD").write_text("ref: ../../../etc/passwd\n")
    run = cli("-w", str(ws), "status", "--json")
    assert run.rc == 0 and json.loads(run.out)["head"] is None


def test_a_garbage_index_is_a_warning_and_the_dream_still_commits(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    (git_dir_of(ws) / "index").write_bytes(b"garbage")
    assert cli("-w", str(ws), "append", "- [durable] Project KX ships in May.").rc == 0
    run = cli("-w", str(ws), "dream", "--json")
    assert run.rc == 0, run.err
    assert json.loads(run.out)["status"] == "committed"
    assert "index: not updated" in run.err and "git reset -q" in run.err


def test_a_garbage_packed_refs_file_fails_the_dream_with_a_line_naming_it(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    (git_dir_of(ws) / "packed-refs").write_text("garbage\nzz\n")
    before = (ws / "memory" / "MEMORY.md").read_bytes()
    assert cli("-w", str(ws), "append", "- [durable] Project KX ships in May.").rc == 0
    run = cli("-w", str(ws), "dream")
    assert run.rc == 1 and "internal error" not in run.err
    assert "packed-refs or a ref file: invalid ref line" in run.err and "and retry" in run.err
    assert (ws / "memory" / "MEMORY.md").read_bytes() == before  # put back, nothing lost
    (git_dir_of(ws) / "packed-refs").unlink()
    assert cli("-w", str(ws), "dream").rc == 0


@pytest.mark.parametrize("notes", ["[1,2", '{"x": [1, 2], "http://a": {"refused": 5}}', "7"])
def test_a_wrongly_shaped_provider_notes_file_is_never_an_internal_error(
    tmp_path: Path, notes: str
) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    (ws / "memory" / ".provider_notes.json").write_text(notes)
    for command in (("status",), ("dream",), ("doctor",)):
        run = cli("-w", str(ws), *command)
        assert run.rc in (0, 1) and "internal error" not in run.err, (command, run.err)


def test_a_memory_file_that_is_a_symlink_loop_is_an_exit_2_error_naming_it(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    (ws / "USER.md").unlink()
    os.symlink("USER.md", ws / "USER.md")
    run = cli("-w", str(ws), "dream")
    assert run.rc == 2, run.err
    assert "USER.md: is a symlink that cannot be followed" in run.err
    assert "replace it with a file" in run.err and "internal error" not in run.err


def _snapshot(ws: Path) -> dict[str, bytes]:
    return {p.relative_to(ws).as_posix(): p.read_bytes()
            for p in sorted(ws.rglob("*")) if p.is_file() and "index.sqlite3" not in p.name}


@pytest.mark.parametrize("command", [("log",), ("restore",), ("dream",), ("forget", "Lyon")])
def test_a_corrupt_loose_object_is_an_error_naming_its_file_not_an_internal_error(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    git_dir = git_dir_of(ws)
    head = (git_dir / (git_dir / "HEAD").read_text().split()[-1]).read_text().strip()
    loose = git_dir / "objects" / head[:2] / head[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"x\x9c not a zlib stream at all")  # hostile.py: "git: corrupt HEAD object"
    before = _snapshot(ws)
    run = cli("-w", str(ws), *command)
    assert run.rc == 1, run.err
    assert "internal error" not in run.err
    assert f"{loose}: object {head[:7]} is damaged (zlib:" in run.err
    assert "fsck" in run.err
    assert _snapshot(ws) == before


def test_a_missing_head_is_an_error_naming_it_and_status_writes_nothing(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    git_dir = git_dir_of(ws)
    (git_dir / "HEAD").unlink()  # hostile.py: "git: HEAD missing"
    before = _snapshot(ws)
    status = cli("-w", str(ws), "status")
    assert status.rc == 0, status.err
    assert _snapshot(ws) == before  # no orphan init: commit, no new HEAD
    for command in (("log",), ("dream",)):
        run = cli("-w", str(ws), *command)
        assert run.rc == 2, run.err
        assert f"{git_dir}/HEAD: missing; write `ref: refs/heads/main` into it" in run.err
    assert _snapshot(ws) == before


def test_a_garbage_index_does_not_stop_a_forget_half_way(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    (ws / ".git" / "index").write_bytes(b"\xe5\xd0f\x88 garbage")  # hostile.py: "git: index garbage"
    run = cli("-w", str(ws), "forget", "Lyon")
    assert run.rc == 0, run.err
    assert "internal error" not in run.err
    assert "index: not updated" in run.err
    assert "Lyon" not in (ws / "memory" / "history.jsonl").read_text()


def test_a_forget_that_cannot_write_is_an_error_naming_the_file(tmp_path: Path) -> None:
    ws = _workspace_with_a_dream(tmp_path)
    journal = ws / "memory" / ".forget-journal.json"
    journal.mkdir()  # as unusable as an unwritable file, also for root
    before = _snapshot(ws)
    run = cli("-w", str(ws), "forget", "Lyon")
    assert run.rc == 2, run.err
    assert "internal error" not in run.err
    assert f"{journal}: unusable (Is a directory)" in run.err
    assert _snapshot(ws) == before
