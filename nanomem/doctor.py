"""``nanomem doctor``: probe the configured endpoint once per stage and say what works.

Each stage gets one small request shaped like its real ones: consolidation the
``archive_history`` tool with its named ``tool_choice``, ``max_tokens`` and ``temperature``;
Dream the four Dream tools with ``tool_choice: "required"``. A stage works when the reply holds
a tool call that validates against its tool's schema (the stage's own check). Refusals are
handled and remembered exactly as in a real run, so the probe leaves the fallbacks and quirks
it met in the provider notes, together with the context window the server reports.

    report = asyncio.run(run_doctor(config, workspace))
    report.ok            # both stages can run: `nanomem doctor` exits 0, else 1
    to_json(report)      # `nanomem doctor --json` (nanomem.records.to_json)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import jsonschema

from nanomem.config import Config
from nanomem.consolidate.request import build_request, check_archive_reply
from nanomem.dream.tools import DREAM_TOOLS
from nanomem.engines.chat import ChatModel, ChatRequest, ChatResponse, engine_session
from nanomem.engines.openai import OpenAIProvider
from nanomem.engines.quirks import ADVICE
from nanomem.engines.registry import make_engine
from nanomem.engines.window import ContextWindow, discover_context_window
from nanomem.errors import ProviderError
from nanomem.store.workspace import Workspace

#: What to try when a server answers a forced tool call in text.
NO_TOOL_CALL_ADVICE = (
    "the server returned no tool call: start vLLM with --enable-auto-tool-choice "
    "--tool-call-parser <parser>, llama.cpp with --jinja, or choose a model trained for tool calls"
)
_SAMPLE = (
    {"role": "user", "content": "My name is Ana and I live in Porto."},
    {"role": "assistant", "content": "Nice to meet you, Ana."},
)
_DREAM_PROBE = (
    {"role": "system", "content": "You maintain memory files with tools. This is a connection "
                                  "check: there is nothing to change."},
    {"role": "user", "content": 'Call finish with {"status": "no_changes_needed", "note": "check"}.'},
)


@dataclass(frozen=True)
class StageProbe:
    """The outcome of one stage's probe."""

    stage: str
    model: str
    ok: bool
    detail: str
    fallbacks: dict[str, str] = field(default_factory=dict)
    quirks: dict[str, str] = field(default_factory=dict)
    advice: tuple[str, ...] = ()


@dataclass(frozen=True)
class DoctorReport:
    """What ``nanomem doctor`` found; ``to_json(report)`` is its ``--json`` form (with ``ok``).
    ``stages`` maps each stage name to its probe."""

    provider: str
    base_url: str | None
    stages: Mapping[str, StageProbe]
    context_window: ContextWindow | None = None
    configured_context_window: int = 0
    warnings: tuple[str, ...] = ()

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("ok",)

    @property
    def ok(self) -> bool:
        """Both stages can run."""
        return all(stage.ok for stage in self.stages.values())


async def run_doctor(config: Config, workspace: Workspace | Path, *, transport: Any = None,
                     sleep: Any = None, engine: ChatModel | None = None) -> DoctorReport:
    """Probe both stages and the context window; never raises for a failing endpoint."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    engine = engine or make_engine(config, ws, transport=transport, sleep=sleep)
    if config.provider == "offline":
        stages = {s: StageProbe(s, "offline", True, "the offline engine needs no endpoint")
                  for s in ("consolidate", "dream")}
        return DoctorReport("offline", None, stages,
                            configured_context_window=config.context_window)
    async with engine_session(engine):
        probes = (await _probe(engine, _consolidate_request(config), _check_consolidate),
                  await _probe(engine, _dream_request(), _check_dream))
        stages = {probe.stage: probe for probe in probes}
        window = await _window(engine)
    warnings: tuple[str, ...] = ()
    if window is not None and window.tokens < config.context_window:
        warnings = (f"the server's context window is {window.tokens} tokens ({window.source}) but "
                    f"context_window is {config.context_window}; set [consolidate] "
                    f"context_window = {window.tokens} in nanomem.toml",)
    base_url = _scrub(engine, engine.base_url) if isinstance(engine, OpenAIProvider) else None
    return DoctorReport(config.provider, base_url, stages, window, config.context_window, warnings)


def _scrub(engine: ChatModel, text: str) -> str:
    return engine.scrub(text) if isinstance(engine, OpenAIProvider) else text


def _consolidate_request(config: Config) -> ChatRequest:
    return build_request(list(_SAMPLE), session_key="doctor", config=config)


def _dream_request() -> ChatRequest:
    return ChatRequest(messages=_DREAM_PROBE, tools=DREAM_TOOLS, tool_choice="required",
                       stage="dream")


def _check_consolidate(response: ChatResponse) -> str | None:
    return check_archive_reply(response).reason


def _check_dream(response: ChatResponse) -> str | None:
    if not response.tool_calls:
        said = f" (it answered in text: {response.content[:80]!r})" if response.content else ""
        return f"the model made no tool call{said}"
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in DREAM_TOOLS}
    for call in response.tool_calls:
        if call.name not in schemas:
            return f"the model called an unknown tool {call.name!r}"
        try:
            jsonschema.validate(json.loads(call.arguments), schemas[call.name])
        except (json.JSONDecodeError, jsonschema.ValidationError) as exc:
            return f"{call.name} arguments do not validate ({str(exc).splitlines()[0]})"
    return None


async def _probe(engine: ChatModel, request: ChatRequest, check: Any) -> StageProbe:
    stage = request.stage or "?"
    http = engine if isinstance(engine, OpenAIProvider) else None
    model = http.model_for(stage) if http is not None else engine.name
    try:
        response = await engine.complete(request)
    except ProviderError as exc:
        ok, detail = False, str(exc)
    else:
        reason = check(response)
        ok = reason is None
        detail = "tool call accepted" if ok else str(reason)
    notes = http.notes(model) if http is not None else None
    fallbacks = dict(notes.steps) if notes is not None else {}
    quirks = dict(notes.quirks) if notes is not None else {}
    advice = [ADVICE[kind] for kind in quirks if kind in ADVICE]
    if not ok and "no tool call" in detail:
        advice.append(NO_TOOL_CALL_ADVICE)
    return StageProbe(stage, model, ok, _scrub(engine, detail), fallbacks, quirks,
                      tuple(dict.fromkeys(advice)))


async def _window(engine: ChatModel) -> ContextWindow | None:
    if not isinstance(engine, OpenAIProvider):
        return None
    http = engine
    window: ContextWindow | None = await http.using_client(
        lambda client: discover_context_window(client, http.base_url, http.model))
    if window is not None:
        http.notes().record_context_window(window.tokens, window.source)
    return window
