"""What a killed or raced Dream leaves behind is repaired by the next run (issue 11 items 1, 5,
9, 10): stale git locks, a dream cursor file that was never rewritten, a hand edit saved in the
middle of the run, an interrupted multi-file write. Real repositories, FakeLLM over MockTransport."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from nanomem import Memory
from nanomem.store.history import History
from tests.dream_fixtures import Setup, add_fact, clock, finish, make_setup, provider_over
from tests.fakellm import FakeLLM


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


def _dream_adding(setup: Setup, text: str, rel: str = "USER.md") -> object:
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact(rel, text), finish()])
    with provider_over("mock", fake) as engine:
        return setup.dream(engine)


def _history_falling_back_to_git(setup: Setup) -> History:
    """A fresh History, as a new process builds it: its git fallback is the dream trailer."""
    return History(setup.ws, setup.config, clock=clock,
                   dream_cursor_fallback=setup.store.last_dream_cursor)


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
    setup.history = _history_falling_back_to_git(setup)  # a new process
    fake = FakeLLM()
    with provider_over("mock", fake) as engine:
        assert setup.dream(engine).status == "nothing_to_do"
    assert path.read_bytes() == b"1\n"
    setup.history = _history_falling_back_to_git(setup)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert setup.history.read_dream_cursor() == 1
    assert caplog.text == ""  # the next command does not warn again


# ---- item 1: a hand edit saved between the manual: commit and Dream's writes is kept


def _edit_after_manual_commit(monkeypatch: pytest.MonkeyPatch, setup: Setup, rel: str,
                              text: str) -> None:
    """The seam: a person's editor saves ``rel`` right after Dream's manual: check."""
    real = type(setup.store).commit_manual_if_dirty

    def commit_manual_then_edit(store: object) -> object:
        info = real(store)
        setup.write(rel, setup.read(rel) + text)
        return info

    monkeypatch.setattr(type(setup.store), "commit_manual_if_dirty", commit_manual_then_edit)


def test_run_dream_keeps_a_hand_edit_saved_after_its_manual_commit_and_does_not_commit(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup.history.append("- [durable] User lives in Lyon.")
    head = setup.store.head()
    _edit_after_manual_commit(monkeypatch, setup, "USER.md", "- typed by hand\n")
    result = _dream_adding(setup, "- User lives in Lyon.")
    assert result.status == "failed" and "USER.md was edited" in result.reason
    assert "- typed by hand\n" in setup.read("USER.md")
    assert "User lives in Lyon" not in setup.read("USER.md")
    assert setup.store.head() == head and setup.history.read_dream_cursor() == 0
    assert not (setup.ws.root / "memory" / ".write-journal.json").exists()
    monkeypatch.undo()
    again = _dream_adding(setup, "- User lives in Lyon.")  # the next run: manual:, then redo
    assert again.status == "committed" and again.manual_commit is not None
    text = setup.read("USER.md")
    assert "- typed by hand\n" in text and "- User lives in Lyon.\n" in text
    assert setup.store.show(again.manual_commit).subject == "manual: USER.md"


def test_run_dream_commits_only_its_own_bytes_when_another_file_is_edited_meanwhile(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup.history.append("- [durable] User lives in Lyon.")
    _edit_after_manual_commit(monkeypatch, setup, "SOUL.md", "- typed by hand\n")
    result = _dream_adding(setup, "- User lives in Lyon.")
    assert result.status == "committed"
    assert "- typed by hand\n" in setup.read("SOUL.md")  # on disk, not in the dream: commit
    assert "typed by hand" not in setup.store.show(result.commit).diff
    assert setup.store.dirty_files() == ["SOUL.md"]  # the next run commits it as manual:


# ---- item 5: a multi-file write is one unit; a killed run is completed, never misattributed


class Killed(BaseException):
    """Stands for kill -9: nothing after it runs, no except clause catches it."""


def _two_file_dream(setup: Setup) -> object:
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- User lives in Lyon."),
                             add_fact("memory/MEMORY.md", "- Project KX ships in May."), finish()])
    with provider_over("mock", fake) as engine:
        return setup.dream(engine)


def _kill_at(monkeypatch: pytest.MonkeyPatch, target: object, name: str, nth: int = 1) -> None:
    real = getattr(target, name)
    calls = {"n": 0}

    def dying(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] == nth:
            raise Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, dying)


def _kill_between_the_two_file_writes(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Dream of one pending entry that edits two files, killed after writing the first."""
    from nanomem.store import journal

    setup.history.append("- [durable] User lives in Lyon; project KX ships in May.")
    _kill_at(monkeypatch, journal, "_write_one", nth=2)
    with pytest.raises(Killed):
        _two_file_dream(setup)
    monkeypatch.undo()


def _subjects(setup: Setup) -> list[str]:
    return [c.subject.split(":")[0] for c in setup.store.log(50)]


