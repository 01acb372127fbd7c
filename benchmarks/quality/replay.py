"""Replay a scripted conversation through the real nanomem pipeline, in a fresh workspace.

Per conversation: ``init_workspace``, then for every message, in order, with the injected
clock set to the message's time: append it to ``sessions/<id>.jsonl``; after each user message
(when the agent would build its next prompt) run the Consolidator on a small context window.
After each session, run Dream. One session file holds the whole conversation, as a long-lived
chat channel does; the scripted sessions are separated by the time that passes between them.

>>> clock = ScriptClock(datetime(2026, 1, 1, 9, 0))
>>> clock.set(datetime(2026, 1, 8, 9, 0)); clock().isoformat()
'2026-01-08T09:00:00'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.dream.ledger import STATES, fact_entries, parse_ledger_facts, unaccounted
from nanomem.dream.limits import clip_fact
from nanomem.engines.chat import ChatModel
from nanomem.config import Config, load_config
from nanomem.memory import Memory
from nanomem.store.sessions import append_messages
from nanomem.store.workspace import MEMORY_FILES, Workspace, init_workspace

from benchmarks.quality.scenarios import Conversation

AGENT_PROMPT = "You are a helpful assistant with long-term memory."
# The small window that makes a 60-turn script overflow several times (tokens).
SMALL_WINDOW = {"context_window": 1_400, "max_completion_tokens": 1_024, "safety_buffer": 96}
MEMORY_SHARE = 0.25  # share of the prompt budget the agent gives to its memory block

EngineFactory = Callable[[Workspace, Config, "ScriptClock"], ChatModel]


class ScriptClock:
    """The injected clock: returns whatever time the replay last set."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def set(self, when: datetime) -> None:
        self.now = when

    def __call__(self) -> datetime:
        return self.now


@dataclass(frozen=True)
class ReplayResult:
    """What the pipeline reported while replaying (for the record; scores come from files)."""

    root: Path
    seed_text: str
    consolidations: Mapping[str, int]
    archived_messages: int
    dream_statuses: tuple[str, ...]
    accepted: int
    refused: int
    refusal_reasons: tuple[str, ...] = field(default=())
    dream_failures: tuple[str, ...] = field(default=())
    facts: int = 0  # facts of the batches Dream processed (counted from the history entries)
    accounted: int = 0  # of them, those the ledger puts in exactly one state
    ledger_states: Mapping[str, int] = field(default_factory=dict)
    recall_found: int = 0  # recall self-tests after each Dream: facts search found
    recall_checked: int = 0  # ... of the facts checked
    questions: int = 0  # pending questions Dream raised for the person (distinct numbers)

    def to_json(self) -> dict[str, Any]:
        return {
            "workspace": str(self.root),
            "consolidations": dict(self.consolidations),
            "archived_messages": self.archived_messages,
            "dreams": list(self.dream_statuses),
            "accepted": self.accepted,
            "refused": self.refused,
            "refusal_reasons": list(self.refusal_reasons),
            "dream_failures": list(self.dream_failures),
            "facts": self.facts,
            "accounted": self.accounted,
            "ledger_states": dict(self.ledger_states),
            "recall_health": {"found": self.recall_found, "checked": self.recall_checked},
            "questions": self.questions,
        }


