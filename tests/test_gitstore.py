"""GitStore: opening, committing, trailers, log, show and sha resolution."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.objects import Commit

from tests.gitstore_fixtures import CONFIG, StepClock, append, open_store
from nanomem.errors import GitStoreError, ShaError
from nanomem.versions.gitstore import GitStore
from nanomem.store.workspace import MEMORY_FILES
from nanomem.records import to_json


def test_open_creates_git_dir_and_init_commit_of_template_files(workspace: Path) -> None:
    store = open_store(workspace)
    assert store.git_dir == workspace / ".git"
    [init] = store.log()
    assert init.subject == "init: memory repository"
    assert store.show(init.sha).files == MEMORY_FILES
    assert store.dirty_files() == []


def test_open_twice_finds_the_same_repository_without_new_commit(workspace: Path) -> None:
    first = open_store(workspace).head()
    again = open_store(workspace)
    assert again.head() == first
    assert len(again.log()) == 1


def test_open_refuses_when_create_is_false_and_no_repository(workspace: Path) -> None:
    with pytest.raises(GitStoreError, match="nanomem init"):
        GitStore.open(workspace, CONFIG, create=False)


def test_open_makes_no_commit_when_no_memory_file_exists(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    assert store.head() is None
    (tmp_path / "USER.md").write_text("- likes tea\n")
    info = store.commit("manual: USER.md")
    assert info is not None and info.files == ("USER.md",) and info.parents == ()


def test_open_merges_existing_gitignore_without_losing_lines(workspace: Path) -> None:
    (workspace / ".gitignore").write_text("*.tmp\nsecrets/\n")
    open_store(workspace)
    text = (workspace / ".gitignore").read_text()
    assert text.startswith("*.tmp\nsecrets/\n")
    assert "\n/*\n!SOUL.md\n!USER.md\n!memory/\nmemory/*\n!memory/MEMORY.md\n" in text


def test_commit_returns_none_and_keeps_head_when_nothing_changed(workspace: Path) -> None:
    store = open_store(workspace)
    head = store.head()
    assert store.commit("manual: nothing") is None
    assert store.head() == head


def test_commit_writes_author_time_and_trailers(workspace: Path) -> None:
    clock = StepClock()
    store = open_store(workspace, clock=clock)
    append(workspace / "USER.md", "- Ada lives in Lyon\n")
    info = store.commit("dream: 1 fact", "USER.md +1 line", {"Dream-Cursor": 42, "Batch": "30-42"})
    assert info is not None
    assert info.trailers == {"Dream-Cursor": "42", "Batch": "30-42"}
    assert info.body == "USER.md +1 line"
    assert info.time == clock.now.isoformat()
    raw = store.repo[info.sha.encode()]
    assert raw.author == b"Memory Bot <bot@example.com>"
    assert raw.message.decode().endswith("\n\nDream-Cursor: 42\nBatch: 30-42\n")


def test_commit_refuses_multiline_subject(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- x\n")
    with pytest.raises(ValueError, match="one non-empty line"):
        store.commit("dream: a\nb")


def test_commit_ignores_untracked_bookkeeping_files(workspace: Path) -> None:
    store = open_store(workspace)
    (workspace / "memory" / ".dream_cursor").write_text("7")
    (workspace / "memory" / "dream-audit.jsonl").write_text("{}\n")
    (workspace / "memory" / "history.jsonl").write_text("{}\n")
    assert store.dirty_files() == []
    assert store.commit("manual: cursor only") is None


def test_commit_manual_if_dirty_names_the_edited_files(workspace: Path) -> None:
    store = open_store(workspace)
    assert store.commit_manual_if_dirty() is None
    append(workspace / "SOUL.md", "- answer in French\n")
    (workspace / "memory" / "MEMORY.md").unlink()
    assert store.dirty_files() == ["SOUL.md", "memory/MEMORY.md"]
    info = store.commit_manual_if_dirty()
    assert info is not None
    assert info.subject == "manual: SOUL.md, memory/MEMORY.md"
    assert "deleted file mode 100644" in info.diff
    assert store.dirty_files() == []


def test_show_reports_changed_files_and_unified_diff(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "memory" / "MEMORY.md", "- contract KX-7731 due 2026-05-01\n")
    info = store.commit("dream: contract")
    shown = store.show(info.sha[:6])
    assert shown.files == ("memory/MEMORY.md",)
    assert "+- contract KX-7731 due 2026-05-01\n" in shown.diff
    assert shown.diff.startswith("diff --git a/memory/MEMORY.md b/memory/MEMORY.md\n")
    assert {"sha", "subject", "time", "files", "diff"} <= set(to_json(shown))
    assert to_json(shown)["sha"] == info.sha and len(info.sha) == 40


def test_show_renders_non_utf8_bytes_as_escapes(workspace: Path) -> None:
    store = open_store(workspace)
    path = workspace / "USER.md"
    path.write_bytes(path.read_bytes() + b"- caf\xe9\n")
    info = store.commit("manual: latin-1")
    assert "+- caf\\xe9\n" in store.show(info.sha).diff


def test_log_lists_newest_first_within_limit(workspace: Path) -> None:
    store = open_store(workspace)
    for i in range(3):
        append(workspace / "USER.md", f"- fact {i}\n")
        store.commit(f"manual: fact {i}")
    subjects = [c.subject for c in store.log(limit=3)]
    assert subjects == ["manual: fact 2", "manual: fact 1", "manual: fact 0"]
    assert len(store.log()) == 4


def test_log_reads_commit_objects_only_and_show_renders_the_diff(workspace: Path) -> None:
    store = open_store(workspace)
    append(workspace / "USER.md", "- likes tea\n")
    made = store.commit("manual: tea", trailers={"Dream-Cursor": 3})
    assert made is not None
    commit = store.repo[made.sha.encode()]
    tree_file = store.git_dir / "objects" / commit.tree.decode()[:2] / commit.tree.decode()[2:]
    tree_file.unlink()  # a listing must not need the tree
    [entry, _init] = store.log(5)
    assert (entry.sha, entry.subject, entry.trailers["Dream-Cursor"]) == (made.sha, "manual: tea", "3")
    assert entry.files == () and entry.diff == ""
    assert entry.time == made.time and entry.parents == made.parents


def test_latest_and_last_dream_cursor_skip_other_kinds(workspace: Path) -> None:
    store = open_store(workspace)
    assert store.latest("dream") is None and store.last_dream_cursor() is None
    append(workspace / "USER.md", "- a\n")
    dream = store.commit("dream: a", trailers={"Dream-Cursor": 12, "Batch": "1-12"})
    append(workspace / "USER.md", "- b\n")
    store.commit("manual: USER.md")
    assert store.latest("dream").sha == dream.sha
    assert store.latest(None).subject == "manual: USER.md"
    assert store.last_dream_cursor() == 12


def test_resolve_accepts_any_case_prefix_of_four_or_more(workspace: Path) -> None:
    store = open_store(workspace)
    head = store.head()
    assert store.resolve(head[:4].upper()) == head
    assert store.resolve(head) == head


@pytest.mark.parametrize("bad", ["abc", "xyz1", "", "12345678901234567890123456789012345678901"])
def test_resolve_rejects_malformed_sha(workspace: Path, bad: str) -> None:
    with pytest.raises(ShaError, match="4 to 40 hex digits"):
        open_store(workspace).resolve(bad)


def test_resolve_unknown_sha_names_the_fix(workspace: Path) -> None:
    store = open_store(workspace)
    unknown = "0000" if not store.head().startswith("0000") else "ffff"
    with pytest.raises(ShaError, match="run `nanomem log`") as caught:
        store.resolve(unknown)
    assert caught.value.exit_code == 2


def test_resolve_ignores_blobs_and_trees_sharing_the_prefix(workspace: Path) -> None:
    store = open_store(workspace)
    blob_sha = store.repo[store.repo[store.head().encode()].tree][b"USER.md"][1].decode()
    with pytest.raises(ShaError, match="no commit"):
        store.resolve(blob_sha[:12])


def test_resolve_ambiguous_prefix_lists_candidates(workspace: Path) -> None:
    store = open_store(workspace)
    base = store.repo[store.head().encode()]
    seen: dict[str, Commit] = {}
    i = 0
    while True:  # deterministic: same inputs give the same shas, a collision comes by ~300
        probe = Commit()
        probe.tree, probe.parents = base.tree, [base.id]
        probe.author = probe.committer = b"Probe <p@example.com>"
        probe.author_time = probe.commit_time = 1_700_000_000
        probe.author_timezone = probe.commit_timezone = 0
        probe.message = f"manual: probe {i}\n".encode()
        prefix = probe.id.decode()[:4]
        if prefix in seen:
            break
        seen[prefix] = probe
        i += 1
    first, second = seen[prefix], probe
    store.repo.object_store.add_object(first)
    store.repo.object_store.add_object(second)
    with pytest.raises(ShaError, match="ambiguous") as caught:
        store.resolve(prefix)
    assert set(caught.value.candidates) == {first.id.decode(), second.id.decode()}
    assert "manual: probe" in str(caught.value)
    longer = next(n for n in range(5, 41) if first.id[:n] != second.id[:n])
    assert store.resolve(second.id.decode()[:longer]) == second.id.decode()


def test_open_makes_the_init_commit_once_memory_files_appear(tmp_path: Path) -> None:
    assert open_store(tmp_path).head() is None
    (tmp_path / "SOUL.md").write_text("- be brief\n")
    store = open_store(tmp_path)
    [init] = store.log()
    assert init.subject == "init: memory repository" and store.show(init.sha).files == ("SOUL.md",)


def test_show_reports_a_damaged_repository_as_gitstore_error(workspace: Path) -> None:
    store = open_store(workspace)
    blob = store.repo[store.repo[store.head().encode()].tree][b"USER.md"][1].decode()
    (store.git_dir / "objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(GitStoreError, match="is missing.*fsck"):
        store.show(store.head()[:7])


def test_show_lets_a_key_error_of_its_own_code_through_instead_of_calling_it_damage(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(workspace)

    def broken_diff(*_args: object) -> str:
        raise KeyError("bug")

    monkeypatch.setattr("nanomem.versions.gitstore.render_file_diff", broken_diff)
    with pytest.raises(KeyError, match="bug"):
        store.show(store.head())
