"""GitStore.restore: safe, exact, honest, undoable, cursor-neutral; symlinked memory files."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.objects import Commit

from tests.gitstore_fixtures import append, open_store
from nanomem.errors import GitStoreError


def test_restore_puts_files_back_as_before_the_commit(workspace: Path) -> None:
    store = open_store(workspace)
    user = workspace / "USER.md"
    before = user.read_bytes()
    append(user, "- Ada is allergic to peanuts\n")
    dream = store.commit("dream: allergy")
    result = store.restore(dream.sha[:7])
    assert result.status == "restored"
    assert result.files == ("USER.md",)
    assert result.target == dream.sha
    assert user.read_bytes() == before
    assert result.commit.subject == f'restore: to {dream.sha[:7]} (before "dream: allergy")'
    assert store.head() == result.commit.sha
    assert store.dirty_files() == []


def test_restore_twice_says_already_without_new_commit(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- x\n")
    dream = store.commit("dream: x")
    store.restore(dream.sha[:5])
    head = store.head()
    again = store.restore(dream.sha[:5])
    assert again.status == "already" and again.files == () and again.commit is None
    assert store.head() == head


def test_restore_of_a_restore_brings_the_change_back(workspace: Path) -> None:
    store = open_store(workspace)
    user = workspace / "USER.md"
    append(user, "- likes green tea\n")
    store.commit("dream: tea")
    after_dream = user.read_bytes()
    undo = store.restore(store.head()[:6])
    redo = store.restore(undo.commit.sha[:6])
    assert redo.status == "restored"
    assert user.read_bytes() == after_dream


def test_restore_commits_hand_edits_first(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- dream fact\n")
    dream = store.commit("dream: fact")
    append(workspace / "SOUL.md", "- hand edit, never lost\n")
    result = store.restore(dream.sha[:7])
    assert result.manual is not None
    assert result.manual.subject == "manual: SOUL.md"
    assert "+- hand edit, never lost\n" in store.show(result.manual.sha).diff
    # the state before the dream had no hand edit either: it is restored too, and reported
    assert result.files == ("SOUL.md", "USER.md")
    assert [c.subject.split(":")[0] for c in store.log(2)] == ["restore", "manual"]


def test_restore_reports_every_file_that_changed_not_only_the_targets(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- a\n")
    dream = store.commit("dream: a")
    append(workspace / "memory" / "MEMORY.md", "- b\n")
    store.commit("dream: b")
    result = store.restore(dream.sha[:7])
    assert dream.files == ("USER.md",)
    assert result.files == ("USER.md", "memory/MEMORY.md")


def test_restore_is_byte_exact_for_non_utf8_content(workspace: Path) -> None:
    store = open_store(workspace)
    memory = workspace / "memory" / "MEMORY.md"
    odd = b"# Memory\r\n- caf\xe9 \xff\xfe bytes\x00 and no newline"
    memory.write_bytes(odd)
    store.commit("manual: odd bytes")
    memory.write_text("- replaced\n")
    change = store.commit("dream: replace")
    assert "Binary files" in change.diff
    store.restore(change.sha[:7])
    assert memory.read_bytes() == odd


def test_restore_brings_back_a_file_the_commit_deleted(workspace: Path) -> None:
    store = open_store(workspace)
    memory = workspace / "memory" / "MEMORY.md"
    content = memory.read_bytes()
    memory.unlink()
    deletion = store.commit("manual: memory/MEMORY.md")
    result = store.restore(deletion.sha[:7])
    assert memory.read_bytes() == content
    assert result.files == ("memory/MEMORY.md",)
    assert result.commit.files == ("memory/MEMORY.md",)  # tracked again
    assert store.dirty_files() == []


def test_restore_removes_a_file_absent_before_the_commit(tmp_path: Path) -> None:
    (tmp_path / "USER.md").write_text("- u\n")
    store = open_store(tmp_path)
    soul = tmp_path / "SOUL.md"
    soul.write_text("- be brief\n")
    creation = store.commit("dream: soul")
    result = store.restore(creation.sha[:7])
    assert not soul.exists()
    assert result.files == ("SOUL.md",)


def test_restore_leaves_the_dream_cursor_alone(workspace: Path) -> None:
    store = open_store(workspace)
    cursor = workspace / "memory" / ".dream_cursor"
    cursor.write_text("42")
    append(workspace / "USER.md", "- x\n")
    dream = store.commit("dream: x", trailers={"Dream-Cursor": 42, "Batch": "40-42"})
    store.restore(dream.sha[:7])
    assert cursor.read_text() == "42"
    assert store.last_dream_cursor() == 42


def test_restore_refuses_the_init_commit(workspace: Path) -> None:
    store = open_store(workspace)
    with pytest.raises(GitStoreError, match="first commit"):
        store.restore(store.head()[:7])


def test_restore_refuses_commit_outside_the_memory_history(workspace: Path) -> None:
    store = open_store(workspace)
    init = store.repo[store.head().encode()]
    append(workspace / "USER.md", "- on the main line\n")
    store.commit("dream: main")
    # a sibling of the dream commit, reachable from no ref
    other_tree = store.repo[store.head().encode()].tree
    stray = Commit()
    stray.tree, stray.parents = other_tree, [init.id]
    stray.author = stray.committer = b"Someone <s@example.com>"
    stray.author_time = stray.commit_time = 1_700_000_000
    stray.author_timezone = stray.commit_timezone = 0
    stray.message = b"dream: stray\n"
    store.repo.object_store.add_object(stray)
    head = store.head()
    with pytest.raises(GitStoreError, match="not reachable from HEAD"):
        store.restore(stray.id.decode()[:8])
    assert store.head() == head


def test_restore_refuses_commit_that_changed_no_memory_file(workspace: Path) -> None:
    store = open_store(workspace)
    head = store.repo[store.head().encode()]
    empty = Commit()
    empty.tree, empty.parents = head.tree, [head.id]
    empty.author = empty.committer = b"Someone <s@example.com>"
    empty.author_time = empty.commit_time = 1_700_000_000
    empty.author_timezone = empty.commit_timezone = 0
    empty.message = b"chore: nothing\n"
    store.repo.object_store.add_object(empty)
    store.repo.refs[b"HEAD"] = empty.id
    with pytest.raises(GitStoreError, match="changed no memory file"):
        store.restore(empty.id.decode()[:7])


def test_commit_versions_symlink_inside_workspace_by_content(workspace: Path) -> None:
    store = open_store(workspace)
    real = workspace / "notes" / "user.md"
    real.parent.mkdir()
    real.write_text("- from the linked file\n")
    user = workspace / "USER.md"
    user.unlink()
    user.symlink_to(Path("notes") / "user.md")
    info = store.commit("manual: USER.md")
    blob = store.repo[store.repo[info.sha.encode()].tree][b"USER.md"]
    assert blob[0] == 0o100644
    assert store.repo[blob[1]].data == b"- from the linked file\n"
    append(real, "- later\n")
    later = store.commit("dream: later")
    store.restore(later.sha[:7])
    assert user.is_symlink()  # the link stays, its target gets the content back
    assert real.read_bytes() == b"- from the linked file\n"


def test_commit_refuses_symlink_leading_outside_workspace(workspace: Path, tmp_path: Path) -> None:
    store = open_store(workspace)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- secret notes\n")
    user = workspace / "USER.md"
    user.unlink()
    user.symlink_to(outside)
    head = store.head()
    with pytest.raises(GitStoreError, match="outside the workspace"):
        store.commit("manual: USER.md")
    assert store.head() == head


def test_restore_refuses_to_write_through_symlink_leading_outside(
    workspace: Path, tmp_path: Path
) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- x\n")
    dream = store.commit("dream: x")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- untouched\n")
    user = workspace / "USER.md"
    user.unlink()
    user.symlink_to(outside)
    with pytest.raises(GitStoreError, match="outside the workspace"):
        store.restore(dream.sha[:7])
    assert outside.read_text() == "- untouched\n"
    assert user.is_symlink()
