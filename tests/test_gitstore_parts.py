"""The pure parts behind GitStore: messages and diffs, the whitelist, the ancestry cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitstore_fixtures import append, git, open_store
from nanomem.versions.ancestry import AncestryCache, walk_ancestors
from nanomem.versions.commits import commit_kind, render_file_diff, render_message, split_message
from nanomem.errors import GitStoreError
from nanomem.versions.location import WHITELIST, merge_whitelist


def test_split_message_separates_body_from_trailer_block() -> None:
    body = "Note: not a trailer\n\nsecond"
    message = render_message("dream: 2 facts", body, {"Dream-Cursor": 9})
    assert split_message(message) == ("dream: 2 facts", body, {"Dream-Cursor": "9"})


def test_split_message_without_trailers_keeps_colon_lines_in_body_when_mixed() -> None:
    subject, body, trailers = split_message("manual: x\n\nsee: this\nand prose\n")
    assert (subject, body, trailers) == ("manual: x", "see: this\nand prose", {})


def test_render_message_refuses_bad_trailer_key() -> None:
    with pytest.raises(ValueError, match="not a valid git trailer"):
        render_message("dream: x", trailers={"Dream Cursor": 1})


def test_commit_kind_recognises_only_nanomem_prefixes() -> None:
    assert [commit_kind(s) for s in ("init: a", "restore: to x", "Merge branch", "dreamy: x")] == [
        "init", "restore", None, None,
    ]


def test_render_file_diff_marks_missing_newline_and_new_files() -> None:
    diff = render_file_diff("SOUL.md", None, b"- be brief")
    assert diff.splitlines() == [
        "diff --git a/SOUL.md b/SOUL.md",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/SOUL.md",
        "@@ -0,0 +1 @@",
        "+- be brief",
        "\\ No newline at end of file",
    ]
    assert render_file_diff("SOUL.md", b"same", b"same") == ""


def test_merge_whitelist_appends_once_and_keeps_existing_rules() -> None:
    merged = merge_whitelist("node_modules/")
    assert merged.startswith("node_modules/\n\n# nanomem")
    assert merged.splitlines()[-len(WHITELIST):] == list(WHITELIST)
    assert merge_whitelist(merged) == merged


def test_walk_ancestors_follows_every_parent_of_a_merge() -> None:
    graph = {b"m": [b"a", b"b"], b"a": [b"r"], b"b": [b"r"], b"r": []}
    assert walk_ancestors(b"m", graph.__getitem__)[0] == {b"m", b"a", b"b", b"r"}


def test_ancestry_cache_answers_correctly_after_head_moves_and_rewrites(tmp_path: Path) -> None:
    graph = {b"a" * 20: [], b"b" * 20: [b"a" * 20], b"c" * 20: [b"b" * 20], b"x" * 20: [b"a" * 20]}
    calls: list[bytes] = []

    def parents_of(raw: bytes) -> list[bytes]:
        calls.append(raw)
        return graph[raw]

    cache = AncestryCache(tmp_path / "anc")
    assert cache.contains(b"b" * 20, b"a" * 20, parents_of)
    calls.clear()
    assert cache.contains(b"c" * 20, b"a" * 20, parents_of)
    assert calls == [b"c" * 20]  # walked only the new commit, met the cached head
    assert not cache.contains(b"x" * 20, b"b" * 20, parents_of)  # history rewritten
    cache.path.write_bytes(b"garbage")
    assert cache.contains(b"c" * 20, b"b" * 20, parents_of)


@pytest.mark.slow
def test_restore_refuses_commit_dropped_by_a_git_reset(workspace: Path) -> None:
    store = open_store(workspace)
    init = store.head()
    append(workspace / "USER.md", "- a\n")
    first = store.commit("dream: a")
    append(workspace / "USER.md", "- b\n")
    second = store.commit("dream: b")
    assert store.restore(second.sha[:7]).status == "restored"  # builds the ancestry cache
    git("reset", "-q", "--hard", init, cwd=workspace)
    with pytest.raises(GitStoreError, match="not reachable from HEAD"):
        store.restore(first.sha[:7])