@pytest.mark.parametrize("where", ["second-file", "commit", "clear"])
def test_run_dream_killed_while_writing_is_completed_by_the_next_run_not_redone(
    setup: Setup, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    from nanomem.store import journal
    from nanomem.versions import journaled

    setup.history.append("- [durable] User lives in Lyon; project KX ships in May.")
    if where == "second-file":
        _kill_at(monkeypatch, journal, "_write_one", nth=2)
    elif where == "commit":
        _kill_at(monkeypatch, type(setup.store), "commit")
    else:
        _kill_at(monkeypatch, journaled, "clear_journal")
    with pytest.raises(Killed):
        _two_file_dream(setup)
    monkeypatch.undo()
    assert (setup.ws.root / "memory" / ".write-journal.json").exists()
    fake = FakeLLM()  # the next run must not ask the model again
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.status == "nothing_to_do" and result.manual_commit is None
    assert fake.requests == []
    assert _subjects(setup).count("dream") == 1 and "manual" not in _subjects(setup)
    assert "- User lives in Lyon." in setup.read("USER.md")
    assert "- Project KX ships in May." in setup.read("memory/MEMORY.md")
    assert setup.history.read_dream_cursor() == 1 and setup.store.dirty_files() == []
    assert not (setup.ws.root / "memory" / ".write-journal.json").exists()


def test_run_dream_killed_mid_write_then_edited_by_hand_is_rolled_back_keeping_the_edit(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kill_between_the_two_file_writes(setup, monkeypatch)
    setup.write("memory/MEMORY.md", setup.read("memory/MEMORY.md") + "- typed by hand\n")
    result = _two_file_dream(setup)  # rolled back first, then a manual: commit and a redo
    assert result.status == "committed" and result.manual_commit is not None
    manual = setup.store.show(result.manual_commit)
    assert manual.files == ("memory/MEMORY.md",) and "typed by hand" in manual.diff
    assert setup.read("USER.md").count("- User lives in Lyon.") == 1
    assert "- typed by hand\n" in setup.read("memory/MEMORY.md")


def test_write_failure_on_the_second_file_puts_the_first_back_and_reports_failed(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nanomem.store import journal

    setup.history.append("- [durable] User lives in Lyon; project KX ships in May.")
    before = setup.snapshot()
    real, calls = journal._write_one, {"n": 0}

    def full_disk(*args: object) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real(*args)

    monkeypatch.setattr(journal, "_write_one", full_disk)
    result = _two_file_dream(setup)
    assert result.status == "failed" and "No space left" in result.reason
    assert setup.snapshot() == before
    assert not (setup.ws.root / "memory" / ".write-journal.json").exists()


def test_restore_killed_between_its_file_writes_is_completed_as_restore_not_manual(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nanomem.store import journal

    setup = make_setup(workspace)
    setup.history.append("- [durable] User lives in Lyon; project KX ships in May.")
    done = _two_file_dream(setup)
    assert done.status == "committed"
    mem = Memory(workspace)
    _kill_at(monkeypatch, journal, "_write_one", nth=2)
    with pytest.raises(Killed):
        mem.restore(done.commit)
    monkeypatch.undo()
    mem = Memory(workspace)
    assert mem.commit_hand_edits() is None  # the journal is completed first: nothing manual
    subjects = [c.subject for c in mem.store.log(10)]
    assert subjects[0].startswith("restore:") and not any(s.startswith("manual:") for s in subjects)
    assert "Lyon" not in (workspace / "USER.md").read_text()
    assert "KX" not in (workspace / "memory" / "MEMORY.md").read_text()


def test_forget_completes_a_killed_dream_write_first_so_its_journal_holds_no_copy(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kill_between_the_two_file_writes(setup, monkeypatch)
    mem = Memory(setup.ws.root)
    receipt = mem.forget("KX ships")
    assert receipt.status == "forgotten"
    assert not (setup.ws.root / "memory" / ".write-journal.json").exists()
    assert "KX ships" not in setup.read("memory/MEMORY.md")
    assert "- User lives in Lyon." in setup.read("USER.md")  # the rest of the Dream is kept


@pytest.mark.parametrize("transport", ["mock", pytest.param("server", marks=pytest.mark.slow)])
def test_dream_survives_a_model_escaping_half_a_surrogate_pair(setup: Setup, transport: str) -> None:
    """Hostile input: ``"\\ud800"`` in a tool call's arguments decoded to a lone surrogate, and
    the run crashed with UnicodeEncodeError sending the next request (the refusal quotes the
    path), leaving neither its commit nor its audit lines."""
    setup.history.append("- [durable] Lives in Porto")
    fake = FakeLLM()
    usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
    fake.enqueue_tool_calls([
        ("edit_file", r'{"path": "../x\ud800.md", "old_text": "a", "new_text": "b"}'),
        ("edit_file", r'{"path": "USER.md", "old_text": "## Facts\n", '
                      r'"new_text": "## Facts\n- Lives in Porto \udcff\n"}'),
        finish()], usage=usage)
    fake.enqueue_tool_calls([finish()], usage=usage)
    with provider_over(transport, fake) as engine:
        result = setup.dream(engine)
    assert result.status == "committed", result
    assert "- Lives in Porto \ufffd\n" in setup.read("USER.md")
    records = [json.loads(line) for line in setup.ws.audit.read_text(encoding="utf-8").splitlines()]
    refused = [r for r in records if r.get("tool") == "edit_file"]
    assert [(r["path"], r["commit"]) for r in refused] == [("../x\ufffd.md", result.commit)]
