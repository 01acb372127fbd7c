"""Dream benchmark: prompt tokens per entry and per batch, and wall time, with the offline engine.

    python benchmarks/dream.py            # 20, 200 and 2,000 pending entries
    python benchmarks/dream.py --quick    # 20 and 200
    python benchmarks/dream.py --tokens   # only the tokens-per-entry table

First, the tokens per processed entry (issue 15's row), every request of a batch counted
(messages and tool definitions, ``tokens.estimate_messages`` + ``estimate_tools``) and divided
by the batch's entries: ``empty`` is the first batch over the template files (later batches see
the facts Dream added), ``full`` every batch of 200 entries over files filled to 85 % of their
caps (they stay full); ``reads every excerpt`` is a model that first calls ``read_file`` on
every file shown as an excerpt, then edits (the worst case of the excerpts). Beside it the floor, the entries' own tokens as the batch shows them,
and the ratio to it.

For each size it builds a fresh workspace (template files, real git repository), appends that
many consolidator-style summary entries, then runs Dream with the offline engine until nothing is
pending. It prints, measured in this run:

- the estimated prompt tokens of the first request of each batch (``tokens.estimate_messages``),
  as min / median / max over all batches, and how they grow as the memory files fill;
Then, per size:

- the wall time of the first run (at most ``dream_max_batches`` batches) and of draining the
  whole backlog, with the time per entry, so sizes compare as ratios within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall  # noqa: E402
from nanomem.config import Config  # noqa: E402
from nanomem.dream.run import run_dream  # noqa: E402
from nanomem.versions.gitstore import GitStore  # noqa: E402
from nanomem.store.history import History  # noqa: E402
from nanomem.engines.offline.engine import OfflineEngine  # noqa: E402
from nanomem.text.tokens import estimate_messages, estimate_text, estimate_tools  # noqa: E402
from nanomem.store.workspace import Workspace, init_workspace  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0)
TEMPLATES = (
    "- [durable] Project P{n} has a budget of {k} EUR and is owned by team T{m}.",
    "- [permanent] I keep pet number {n} called Pet{n}.",
    "- [durable] Please format report {n} as bullet points.",
    "- [ephemeral] Meeting M{n} is tomorrow at 10:{m:02d}.",
    "- [correction] Project P{p} budget changed to {k} EUR.",
)


class Recording:
    """Wraps the offline engine; keeps the prompt estimate of each batch's first request."""

    name = "offline"

    def __init__(self, *, reads: bool = False) -> None:
        self.inner = OfflineEngine(clock=lambda: NOW)
        self.reads = reads  # first read_file every file the prompt shows as an excerpt
        self.first_prompts: list[int] = []
        self.requests = 0
        self.batch_prompts: list[list[int]] = []  # per batch: [entries, tokens of every request]

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if len(request.messages) == 2:  # a new batch conversation: system + files/history
            self.first_prompts.append(estimate_messages(request.messages))
            self.batch_prompts.append([len(request.task.batch), 0])
        self.requests += 1
        self.batch_prompts[-1][1] += estimate_messages(request.messages) + estimate_tools(request.tools)
        if self.reads:
            if len(request.messages) == 2:
                paths = re.findall(r'^EXCERPT of (\S+):', request.messages[1]["content"], re.M)
                if paths:
                    calls = tuple(ToolCall(f"read-{i}", "read_file", json.dumps({"path": rel}))
                                  for i, rel in enumerate(paths))
                    return ChatResponse(content=None, tool_calls=calls, finish_reason="tool_calls")
            elif request.messages[-1].get("content", "").startswith("# "):  # after the reads
                request = dataclasses.replace(request, messages=request.messages[:2])
        return await self.inner.complete(request)


def entry_text(n: int) -> str:
    return "\n".join(
        TEMPLATES[(n + i) % len(TEMPLATES)].format(n=n * 10 + i, m=(n + i) % 60, k=1000 + n * 7 + i,
                                                  p=max(1, n * 10 + i - 30))
        for i in range(3)
    )


FILL_SHARE = 0.85  # "full": each memory file filled to this share of its cap
FILLERS = {  # facts of their own, written like the entries (shared words, their own names)
    "SOUL.md": "- Format digest D{n} as a table with a short summary for reader Rd{n}.",
    "USER.md": "- My friend Fr{n} lives in town Tw{n} and likes tea blend Bl{n}.",
    "memory/MEMORY.md": "- Contract KQ-{k} with supplier Sup{n} is owned by team Tm{n} and renews yearly.",
}


def fill_files(ws: Workspace, config: Config) -> None:
    """Fill each memory file with distinct fact lines up to FILL_SHARE of its cap."""
    for rel, template in FILLERS.items():
        path = ws.path(rel)
        text = path.read_text(encoding="utf-8")
        n = 0
        while True:
            n += 1
            line = template.format(n=n, k=50_000 + 13 * n) + "\n"
            if len(text) + len(line) > FILL_SHARE * config.cap_for(rel):
                break
            text += line
        path.write_text(text, encoding="utf-8")


