"""The one reader and writer of the memory files and its one symlink policy, everywhere:
the prompt block, Dream (dry run and real), restore and ``manual:`` commits."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from tests.dream_fixtures import add_fact, finish, make_setup, provider_over
from tests.fakellm import FakeLLM

from nanomem.errors import GitStoreError
from nanomem.memory import Memory
from nanomem.store.memfiles import read_memory_files, write_memory_files
from nanomem.store.workspace import Workspace

SECRET_NOTES = "- outside-the-workspace-notes: the door code is 4471\n"
OPENAI_KEY = "sk-proj-" + "Zt4x9QmR2vLp7NcW8yHb3KfJ6dGs1TaE5uXo"


def _clock() -> datetime:
    return datetime(2026, 11, 30, 16, 40)


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every path under ``root`` with its bytes (links as their target text)."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + str(path.readlink())
        elif path.is_file():
            out[rel] = path.read_bytes()
        else:
            out[rel] = "dir"
    return out


def _link_user_md(workspace: Path, target: Path | str) -> Path:
    user = workspace / "USER.md"
    user.unlink()
    user.symlink_to(target)
    return user


def test_memfiles_context_leaves_out_a_memory_file_linked_outside_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(SECRET_NOTES, "utf-8")
    _link_user_md(workspace, outside)

    with Memory(workspace, clock=_clock) as mem:
        block = mem.context(2000)
        files = mem.read_files()
        status = mem.status()

    assert "door code" not in block and "USER.md" not in files
    assert "## SOUL.md" in block
    refused = status.files["USER.md"].refused
    assert refused is not None and "outside the workspace" in refused


def test_memfiles_dream_dry_run_never_sends_a_file_linked_outside_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(SECRET_NOTES, "utf-8")
    fake = FakeLLM()
    fake.enqueue_tool_calls([finish()])

    with provider_over("mock", fake) as engine, Memory(workspace, engine=engine) as mem:
        mem.store  # the repository exists before the link is made
        _link_user_md(workspace, outside)
        mem.history.append("- [durable] User likes jazz.", kind="summary")
        with pytest.raises(GitStoreError, match="outside the workspace"):
            mem.dream(dry_run=True)
        with pytest.raises(GitStoreError, match="outside the workspace"):
            mem.dream()

    assert "door code" not in json.dumps(fake.requests)
    assert outside.read_text("utf-8") == SECRET_NOTES


@pytest.mark.parametrize("target", ["memory/history.jsonl", ".git/config"])
def test_memfiles_restore_refuses_a_link_into_bookkeeping_and_leaves_it_byte_identical(
    workspace: Path, target: str
) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.history.append("- [durable] User likes jazz.", kind="summary")
        mem.store  # the init: commit
        user = workspace / "USER.md"
        user.write_text(user.read_text("utf-8") + "- likes jazz\n", "utf-8")
        dream = mem.store.commit("dream: jazz", trailers={"Dream-Cursor": "1", "Batch": "1-1"})
        kept = (workspace / target).read_bytes()
        _link_user_md(workspace, Path(target))
        head = mem.store.head()

        with pytest.raises(GitStoreError, match="a file nanomem manages itself"):
            mem.restore(dream.sha[:7])
        with pytest.raises(GitStoreError, match="a file nanomem manages itself"):
            mem.commit_hand_edits()
        with pytest.raises(GitStoreError, match="a file nanomem manages itself"):
            mem.store.commit_manual_if_dirty()

        assert (workspace / target).read_bytes() == kept
        assert mem.store.head() == head
        assert user.is_symlink()


def test_memfiles_write_checks_every_link_before_writing_anything(workspace: Path) -> None:
    ws = Workspace(workspace)
    history = ws.history
    history.write_bytes(b'{"cursor": 1}\n')
    soul_before = ws.soul.read_bytes()
    _link_user_md(workspace, Path("memory") / "history.jsonl")

    with pytest.raises(GitStoreError, match="memory/history.jsonl"):
        write_memory_files(ws, {"SOUL.md": b"# new soul\n", "USER.md": b"# gone\n"},
                           ["SOUL.md", "USER.md"])

    assert history.read_bytes() == b'{"cursor": 1}\n'
    assert ws.soul.read_bytes() == soul_before


def test_memfiles_read_allows_a_link_to_another_file_inside_the_workspace(
    workspace: Path,
) -> None:
    notes = workspace / "notes" / "user.md"
    notes.parent.mkdir()
    notes.write_bytes(b"- from the linked file\n")
    _link_user_md(workspace, Path("notes") / "user.md")

    assert read_memory_files(Workspace(workspace))["USER.md"] == b"- from the linked file\n"


def test_memfiles_run_dream_alone_redacts_typed_credentials_before_the_model_sees_them(
    tmp_path: Path, workspace: Path
) -> None:
    setup = make_setup(workspace)
    facts = setup.read("USER.md")
    setup.write("USER.md", facts + f"- my key {OPENAI_KEY}\n")
    setup.history.append("- [durable] User likes jazz.", kind="summary")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- User likes jazz."), finish()])

    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)

    assert result.status == "committed", result.reason
    assert OPENAI_KEY not in json.dumps(fake.requests)
    assert OPENAI_KEY not in setup.read("USER.md") and "[REDACTED:" in setup.read("USER.md")


def test_memfiles_run_dream_alone_moves_a_lagging_dream_cursor_up_to_the_commit(
    workspace: Path,
) -> None:
    setup = make_setup(workspace)
    for text in ("- [durable] User likes jazz.", "- [durable] User likes tea."):
        setup.history.append(text, kind="summary")
    user = setup.read("USER.md")
    setup.write("USER.md", user + "- User likes jazz.\n- User likes tea.\n")
    setup.store.commit("dream: entries 1-2", trailers={"Dream-Cursor": "2", "Batch": "1-2"})
    fake = FakeLLM()  # a Dream killed before its cursor write: nothing is left to do

    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)

    assert result.status == "nothing_to_do"
    assert setup.history.read_dream_cursor() == 2
    assert fake.requests == []


def test_memfiles_hand_edits_are_redacted_on_disk_before_they_are_versioned(
    workspace: Path,
) -> None:
    setup = make_setup(workspace)
    user = setup.ws.user
    user.write_text(user.read_text("utf-8") + f"- my key {OPENAI_KEY}\n", "utf-8")

    with Memory(workspace, clock=_clock) as mem:
        info = mem.commit_hand_edits()
        blob = mem.store.repo[mem.store.repo[info.sha.encode()].tree][b"USER.md"][1]
        committed = mem.store.repo[blob].data

    assert info.subject == "manual: USER.md"
    assert OPENAI_KEY.encode() not in committed and b"[REDACTED:" in committed
    assert user.read_bytes() == committed


def test_memfiles_git_layer_never_rewrites_the_working_tree(workspace: Path) -> None:
    setup = make_setup(workspace)
    user = setup.ws.user
    user.write_text(user.read_text("utf-8") + f"- my key {OPENAI_KEY}\n", "utf-8")
    before = _tree(workspace)

    setup.store.commit("manual: USER.md")

    after = {rel: data for rel, data in _tree(workspace).items() if not rel.startswith(".git")}
    assert after == {rel: data for rel, data in before.items() if not rel.startswith(".git")}


def test_memfiles_forget_never_reads_nor_writes_through_a_link_outside_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(SECRET_NOTES, "utf-8")
    with Memory(workspace, clock=_clock) as mem:
        mem.store  # the init: commit, before the link is made
        _link_user_md(workspace, outside)
        history = mem.workspace.history
        mem.history.append("- [durable] the door code is 4471", kind="summary")
        kept = history.read_bytes()

        with pytest.raises(GitStoreError, match="outside the workspace"):
            mem.forget("door code", dry_run=True)
        with pytest.raises(GitStoreError, match="outside the workspace"):
            mem.forget("door code")

        assert outside.read_text("utf-8") == SECRET_NOTES
        assert history.read_bytes() == kept
