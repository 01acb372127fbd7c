"""The Memory facade: wiring of history, repository, engine, Dream and restore."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.config import Config, load_config
from nanomem.errors import DreamError, WorkspaceError
from nanomem.store.fsutil import FileLock
from nanomem.memory import DreamJob, Memory
from nanomem.replies import render_job
from nanomem.store.sessions import append_messages
from nanomem.records import to_json


def _clock() -> datetime:
    return datetime(2026, 11, 30, 16, 40)


@pytest.fixture
def memory(workspace: Path) -> Memory:
    mem = Memory(workspace, clock=_clock)
    yield mem
    mem.close()


def test_memory_history_append_returns_cursors_that_read_since_gives_back(memory: Memory) -> None:
    first = memory.history.append("User prefers metric units.")
    second = memory.history.append("用户对花生过敏。", session_key="cli")

    entries = memory.history.read_since(0)

    assert (first, second) == (1, 2)
    assert [(e.cursor, e.content) for e in entries] == [
        (1, "User prefers metric units."), (2, "用户对花生过敏。")
    ]
    assert entries[0].timestamp == "2026-11-30 16:40"


def test_memory_raises_workspace_error_when_directory_is_missing(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="nanomem init"):
        Memory(tmp_path / "nope")


def test_memory_status_reports_stable_fields_without_creating_a_repository(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer tea.")

    status = memory.status()
    data = to_json(status)

    assert {k: data[k] for k in ("cursor", "dream_cursor", "pending", "git_dir", "head")} == {
        "cursor": 1, "dream_cursor": 0, "pending": 1, "git_dir": None, "head": None
    }
    assert data["provider"] == status.provider == "offline"
    user = status.files["USER.md"]
    assert data["files"]["USER.md"] == {"chars": user.chars, "cap": 6000, "exists": True,
                                        "refused": None, "bytes": user.bytes, "ceiling": 96_000,
                                        "over_ceiling": False}
    assert not (memory.workspace.root / ".git").exists()


def test_memory_status_never_contains_the_api_key(workspace: Path) -> None:
    config = load_config(workspace, environ={
        "NANOMEM_PROVIDER": "openai", "NANOMEM_BASE_URL": "http://127.0.0.1:9/v1",
        "NANOMEM_MODEL": "m", "NANOMEM_API_KEY": "sk-test-SECRET-123456789",
    })

    with Memory(workspace, config=config) as mem:
        text = json.dumps(to_json(mem.status()))

    assert "SECRET" not in text and '"provider": "openai"' in text


def test_memory_context_renders_the_memory_files(memory: Memory) -> None:
    memory.workspace.user.write_text("# User\n- Allergic to peanuts. <!-- pin -->\n", "utf-8")

    text = memory.context(2000)

    assert "## USER.md 43/6,000 chars" in text
    assert "- Allergic to peanuts. <!-- pin -->" in text
    assert text.index("SOUL.md") < text.index("USER.md") < text.index("memory/MEMORY.md")


def test_memory_dream_commits_and_advances_the_cursor(memory: Memory) -> None:
    memory.history.append("- [permanent] I am allergic to peanuts.", kind="summary")

    result = memory.dream()

    assert result.status == "committed"
    assert memory.store.latest("dream").sha == result.commit
    assert memory.history.read_dream_cursor() == 1
    assert "peanuts" in memory.workspace.user.read_text("utf-8")
    last = memory.status().last_dream
    assert last is not None and (last.sha, last.dream_cursor) == (result.commit, 1)
    assert memory.status().uncommitted == ()
    with memory.workspace.soul.open("a", encoding="utf-8") as soul:
        soul.write("- Answer in French.\n")
    assert memory.status().uncommitted == ("SOUL.md",)
    assert "hand edits not yet versioned: `SOUL.md`" in memory.handle_command("/memory")


def test_memory_sync_wrapper_works_inside_a_running_event_loop(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer green tea.", kind="summary")

    async def host() -> str:
        return memory.dream().status  # a sync call from async code must not crash

    assert asyncio.run(host()) == "committed"


def test_memory_async_handle_command_awaits_the_dream(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer green tea.", kind="summary")

    reply = asyncio.run(memory.ahandle_command("/dream"))

    assert "**Dream committed" in reply
    assert memory.history.read_dream_cursor() == 1


def test_memory_restore_refuses_while_a_dream_holds_the_lock(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer green tea.", kind="summary")
    sha = memory.dream().commit
    lock = FileLock(memory.workspace.dream_lock)
    assert lock.acquire(blocking=False)
    try:
        with pytest.raises(DreamError, match="Dream is running"):
            memory.restore(sha)
        reply = memory.handle_command(f"/dream-restore {sha[:7]}")
    finally:
        lock.release()

    assert "Dream is running" in reply
    assert "green tea" in memory.workspace.user.read_text("utf-8")


def test_memory_restore_without_sha_undoes_the_latest_dream(memory: Memory) -> None:
    memory.store
    before = memory.workspace.user.read_bytes()
    memory.history.append("- [permanent] My name is Ana.", kind="summary")
    memory.dream()

    result = memory.restore()

    assert result.status == "restored" and result.files == ("USER.md",)
    assert memory.workspace.user.read_bytes() == before
    assert memory.store.head() == result.commit.sha
    assert memory.history.read_dream_cursor() == 1


def test_memory_restore_without_sha_and_without_a_dream_has_nothing_to_do(memory: Memory) -> None:
    head = memory.store.head()

    result = memory.restore()

    assert (result.status, result.target, result.files, result.commit) == (
        "nothing_to_do", None, (), None)
    assert memory.store.head() == head


def test_memory_recovers_a_garbage_dream_cursor_from_the_git_trailer(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.history.append("- [durable] I prefer green tea.", kind="summary")
        mem.history.append("- [durable] I like jazz.", kind="summary")
        mem.dream()
    (workspace / "memory" / ".dream_cursor").write_text("garbage", "utf-8")

    with Memory(workspace, clock=_clock) as fresh:
        assert fresh.history.read_dream_cursor() == 2
        assert fresh.history.pending_count() == 0


def test_memory_start_dream_returns_at_once_and_reports_through_on_done(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer green tea.", kind="summary")
    finished_jobs: list[DreamJob] = []
    finished = threading.Event()

    def on_done(job: DreamJob) -> None:
        finished_jobs.append(job)
        finished.set()

    job = memory.start_dream(on_done=on_done)
    result = job.wait(timeout=60)

    assert finished.wait(timeout=60)
    assert result.status == "committed"
    assert finished_jobs == [job] and job.error is None
    assert "**Dream committed" in render_job(job)
    state = memory.status().background_dream
    assert state is not None and state.done
    assert (state.status, state.commit, state.error) == ("committed", result.commit, None)
    assert "finished: committed" in memory.handle_command("/memory")


def test_memory_handle_command_in_background_replies_before_the_dream_ends(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer green tea.", kind="summary")
    done = threading.Event()
    lock = FileLock(memory.workspace.dream_lock)
    lock.acquire()  # hold Dream off: the reply must come back anyway
    try:
        reply = memory.handle_command("/dream", background=True, on_done=lambda _: done.set())
        assert "**Dream started** in the background" in reply
    finally:
        lock.release()
    memory.dream_job.wait(timeout=60)
    assert done.wait(timeout=60)


def test_memory_consolidate_archives_a_session_over_budget(workspace: Path) -> None:
    config = Config(context_window=3000, max_completion_tokens=500, safety_buffer=100)
    memory = Memory(workspace, config=config, clock=_clock)
    path = memory.workspace.sessions_dir / "cli.jsonl"
    turns = []
    for i in range(12):
        turns.append({"role": "user", "content": f"I prefer window seats on flight {i}. " * 20})
        turns.append({"role": "assistant", "content": "Noted. " * 40})
    append_messages(path, turns, key="cli", clock=_clock)

    result = memory.consolidate("cli", memory_context="")

    assert result.status == "archived"
    assert memory.history.last_cursor() >= 1
    assert "window seats" in memory.history.read_since(0)[0].content


def test_memory_facade_imports_no_face_at_module_level() -> None:
    import ast

    import nanomem.memory as facade

    tree = ast.parse(Path(facade.__file__).read_text("utf-8"))
    names = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
             for alias in node.names if node.module == "nanomem"}
    modules = {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    modules |= {alias.name for node in tree.body if isinstance(node, ast.Import)
                for alias in node.names}
    assert not {"commands", "replies", "cli"} & names
    assert not {"nanomem.commands", "nanomem.replies", "nanomem.cli"} & modules


def test_memory_context_keeps_a_pin_mark_written_without_spaces(memory: Memory) -> None:
    pinned = "- Contract KX-7731 renews every March. <!--pin-->"
    facts = "\n".join(f"- Project fact number {i} about the Atlas rollout plan." for i in range(40))
    memory.workspace.memory_md.write_text(f"# Memory\n\n## Facts\n{facts}\n{pinned}\n", "utf-8")
    memory.workspace.soul.unlink()
    memory.workspace.user.unlink()

    text = memory.context(60)

    assert "lines omitted" in text
    assert pinned in text.split("\n")
