"""End to end with the real git CLI: hand edits, shas at any depth, nested and nanobot
repositories (DESIGN §3.2, §5)."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.e2e_support import (
    base_env,
    cli,
    committed_bytes,
    fsck,
    git,
    git_dir_of,
    history_lines,
    init_ws,
    memory_bytes,
    nanomem,
    subjects,
)

pytestmark = pytest.mark.slow  # every test here starts a process or a server

MEMORY_HEAD = (
    "# Memory\n\nDurable facts about the work and the world.\n\n## Facts\n"
)


def _append(ws: Path, text: str) -> int:
    run = cli("-w", str(ws), "append", text)
    assert run.rc == 0, run.err
    return int(run.out)


def test_dream_commit_holds_only_dreams_change_after_a_hand_edit(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    user = ws / "USER.md"
    user.write_text(user.read_text() + "- Hand-written: allergic to peanuts <!-- pin -->\n")
    _append(ws, "- [durable] Project KX-7731 ships in May.")

    run = cli("-w", str(ws), "dream", "--json")
    assert run.rc == 0, run.err
    result = run.json()
    assert result["status"] == "committed"
    gd = git_dir_of(ws)
    log = subjects(ws)
    assert log[0].startswith("dream:") and log[1].startswith("manual:")
    dream_show = git(gd, "show", "--format=", result["commit"])
    manual_show = git(gd, "show", "--format=", result["manual_commit"])
    assert "peanuts" not in dream_show
    assert "+- Project KX-7731 ships in May." in dream_show
    assert "+- Hand-written: allergic to peanuts <!-- pin -->" in manual_show
    assert "KX-7731" not in manual_show
    assert git(gd, "rev-parse", f"{result['commit']}^").strip() == result["manual_commit"]
    assert memory_bytes(ws) == committed_bytes(ws)
    fsck(gd)


def _deep_history(ws: Path, start: int, count: int) -> list[str]:
    """Make ``count`` commits on top of HEAD with ``git fast-import``; return all commit shas,
    oldest first. The working tree is left equal to the new HEAD."""
    gd = git_dir_of(ws)
    branch = git(gd, "symbolic-ref", "HEAD").strip()
    parts: list[bytes] = []
    content = MEMORY_HEAD + "".join(f"- Fact {i} of the deep history.\n" for i in range(start))
    for i in range(start, start + count):
        content += f"- Fact {i} of the deep history.\n"
        message = f"manual: hand edit {i}\n".encode()
        data = content.encode()
        parts.append(
            f"commit {branch}\ncommitter Test Person <t@example.com> {1_700_000_000 + i} +0000\n"
            .encode()
            + b"data %d\n" % len(message) + message
            + (f"from {branch}^0\n".encode() if i == start else b"")
            + b"M 100644 inline memory/MEMORY.md\n" + b"data %d\n" % len(data) + data + b"\n"
        )
    subprocess.run(["git", f"--git-dir={gd}", "fast-import", "--quiet"], input=b"".join(parts),
                   check=True, env=base_env(), capture_output=True)
    (ws / "memory" / "MEMORY.md").write_text(content)
    return git(gd, "rev-list", "--reverse", "HEAD").split()


@pytest.fixture(scope="module")
def deep_ws(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    ws = init_ws(tmp_path_factory.mktemp("deep"))
    shas = _deep_history(ws, 0, 600)
    while max(Counter(sha[:4] for sha in shas).values()) < 2:  # an ambiguous 4-hex prefix
        shas = _deep_history(ws, len(shas) - 1, 300)
    return ws, shas


def _unique_prefix_sha(ws: Path, shas: list[str], depth: int) -> str:
    all_objects = git(git_dir_of(ws), "cat-file", "--batch-all-objects",
                      "--batch-check=%(objectname)")
    counts = Counter(line[:4] for line in all_objects.split())
    for sha in reversed(shas[: len(shas) - depth]):
        if counts[sha[:4]] == 1:
            return sha
    raise AssertionError("no commit with a unique 4-hex prefix")


@pytest.mark.parametrize("upper", [False, True])
def test_log_finds_a_4_hex_prefix_100_commits_deep(
    deep_ws: tuple[Path, list[str]], upper: bool
) -> None:
    ws, shas = deep_ws
    sha = _unique_prefix_sha(ws, shas, depth=120)
    assert len(shas) - shas.index(sha) > 100
    prefix = sha[:4].upper() if upper else sha[:4]
    run = nanomem(ws, "log", prefix, "--json")
    assert run.rc == 0, run.err
    data = run.json()
    assert data["sha"] == sha
    assert data["subject"] == git(git_dir_of(ws), "log", "-1", "--format=%s", sha).strip()
    assert data["files"] == ["memory/MEMORY.md"]
    assert "+- Fact" in data["diff"]


def test_log_and_restore_of_an_ambiguous_prefix_list_candidates_and_change_nothing(
    deep_ws: tuple[Path, list[str]],
) -> None:
    ws, shas = deep_ws
    by_prefix = Counter(sha[:4] for sha in shas)
    prefix = next((p for p, n in by_prefix.items() if n > 1), None)
    candidates = [sha for sha in shas if sha.startswith(prefix)]
    head, files = git(git_dir_of(ws), "rev-parse", "HEAD"), memory_bytes(ws)

    for command in ("log", "restore"):
        run = nanomem(ws, command, prefix)
        assert run.rc == 2, (command, run.out, run.err)
        assert "ambiguous" in run.err.lower()
        for sha in candidates:
            assert sha[:7] in run.err, (command, run.err)
        assert "Traceback" not in run.err + run.out
    assert git(git_dir_of(ws), "rev-parse", "HEAD") == head
    assert memory_bytes(ws) == files


@pytest.mark.parametrize("sha", ["deadbeef", "DEADBEEF00", "abc", "zzzz", "HEAD~1"])
def test_log_and_restore_of_an_unknown_sha_exit_2_with_one_helpful_line(
    tmp_path: Path, sha: str
) -> None:
    ws = init_ws(tmp_path)
    head = subjects(ws)
    for command in ("log", "restore"):
        run = cli("-w", str(ws), command, sha)
        assert run.rc == 2, (command, sha, run.out, run.err)
        assert "Traceback" not in run.err
        lines = [line for line in run.err.splitlines() if line.strip()]
        assert len(lines) == 1, run.err
        assert sha in lines[0] or sha.lower() in lines[0]
    assert subjects(ws) == head


def test_workspace_inside_an_outer_repo_leaves_the_outer_repo_untouched(tmp_path: Path) -> None:
    outer = tmp_path / "project"
    outer.mkdir()
    subprocess.run(["git", "init", "-q", str(outer)], check=True, env=base_env())
    (outer / "README").write_text("outer project\n")
    (outer / ".gitignore").write_text("*.log\n")
    subprocess.run(["git", "-C", str(outer), "add", "-A"], check=True, env=base_env())
    subprocess.run(["git", "-C", str(outer), "commit", "-qm", "outer"], check=True,
                   env=base_env())
    outer_git = outer / ".git"

    def outer_state() -> tuple[str, str, bytes, bytes]:
        return (
            git(outer_git, "rev-parse", "HEAD"),
            git(outer_git, "status", "--porcelain", work_tree=outer),
            (outer / ".gitignore").read_bytes(),
            (outer_git / "index").read_bytes(),
        )

    ws = init_ws(outer, "agent")
    assert not (ws / ".git").exists()
    gd = ws / ".nanomem.git"
    assert gd.is_dir()
    before = outer_state()
    assert before[1].strip() == "?? agent/"

    _append(ws, "- [durable] User lives in Lyon.")
    dream = cli("-w", str(ws), "dream", "--json").json()
    assert dream["status"] == "committed"
    assert cli("-w", str(ws), "log", dream["commit"][:5]).rc == 0
    restore = cli("-w", str(ws), "restore", dream["commit"][:5], "--json")
    assert restore.rc == 0, restore.err
    assert "User lives in Lyon." not in (ws / "USER.md").read_text()

    assert outer_state() == before
    fsck(gd)
    log = git(gd, "log", "-p")
    assert "+- User lives in Lyon." in log and "restore:" in log
    # a person who tracks the workspace in the outer repo never adds the memory git dir
    add = subprocess.run(["git", "-C", str(outer), "add", "-A"], capture_output=True, text=True,
                         env=base_env())
    assert add.returncode == 0 and "embedded git repository" not in add.stderr
    tracked = git(outer_git, "ls-files", work_tree=outer)
    assert "agent/USER.md" in tracked and ".nanomem.git" not in tracked


LEGACY = (
    "[2025-03-01 09:15] User set up the Berlin project; budget 40k EUR.\n\n"
    "[2025-03-02 18:40] User prefers short answers.\n\n"
    "Some notes a person typed without a date.\n"
)


def test_nanobot_workspace_is_used_as_is_and_history_md_migrates_once(tmp_path: Path) -> None:
    ws = tmp_path / "nanobot"
    (ws / "memory").mkdir(parents=True)
    (ws / "SOUL.md").write_text("# Soul\n\n- Be brief.\n")
    (ws / "USER.md").write_text("# User\n\n- Name: Ana\n")
    (ws / "memory" / "MEMORY.md").write_text("# Memory\n\n- Berlin project\n")
    (ws / "memory" / "HISTORY.md").write_text(LEGACY)
    (ws / "notes.txt").write_text("not memory\n")
    (ws / ".gitignore").write_text(
        "/*\n!SOUL.md\n!USER.md\n!memory/\nmemory/*\n!memory/MEMORY.md\n!.gitignore\n")
    env = base_env()
    subprocess.run(["git", "init", "-q", str(ws)], check=True, env=env)
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "nanobot memory"], check=True, env=env)
    nanobot_head = git(ws / ".git", "rev-parse", "HEAD").strip()
    legacy_bytes = (ws / "memory" / "HISTORY.md").read_bytes()

    status = nanomem(ws, "status", "--json")
    assert status.rc == 0, status.err
    data = status.json()
    assert data["git_dir"] == str((ws / ".git").resolve()) or data["git_dir"] == str(ws / ".git")
    assert data["head"] == nanobot_head
    assert data["cursor"] == 3 and data["dream_cursor"] == 3 and data["pending"] == 0
    assert not (ws / ".nanomem.git").exists()
    assert not (ws / "memory" / "HISTORY.md").exists()
    assert (ws / "memory" / "HISTORY.md.bak").read_bytes() == legacy_bytes
    lines = history_lines(ws)
    assert [line["cursor"] for line in lines] == [1, 2, 3]
    assert "Berlin project" in lines[0]["content"]

    again = nanomem(ws, "dream", "--json")
    assert again.rc == 0, again.err
    assert again.json()["status"] == "nothing_to_do"  # legacy history is not replayed
    assert len(history_lines(ws)) == 3  # and not migrated twice
    assert git(ws / ".git", "rev-parse", "HEAD").strip() == nanobot_head

    _append(ws, "- [durable] User lives in Lyon.")
    done = nanomem(ws, "dream", "--json").json()
    assert done["status"] == "committed"
    assert git(ws / ".git", "rev-parse", f"{done['commit']}^").strip() == nanobot_head
    tracked = git(ws / ".git", "ls-tree", "-r", "--name-only", "HEAD").split()
    assert ".gitignore" in tracked and "notes.txt" not in tracked
    assert (ws / ".gitignore").read_text().startswith("/*\n")
    fsck(ws / ".git")
