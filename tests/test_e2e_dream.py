"""End to end: Dream's lock, dry run and atomicity through the CLI and a real server
(DESIGN §3)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.e2e_support import (
    cli,
    committed_bytes,
    dream_cursor,
    fake_edit,
    fake_finish,
    fsck,
    git_dir_of,
    init_ws,
    memory_bytes,
    nanomem,
    openai_env,
    popen_nanomem,
    subjects,
)
from tests.fakellm import FakeLLM

pytestmark = pytest.mark.slow  # every test here starts a process or a server

FACTS = "## Facts\n"


def test_second_dream_while_one_runs_says_already_running_and_changes_nothing(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    arrived = threading.Event()
    fake = FakeLLM(on_request=lambda body: arrived.set())
    fake.enqueue_timeout(30.0)
    with fake.serve() as url:
        env = openai_env(url)
        first = popen_nanomem(ws, "dream", "--json", env=env)
        try:
            assert arrived.wait(30)
            before = (memory_bytes(ws), subjects(ws), dream_cursor(ws))
            second = nanomem(ws, "dream", "--json", env=env)
            assert second.rc == 0, second.err
            assert second.json()["status"] == "already_running"
            assert (memory_bytes(ws), subjects(ws), dream_cursor(ws)) == before
            restore = nanomem(ws, "restore", subjects_sha(ws), env=env)
            assert restore.rc == 1 and "Dream is running" in restore.err
        finally:
            first.kill()
            first.communicate(timeout=10)
    assert len(fake.requests) == 1


def subjects_sha(ws: Path) -> str:
    from tests.e2e_support import git

    return git(git_dir_of(ws), "rev-parse", "HEAD").strip()[:8]


def test_dry_run_prints_the_diff_and_writes_nothing_even_with_hand_edits(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    user = ws / "USER.md"
    user.write_text(user.read_text() + "- Hand edit: call me Ana\n")
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    before = (memory_bytes(ws), subjects(ws), dream_cursor(ws),
              (ws / "memory" / "history.jsonl").read_bytes())
    run = cli("-w", str(ws), "dream", "--dry-run")
    assert run.rc == 0, run.err
    assert "+- User lives in Lyon." in run.out
    data = cli("-w", str(ws), "dream", "--dry-run", "--json").json()
    assert data["status"] == "dry_run" and data["commit"] is None
    assert data["dream_cursor_after"] == data["dream_cursor_before"] == 0
    after = (memory_bytes(ws), subjects(ws), dream_cursor(ws),
             (ws / "memory" / "history.jsonl").read_bytes())
    assert after == before
    assert not (ws / "memory" / "dream-audit.jsonl").exists()


def test_hand_edit_while_the_model_thinks_fails_the_run_and_keeps_the_edit(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    user = ws / "USER.md"
    head_before = subjects(ws)

    def person_edits(body: dict) -> None:
        user.write_text(user.read_text() + "- Typed while Dream ran\n")

    fake = FakeLLM(on_request=person_edits)
    fake.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                             fake_finish()])
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 1, run.out
    assert run.json()["status"] == "failed"
    text = user.read_text()
    assert "- Typed while Dream ran" in text and "User lives in Lyon." not in text
    assert subjects(ws) == head_before
    assert dream_cursor(ws) in ("", "0")

    again = nanomem(ws, "dream", "--json")  # offline: the edit is committed first, then Dream
    assert again.rc == 0, again.err
    assert again.json()["manual_commit"] is not None and again.json()["status"] == "committed"
    assert memory_bytes(ws) == committed_bytes(ws)
    fsck(git_dir_of(ws))


def test_failed_model_run_leaves_files_repository_and_cursor_exactly_as_they_were(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    user = ws / "USER.md"
    user.write_text(user.read_text() + "- Hand edit: call me Ana\n")
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    before = (memory_bytes(ws), subjects(ws), dream_cursor(ws))
    fake = FakeLLM()
    fake.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n")])
    fake.enqueue_text("I have updated the memory.")  # prose is not completion
    fake.enqueue_text("Done, really.")  # still no finish after the nudge
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 1
    assert run.json()["status"] == "failed"
    assert (memory_bytes(ws), subjects(ws), dream_cursor(ws)) == before
    assert len(fake.requests) == 3
    assert fake.requests[2]["messages"][-1]["role"] == "user"  # the one nudge
