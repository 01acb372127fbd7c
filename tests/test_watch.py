"""The watch daemon: path classes, the scheduler (injected times), steps, a real observer,
and a clean exit on SIGTERM."""

from __future__ import annotations

import io
import logging
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.engines.chat import ChatRequest, ChatResponse
from nanomem.cli import main
from nanomem.config import Config
from nanomem.store.fsutil import FileLock
from nanomem.versions.gitstore import GitStore
from nanomem.memory import Memory
from nanomem.watch import Watcher, WatchScheduler, classify_path
from nanomem.store.workspace import Workspace


def _clock() -> datetime:
    return datetime(2026, 11, 30, 16, 40)


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _wait_until(predicate, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.parametrize(
    ("rel", "kind"),
    [
        ("SOUL.md", "memory"),
        ("USER.md", "memory"),
        ("memory/MEMORY.md", "memory"),
        ("memory/PENDING.md", "memory"),  # versioned with the memory files: a hand edit counts
        ("memory/history.jsonl", "history"),
        ("memory/MOVED.md", None),
        ("memory/.cursor", None),
        ("memory/.dream_cursor", None),
        ("memory/dream-audit.jsonl", None),
        ("memory/.history.lock", None),
        ("memory/.dream.lock", None),
        ("memory/.provider_notes.json", None),
        (".USER.md.k2j3h4.tmp", None),
        ("memory/.MEMORY.md.x.tmp", None),
        (".git/index", None),
        (".git/objects/ab/cdef", None),
        (".nanomem.git/HEAD", None),
        ("sessions/cli.jsonl", None),
        ("notes.md", None),
    ],
)
def test_classify_path_ignores_nanomems_own_files(rel: str, kind: str | None) -> None:
    ws = Workspace(Path("/w"))

    assert classify_path(ws, f"/w/{rel}") == kind


def test_classify_path_ignores_paths_outside_the_workspace() -> None:
    assert classify_path(Workspace(Path("/w")), "/elsewhere/USER.md") is None


def test_scheduler_commits_a_burst_of_edits_once_after_the_debounce() -> None:
    s = WatchScheduler(debounce_seconds=2, interval_minutes=0, idle_minutes=0, now=0)
    for t in (10, 11, 11.5):
        s.note("memory", now=t)

    assert [s.commit_due(t) for t in (12, 13.4, 13.5)] == [False, False, True]
    s.committed()
    assert s.commit_due(100) is False


def test_scheduler_commits_at_the_latest_after_max_delay_when_edits_never_stop() -> None:
    s = WatchScheduler(debounce_seconds=2, interval_minutes=0, idle_minutes=0, now=0)
    t = 0.0
    while t < 29.5:
        s.note("memory", now=t)
        assert not s.commit_due(t)
        t += 0.5

    s.note("memory", now=30)
    assert s.commit_due(30)


def test_scheduler_dreams_after_idle_time_and_not_again_without_new_history() -> None:
    s = WatchScheduler(debounce_seconds=2, interval_minutes=0, idle_minutes=15, now=0)
    s.note("history", now=60)

    assert s.dream_reason(60 + 899) is None
    assert s.dream_reason(60 + 900) == "idle"
    s.dreamed(960)
    assert s.dream_reason(5000) is None
    s.note("history", now=6000)
    assert s.dream_reason(6000 + 900) == "idle"


def test_scheduler_dreams_on_the_interval_and_zero_turns_it_off() -> None:
    on = WatchScheduler(debounce_seconds=2, interval_minutes=120, idle_minutes=0, now=0)
    off = WatchScheduler(debounce_seconds=2, interval_minutes=0, idle_minutes=0, now=0)

    assert on.dream_reason(7199) is None and on.dream_reason(7200) == "interval"
    on.dreamed(7200)
    assert on.dream_reason(7300) is None
    assert off.dream_reason(10**9) is None


@pytest.fixture
def memory(workspace: Path) -> Memory:
    config = Config(watch_debounce_seconds=0.2, dream_interval_minutes=0, dream_idle_minutes=1)
    mem = Memory(workspace, config=config, clock=_clock)
    mem.store
    yield mem
    mem.close()


def _subjects(memory: Memory) -> list[str]:
    return [c.subject for c in memory.store.log(50)]


def test_watcher_step_commits_hand_edits_after_the_debounce(memory: Memory) -> None:
    fake = FakeTime()
    watcher = Watcher(memory, clock=fake)
    memory.workspace.user.write_text("# User\n- Likes jazz.\n", "utf-8")
    watcher.on_path(str(memory.workspace.user))

    assert watcher.step() == []
    fake.now += 0.3
    assert watcher.step() == ["commit"]
    assert _subjects(memory)[0] == "manual: USER.md"


def test_watcher_step_commits_a_hand_edit_of_the_pending_questions(memory: Memory) -> None:
    fake = FakeTime()
    watcher = Watcher(memory, clock=fake)
    fake.now += 1
    watcher.step()  # the start-up check: nothing to commit yet
    pending = memory.workspace.path("memory/PENDING.md")
    pending.write_text("# Pending questions\n\nNone open; I cleared them by hand.\n", "utf-8")
    watcher.on_path(str(pending))

    fake.now += 0.3
    assert watcher.step() == ["commit"]
    assert _subjects(memory)[0] == "manual: memory/PENDING.md"
    assert watcher.noted == ["memory/PENDING.md"]


def test_watcher_step_waits_while_a_dream_holds_the_lock(memory: Memory) -> None:
    fake = FakeTime()
    watcher = Watcher(memory, clock=fake)
    memory.workspace.user.write_text("# User\n- Likes jazz.\n", "utf-8")
    watcher.on_path(str(memory.workspace.user))
    lock = FileLock(memory.workspace.dream_lock)
    assert lock.acquire(blocking=False)
    try:
        fake.now += 1
        assert watcher.step() == []  # a Dream (maybe another process) is writing: no manual:
    finally:
        lock.release()
    fake.now += 0.1
    assert watcher.step() == []  # retried only after the debounce
    fake.now += 0.2
    assert watcher.step() == ["commit"]
    assert _subjects(memory)[0] == "manual: USER.md"


def test_watcher_step_dreams_when_idle_with_pending_entries(memory: Memory) -> None:
    fake = FakeTime()
    watcher = Watcher(memory, clock=fake)
    memory.history.append("- [permanent] I am allergic to peanuts.", kind="summary")
    watcher.on_path(str(memory.workspace.history))

    fake.now += 30
    assert "dream" not in watcher.step()
    fake.now += 31
    assert watcher.step() == ["dream"]
    assert "peanuts" in memory.workspace.user.read_text("utf-8")
    fake.now += 3600
    assert watcher.step() == []  # nothing new: no second Dream


class ExplodingEngine:
    name = "exploding"

    async def complete(self, request: ChatRequest) -> ChatResponse:
        raise RuntimeError("engine blew up")


def test_watcher_step_survives_errors_and_keeps_working(workspace: Path, caplog) -> None:
    config = Config(watch_debounce_seconds=0.2, dream_interval_minutes=0, dream_idle_minutes=1)
    mem = Memory(workspace, config=config, engine=ExplodingEngine(), clock=_clock)
    mem.store
    fake = FakeTime()
    watcher = Watcher(mem, clock=fake)
    mem.history.append("- [durable] I prefer tea.", kind="summary")
    fake.now += 61

    with caplog.at_level(logging.ERROR, logger="nanomem.watch"):
        watcher.step()  # must not raise
    mem.workspace.soul.write_text("# Soul\n- Be brief.\n", "utf-8")
    watcher.on_path(str(mem.workspace.soul))
    fake.now += 1

    assert watcher.step() == ["commit"]
    assert "watch step failed; still watching" in caplog.text
    assert mem.history.read_dream_cursor() == 0
    mem.close()


def test_watcher_with_a_real_observer_commits_an_edit_and_ignores_its_own_files(
    memory: Memory,
) -> None:
    watcher = Watcher(memory, tick=0.05)
    ready = threading.Event()
    thread = threading.Thread(
        target=watcher.run, kwargs={"on_ready": ready.set, "install_signals": False}
    )
    thread.start()
    try:
        assert ready.wait(10)
        ws = memory.workspace
        (ws.memory_dir / ".cursor").write_text("7", "utf-8")
        (ws.memory_dir / "dream-audit.jsonl").write_text("{}\n", "utf-8")
        (ws.root / ".USER.md.abc.tmp").write_text("temp", "utf-8")
        (ws.root / ".USER.md.abc.tmp").unlink()
        (ws.sessions_dir / "cli.jsonl").write_text("{}\n", "utf-8")
        ws.user.write_text("# User\n- Lives in Porto.\n", "utf-8")

        reader = GitStore.open(ws.root, memory.config, create=False)
        def committed() -> bool:
            info = reader.latest("manual")
            return info is not None and info.files == ("USER.md",)

        assert _wait_until(committed)
        reader.close()
    finally:
        watcher.stop()
        thread.join(10)

    assert not thread.is_alive()
    assert set(watcher.noted) == {"USER.md"}


@pytest.mark.slow
def test_cli_watch_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    assert main(["init", str(root)], stdout=io.StringIO()) == 0
    with subprocess.Popen(
        [sys.executable, "-m", "nanomem", "-w", str(root), "watch"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as proc:
        try:
            line = proc.stderr.readline()
            assert "watching" in line
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        rest = proc.stderr.read()

    assert code == 0
    assert "watch stopped" in rest and "Traceback" not in rest
    assert not list(root.rglob("*.tmp"))
