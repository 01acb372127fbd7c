"""Feed a recall conversation through nanomem's public API, in a fresh workspace.

One session file (``sessions/<conversation id>.jsonl``) holds the whole conversation, as a
long-lived chat channel does. Each turn is written with its speaker's ``name`` and the time it
was said (the injected clock), through ``Memory.arecord_turn(key, messages, now=...)`` (which
runs the Consolidator when the next prompt would pass the budget) when main has it, else
``append_messages`` in nanobot's session format followed by ``Memory.aconsolidate``. The
budget is the quality benchmark's small context window, so nearly every turn is archived;
after every session, Dream runs (offline engine unless ``overrides`` say otherwise).
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanomem.config import Config, load_config
from nanomem.memory import Memory
from nanomem.store.sessions import append_messages, load_session
from nanomem.store.workspace import Workspace, init_workspace

from benchmarks.quality.replay import (
    AGENT_PROMPT,
    MEMORY_SHARE,
    SMALL_WINDOW,
    EngineFactory,
    ScriptClock,
)
from benchmarks.recall.data import Conversation, Turn


@dataclass(frozen=True)
class Replayed:
    """The workspace a conversation left, and what the pipeline reported on the way."""

    root: Path
    session: Path
    turns: int
    archived: int
    consolidations: Mapping[str, int]
    dreams: Mapping[str, int]
    via: str  # "record_turn" or "session file"

    def to_json(self) -> dict[str, Any]:
        return {"workspace": str(self.root), "session": str(self.session), "turns": self.turns, "archived": self.archived,
                "consolidations": dict(self.consolidations), "dreams": dict(self.dreams),
                "via": self.via}


def recall_config(root: Path, overrides: Mapping[str, Any] | None = None) -> Config:
    """The workspace's configuration on the small window (``overrides`` win)."""
    merged = {**SMALL_WINDOW, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return load_config(root, overrides=merged)


def message_of(turn: Turn) -> dict[str, Any]:
    """The session message for ``turn``: role, text, the speaker's name, when it was said."""
    return {"role": turn.role, "content": turn.text, "name": turn.speaker,
            "timestamp": turn.at.isoformat(timespec="seconds")}


def has_record_turn(memory: Memory) -> bool:
    """Whether this nanomem has ``Memory.arecord_turn(key, messages, now=...)``."""
    method = getattr(memory, "arecord_turn", None)
    return method is not None and "now" in inspect.signature(method).parameters


def session_file(ws: Workspace, key: str) -> Path:
    """Where the session of ``key`` lives (nanobot's naming where main has it)."""
    named = getattr(ws, "session_path", None)
    return Path(named(key)) if named is not None else ws.sessions_dir / f"{key}.jsonl"


async def replay(
    conversation: Conversation,
    root: Path,
    *,
    overrides: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
    use_record_turn: bool = True,
    engine_factory: EngineFactory | None = None,
) -> Replayed:
    """Replay ``conversation`` into a new workspace at ``root`` (``use_record_turn=False``
    writes the session file and consolidates as hosts did before ``record_turn``;
    ``engine_factory`` builds the engine instead of the configured provider)."""
    init_workspace(root)
    ws = Workspace(root)
    clock = ScriptClock(conversation.sessions[0].start)
    config = recall_config(root, overrides)
    engine = engine_factory(ws, config, clock) if engine_factory is not None else None
    memory = Memory(ws, config=config, clock=clock, engine=engine)
    key = conversation.id
    path = session_file(ws, key)
    record_turn = (
        getattr(memory, "arecord_turn") if use_record_turn and has_record_turn(memory) else None
    )
    memory_tokens = max(1, int(config.budget * MEMORY_SHARE))
    statuses: Counter[str] = Counter()
    dreams: Counter[str] = Counter()
    try:
        memory.store  # the memory repository exists before the first turn
        for session in conversation.sessions:
            for turn in session.turns:
                clock.set(turn.at)
                block = memory.context(memory_tokens)
                if record_turn is not None:
                    result = await record_turn(key, [message_of(turn)], now=turn.at,
                                               system_prompt=AGENT_PROMPT, memory_context=block)
                    statuses[result.consolidation] += 1
                else:
                    append_messages(path, [message_of(turn)], key=key, clock=clock)
                    result = await memory.aconsolidate(path, system_prompt=AGENT_PROMPT,
                                                       memory_context=block)
                    statuses[result.status] += 1
            clock.set(session.end)
            dream = await memory.adream()
            dreams[dream.status] += 1
            if progress:
                progress(f"{conversation.id} {session.id}: dream {dream.status}")
    finally:
        memory.close()
    archived = load_session(path).last_consolidated if path.exists() else 0
    return Replayed(root=ws.root, session=path, turns=len(conversation.turns), archived=archived,
                    consolidations=dict(statuses), dreams=dict(dreams),
                    via="session file" if record_turn is None else "record_turn")
