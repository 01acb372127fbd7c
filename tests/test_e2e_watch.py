"""End to end: ``nanomem watch`` as a subprocess against FakeLLM's real server (DESIGN §8)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e_support import (
    API_KEY,
    cli,
    committed_bytes,
    fake_edit,
    fake_finish,
    fsck,
    git,
    git_dir_of,
    init_ws,
    memory_bytes,
    openai_env,
    popen_nanomem,
    subjects,
)
from tests.fakellm import FakeLLM

pytestmark = pytest.mark.slow  # every test here starts a process or a server

FACTS = "## Facts\n"
WATCH_TOML = (
    "[watch]\ndebounce_seconds = 0.3\ndream_interval_minutes = 0\ndream_idle_minutes = 0.02\n"
)


def _wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _stop(proc, reader: threading.Thread) -> str:
    """SIGTERM the watcher, wait for it, and return its stdout (stderr goes to the reader)."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(5)
        out = proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()
    return out


def test_watch_commits_hand_edits_dreams_when_idle_and_stops_on_sigterm(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(WATCH_TOML)
    fake = FakeLLM()
    fake.enqueue_tool_calls([fake_edit("USER.md", "- Hand edit: call me Ana\n",
                                       "- Hand edit: call me Ana\n- User lives in Lyon.\n"),
                             fake_finish()])
    err_lines: list[str] = []
    with fake.serve() as url:
        proc = popen_nanomem(ws, "watch", env=openai_env(url))
        reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True)
        reader.start()
        try:
            assert _wait_until(lambda: any("watching" in line for line in err_lines)), err_lines
            user = ws / "USER.md"
            user.write_text(user.read_text().replace(FACTS, FACTS + "- Hand edit: call me Ana\n"))
            assert _wait_until(lambda: subjects(ws)[0].startswith("manual:")), err_lines

            assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
            assert _wait_until(lambda: subjects(ws)[0].startswith("dream:")), err_lines
            assert len(fake.requests) == 1
        finally:
            out = _stop(proc, reader)
    assert proc.returncode == 0, err_lines
    text = "".join(err_lines)
    assert "watch stopped" in text and "Traceback" not in text
    assert API_KEY not in text + out
    assert not list(ws.rglob("*.tmp"))
    assert memory_bytes(ws) == committed_bytes(ws)
    gd = git_dir_of(ws)
    manual = git(gd, "show", "--format=", "HEAD~1")
    dream = git(gd, "show", "--format=", "HEAD")
    assert "+- Hand edit: call me Ana" in manual and "Lyon" not in manual
    assert "+- User lives in Lyon." in dream and "+- Hand edit" not in dream
    assert cli("-w", str(ws), "status", "--json").json()["pending"] == 0
    fsck(gd)


def test_watch_with_a_failing_endpoint_keeps_watching_and_changes_nothing(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(WATCH_TOML + "\n[provider]\nmax_retries = 0\n")
    fake = FakeLLM()
    fake.enqueue_error(500)
    err_lines: list[str] = []
    before = subjects(ws)
    with fake.serve() as url:
        proc = popen_nanomem(ws, "watch", env=openai_env(url))
        reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True)
        reader.start()
        try:
            assert _wait_until(lambda: any("watching" in line for line in err_lines)), err_lines
            assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
            assert _wait_until(lambda: any("Dream finished: failed" in line
                                           for line in err_lines)), err_lines
            # No retry storm: the next attempt waits for new history. Let the loop take more
            # steps (a hand edit, committed only after the debounce), then count the requests.
            user = ws / "USER.md"
            user.write_text(user.read_text().replace(FACTS, FACTS + "- Hand edit: call me Ana\n"))
            assert _wait_until(lambda: subjects(ws)[0].startswith("manual:")), err_lines
            assert len(fake.requests) == 1
            assert proc.poll() is None  # still watching
        finally:
            _stop(proc, reader)
    assert proc.returncode == 0
    assert subjects(ws)[1:] == before  # only the hand edit was committed
    assert "Lyon" not in (ws / "USER.md").read_text()
    assert cli("-w", str(ws), "status", "--json").json()["pending"] == 1
    assert API_KEY not in "".join(err_lines)
