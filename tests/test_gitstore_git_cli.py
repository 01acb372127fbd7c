"""GitStore against the real git CLI: layouts, interop both ways, fsck, depth, merges, size."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.gitstore_fixtures import append, git, git_bytes, open_store
from nanomem.versions.gitstore import locate_git_dir

pytestmark = [
    pytest.mark.slow,  # every test here runs the git CLI
    pytest.mark.skipif(shutil.which("git") is None, reason="needs the git CLI"),
]


def _tree_paths(git_dir: Path) -> list[str]:
    return git(f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", "HEAD").split()


def test_git_log_and_fsck_read_a_dot_git_memory_repository(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- Ada prefers tea\n")
    store.commit("dream: tea", "USER.md +1", {"Dream-Cursor": 3, "Batch": "1-3"})
    out = git(f"--git-dir={store.git_dir}", "log", "-p")
    assert "dream: tea" in out and "+- Ada prefers tea" in out and "Dream-Cursor: 3" in out
    git(f"--git-dir={store.git_dir}", "fsck", "--strict")
    fmt = "--format=%(trailers:key=Batch,valueonly)"
    trailers = git(f"--git-dir={store.git_dir}", "log", "-1", fmt)
    assert trailers.strip() == "1-3"


def test_git_status_is_clean_after_nanomem_commits(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "memory" / "MEMORY.md", "- budget 4200\n")
    store.commit("dream: budget")
    (workspace / "memory" / "history.jsonl").write_text("{}\n")
    (workspace / "notes.txt").write_text("unrelated\n")
    assert git("status", "--porcelain", cwd=workspace) == ""


def test_commit_by_real_git_is_shown_and_restored_by_nanomem(workspace: Path) -> None:
    store = open_store(workspace)
    user = workspace / "USER.md"
    before = user.read_bytes()
    append(user, "- edited with git\n")
    git("commit", "-q", "-am", "manual: edit in an editor", cwd=workspace)
    sha = git("rev-parse", "HEAD", cwd=workspace).strip()
    shown = store.show(sha[:5])
    assert shown.files == ("USER.md",) and "+- edited with git" in shown.diff
    result = store.restore(sha[:5])
    assert result.status == "restored" and user.read_bytes() == before
    assert git("status", "--porcelain", cwd=workspace) == ""


def test_commit_by_nanomem_is_read_by_real_git(workspace: Path) -> None:
    store = open_store(workspace)
    payload = b"- caf\xe9\n"
    (workspace / "USER.md").write_bytes(payload)
    info = store.commit("dream: bytes")
    assert git_bytes("show", f"{info.sha}:USER.md", cwd=workspace) == payload
    assert git("cat-file", "-t", info.sha[:6], cwd=workspace).strip() == "commit"
    restored = store.restore(info.sha[:6])
    assert git("log", "-1", "--format=%s", cwd=workspace).strip() == restored.commit.subject


def test_workspace_inside_outer_repo_uses_separate_git_dir(tmp_path: Path) -> None:
    outer = tmp_path / "project"
    outer.mkdir()
    git("init", "-q", str(outer))
    (outer / ".gitignore").write_text("build/\n")
    (outer / "main.py").write_text("print(1)\n")
    git("add", ".", cwd=outer)
    git("commit", "-q", "-m", "project", cwd=outer)
    head = git("rev-parse", "HEAD", cwd=outer)
    ws = outer / "agent" / "ws"
    ws.mkdir(parents=True)
    (ws / "USER.md").write_text("- u\n")
    store = open_store(ws)
    append(ws / "USER.md", "- v\n")
    store.commit("dream: v")
    assert store.git_dir == ws / ".nanomem.git"
    assert not (ws / ".git").exists() and not (ws / ".gitignore").exists()
    assert (outer / ".gitignore").read_text() == "build/\n"
    assert git("rev-parse", "HEAD", cwd=outer) == head
    status = git("status", "--porcelain", "--untracked-files=all", cwd=outer)
    assert ".nanomem.git" not in status and "agent/ws/USER.md" in status
    git(f"--git-dir={store.git_dir}", "fsck", "--strict")
    assert "+- v" in git(f"--git-dir={store.git_dir}", "log", "-p")
    assert _tree_paths(store.git_dir) == ["USER.md"]


def test_workspace_with_git_file_of_a_worktree_uses_separate_git_dir(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git("init", "-q", str(main))
    (main / "f.txt").write_text("x\n")
    git("add", ".", cwd=main)
    git("commit", "-q", "-m", "base", cwd=main)
    ws = tmp_path / "wt"
    git("worktree", "add", "-q", str(ws), cwd=main)
    (ws / "USER.md").write_text("- u\n")
    store = open_store(ws)
    assert store.git_dir == ws / ".nanomem.git"
    assert (ws / ".git").is_file()
    assert git("status", "--porcelain", cwd=ws) == "?? USER.md\n"


def test_root_git_that_is_a_project_repo_is_left_alone(tmp_path: Path) -> None:
    git("init", "-q", str(tmp_path))
    (tmp_path / "app.py").write_text("x = 1\n")
    git("add", "app.py", cwd=tmp_path)
    git("commit", "-q", "-m", "app", cwd=tmp_path)
    (tmp_path / "USER.md").write_text("- u\n")
    store = open_store(tmp_path)
    assert store.git_dir == tmp_path / ".nanomem.git"
    assert git("log", "--format=%s", cwd=tmp_path).strip() == "app"
    assert not (tmp_path / ".gitignore").exists()


def test_nanobot_memory_repository_is_used_as_it_is(workspace: Path) -> None:
    rules = ["/*", "!.gitignore", "!SOUL.md", "!USER.md", "!memory/", "memory/*", "!memory/MEMORY.md"]
    (workspace / ".gitignore").write_text("\n".join(rules) + "\n")
    git("init", "-q", str(workspace))
    git("add", "-A", cwd=workspace)
    git("commit", "-q", "-m", "init: nanobot", cwd=workspace)
    old_head = git("rev-parse", "HEAD", cwd=workspace).strip()
    gitignore = (workspace / ".gitignore").read_bytes()
    assert locate_git_dir(workspace) == (workspace / ".git", False)
    store = open_store(workspace)
    append(workspace / "USER.md", "- from nanomem\n")
    info = store.commit("dream: one")
    assert info.parents == (old_head,)
    assert (workspace / ".gitignore").read_bytes() == gitignore
    assert ".gitignore" in _tree_paths(store.git_dir)  # nanobot's own entries are kept


def test_commit_ignores_twenty_thousand_unrelated_files(workspace: Path) -> None:
    store = open_store(workspace)
    junk = workspace / "data"
    junk.mkdir()
    for i in range(20_000):
        (junk / f"f{i}.txt").write_bytes(b"x")
    append(workspace / "USER.md", "- still fast\n")
    info = store.commit("dream: among many files")
    assert info.files == ("USER.md",)
    assert _tree_paths(store.git_dir) == ["SOUL.md", "USER.md", "memory/MEMORY.md"]
    assert git("status", "--porcelain", cwd=workspace) == ""


def test_show_and_restore_at_depth_three_hundred(workspace: Path) -> None:
    store = open_store(workspace)
    user = workspace / "USER.md"
    first = None
    for i in range(300):
        append(user, f"- fact {i}\n")
        info = store.commit(f"dream: fact {i}", trailers={"Dream-Cursor": i + 1})
        first = first or info
    assert git(f"--git-dir={store.git_dir}", "rev-list", "--count", "HEAD").strip() == "301"
    shown = store.show(first.sha[:6].upper())
    assert shown.subject == "dream: fact 0" and "+- fact 0" in shown.diff
    result = store.restore(first.sha[:6])
    assert "- fact" not in user.read_text()
    assert result.files == ("USER.md",)
    assert store.last_dream_cursor() == 300
    git(f"--git-dir={store.git_dir}", "fsck", "--strict")


def test_commit_reachable_only_through_a_merge_is_shown_and_restored(workspace: Path) -> None:
    store = open_store(workspace)
    user, soul = workspace / "USER.md", workspace / "SOUL.md"
    git("checkout", "-q", "-b", "side", cwd=workspace)
    append(user, "- from the side branch\n")
    git("commit", "-q", "-am", "manual: side", cwd=workspace)
    side = git("rev-parse", "HEAD", cwd=workspace).strip()
    git("checkout", "-q", "main", cwd=workspace)
    append(soul, "- from main\n")
    git("commit", "-q", "-am", "manual: main", cwd=workspace)
    git("merge", "-q", "--no-edit", "side", cwd=workspace)
    assert len(store.show(store.head()).parents) == 2
    assert side[:7] in [c.sha[:7] for c in store.log(10)]
    shown = store.show(side[:7])
    assert shown.files == ("USER.md",)
    result = store.restore(side[:7])
    assert result.status == "restored"
    assert "from the side branch" not in user.read_text()
    git("fsck", "--strict", cwd=workspace)


def _loose_objects(git_dir: Path) -> list[Path]:
    return [p for p in (git_dir / "objects").glob("??/*") if p.is_file()]


def test_git_repack_leaves_one_delta_pack_that_git_fsck_and_log_accept(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nanomem.versions import packing

    store = open_store(workspace)
    for n in range(12):
        append(workspace / "memory" / "MEMORY.md", f"- fact {n} learned in a dream\n")
        store.commit(f"dream: fact {n}", trailers={"Dream-Cursor": n})
    before = git(f"--git-dir={store.git_dir}", "log", "--format=%H %s")
    assert _loose_objects(store.git_dir) != []
    monkeypatch.setattr(packing, "LOOSE_LIMIT", 0)  # the next commit passes the threshold
    append(workspace / "USER.md", "- likes tea\n")
    last = store.commit("dream: tea", trailers={"Dream-Cursor": 12})
    assert last is not None
    assert _loose_objects(store.git_dir) == []
    assert len(list((store.git_dir / "objects" / "pack").glob("*.pack"))) == 1
    git(f"--git-dir={store.git_dir}", "fsck", "--strict")
    after = git(f"--git-dir={store.git_dir}", "log", "--format=%H %s")
    assert after.splitlines()[1:] == before.splitlines()
    assert after.splitlines()[0] == f"{last.sha} dream: tea"
    assert "+- likes tea" in store.show(last.sha).diff  # still readable through dulwich
    assert "fact 11" in git(f"--git-dir={store.git_dir}", "show", "HEAD:memory/MEMORY.md")
    stats = git(f"--git-dir={store.git_dir}", "verify-pack", "-v",
                str(next((store.git_dir / "objects" / "pack").glob("*.idx"))))
    assert "chain length" in stats  # deltas were made, as git gc would
    store.close()