def bench_config(root: Path, overrides: Mapping[str, Any] | None = None) -> Config:
    """The workspace's configuration with the small window (``overrides`` win over both)."""
    merged = {**SMALL_WINDOW, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return load_config(root, overrides=merged)


def seed_files(root: Path, seed: Mapping[str, str]) -> str:
    """Append ``seed`` lines (e.g. a pinned line) to memory files; return all seeded text."""
    ws = Workspace(root)
    for rel, text in seed.items():
        path = ws.path(rel)
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        path.write_text(current.rstrip("\n") + "\n" + text.rstrip("\n") + "\n", encoding="utf-8")
    return "\n".join(
        ws.path(rel).read_text(encoding="utf-8") for rel in MEMORY_FILES if ws.path(rel).is_file()
    )


async def replay_conversation(
    conversation: Conversation,
    root: Path,
    *,
    overrides: Mapping[str, Any] | None = None,
    engine_factory: EngineFactory | None = None,
    seed: Mapping[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReplayResult:
    """Replay ``conversation`` into a new workspace at ``root`` and return what happened."""
    init_workspace(root)
    seed_text = seed_files(root, seed or {})
    ws = Workspace(root)
    clock = ScriptClock(conversation.sessions[0].start)
    config = bench_config(root, overrides)
    engine = engine_factory(ws, config, clock) if engine_factory else None
    memory = Memory(ws, config=config, engine=engine, clock=clock)
    memory_tokens = max(1, int(config.budget * MEMORY_SHARE))
    session_path = ws.sessions_dir / f"{conversation.id}.jsonl"
    statuses: Counter[str] = Counter()
    archived, dreams, accepted, refused = 0, [], 0, 0
    reasons: list[str] = []
    failures: list[str] = []
    facts_seen = accounted = 0
    states: Counter[str] = Counter()
    recall_found = recall_checked = 0
    asked: set[int] = set()
    try:
        memory.store  # create the memory repository before the first turn (init: commit)
        for session in conversation.sessions:
            for turn in session.turns():
                clock.set(turn.at)
                append_messages(
                    session_path,
                    [{"role": turn.role, "content": turn.content}],
                    key=conversation.id,
                    clock=clock,
                )
                if turn.role != "user":
                    continue
                result = await memory.aconsolidate(
                    session_path,
                    system_prompt=AGENT_PROMPT,
                    memory_context=memory.context(memory_tokens),
                )
                statuses[result.status] += 1
                archived += result.archived_messages
            clock.set(session.end)
            waiting = memory.history.read_since(memory.history.read_dream_cursor())
            dream = await memory.adream()
            seen, ok = account_ledger(waiting, dream)
            facts_seen, accounted = facts_seen + seen, accounted + ok
            states.update(entry.state for entry in dream.ledger)
            if dream.recall is not None:
                recall_found += dream.recall.found
                recall_checked += dream.recall.checked
            if dream.status in ("committed", "no_changes"):  # only these write PENDING.md
                asked.update(q.number for q in dream.questions)
            dreams.append(dream.status)
            accepted += dream.accepted
            refused += len(dream.refused)
            reasons.extend(r.reason for r in dream.refused)
            if dream.status == "failed":
                failures.append(str(dream.reason))
            if progress:
                progress(
                    f"{conversation.id} session {session.index + 1}: dream {dream.status}, "
                    f"{dream.accepted} accepted, {len(dream.refused)} refused"
                )
    finally:
        memory.close()
        close = getattr(engine, "aclose", None)
        if close is not None:
            await close()
    return ReplayResult(
        root=ws.root,
        seed_text=seed_text,
        consolidations=dict(statuses),
        archived_messages=archived,
        dream_statuses=tuple(dreams),
        accepted=accepted,
        refused=refused,
        refusal_reasons=tuple(reasons),
        dream_failures=tuple(failures),
        facts=facts_seen,
        accounted=accounted,
        ledger_states=dict(states),
        recall_found=recall_found,
        recall_checked=recall_checked,
        questions=len(asked),
    )


def account_ledger(waiting: Any, dream: Any) -> tuple[int, int]:
    """``(facts, accounted)`` for one Dream: the facts of the history entries it processed,
    counted from the entries themselves, and how many of them its ledger puts in a known state.
    A fact too long for any file is quoted clipped (:func:`clip_fact`): that exact clip matches."""
    if dream.status not in ("committed", "no_changes"):
        return 0, 0
    done = [e for e in waiting if e.cursor <= dream.dream_cursor_after]
    facts = parse_ledger_facts([_Whole(e) for e in done], default_day="1970-01-01")
    ledger = [e for e in fact_entries(dream.ledger) if e.cursor <= dream.dream_cursor_after]
    if len(ledger) != len(facts):
        return len(facts), min(len(facts), len(ledger)) - len(unaccounted(facts, ledger))
    ok = [f for f, e in zip(facts, ledger) if e.fact in (f.text, clip_fact(f.text))
          and e.state in STATES
          and (e.path is not None if e.state in ("kept", "corrected") else bool(e.reason))]
    return len(facts), len(ok)


@dataclass(frozen=True)
class _Whole:
    """A whole history entry seen as one batch segment."""

    entry: Any

    @property
    def cursor(self) -> int:
        return int(self.entry.cursor)

    @property
    def text(self) -> str:
        return str(self.entry.content)
