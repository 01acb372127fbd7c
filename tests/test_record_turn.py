"""Memory.record_turn: the one call of the hot path. Session lines in nanobot's format, the
archive exactly when over budget, bad turns refused whole, two processes into one session."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from nanomem import Memory, TurnResult, WorkspaceError
from nanomem.config import load_config
from tests.fakellm import FakeLLM

REPO_ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 30, 16, 40, tzinfo=timezone.utc)
STAMP = "2026-11-30T16:40:00+00:00"
RESERVE = 4096 + 1024  # max_completion_tokens + safety_buffer (the defaults)


def memory_with_budget(root: Path, budget: int) -> Memory:
    config = dataclasses.replace(load_config(root), context_window=budget + RESERVE)
    assert config.budget == budget
    return Memory(root, config=config, clock=lambda: NOW)


def turn(n: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"Remember that my locker code is KX-{n:04d}, please."},
            {"role": "assistant", "content": "Noted, I will remember that."}]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_record_turn_writes_nanobots_exact_line_shapes(workspace: Path) -> None:
    call = {"id": "call_1", "type": "function",
            "function": {"name": "memory_search", "arguments": '{"query": "tea"}'}}
    messages = [
        {"role": "user", "content": "Do I like tea?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "name": "memory_search", "content": "1 hit"},
        {"role": "assistant", "content": "Yes, green tea.", "timestamp": "2026-11-30T16:39:59"},
    ]
    with Memory(workspace, clock=lambda: NOW) as mem:
        result = mem.record_turn("telegram:42", messages, now=NOW)

    path = workspace / "sessions" / "dGVsZWdyYW06NDI.jsonl"  # urlsafe base64 of the key
    assert result.path == str(path)
    raw = path.read_text("utf-8").splitlines()
    # nanobot's metadata keys first, then nanomem's running token count (a key nanobot ignores)
    assert raw[0].startswith(json.dumps({"_type": "metadata", "key": "telegram:42",
                                         "last_consolidated": 0, "created_at": STAMP,
                                         "updated_at": STAMP})[:-1] + ', "nanomem_tally": {')
    assert raw[1] == '{"role": "user", "content": "Do I like tea?", "timestamp": "%s"}' % STAMP
    assert json.loads(raw[2]) == {**messages[1], "timestamp": STAMP}
    assert json.loads(raw[3]) == {**messages[2], "timestamp": STAMP}
    assert json.loads(raw[4]) == messages[3]  # a timestamp the host gave is kept
    assert len(raw) == 5
    assert result == TurnResult(
        status="recorded", session_key="telegram:42", path=str(path), recorded=4, messages=4,
        last_consolidated=0, estimate=result.estimate, budget=result.budget,
        consolidation="under_budget",
    )
    assert 0 < result.estimate <= result.budget
    assert not (workspace / "memory" / "history.jsonl").exists()


def test_record_turn_appends_to_the_same_session_across_calls(workspace: Path) -> None:
    with Memory(workspace, clock=lambda: NOW) as mem:
        mem.record_turn("cli", turn(1))
        second = mem.record_turn("cli", turn(2))
    assert (second.recorded, second.messages) == (2, 4)
    body = lines(workspace / "sessions" / "Y2xp.jsonl")
    assert [m.get("content") for m in body[1:]] == [m["content"] for m in turn(1) + turn(2)]


def test_record_turn_continues_a_session_file_under_its_older_name(workspace: Path) -> None:
    older = workspace / "sessions" / "cli_ana.jsonl"  # nanobot < 0.3 and earlier nanomem
    older.write_text(json.dumps({"_type": "metadata", "key": "cli:ana", "last_consolidated": 0,
                                 "created_at": STAMP, "updated_at": STAMP}) + "\n", "utf-8")
    with Memory(workspace, clock=lambda: NOW) as mem:
        result = mem.record_turn("cli:ana", turn(1))
    assert result.path == str(older)
    assert len(lines(older)) == 3
    assert sorted(p.name for p in (workspace / "sessions").glob("*.jsonl")) == ["cli_ana.jsonl"]


def test_record_turn_keeps_nanobots_last_archived_equal_to_the_offset(workspace: Path) -> None:
    path = workspace / "sessions" / "cy45.jsonl"  # what nanobot 0.3.5 writes for key "s.9"
    assert Memory(workspace).workspace.session_path("s.9") == path
    meta = {"_type": "metadata", "key": "s.9", "created_at": STAMP, "updated_at": STAMP,
            "metadata": {"channel": "cli"}, "last_archived": 0, "last_consolidated": 0}
    path.write_text(json.dumps(meta) + "\n", "utf-8")
    mem = memory_with_budget(workspace, 100)
    for n in range(4):
        result = mem.record_turn("s.9", turn(n), memory_context="")
    first = lines(path)[0]
    assert result.last_consolidated > 0
    assert first["last_archived"] == first["last_consolidated"] == result.last_consolidated
    assert first["metadata"] == {"channel": "cli"}


@pytest.mark.parametrize("over", [False, True])
def test_record_turn_archives_exactly_when_over_budget(tmp_path: Path, over: bool) -> None:
    import shutil

    template = REPO_ROOT / "workspace_template"

    def fresh(name: str) -> Path:
        root = tmp_path / name
        shutil.copytree(template, root, ignore=shutil.ignore_patterns(".keep"))
        return root

    probe = memory_with_budget(fresh("probe"), 100_000)
    probe.record_turn("s", turn(1), memory_context="")
    estimate = probe.record_turn("s", turn(2), memory_context="").estimate

    root = fresh("ws")
    memory_with_budget(root, 100_000).record_turn("s", turn(1), memory_context="")
    mem = memory_with_budget(root, estimate - 1 if over else estimate)
    result = mem.record_turn("s", turn(2), memory_context="")

    assert result.estimate == estimate
    history = root / "memory" / "history.jsonl"
    if not over:
        assert (result.status, result.consolidation, result.cursors) == (
            "recorded", "under_budget", ())
        assert result.last_consolidated == 0
        assert not history.exists()
        return
    assert (result.status, result.consolidation, result.archived_messages) == (
        "archived", "archived", 2)
    entries = lines(history)
    assert result.cursors == tuple(e["cursor"] for e in entries) == (1,)
    assert entries[0]["session_key"] == "s"
    assert "KX-0001" in entries[0]["content"] and "KX-0002" not in entries[0]["content"]
    assert lines(Path(result.path))[0]["last_consolidated"] == 2 == result.last_consolidated


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ("hello", "takes a list of chat messages, not str"),
        ({"role": "user", "content": "hi"}, "takes a list of chat messages, not dict"),
        ([{"role": "user", "content": "ok"}, {"content": "no role"}],
         "record_turn message 2: role None is not one of"),
        ([{"role": "user", "content": 3}], "content must be text, a list of parts or null"),
        ([{"role": "tool", "content": "x"}], "a tool message needs the tool_call_id"),
        ([{"role": "user", "content": "x", "extra": object()}], "not JSON-serialisable"),
        ([{"role": "assistant", "content": "", "tool_calls": "f()"}], "tool_calls must be a list"),
    ],
)
def test_record_turn_refuses_a_bad_turn_whole_and_writes_nothing(
    workspace: Path, messages: Any, message: str
) -> None:
    with Memory(workspace) as mem, pytest.raises(WorkspaceError, match=message):
        mem.record_turn("cli", messages)
    assert list((workspace / "sessions").iterdir()) == []


def test_record_turn_refuses_an_empty_session_key(workspace: Path) -> None:
    with Memory(workspace) as mem, pytest.raises(WorkspaceError, match="session key '' is empty"):
        mem.record_turn("", turn(1))


def test_record_turn_with_no_messages_touches_nothing(workspace: Path) -> None:
    with Memory(workspace) as mem:
        result = mem.record_turn("cli", [])
    assert (result.status, result.recorded, result.messages, result.consolidation) == (
        "recorded", 0, 0, "none")
    assert list((workspace / "sessions").iterdir()) == []


def test_record_turn_keeps_the_turn_when_the_archive_fails(workspace: Path) -> None:
    from nanomem.engines.openai import OpenAIProvider

    fake = FakeLLM()
    fake.enqueue_text("I would rather chat.")  # no archive_history call: a failure
    config = dataclasses.replace(load_config(workspace), context_window=60 + RESERVE)
    engine = OpenAIProvider(fake.base_url, None, "m", transport=fake.transport())
    with Memory(workspace, config=config, engine=engine, clock=lambda: NOW) as mem:
        mem.record_turn("s", turn(1), memory_context="")
        result = mem.record_turn("s", turn(2), memory_context="")
    assert result.status == "failed"
    assert "no archive_history tool call" in (result.reason or "")
    assert (result.messages, result.last_consolidated) == (4, 0)
    assert len(lines(Path(result.path))) == 5
    fake.assert_all_consumed()


def test_arecord_turn_is_the_async_twin(workspace: Path) -> None:
    async def main() -> TurnResult:
        with Memory(workspace, clock=lambda: NOW) as mem:
            return await mem.arecord_turn("cli", turn(1))

    result = asyncio.run(main())
    assert (result.status, result.messages) == ("recorded", 2)


RECORDER = """
import dataclasses, json, sys, time
from pathlib import Path
from nanomem import Memory, to_json
from nanomem.config import load_config
root, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
config = dataclasses.replace(load_config(root), context_window=int(sys.argv[4]))
mem = Memory(root, config=config)
(root / f"ready-{name}").write_text("ready")
deadline = time.monotonic() + 60
while not (root / "go").exists() and time.monotonic() < deadline:
    time.sleep(0.001)