def run_tokens(size: int, config: Config, *, full: bool, reads: bool = False) -> dict[str, float]:
    """Dream ``size`` entries to the end; every request's prompt tokens per processed entry."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        init_workspace(root)
        ws = Workspace(root)
        if full:
            fill_files(ws, config)
        store = GitStore.open(ws, config)
        history = History(ws, config, clock=lambda: NOW)
        history.append_many([entry_text(n) for n in range(1, size + 1)], kind="summary")
        floor = sum(estimate_text(f"[entry {e.cursor} | {e.timestamp}]\n{e.content}\n")
                    for e in history.read_since(0, limit=size))
        engine = Recording(reads=reads)
        while True:
            result = asyncio.run(run_dream(ws, config=config, history=history, store=store,
                                           engine=engine, clock=lambda: NOW))
            if result.status == "nothing_to_do":
                break
            if result.status == "failed":
                raise SystemExit(f"dream failed ({'full' if full else 'empty'}): {result.reason}")
        batches = engine.batch_prompts if full else engine.batch_prompts[:1]
        entries, tokens = sum(b[0] for b in batches), sum(b[1] for b in batches)
        requests = engine.requests if full else None
        return {"requests": requests, "batches": len(batches), "entries": entries,
                "per_entry": tokens / entries, "floor": floor / size,
                "all_batches": len(engine.batch_prompts), "all_requests": engine.requests}


def print_tokens(config: Config, size: int = 200) -> None:
    print(f"Dream prompt tokens per processed entry ({size} entries, offline engine, every request "
          "counted: messages + tool definitions)")
    print(f"{'memory files':>14} {'settings':>30} {'counted':>22} {'tokens/entry':>13} {'floor':>6} "
          f"{'ratio':>6}   (all {size} entries: batches, requests)")
    whole = dataclasses.replace(config, dream_excerpt_tokens=10**9)
    variants = [
        (False, "defaults", config, False),
        (True, "defaults", config, False),
        (True, "defaults, reads every excerpt", config, True),
        (True, "whole files (no excerpt)", whole, False),
        (True, "whole files, 20-entry batch", dataclasses.replace(whole, dream_batch_entries=20), False),
    ]
    for full, settings, cfg, reads in variants:
        row = run_tokens(size, cfg, full=full, reads=reads)
        label = f"full ({FILL_SHARE:.0%})" if full else "empty"
        counted = f"{row['batches']} batch(es), {row['entries']} entries"
        print(f"{label:>14} {settings:>30} {counted:>22} {row['per_entry']:>13.0f} "
              f"{row['floor']:>6.0f} {row['per_entry'] / row['floor']:>5.1f}x   "
              f"({row['all_batches']}, {row['all_requests']})")
    print("floor: the entries' own tokens as the batch shows them (label line + text); target with "
          "full files: at most 3x the floor")


def run_size(size: int, config: Config) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        init_workspace(root)
        ws = Workspace(root)
        store = GitStore.open(ws, config)
        history = History(ws, config, clock=lambda: NOW)
        history.append_many([entry_text(n) for n in range(1, size + 1)], kind="summary")
        engine = Recording()
        runs, first_run, start = 0, 0.0, time.perf_counter()
        while True:
            began = time.perf_counter()
            result = asyncio.run(run_dream(ws, config=config, history=history, store=store,
                                           engine=engine, clock=lambda: NOW))
            if runs == 0:
                first_run = time.perf_counter() - began
            if result.status == "nothing_to_do":
                break
            if result.status == "failed":
                raise SystemExit(f"dream failed at size {size}: {result.reason}")
            runs += 1
        total = time.perf_counter() - start
        prompts = engine.first_prompts
        return {
            "size": size, "runs": runs, "batches": len(prompts), "first_run_s": first_run,
            "total_s": total, "per_entry_ms": 1000 * total / size,
            "tok_min": min(prompts), "tok_med": statistics.median(prompts), "tok_max": max(prompts),
            "tok_first": prompts[0], "tok_last": prompts[-1],
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only 20 and 200 pending entries")
    parser.add_argument("--tokens", action="store_true", help="only the tokens-per-entry table")
    args = parser.parse_args(argv)
    sizes = (20, 200) if args.quick else (20, 200, 2000)
    config = Config()
    print_tokens(config)
    if args.tokens:
        return 0
    print()
    print(f"offline Dream; batch = {config.dream_batch_entries} entries / "
          f"{config.dream_batch_tokens} tokens, at most {config.dream_max_batches} batches per run")
    print(f"{'pending':>8} {'runs':>5} {'batches':>8} {'first run':>10} {'drain all':>10} "
          f"{'ms/entry':>9}   prompt tokens per batch: min / median / max (first -> last)")
    rows = [run_size(size, config) for size in sizes]
    for row in rows:
        print(f"{row['size']:>8} {row['runs']:>5} {row['batches']:>8} {row['first_run_s']:>9.2f}s "
              f"{row['total_s']:>9.2f}s {row['per_entry_ms']:>9.2f}   "
              f"{row['tok_min']} / {row['tok_med']:.0f} / {row['tok_max']} "
              f"({row['tok_first']} -> {row['tok_last']})")
    base = rows[0]
    for row in rows[1:]:
        print(f"{row['size']} vs {base['size']} entries: {row['size'] / base['size']:.0f}x the "
              f"entries took {row['total_s'] / base['total_s']:.1f}x the time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
