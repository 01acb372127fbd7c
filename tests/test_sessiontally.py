"""The running token count of a session file (nanomem.store.sessiontally)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.store import sessiontally
from nanomem.store.sessions import (
    append_messages,
    append_turn,
    load_session,
    save_session,
)
from nanomem.store.sessiontally import read_session_tally
from nanomem.text.tokens import estimate_message

NOW = datetime(2026, 11, 30, 12, 0)


def _clock() -> datetime:
    return NOW


def _turn(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"question {i} about tea " * (i % 5 + 1)},
            {"role": "assistant", "content": f"answer {i}"}]


def _truth(path: Path) -> tuple[int, int, int]:
    session = load_session(path)
    return (len(session.messages), session.last_consolidated,
            sum(estimate_message(m) for m in session.unconsolidated))


def _seen(path: Path) -> tuple[int, int, int]:
    tally = read_session_tally(path)
    return tally.messages, tally.last_consolidated, tally.tokens


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    sessiontally._MARKS.clear()


def test_sessiontally_equals_a_full_reading_after_appends_and_a_save(tmp_path: Path) -> None:
    path = tmp_path / "cli.jsonl"
    for i in range(6):
        append_turn(path, _turn(i), key="cli", clock=_clock)
        assert _seen(path) == _truth(path)
    session = load_session(path)
    save_session(path, session.__class__(**{**session.__dict__, "last_consolidated": 4}))
    assert _seen(path) == _truth(path)
    append_turn(path, _turn(9), clock=_clock)
    assert _seen(path) == _truth(path)


def test_sessiontally_reads_from_the_metadata_line_in_a_new_process(tmp_path: Path) -> None:
    path = tmp_path / "cli.jsonl"
    append_turn(path, _turn(0), key="cli", clock=_clock)
    append_turn(path, _turn(1), clock=_clock)
    sessiontally._MARKS.clear()  # as a fresh process
    stored = json.loads(path.read_text("utf-8").splitlines()[0])["nanomem_tally"]
    assert stored["messages"] == 2  # written when the file was created, before the append
    assert _seen(path) == _truth(path) == (4, 0, _truth(path)[2])


def test_sessiontally_notices_a_same_length_edit_of_the_last_line(tmp_path: Path) -> None:
    path = tmp_path / "cli.jsonl"
    append_turn(path, _turn(0), key="cli", clock=_clock)
    append_turn(path, _turn(1), clock=_clock)
    assert _seen(path) == _truth(path)
    text = path.read_text("utf-8")
    path.write_text(text.replace("answer 1", "answer 1 and much more text to count"), "utf-8")
    assert _seen(path) == _truth(path)


def test_sessiontally_reads_a_file_another_tool_wrote_without_a_tally(tmp_path: Path) -> None:
    path = tmp_path / "cli.jsonl"
    lines = [{"_type": "metadata", "key": "cli", "last_consolidated": 1}, *_turn(0), *_turn(1)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert _seen(path) == _truth(path)
    append_messages(path, _turn(2), clock=_clock)
    assert _seen(path) == _truth(path)


def test_sessiontally_counts_the_append_after_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "cli.jsonl"
    append_turn(path, _turn(0), key="cli", clock=_clock)
    assert _seen(path) == _truth(path)
    with open(path, "ab") as fh:
        fh.write(b'{"role": "user", "content": "cut sho')
    assert _seen(path) == _truth(path)  # the torn line is not a message
    append_turn(path, _turn(1), clock=_clock)
    assert _seen(path) == _truth(path) == (4, 0, _truth(path)[2])
