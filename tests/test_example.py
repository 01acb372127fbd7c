"""examples/agent_loop.py end to end against FakeLLM's real HTTP server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanomem.cli import main
from tests.fakellm import FakeLLM

pytestmark = pytest.mark.slow  # every test here starts a process or a server

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = REPO_ROOT / "examples" / "agent_loop.py"


def _init(root: Path) -> None:
    import io

    assert main(["init", str(root)], stdout=io.StringIO()) == 0


def test_example_agent_loop_chats_saves_the_session_and_routes_slash_commands(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    _init(root)
    user = "# User\n\n## Facts\n- Allergic to peanuts. <!-- pin -->\n"
    (root / "USER.md").write_text(user, "utf-8")
    fake = FakeLLM()
    fake.enqueue_text("Hello Ana! No peanuts, noted.")
    fake.enqueue_text("Porto is lovely.")
    stdin = "Hi, I'm Ana.\n/memory\nI moved to Porto.\n/dream-log\n/help\nexit\n"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OPENAI_API_KEY": "sk-example-key"}

    with fake.serve() as base_url:
        fake.enqueue_text("I don't know a /help command.")
        proc = subprocess.run(
            [sys.executable, str(EXAMPLE), "-w", str(root), "--base-url", base_url,
             "--model", "test-model", "--session", "demo"],
            input=stdin, capture_output=True, text=True, timeout=60, env=env,
        )

    assert proc.returncode == 0, proc.stderr
    assert "Hello Ana! No peanuts, noted." in proc.stdout
    assert "**Memory status**" in proc.stdout and "No Dream commit yet" in proc.stdout
    first = fake.requests[0]
    assert first["model"] == "test-model"
    assert first["messages"][0]["role"] == "system"
    assert "## USER.md" in first["messages"][0]["content"]
    assert "Allergic to peanuts. <!-- pin -->" in first["messages"][0]["content"]
    second = fake.requests[1]["messages"]
    assert [m["content"] for m in second[1:]] == [
        "Hi, I'm Ana.", "Hello Ana! No peanuts, noted.", "I moved to Porto."
    ]
    assert fake.requests[2]["messages"][-1]["content"] == "/help"  # unknown: the agent's turn
    assert fake.headers[0]["authorization"] == "Bearer sk-example-key"
    lines = (root / "sessions" / "demo.jsonl").read_text("utf-8").splitlines()
    assert json.loads(lines[0])["key"] == "demo"
    assert [json.loads(x)["role"] for x in lines[1:]] == ["user", "assistant"] * 3
