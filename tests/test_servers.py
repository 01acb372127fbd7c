"""Every server of docs/providers.md's table: Dream and consolidation against its FakeLLM mode.

Each test runs the real stages (``run_dream`` with a dulwich repository, ``consolidate`` with a
session file) against ``FakeLLM(mode=...)``, which answers the way that server does
(``tests/fakeservers.py`` cites the server's documentation or issue for each behaviour), over
MockTransport and over a real HTTP server.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nanomem.config import Config
from nanomem.consolidate.budget import CALIBRATION_KEY
from nanomem.consolidate.run import consolidate
from nanomem.engines.notes import read_notes
from nanomem.engines.openai import OpenAIProvider
from nanomem.engines.registry import make_engine
from nanomem.engines.window import ContextWindow, discover_context_window
from nanomem.store.history import History
from nanomem.store.sessions import load_session
from nanomem.store.workspace import Workspace
from tests.dream_fixtures import Setup, add_fact, clock, finish, make_setup, no_sleep
from tests.fakellm import FakeLLM
from tests.fakeservers import Ollama, OpenRouter
from tests.test_consolidator import archive, config_for, history_lines, turns, write_session

TRANSPORTS = ["mock", pytest.param("server", marks=pytest.mark.slow)]
KEY = "azure-Zq9SECRETkey0123456789"
NINE = re.compile(r"^[A-Za-z0-9]{9}$")


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


@contextlib.contextmanager
def served(kind: str, fake: FakeLLM, path: str = "/v1") -> Iterator[tuple[str, Any]]:
    """``(base_url, transport)`` of ``fake`` over MockTransport or a real server."""
    if kind == "mock":
        yield f"http://fakellm.test{path}", fake.transport()
        return
    with fake.serve() as url:
        yield url.removesuffix("/v1") + path, None


@contextlib.contextmanager
def provider(kind: str, fake: FakeLLM, ws: Path, **config: Any) -> Iterator[OpenAIProvider]:
    """The engine ``make_engine`` builds from a Config pointed at ``fake``."""
    path = config.pop("path", "/v1")
    with served(kind, fake, path) as (url, transport):
        config.setdefault("max_retries", 1)
        cfg = Config(provider="openai", base_url=url, model=config.pop("model", "test-model"),
                     **config)
        engine = make_engine(cfg, ws, transport=transport, sleep=no_sleep)
        assert isinstance(engine, OpenAIProvider)
        yield engine


def dream(setup: Setup, engine: OpenAIProvider, fake: FakeLLM, rounds: int = 1) -> Any:
    """One Dream over one history entry: ``rounds`` edit rounds, then ``finish``."""
    setup.history.append("\n".join(f"- [durable] Fact {i}" for i in range(max(rounds, 1))))
    for i in range(rounds):
        fake.enqueue_tool_calls([add_fact("USER.md", f"- Fact {i}")])
    fake.enqueue_tool_calls([finish("updated", "added facts")])
    return setup.dream(engine)


def consolidation(ws: Path, engine: OpenAIProvider, fake: FakeLLM | None = None,
                  words: int = 120, **config: Any) -> Any:
    """One consolidation of a session over budget; the reply archives one fact."""
    if fake is not None:
        fake.enqueue_tool_calls([("archive_history", archive(("durable", "Lives in Porto.")))])
    messages = turns(30, words)
    path = write_session(ws / "sessions" / "t.jsonl", messages)
    cfg = config_for(messages, 0.8, **config)
    return asyncio.run(consolidate(path, history=History(Workspace(ws), cfg, clock=clock),
                                   engine=engine, config=cfg, clock=clock))


def committed(setup: Setup, result: Any, facts: int = 1) -> None:
    assert result.status == "committed", result.reason
    assert all(f"- Fact {i}\n" in setup.read("USER.md") for i in range(facts))


def archived(ws: Path, result: Any) -> None:
    assert result.status == "archived", result.reason
    assert history_lines(ws)[-1]["content"] == "- [durable] Lives in Porto."


def notes_of(ws: Path, url: str, model: str = "test-model") -> dict[str, Any]:
    return read_notes(Workspace(ws).provider_notes)[url]["models"][model]


# ------------------------------------------------------------------ DeepSeek (thinking mode)
def test_deepseek_gets_reasoning_content_back_on_tool_call_turns(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="deepseek")
    with provider(transport, fake, setup.ws.root) as engine:
        committed(setup, dream(setup, engine, fake))
        archived(setup.ws.root, consolidation(setup.ws.root, engine, fake))
    second = fake.requests[1]["messages"]
    turn = next(m for m in second if m["role"] == "assistant")
    assert turn["reasoning_content"] == "The user said something; I use a tool."
    fake.assert_all_consumed()


# ------------------------------------------------------------------ OpenAI reasoning models
def test_openai_reasoning_model_gets_max_completion_tokens_and_no_temperature(
    setup: Setup, transport: str
) -> None:
    fake = FakeLLM(mode="openai-reasoning")
    ws = setup.ws.root
    with provider(transport, fake, ws, model="o3") as engine:
        archived(ws, consolidation(ws, engine, fake))
        committed(setup, dream(setup, engine, fake))
    first, second, third = fake.requests[:3]
    assert "max_tokens" in first and "max_completion_tokens" in second and "temperature" in second
    assert third["max_completion_tokens"] == 100 and "temperature" not in third
    assert len(fake.requests) == 3 + 2  # the Dream needs no fallback: it sends neither field
    steps = notes_of(ws, engine.base_url, "o3")["fallbacks"]
    assert {k: v["step"] for k, v in steps.items()} == {
        "max_tokens": "rename:max_completion_tokens", "temperature": "omit"}
    fake.assert_all_consumed()


# ------------------------------------------------------------------ Ollama
def test_ollama_ignoring_tool_choice_is_asked_once_more(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="ollama")
    ws = setup.ws.root
    with provider(transport, fake, ws, model="qwen2.5:7b") as engine:
        setup.history.append("- [durable] Fact 0")
        fake.enqueue_text("Sure, I will remember that you live in Porto.")
        fake.enqueue_tool_calls([add_fact("USER.md", "- Fact 0"), finish()])
        committed(setup, setup.dream(engine))
        fake.enqueue_text("The user lives in Porto.")
        archived(ws, consolidation(ws, engine, fake))
    reminder = fake.requests[1]["messages"][-2:]
    assert reminder[0] == {"role": "assistant", "content": "Sure, I will remember that you live in Porto."}
    assert reminder[1]["role"] == "user" and "edit_file" in reminder[1]["content"]
    assert "ignores_tool_choice" in notes_of(ws, engine.base_url, "qwen2.5:7b")["quirks"]
    fake.assert_all_consumed()


def test_ollama_silent_truncation_warns_notes_and_does_not_calibrate(
    setup: Setup, transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeLLM(mode=Ollama(num_ctx=512))
    ws = setup.ws.root
    with provider(transport, fake, ws, model="qwen2.5:7b") as engine:
        archived(ws, consolidation(ws, engine, fake, words=400))
        committed(setup, dream(setup, engine, fake))
    assert "the server cut the prompt" in caplog.text and "num_ctx" in caplog.text
    quirk = notes_of(ws, engine.base_url, "qwen2.5:7b")["quirks"]["truncates_prompt"]
    assert quirk.startswith("reported 512 prompt tokens for about ")
    session = load_session(ws / "sessions" / "t.jsonl")
    assert CALIBRATION_KEY not in session.metadata  # no ratio learned from a cut prompt
    assert engine.last_prompt_tokens != 512
    fake.assert_all_consumed()


def test_ollama_context_window_is_read_from_api_show(workspace: Path, transport: str) -> None:
    fake = FakeLLM(mode="ollama")
    with provider(transport, fake, workspace, model="qwen2.5:7b") as engine:
        window = asyncio.run(engine.using_client(
            lambda client: discover_context_window(client, engine.base_url, engine.model)))
    assert window == ContextWindow(4096, "ollama default num_ctx (the model allows 32768)")
    assert [r.path for r in fake.metadata_requests] == ["/v1/models", "/api/show"]
    assert fake.metadata_requests[1].body == {"model": "qwen2.5:7b"}


# ------------------------------------------------------------------ LM Studio / Hermes templates
def test_tool_calls_written_as_hermes_text_are_used(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="hermes")
    ws = setup.ws.root
    with provider(transport, fake, ws) as engine:
        committed(setup, dream(setup, engine, fake))
        archived(ws, consolidation(ws, engine, fake))
    sent_back = next(m for m in fake.requests[1]["messages"] if m.get("tool_calls"))
    assert sent_back["tool_calls"][0]["function"]["name"] == "edit_file"
    assert NINE.match(sent_back["tool_calls"][0]["id"])
    fake.assert_all_consumed()


# ------------------------------------------------------------------ llama.cpp without --jinja
def test_llamacpp_without_jinja_fails_at_once_naming_the_flag(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="llamacpp-nojinja")
    ws = setup.ws.root
    before = setup.snapshot()
    with provider(transport, fake, ws, max_retries=3) as engine:
        setup.history.append("- [durable] Lives in Porto")
        result = setup.dream(engine)
        consolidated = consolidation(ws, engine)
    assert result.status == "failed" and "start llama.cpp's llama-server with --jinja" in result.reason
    assert consolidated.status == "failed" and "--jinja" in (consolidated.reason or "")
    assert len(fake.requests) == 2  # one each: a 500 that names --jinja is not retried
    assert setup.snapshot()["files"] == before["files"]


# ------------------------------------------------------------------ Together
def test_together_refusing_required_falls_back_to_auto(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="together")
    ws = setup.ws.root
    with provider(transport, fake, ws) as engine:
        committed(setup, dream(setup, engine, fake))
        archived(ws, consolidation(ws, engine, fake))
    choices = [body.get("tool_choice") for body in fake.requests]
    assert choices[:3] == ["required", "auto", "auto"]  # refused once, remembered for round 2
    assert choices[3] == {"type": "function", "function": {"name": "archive_history"}}
    fake.assert_all_consumed()


# ------------------------------------------------------------------ Groq
def test_groq_tool_use_failed_is_retried_once(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="groq")
    ws = setup.ws.root
    with provider(transport, fake, ws, max_retries=0) as engine:
        committed(setup, dream(setup, engine, fake))
        archived(ws, consolidation(ws, engine, fake))
    assert len(fake.requests) == 6  # each of the three requests failed once first
    fake.assert_all_consumed()


# ------------------------------------------------------------------ OpenRouter
def test_openrouter_gets_provider_routing_from_nanomem_toml(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="openrouter")
    ws = setup.ws.root
    routing = {"provider": {"require_parameters": True}}
    with provider(transport, fake, ws, extra_body=routing, model="qwen/qwen3-32b") as engine:
        committed(setup, dream(setup, engine, fake))
        archived(ws, consolidation(ws, engine, fake))
    assert all(body["provider"] == {"require_parameters": True} for body in fake.requests)
    fake.assert_all_consumed()


def test_openrouter_404_without_a_tool_route_is_reported_as_such(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode=OpenRouter(tools_routable=False))
    with provider(transport, fake, setup.ws.root, model="deepseek/deepseek-r1:free") as engine:
        setup.history.append("- [durable] Lives in Porto")
        result = setup.dream(engine)
    assert result.status == "failed"
    assert "No endpoints found that support tool use" in result.reason
    assert "supported_parameters=tools" in result.reason and "check base_url" not in result.reason


# ------------------------------------------------------------------ Mistral
def test_mistral_gets_nine_character_ids_back(setup: Setup, transport: str) -> None:
    fake = FakeLLM(mode="mistral")
    with provider(transport, fake, setup.ws.root) as engine:
        committed(setup, dream(setup, engine, fake, rounds=2), facts=2)
        archived(setup.ws.root, consolidation(setup.ws.root, engine, fake))
    ids = [m.get("tool_call_id") for m in fake.requests[2]["messages"] if m["role"] == "tool"]
    assert len(ids) == 2 and all(NINE.match(i) for i in ids) and len(set(ids)) == 2
    fake.assert_all_consumed()


# ------------------------------------------------------------------ Azure OpenAI (legacy)
def test_azure_gets_api_key_header_and_api_version(setup: Setup, transport: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeLLM(mode="azure")
    ws = setup.ws.root
    with provider(transport, fake, ws, path="/openai/deployments/gpt-4o", api_key=KEY,
                  auth_header="api-key", query={"api-version": "2024-10-21"}) as engine:
        committed(setup, dream(setup, engine, fake))
        archived(ws, consolidation(ws, engine, fake))
    assert all(h["api-key"] == KEY and "authorization" not in h for h in fake.headers)
    assert all(r.path == "/openai/deployments/gpt-4o/chat/completions" for r in fake.recorded)
    assert KEY not in caplog.text
    fake.assert_all_consumed()


# ------------------------------------------------------------------ a model per stage
def test_each_stage_uses_its_own_model(setup: Setup, transport: str) -> None:
    fake = FakeLLM()
    ws = setup.ws.root
    with provider(transport, fake, ws, consolidate_model="small", dream_model="large") as engine:
        committed(setup, dream(setup, engine, fake))
        archived(ws, consolidation(ws, engine, fake))
    assert [body["model"] for body in fake.requests] == ["large", "large", "small"]


# ------------------------------------------------------------------ connections
@pytest.mark.slow
def test_one_dream_of_ten_tool_rounds_opens_one_connection(setup: Setup) -> None:
    fake = FakeLLM(keep_alive=True)
    with provider("server", fake, setup.ws.root) as engine:
        result = dream(setup, engine, fake, rounds=9)  # 9 edit rounds + finish = 10 requests
        assert engine._client is None  # closed when the run ended
    committed(setup, result, facts=9)
    assert len(fake.requests) == 10
    assert fake.connections == 1
    fake.assert_all_consumed()


@pytest.mark.slow
def test_connections_are_counted_per_run(setup: Setup) -> None:
    fake = FakeLLM(keep_alive=True)
    with provider("server", fake, setup.ws.root) as engine:
        committed(setup, dream(setup, engine, fake, rounds=2), facts=2)
        archived(setup.ws.root, consolidation(setup.ws.root, engine, fake))
    assert len(fake.requests) == 4 and fake.connections == 2  # one per run, closed after each


def test_reminder_is_not_sent_to_servers_that_honour_tool_choice(setup: Setup) -> None:
    fake = FakeLLM()
    with provider("mock", fake, setup.ws.root) as engine:
        setup.history.append("- [durable] Lives in Porto")
        fake.enqueue_text("just text")
        fake.enqueue_text("still text")
        result = setup.dream(engine)
    assert result.status == "failed" and len(fake.requests) == 2  # the stage's own nudge only
    assert "ignores_tool_choice" not in json.dumps(read_notes(Workspace(setup.ws.root).provider_notes))


def test_stage_models_fall_back_to_the_model(workspace: Path) -> None:
    engine = make_engine(dataclasses.replace(Config(provider="openai", base_url="http://h/v1",
                                                    model="m"), dream_model="d"), workspace)
    assert isinstance(engine, OpenAIProvider)
    assert (engine.model_for("dream"), engine.model_for("consolidate"), engine.model_for(None)) == (
        "d", "m", "m")


def test_truncation_is_not_claimed_for_a_small_prompt(workspace: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeLLM(mode=Ollama(num_ctx=8))
    with provider("mock", fake, workspace) as engine:
        fake.enqueue_tool_calls([("archive_history", archive(nothing=True))])
        from nanomem.engines.chat import ChatRequest
        asyncio.run(engine.complete(ChatRequest(messages=({"role": "user", "content": "hi"},))))
    assert "cut the prompt" not in caplog.text
    assert logging.WARNING not in [r.levelno for r in caplog.records]


def test_secret_header_values_never_reach_errors_logs_or_notes(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "gw-Zq9SECRETtoken0123456789"
    fake = FakeLLM()
    fake.enqueue_error(400, {"error": {"message": f"temperature is invalid for token {secret}"}})
    fake.enqueue_error(401, {"error": {"message": f"bad gateway token {secret}"}})
    with provider("mock", fake, workspace, headers={"X-Gateway-Token": secret},
                  secrets=(secret,)) as engine:
        from nanomem.engines.chat import ChatRequest
        from nanomem.errors import ProviderError
        with pytest.raises(ProviderError) as raised:
            asyncio.run(engine.complete(ChatRequest(messages=({"role": "user", "content": "x"},),
                                                    temperature=0.0)))
    assert fake.headers[0]["x-gateway-token"] == secret
    assert secret not in str(raised.value) and "[REDACTED]" in str(raised.value)
    assert secret not in caplog.text
    assert secret not in Workspace(workspace).provider_notes.read_text(encoding="utf-8")


@pytest.mark.slow
def test_memory_dreams_twice_with_one_connection_each(workspace: Path) -> None:
    from nanomem.memory import Memory

    fake = FakeLLM(keep_alive=True)
    with fake.serve() as url:
        cfg = Config(provider="openai", base_url=url, model="m", max_retries=0)
        with Memory(workspace, config=cfg, clock=clock) as mem:
            for run in range(2):
                mem.history.append(f"- [durable] Fact {run}")
                fake.enqueue_tool_calls([add_fact("USER.md", f"- Fact {run}")])
                fake.enqueue_tool_calls([finish()])
                assert mem.dream().status == "committed"  # each its own asyncio.run
    assert len(fake.requests) == 4 and fake.connections == 2
    fake.assert_all_consumed()


def test_vllm_refusing_auto_tool_choice_is_noted_with_its_flags(workspace: Path) -> None:
    from nanomem.engines.chat import ChatRequest
    from nanomem.engines.quirks import ADVICE

    fake = FakeLLM(mode="vllm-noauto")
    fake.enqueue_tool_calls([finish()])
    with provider("mock", fake, workspace) as engine:
        request = ChatRequest(messages=({"role": "user", "content": "x"},),
                              tools=({"type": "function", "function": {"name": "finish"}},),
                              tool_choice="auto")
        reply = asyncio.run(engine.complete(request))
    assert [c.name for c in reply.tool_calls] == ["finish"]
    assert [b.get("tool_choice", "<omitted>") for b in fake.requests] == ["auto", "<omitted>"]
    quirks = notes_of(workspace, engine.base_url)["quirks"]
    assert "enable-auto-tool-choice" in quirks["vllm_needs_auto_tool_choice"]
    assert "--enable-auto-tool-choice" in ADVICE["vllm_needs_auto_tool_choice"]
