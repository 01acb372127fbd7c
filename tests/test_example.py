"""examples/agent_loop.py end to end against FakeLLM's real HTTP server: the model remembers and
searches through nanomem's agent tools, and record_turn saves each whole turn."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanomem.cli import main
from tests.fakellm import FakeLLM

pytestmark = pytest.mark.slow  # it starts the example and a model server

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = REPO_ROOT / "examples" / "agent_loop.py"


def _init(root: Path) -> None:
    import io

    assert main(["init", str(root)], stdout=io.StringIO()) == 0


def test_example_agent_loop_remembers_and_searches_by_itself_and_records_each_turn(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    _init(root)
    fake = FakeLLM()
    fake.enqueue_tool_calls([("memory_remember",
                              {"text": "Allergic to peanuts.", "mark": "permanent"})])
    fake.enqueue_text("Noted, Ana: no peanuts.")
    fake.enqueue_tool_calls([("memory_search", {"query": "peanuts"})])
    fake.enqueue_text("You are allergic to peanuts.")
    fake.enqueue_text("I don't know a /help command.")
    stdin = ("Hi, I'm Ana and I'm allergic to peanuts.\n/memory\nWhat am I allergic to?\n"
             "/recall peanuts\n/help\nexit\n")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OPENAI_API_KEY": "sk-example-key"}

    with fake.serve() as base_url:
        proc = subprocess.run(
            [sys.executable, str(EXAMPLE), "-w", str(root), "--base-url", base_url,
             "--model", "test-model", "--session", "cli:ana"],
            input=stdin, capture_output=True, text=True, timeout=120, env=env,
        )
    assert proc.returncode == 0, proc.stderr
    fake.assert_all_consumed()
    out = proc.stdout
    assert "Noted, Ana: no peanuts." in out and "You are allergic to peanuts." in out
    assert "**Memory status**" in out and "cursor 1, dream cursor 0, 1 pending" in out
    assert "**Recall** `peanuts`" in out and "Allergic to peanuts." in out.split("**Recall**")[1]

    requests = fake.requests
    assert fake.headers[0]["authorization"] == "Bearer sk-example-key"
    names = [tool["function"]["name"] for tool in requests[0]["tools"]]
    assert {"memory_search", "memory_remember"} <= set(names)
    assert requests[0]["messages"][0]["role"] == "system"
    assert requests[0]["messages"][-1] == {"role": "user",
                                           "content": "Hi, I'm Ana and I'm allergic to peanuts."}
    remembered = requests[1]["messages"][-1]  # the tool result the model got back
    assert remembered["role"] == "tool" and '"cursor": 1' in remembered["content"]
    history = (root / "memory" / "history.jsonl").read_text("utf-8").splitlines()
    assert json.loads(history[0])["content"] == "- [permanent] Allergic to peanuts."

    # the second question: the prompt block already carries the pending fact, and the model's
    # own search finds it
    assert "Allergic to peanuts." in requests[2]["messages"][0]["content"]
    searched = requests[3]["messages"][-1]
    assert searched["role"] == "tool" and "Allergic to peanuts." in searched["content"]
    assert requests[4]["messages"][-1]["content"] == "/help"  # unknown: the agent's turn

    name = base64.urlsafe_b64encode(b"cli:ana").decode().rstrip("=")
    lines = [json.loads(x) for x in (root / "sessions" / f"{name}.jsonl").read_text("utf-8")
             .splitlines()]
    assert lines[0]["_type"] == "metadata" and lines[0]["key"] == "cli:ana"
    assert [(m["role"], bool(m.get("tool_calls"))) for m in lines[1:]] == [
        ("user", False), ("assistant", True), ("tool", False), ("assistant", False),
        ("user", False), ("assistant", True), ("tool", False), ("assistant", False),
        ("user", False), ("assistant", False),
    ]
    assert lines[2]["tool_calls"][0]["function"]["name"] == "memory_remember"
    assert lines[3]["tool_call_id"] == lines[2]["tool_calls"][0]["id"]