out = []
for i in range(count):
    said = [{"role": "user", "content": f"Remember that my locker code is {name}-{i:03d}, please."},
            {"role": "assistant", "content": f"Noted {name} {i}."}]
    out.append(to_json(mem.record_turn("shared", said, memory_context="")))
print(json.dumps(out))
"""


@pytest.mark.slow
def test_record_turn_from_two_processes_into_one_session_loses_and_repeats_nothing(
    workspace: Path,
) -> None:
    per_process, names = 12, ("PA", "PB")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", RECORDER, str(workspace), name, str(per_process),
                          str(160 + RESERVE)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
        for name in names
    ]
    deadline = time.monotonic() + 60
    while not all((workspace / f"ready-{n}").exists() for n in names):
        assert time.monotonic() < deadline, "the recorders did not start"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (workspace / "go").write_text("go")
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))

    session = lines(workspace / "sessions" / "c2hhcmVk.jsonl")
    meta, messages = session[0], session[1:]
    assert meta["_type"] == "metadata" and meta["key"] == "shared"
    said = [m["content"] for m in messages if m["role"] == "user"]
    for name in names:  # every turn once, in the order its process recorded them
        mine = [s for s in said if f"code is {name}-" in s]
        assert mine == [f"Remember that my locker code is {name}-{i:03d}, please."
                        for i in range(per_process)]
    assert len(messages) == 2 * per_process * len(names)
    for index, message in enumerate(messages):  # each answer right after its question
        if message["role"] == "assistant":
            name, i = message["content"].removeprefix("Noted ").rstrip(".").split()
            assert messages[index - 1]["content"].endswith(f"{name}-{int(i):03d}, please.")

    entries = lines(workspace / "memory" / "history.jsonl")
    cursors = [e["cursor"] for e in entries]
    assert cursors == sorted(set(cursors))
    assert sorted(c for r in results for t in r for c in t["cursors"]) == cursors
    archived_text = "\n".join(e["content"] for e in entries)
    archived = [m["content"] for m in messages[: meta["last_consolidated"]] if m["role"] == "user"]
    assert archived, "the budget was meant to force archiving"
    for text in said:  # archived exactly once if before last_consolidated, else not at all
        assert archived_text.count(text) == (1 if text in archived else 0), text


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("NANOMEM_NANOBOT_PYTHON"),
                    reason="set NANOMEM_NANOBOT_PYTHON to a python with nanobot-ai 0.3.5")
def test_record_turn_sessions_load_in_nanobot(workspace: Path, tmp_path: Path) -> None:
    """The real reader: nanobot-ai 0.3.5's SessionManager (its own venv: it pins mcp<2)."""
    mem = memory_with_budget(workspace, 100)
    for n in range(4):
        mem.record_turn("telegram:42", turn(n), memory_context="")
    meta = lines(workspace / "sessions" / "dGVsZWdyYW06NDI.jsonl")[0]
    assert meta["last_consolidated"] > 0
    script = (
        "import json, sys; from pathlib import Path\n"
        "from nanobot.session.manager import SessionManager\n"
        "s = SessionManager(Path(sys.argv[1]), sessions_root=Path(sys.argv[2]))"
        ".get_or_create('telegram:42')\n"
        "print(json.dumps([len(s.messages), s.last_consolidated, s.get_history()]))\n"
    )
    proc = subprocess.run(
        [os.environ["NANOMEM_NANOBOT_PYTHON"], "-c", script, str(workspace), str(tmp_path / "rt")],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    count, offset, unarchived = json.loads(proc.stdout)
    assert (count, offset) == (8, meta["last_consolidated"])
    assert unarchived[-1] == {"role": "assistant", "content": "Noted, I will remember that."}
