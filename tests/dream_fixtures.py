"""Shared set-up of the Dream tests: a real workspace, History, GitStore and a FakeLLM provider
over either transport (``httpx.MockTransport`` or a real server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.fakellm import FakeLLM

from nanomem.config import Config
from nanomem.dream.run import DreamResult, run_dream
from nanomem.versions.gitstore import GitStore
from nanomem.store.history import History
from nanomem.engines.openai import OpenAIProvider
from nanomem.store.workspace import MEMORY_FILES, Workspace

NOW = datetime(2026, 11, 30, 12, 0)


def clock() -> datetime:
    return NOW


async def no_sleep(_seconds: float) -> None:
    return None


@dataclass
class Setup:
    """One workspace with its history, memory repository and config."""

    ws: Workspace
    config: Config
    history: History
    store: GitStore

    def dream(self, engine: Any, **kwargs: Any) -> DreamResult:
        return asyncio.run(self.adream(engine, **kwargs))

    async def adream(self, engine: Any, **kwargs: Any) -> DreamResult:
        kwargs.setdefault("clock", clock)
        return await run_dream(self.ws, config=self.config, history=self.history,
                               store=self.store, engine=engine, **kwargs)

    def write(self, rel: str, text: str) -> None:
        self.ws.path(rel).write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return self.ws.path(rel).read_text(encoding="utf-8")

    def snapshot(self) -> dict[str, Any]:
        """Everything a failed run must leave exactly as it was."""
        files = {rel: self.ws.path(rel).read_bytes() for rel in MEMORY_FILES}
        cursor = self.ws.dream_cursor.read_bytes() if self.ws.dream_cursor.exists() else None
        history = self.ws.history.read_bytes() if self.ws.history.exists() else None
        return {"files": files, "head": self.store.head(), "cursor": cursor, "history": history}

    def dream_rewriting(self, rel: str, head: str, line: str, correction: str, new: str) -> DreamResult:
        """One Dream over ``correction`` (a history entry) in which the model rewrites ``line``
        of ``rel`` (the file is ``head`` then ``line``, committed) as ``new``, over MockTransport."""
        self.write(rel, head + line + "\n")
        self.store.commit_manual_if_dirty()
        self.history.append(correction)
        fake = FakeLLM()
        edit = ("edit_file", {"path": rel, "old_text": line + "\n", "new_text": new + "\n"})
        fake.enqueue_tool_calls([edit, finish()])
        fake.enqueue_tool_calls([finish()])  # a finish beside a refused call waits one round
        with provider_over("mock", fake) as engine:
            return self.dream(engine)

    def reconfigure(self, **changes: Any) -> None:
        self.config = dataclasses.replace(self.config, **changes)
        self.history = History(self.ws, self.config, clock=clock)


def make_setup(root: Path, **config: Any) -> Setup:
    cfg = Config(**config)
    ws = Workspace(root)
    store = GitStore.open(ws, cfg, clock=lambda: datetime(2026, 11, 30, 12, 0).astimezone())
    return Setup(ws, cfg, History(ws, cfg, clock=clock), store)


@contextlib.contextmanager
def provider_over(kind: str, fake: FakeLLM, **kwargs: Any) -> Iterator[OpenAIProvider]:
    """An OpenAIProvider talking to ``fake`` through MockTransport (``mock``) or HTTP (``server``)."""
    kwargs.setdefault("max_retries", 1)
    if kind == "mock":
        yield OpenAIProvider(fake.base_url, None, "test-model", transport=fake.transport(),
                             sleep=no_sleep, **kwargs)
        return
    with fake.serve() as url:
        yield OpenAIProvider(url, None, "test-model", sleep=no_sleep, **kwargs)


def user_message(body: dict[str, Any]) -> str:
    """The opening user message (files + history) of a recorded request."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def finish(status: str = "updated", note: str = "done") -> tuple[str, dict[str, str]]:
    return ("finish", {"status": status, "note": note})


def add_fact(rel: str, text: str, heading: str = "## Facts\n") -> tuple[str, dict[str, str]]:
    return ("edit_file", {"path": rel, "old_text": heading, "new_text": f"{heading}{text}\n"})
