"""End to end: bad input gets one clear line (file, line, fix) and exit 2; the JSON outputs
carry DESIGN §8's fields with the right types (DESIGN §7, §8)."""

from __future__ import annotations

from nanomem.dream.audit import read_refusal_records

import json
import re
from pathlib import Path

import pytest

from tests.e2e_support import cli, history_lines, init_ws, memory_bytes, nanomem

SHA = re.compile(r"^[0-9a-f]{40}$")


def _one_error_line(run, *fragments: str) -> str:
    assert run.rc == 2, (run.out, run.err)
    assert "Traceback" not in run.err + run.out
    lines = [line for line in run.err.splitlines() if line.strip()]
    assert len(lines) == 1, run.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.mark.parametrize(
    ("toml", "fragments"),
    [
        ("[dream]\nbatch_entries = \n", ("nanomem.toml", "line 2", "fix")),
        ("# settings\n[dream]\nbatch_entries = 'x'\n",
         ("nanomem.toml line 3", "[dream] 'batch_entries'", "fix")),
        ("[dream]\nmax_batches = 3\n\n[dreem]\nx = 1\n",
         ("nanomem.toml line 4", "unknown section [dreem]", "dream")),
        ("[watch]\ndebounce_seconds = 1\ndebounse = 2\n",
         ("nanomem.toml line 3", "unknown key 'debounse'", "debounce_seconds")),
        ('[caps]\n"USER.md" = "big"\n', ("nanomem.toml line 2", "USER.md", "positive number")),
        ("[dream]\nbatch_tokens = 0\n", ("nanomem.toml line 2", "at least 1")),
        ("[provider]\nmax_retries = true\n", ("nanomem.toml line 2", "'max_retries'")),
    ],
)
def test_malformed_nanomem_toml_names_file_line_and_fix(
    tmp_path: Path, toml: str, fragments: tuple[str, ...]
) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(toml)
    before = memory_bytes(ws)
    for command in (("status",), ("append", "- [durable] x"), ("dream",)):
        _one_error_line(cli("-w", str(ws), *command), *fragments)
    assert memory_bytes(ws) == before
    assert history_lines(ws) == []


