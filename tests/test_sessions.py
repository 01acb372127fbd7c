"""Session files: format, atomic saves, bad input, and the last_consolidated offset."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.errors import WorkspaceError
from nanomem.store.sessions import (
    Session,
    append_messages,
    append_to,
    format_messages,
    load_session,
    new_session,
    save_session,
    tool_spans,
)

NOW = datetime(2026, 11, 30, 16, 40)


def clock() -> datetime:
    return NOW


def write_lines(path: Path, *objects: object) -> None:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects), "utf-8")


def meta(**fields: object) -> dict[str, object]:
    return {"_type": "metadata", "key": "cli:a", "last_consolidated": 0,
            "created_at": "2026-11-01T10:00:00", "updated_at": "2026-11-01T10:00:00", **fields}


def test_load_session_reads_metadata_and_messages(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    write_lines(path, meta(last_consolidated=1), {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"})
    session = load_session(path)
    assert session.key == "cli:a"
    assert session.last_consolidated == 1
    assert [m["content"] for m in session.unconsolidated] == ["hello"]


def test_save_session_round_trips_bytes_and_extra_metadata(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    write_lines(path, meta(channel="telegram", consolidation_failure={"count": 2}),
                {"role": "user", "content": "我喜欢茶", "timestamp": "2026-11-01T10:00:00"})
    original = path.read_bytes()
    save_session(path, load_session(path))
    head, _, body = path.read_bytes().partition(b"\n")
    old_head, _, old_body = original.partition(b"\n")
    assert body == old_body  # the messages byte for byte
    # the metadata line byte for byte, with the running token count added at its end
    assert head.startswith(old_head[:-1] + b', "nanomem_tally": {')
    again = path.read_bytes()
    save_session(path, load_session(path))
    assert path.read_bytes() == again
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]


@pytest.mark.parametrize("offset", [5, -1, True, "2", None])
def test_load_session_resets_last_consolidated_when_out_of_range(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, offset: object
) -> None:
    path = tmp_path / "a.jsonl"
    write_lines(path, meta(last_consolidated=offset), {"role": "user", "content": "hi"})
    with caplog.at_level(logging.WARNING):
        session = load_session(path)
    assert session.last_consolidated == 0
    assert "reset to 0" in caplog.text and "a.jsonl" in caplog.text


def test_load_session_names_file_and_line_when_json_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(meta()) + "\n{oops\n" + '{"role": "user", "content": "x"}\n')
    with pytest.raises(WorkspaceError, match=r"a\.jsonl line 2: not valid JSON.*repair or remove"):
        load_session(path)


def test_load_session_rejects_message_without_role(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    write_lines(path, meta(), {"content": "no role"})
    with pytest.raises(WorkspaceError, match=r"line 2: message has no 'role'"):
        load_session(path)


def test_load_session_rejects_metadata_after_messages(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    write_lines(path, {"role": "user", "content": "x"}, meta())
    with pytest.raises(WorkspaceError, match=r"line 2: metadata line must be the first line"):
        load_session(path)


def test_load_session_drops_torn_last_line_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(meta()) + "\n" + '{"role": "user", "content": "ok"}\n{"role": "us')
    with caplog.at_level(logging.WARNING):
        session = load_session(path)
    assert [m["content"] for m in session.messages] == ["ok"]
    assert "line 3: incomplete last line" in caplog.text


def test_load_session_uses_file_name_as_key_when_metadata_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "telegram_42.jsonl"
    write_lines(path, {"role": "user", "content": "hi"})
    session = load_session(path)
    assert (session.key, session.last_consolidated, len(session.messages)) == ("telegram_42", 0, 1)


def test_load_session_explains_missing_file_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="session file not found"):
        load_session(tmp_path / "nope.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"role": "user", "content": "\xff"}\n')
    with pytest.raises(WorkspaceError, match="not UTF-8"):
        load_session(bad)


def test_append_messages_creates_file_and_stamps_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "cli.jsonl"
    append_messages(path, [{"role": "user", "content": "hi"}], key="cli:me", clock=clock)
    append_messages(path, [{"role": "assistant", "content": "yo", "timestamp": "T0"}], clock=clock)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["_type"] == "metadata" and lines[0]["key"] == "cli:me"
    assert lines[0]["last_consolidated"] == 0 and lines[0]["created_at"] == "2026-11-30T16:40:00"
    assert lines[1] == {"role": "user", "content": "hi", "timestamp": "2026-11-30T16:40:00"}
    assert lines[2]["timestamp"] == "T0"


def test_session_internal_when_key_is_dream_or_metadata_says_so() -> None:
    assert new_session("dream:2026-11-30", now=NOW).internal
    assert new_session("x", now=NOW, internal=True).internal
    assert not new_session("cli:a", now=NOW).internal
    assert not Session(key="cli", metadata={"internal": "yes"}).internal


def test_with_metadata_sets_and_removes_keys() -> None:
    session = new_session("k", now=NOW).with_metadata(a=1, b=2).with_metadata(a=None)
    assert dict(session.metadata) == {"b": 2}


def test_append_to_leaves_the_original_session_unchanged() -> None:
    base = new_session("k", now=NOW)
    grown = append_to(base, [{"role": "user", "content": "x"}], now=NOW)
    assert (len(base.messages), len(grown.messages)) == (0, 1)


def test_format_messages_renders_roles_tool_calls_and_parts() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": 1}'}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "search", "content": "found"},
    ]
    assert format_messages(messages) == (
        "USER: look\n[image_url]\nASSISTANT: \n  -> search({\"q\": 1})\nTOOL(search): found"
    )


def test_tool_spans_pairs_each_result_with_its_call() -> None:
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}, {"id": "b"}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "tool", "tool_call_id": "zz", "content": "orphan"},
    ]
    assert tool_spans(messages) == [(1, 2), (1, 3)]


# bad inputs (issue 11 item 15): one line naming the file and the fix, never a traceback -------


@pytest.mark.parametrize("content, said", [("42", "a number"), ("true", "a boolean"),
                                           ('{"a": 1}', "an object")])
def test_load_session_rejects_content_that_is_not_text(tmp_path: Path, content: str, said: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": ' + content + "}\n")
    with pytest.raises(WorkspaceError, match=rf"s\.jsonl line 1: message content is {said}; make it a string") as info:
        load_session(path)
    assert info.value.exit_code == 2


def test_load_session_rejects_json_nested_100k_deep_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(WorkspaceError, match=r"s\.jsonl line 1: JSON nested too deeply"):
        load_session(path)


def test_a_lone_surrogate_in_a_session_survives_a_save(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "bad \\ud800 here"}\n')
    session = load_session(path)
    save_session(path, replace(session, last_consolidated=1))
    path.read_bytes().decode("utf-8")  # still valid UTF-8
    again = load_session(path)
    assert again.messages[0]["content"] == "bad \ud800 here" and again.last_consolidated == 1


def test_load_session_names_a_symlink_loop_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.symlink_to(path)
    with pytest.raises(WorkspaceError, match=r"s\.jsonl: cannot read session file .*symlink loop"):
        load_session(path)


# appending a turn is O(1): new lines only (issue 15) -------------------------------------------


def test_append_messages_appends_lines_and_leaves_the_earlier_bytes_alone(tmp_path: Path) -> None:
    path = tmp_path / "cli.jsonl"
    append_messages(path, [{"role": "user", "content": f"m{i}"} for i in range(50)], key="cli", clock=clock)
    before = path.read_bytes()
    session = append_messages(path, [{"role": "assistant", "content": "new"}], clock=clock)
    after = path.read_bytes()
    assert after.startswith(before)
    assert after[len(before):] == b'{"role": "assistant", "content": "new", "timestamp": "2026-11-30T16:40:00"}\n'
    assert len(session.messages) == 51 and session.key == "cli"


def test_append_messages_cuts_a_torn_last_line_before_appending(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "cli.jsonl"
    append_messages(path, [{"role": "user", "content": "kept"}], key="cli", clock=clock)
    with path.open("ab") as handle:
        handle.write(b'{"role": "user", "content": "cut sh')  # a kill mid-write
    with caplog.at_level(logging.WARNING):
        session = append_messages(path, [{"role": "user", "content": "next"}], clock=clock)
    assert "cut a torn last line" in caplog.text
    assert [m["content"] for m in session.messages] == ["kept", "next"]


@pytest.mark.slow
def test_kill_9_during_session_appends_leaves_the_session_readable(tmp_path: Path) -> None:
    from tests.test_history_faults import kill_9_once_grown

    path = tmp_path / "cli.jsonl"
    script = ("import sys\nfrom nanomem.store.sessions import append_messages\n"
              "print('go', flush=True)\n"
              "while True:\n"
              "    append_messages(sys.argv[1], [{'role': 'user', 'content': 'x' * 3000}], key='cli')\n")
    kill_9_once_grown(script, path, path, 100_000)
    count = len(load_session(path).messages)
    assert count >= 30
    session = append_messages(path, [{"role": "user", "content": "after the kill"}], clock=clock)
    assert len(session.messages) == count + 1 and session.messages[-1]["content"] == "after the kill"
