"""``nanomem demo``: every step runs offline and is checked; a broken engine makes it fail."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall
from nanomem.cli import main
from nanomem.demo import load_sample, run_demo
from nanomem.engines.offline.engine import OfflineEngine


def test_demo_runs_all_seven_steps_and_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    # A configured endpoint must not matter: the demo is offline by construction.
    monkeypatch.setenv("NANOMEM_PROVIDER", "openai")
    monkeypatch.setenv("NANOMEM_BASE_URL", "http://127.0.0.1:9/v1")
    out, err = io.StringIO(), io.StringIO()

    code = main(["demo"], stdout=out, stderr=err)

    text = out.getvalue()
    assert code == 0, text + err.getvalue()
    for number, word in enumerate(
        ["init", "replay", "consolidate", "dream", "/dream-log", "/dream-restore", "back"], 1
    ):
        header = next(ln for ln in text.splitlines() if ln.startswith(f"[{number}/7]"))
        assert word in header
    assert "FAILED" not in text and "All 7 steps checked out" in text


def test_demo_leaves_the_checked_memory_in_a_given_directory(tmp_path: Path) -> None:
    root = tmp_path / "demo-ws"

    assert run_demo(io.StringIO(), root=root) == 0

    user = (root / "USER.md").read_text("utf-8")
    assert "allergic to peanuts" in user and "Porto" in user and "I live in Lisbon" not in user
    assert "KX-7731" in (root / "memory" / "MEMORY.md").read_text("utf-8")


def test_demo_sample_conversation_covers_both_languages_and_the_key_facts() -> None:
    turns = [t["user"] for s in load_sample()["sessions"] for t in s["turns"]]
    text = "\n".join(turns)

    assert "peanuts" in text and "KX-7731" in text and "moved from Lisbon to Porto" in text
    assert "Remind me tomorrow" in text
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text)


class ForgetfulEngine:
    """The offline engine, except that it forgets the allergy when consolidating."""

    name = "forgetful"

    def __init__(self) -> None:
        self.inner = OfflineEngine()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        response = await self.inner.complete(request)
        if request.stage != "consolidate":
            return response
        calls = []
        for call in response.tool_calls:
            args = json.loads(call.arguments)
            args["facts"] = [f for f in args["facts"] if "peanut" not in f["text"]]
            calls.append(ToolCall(call.id, call.name, json.dumps(args)))
        return ChatResponse(response.content, tuple(calls), response.finish_reason, response.usage)


class LazyDreamEngine:
    """Consolidates like the offline engine but every Dream just says nothing is needed."""

    name = "lazy"

    def __init__(self) -> None:
        self.inner = OfflineEngine()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if request.stage == "dream":
            call = ToolCall("f1", "finish", json.dumps({"status": "no_changes_needed", "note": ""}))
            return ChatResponse(None, (call,), "tool_calls")
        return await self.inner.complete(request)


def test_demo_fails_with_exit_1_when_the_engine_drops_a_fact() -> None:
    out = io.StringIO()

    code = run_demo(out, engine=ForgetfulEngine())

    text = out.getvalue()
    assert code == 1
    assert "FAILED  the peanut allergy is archived verbatim" in text
    assert "Demo FAILED at step 3" in text and "[4/7]" not in text


def test_demo_fails_when_dream_changes_nothing() -> None:
    out = io.StringIO()

    code = run_demo(out, engine=LazyDreamEngine())

    assert code == 1
    assert "Demo FAILED at step 4: expected Dream committed (got no_changes" in out.getvalue()
