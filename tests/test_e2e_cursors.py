"""End to end: the two cursors survive damage, restore and replay (DESIGN §1, §3, §5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_support import (
    cli,
    committed_bytes,
    dream_cursor,
    fake_edit,
    fake_finish,
    history_lines,
    init_ws,
    memory_bytes,
    nanomem,
    openai_env,
    subjects,
)
from tests.fakellm import FakeLLM

FACTS = "## Facts\n"


def _append(ws: Path, text: str) -> int:
    run = cli("-w", str(ws), "append", text)
    assert run.rc == 0, run.err
    return int(run.out)


def _dream(ws: Path, *extra: str) -> dict:
    run = cli("-w", str(ws), "dream", "--json", *extra)
    assert run.rc == 0, run.err
    return run.json()


@pytest.mark.parametrize("damage", ["truncate", "delete"])
def test_append_after_history_loss_gets_a_cursor_past_the_dream_cursor(
    tmp_path: Path, damage: str
) -> None:
    ws = init_ws(tmp_path)
    for i in range(3):
        _append(ws, f"- [durable] User owns {i + 2} bicycles.")
    assert _dream(ws)["dream_cursor_after"] == 3
    history = ws / "memory" / "history.jsonl"
    if damage == "truncate":
        history.write_bytes(b"")
    else:
        history.unlink()
    (ws / "memory" / ".cursor").unlink()

    cursor = _append(ws, "- [durable] User lives in Lyon.")

    assert cursor > 3
    status = cli("-w", str(ws), "status", "--json").json()
    assert status["pending"] == 1
    result = _dream(ws)
    assert result["status"] == "committed"
    assert result["dream_cursor_after"] == cursor
    assert "User lives in Lyon." in (ws / "USER.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("content", ["", "garbage\n", "-5", "0x1f", "  \n"])
def test_dream_with_damaged_dream_cursor_resumes_from_the_git_trailer(
    tmp_path: Path, content: str
) -> None:
    ws = init_ws(tmp_path)
    _append(ws, "- [durable] User lives in Lyon.")
    _append(ws, "- [durable] User prefers tea.")
    assert _dream(ws)["dream_cursor_after"] == 2
    (ws / "memory" / ".dream_cursor").write_text(content)

    fake = FakeLLM()  # no reply queued: any request fails the test
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    assert run.json()["status"] == "nothing_to_do"
    assert run.json()["dream_cursor_before"] == 2
    assert fake.requests == []
    status = cli("-w", str(ws), "status", "--json").json()
    assert status["dream_cursor"] == 2 and status["pending"] == 0


@pytest.mark.slow
def test_dream_with_damaged_cursor_and_new_entry_processes_only_the_new_entry(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    _append(ws, "- [durable] User lives in Lyon.")
    _dream(ws)
    (ws / "memory" / ".dream_cursor").write_text("not a number")
    new = _append(ws, "- [durable] User prefers tea.")

    fake = FakeLLM()
    fake.enqueue_tool_calls([fake_edit("USER.md", "- User lives in Lyon.\n",
                                       "- User lives in Lyon.\n- User prefers tea.\n"),
                             fake_finish()])
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    assert run.json()["status"] == "committed"
    batch = _untrusted_block(fake.requests[0])
    assert "[entry 2 " in batch and "prefers tea" in batch
    assert "[entry 1 " not in batch and "lives in Lyon" not in batch
    assert run.json()["dream_cursor_after"] == new


@pytest.mark.slow
def test_restore_then_dream_does_not_redo_what_the_user_undid(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    _append(ws, "- [durable] User lives in Lyon.")
    done = _dream(ws)
    assert done["status"] == "committed"
    sha = done["commit"]

    restored = cli("-w", str(ws), "restore", sha[:8], "--json")
    assert restored.rc == 0, restored.err
    assert "User lives in Lyon." not in (ws / "USER.md").read_text()

    fake = FakeLLM()  # the next Dream must not ask the model about entry 1 again
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    assert run.json()["status"] == "nothing_to_do"
    assert fake.requests == []
    assert "User lives in Lyon." not in (ws / "USER.md").read_text()

    replay = _dream(ws, "--replay", sha[:6])
    assert replay["status"] == "committed"
    assert "User lives in Lyon." in (ws / "USER.md").read_text()
    assert replay["dream_cursor_after"] == 1
    assert subjects(ws)[0].startswith("dream:")
    assert memory_bytes(ws) == committed_bytes(ws)


@pytest.mark.slow
def test_restore_of_a_restore_brings_the_dream_back_byte_for_byte(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    (ws / "USER.md").write_bytes((ws / "USER.md").read_bytes() + b"- caf\xe9 latin-1 byte\n")
    _append(ws, "- [durable] User lives in Lyon.")
    _dream(ws)
    after_dream = memory_bytes(ws)
    first = cli("-w", str(ws), "restore", "--json", subjects_sha(ws, "dream:"))
    assert first.rc == 0, first.err
    undo_sha = first.json()["sha"]
    second = cli("-w", str(ws), "restore", "--json", undo_sha)
    assert second.rc == 0, second.err
    assert memory_bytes(ws) == after_dream
    assert b"caf\xe9" in (ws / "USER.md").read_bytes()
    assert second.json()["files"] == ["USER.md"]


def subjects_sha(ws: Path, prefix: str) -> str:
    from tests.e2e_support import git, git_dir_of

    for line in git(git_dir_of(ws), "log", "--format=%H %s").splitlines():
        sha, subject = line.split(" ", 1)
        if subject.startswith(prefix):
            return sha
    raise AssertionError(f"no {prefix} commit")


def test_dream_cursor_file_never_reads_as_zero_when_history_was_processed(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    for i in range(5):
        _append(ws, f"- [durable] Fact number {i + 10} about the project.")
    _dream(ws)
    (ws / "memory" / ".dream_cursor").unlink()
    status = cli("-w", str(ws), "status", "--json").json()
    assert status["dream_cursor"] == 5
    assert status["pending"] == 0
    assert len(history_lines(ws)) == 5
    assert dream_cursor(ws) in ("", "5")


def _untrusted_block(request: dict) -> str:
    text = "\n".join(m.get("content") or "" for m in request["messages"])
    return text.split("```untrusted-history", 1)[1].split("```", 1)[0]