@pytest.mark.slow
def test_malformed_session_line_names_file_and_line_and_loses_nothing(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    session = ws / "sessions" / "cli.jsonl"
    text = (
        '{"_type": "metadata", "key": "cli", "last_consolidated": 0}\n'
        '{"role": "user", "content": "I live in Lyon."}\n'
        "{not json}\n"
        '{"role": "user", "content": "more"}\n'
    )
    session.write_text(text)
    run = nanomem(ws, "consolidate", str(session), "--context-window", "6000")
    _one_error_line(run, "cli.jsonl line 3", "repair or remove")
    assert session.read_text() == text


@pytest.mark.slow
def test_garbage_history_lines_are_skipped_with_one_warning_and_neighbours_kept(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    history = ws / "memory" / "history.jsonl"
    with history.open("a") as f:
        f.write("garbage line\n")
        f.write('{"cursor": "abc", "timestamp": "x", "content": "y"}\n')
        f.write('{"cursor": true, "timestamp": "x", "content": "y"}\n')
    assert cli("-w", str(ws), "append", "- [durable] User prefers tea.").out.strip() == "2"
    run = nanomem(ws, "dream", "--json")
    assert run.rc == 0, run.err
    assert run.json()["status"] == "committed"
    assert run.json()["dream_cursor_after"] == 2
    user = (ws / "USER.md").read_text()
    assert "User lives in Lyon." in user and "User prefers tea." in user
    warnings = [line for line in run.err.splitlines() if "history.jsonl" in line]
    assert len(warnings) == 2, run.err  # one per kind: invalid JSON, bad cursor
    assert all("repair or remove" in line for line in warnings)
    assert "Traceback" not in run.err
    assert "garbage line" in history.read_text()  # a line a person may repair is kept


@pytest.mark.slow
def test_garbage_history_line_warning_names_the_line_number(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    with (ws / "memory" / "history.jsonl").open("a") as f:
        f.write("garbage line\n")
    run = nanomem(ws, "status")
    assert "line 2" in run.err, run.err


def test_missing_workspace_is_one_line_with_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    for command in (("status",), ("append", "x"), ("dream",), ("log",), ("restore",),
                    ("watch",), ("command", "/memory")):
        run = cli("-w", str(missing), *command)
        _one_error_line(run, str(missing), "nanomem init")
    assert not missing.exists()


def test_unknown_slash_command_and_bad_usage_exit_2(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    _one_error_line(cli("-w", str(ws), "command", "hello there"), "not a nanomem command")
    assert cli("-w", str(ws), "dream", "--provider", "claude").rc == 2
    run = cli("-w", str(ws), "dream", "--replay", "zzzz")
    _one_error_line(run, "zzzz")


def _assert_commit_json(data: dict) -> None:
    assert SHA.match(data["sha"]), data["sha"]
    assert isinstance(data["subject"], str) and data["subject"]
    assert isinstance(data["time"], str) and re.match(r"^\d{4}-\d{2}-\d{2}T", data["time"])
    assert isinstance(data["files"], list) and all(isinstance(f, str) for f in data["files"])
    assert isinstance(data["diff"], str)


def test_json_outputs_carry_the_stable_fields_with_their_types(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    status = cli("-w", str(ws), "status", "--json").json()
    for key, kind in (("cursor", int), ("dream_cursor", int), ("pending", int),
                      ("git_dir", str), ("head", str), ("provider", str)):
        assert isinstance(status[key], kind) and not isinstance(status[key], bool), key
    assert SHA.match(status["head"])

    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    dream = cli("-w", str(ws), "dream", "--json").json()
    assert dream["status"] == "committed"
    assert SHA.match(dream["commit"])
    for key in ("dream_cursor_before", "dream_cursor_after", "accepted"):
        assert isinstance(dream[key], int) and not isinstance(dream[key], bool), key
    assert (dream["dream_cursor_before"], dream["dream_cursor_after"]) == (0, 1)
    assert isinstance(dream["refused"], list) and isinstance(dream["diff"], str)
    assert "+- User lives in Lyon." in dream["diff"]

    nothing = cli("-w", str(ws), "dream", "--json").json()
    assert nothing["status"] == "nothing_to_do" and nothing["commit"] is None
    assert nothing["refused"] == [] and nothing["diff"] == ""

    log = cli("-w", str(ws), "log", "--json").json()
    _assert_commit_json(log)
    assert log["sha"] == dream["commit"] and log["files"] == ["USER.md"]
    restore = cli("-w", str(ws), "restore", dream["commit"][:7], "--json").json()
    _assert_commit_json(restore)
    assert restore["files"] == ["USER.md"] and restore["subject"].startswith("restore:")
    versions = cli("-w", str(ws), "restore", "--json").json()
    assert isinstance(versions, list) and versions[0]["sha"] == restore["sha"]
    for item in versions:
        _assert_commit_json(item)
    again = cli("-w", str(ws), "status", "--json").json()
    assert again["head"] == restore["sha"] and again["pending"] == 0


@pytest.mark.slow
def test_dream_json_lists_refusals_as_tool_path_reason(tmp_path: Path) -> None:
    from tests.e2e_support import fake_edit, fake_finish, openai_env
    from tests.fakellm import FakeLLM

    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    fake = FakeLLM()
    fake.enqueue_tool_calls([
        fake_edit("../outside.md", "a", "b"),
        fake_edit("USER.md", "## Facts\n", "## Facts\n- User lives in Paris since 1999.\n"),
        fake_edit("USER.md", "## Facts\n", "## Facts\n- User lives in Lyon.\n"),
        fake_finish(),
    ])
    fake.enqueue_tool_calls([fake_finish()])  # a finish beside refused calls waits one round
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    data = run.json()
    assert data["status"] == "committed" and data["accepted"] == 1
    assert len(data["refused"]) == 2
    for item in data["refused"]:
        assert set(item) >= {"tool", "path", "reason"}
        assert item["tool"] == "edit_file" and isinstance(item["reason"], str) and item["reason"]
    assert not (tmp_path / "outside.md").exists()
    audit_text = (ws / "memory" / "dream-audit.jsonl").read_text()
    audit = read_refusal_records(audit_text)
    assert len(audit) == 2


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_append_of_empty_text_is_a_usage_error_and_writes_nothing(
    tmp_path: Path, text: str
) -> None:
    ws = init_ws(tmp_path)
    _one_error_line(cli("-w", str(ws), "append", text), "TEXT is empty")
    assert history_lines(ws) == []


def test_damaged_head_of_the_memory_repository_is_a_clear_error_not_a_crash(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    (ws / ".git" / "HEAD").write_text("garbage\n")
    for command in (("log",), ("dream",), ("restore",)):
        run = cli("-w", str(ws), *command)
        assert run.rc == 1, (command, run.err)
        assert "internal error" not in run.err and "Traceback" not in run.err
        assert "HEAD points to 'garbage'" in run.err and "fsck" in run.err
