"""What a killed or raced Dream leaves behind is repaired by the next run (issue 11 items 1, 5,
9, 10): stale git locks, a dream cursor file that was never rewritten, a hand edit saved in the
middle of the run, an interrupted multi-file write. Real repositories, FakeLLM over MockTransport."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from nanomem import Memory
from tests.dream_fixtures import Setup, add_fact, finish, make_setup, provider_over
from tests.fakellm import FakeLLM


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


def _dream_adding(setup: Setup, text: str, rel: str = "USER.md") -> object:
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact(rel, text), finish()])
    with provider_over("mock", fake) as engine:
        return setup.dream(engine)


# ---- item 9: stale dulwich lock files


@pytest.mark.parametrize("lock", ["refs/heads/main.lock", "index.lock", "HEAD.lock",
                                  "objects/ab/cdef0123456789abcdef0123456789abcdef01.lock"])
def test_run_dream_removes_a_git_lock_left_by_a_killed_writer_with_a_warning(
    setup: Setup, lock: str, caplog: pytest.LogCaptureFixture
) -> None:
    setup.history.append("- [durable] User lives in Lyon.")
    stale = setup.store.git_dir / lock
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"half a ref")
    with caplog.at_level(logging.WARNING):
        result = _dream_adding(setup, "- User lives in Lyon.")
    assert result.status == "committed", result.reason
    assert not stale.exists()
    assert f"removed {lock}" in caplog.text


def test_restore_removes_a_stale_ref_lock_before_committing(workspace: Path) -> None:
    mem = Memory(workspace)
    mem.history.append("- [durable] User lives in Lyon.")
    done = mem.dream()
    assert done.status in ("committed", "no_changes")
    (mem.store.git_dir / "refs" / "heads" / "main.lock").write_bytes(b"")
    result = mem.restore()
    assert result.status in ("restored", "already", "nothing_to_do")
    assert not (mem.store.git_dir / "refs" / "heads" / "main.lock").exists()


# ---- item 10: the dream cursor file is repaired, so the warning is not repeated forever


@pytest.mark.parametrize("damage", [None, b"garbage\n", b"999\n"])
def test_run_dream_rewrites_a_missing_or_damaged_dream_cursor_from_the_trailer(
    setup: Setup, damage: bytes | None, caplog: pytest.LogCaptureFixture
) -> None:
    setup.history.append("- [durable] User lives in Lyon.")
    assert _dream_adding(setup, "- User lives in Lyon.").status == "committed"
    path = setup.ws.dream_cursor
    if damage is None:
        path.unlink()
    else:
        path.write_bytes(damage)
    setup.reconfigure()  # a new process: a fresh History whose git fallback is the trailer
    setup.history._fallback = setup.store.last_dream_cursor
    fake = FakeLLM()
    with provider_over("mock", fake) as engine:
        assert setup.dream(engine).status == "nothing_to_do"
    assert path.read_bytes() == b"1\n"
    setup.reconfigure()
    setup.history._fallback = setup.store.last_dream_cursor
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert setup.history.read_dream_cursor() == 1
    assert caplog.text == ""  # the next command does not warn again
