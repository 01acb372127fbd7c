"""Recall benchmark: can nanomem find again what was said, with dates and speakers?

    python -m benchmarks.recall.run                     # every split (dev, heldout, heldout2, heldout3, heldout4, heldout5, heldout6, heldout7, heldout8, heldout9, heldout10, heldout11, heldout12, heldout13)
    python -m benchmarks.recall.run --split heldout --json out.json

For each conversation: a fresh workspace, every turn fed in order with its real time (see
``replay.py``), then every question asked side by side of

- ``Memory.search(q, k=10)``: evidence recall@5 and @10;
- ``Memory.context(1000, query=q)`` and ``(2000, query=q)``: answer containment;
- raw BM25 over the turns, packed into the same number of characters as the nanomem block
  it is set against (``context(B, query=q)`` when ``context`` takes a query, else the plain
  ``context(B)``): answer containment;
- today's ``Memory.context(B)`` with no query, B = 1000 and 2000: answer containment.

``--embeddings URL --embed-model NAME`` turns dense retrieval on as a user would
(``[search] embeddings = true``, ``embedding_base_url = URL``, ``embedding_model = NAME``),
with the offline engine still doing consolidation and Dream; ``benchmarks/embed_server.py``
serves such a URL locally. ``--rrf-k N`` changes the fusion constant (an experiment knob).

An API main does not have yet prints ``n/a``. Matching rules: ``scoring.py`` and
``README.md``. Every figure is computed in the run; none is stored.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import inspect
import json
import shlex
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: python benchmarks/recall/run.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nanomem.memory import Memory
from nanomem.search import index as search_index
from nanomem.search.rank import fuse_ranks
from nanomem.store.workspace import Workspace

from benchmarks.quality.replay import EngineFactory, ScriptClock
from benchmarks.recall.data import SPLITS, Conversation, Question, load_conversations
from benchmarks.recall.replay import Replayed, recall_config, replay
from benchmarks.recall.report import (
    QuestionOutcome,
    render_budgets,
    render_table,
    render_targets,
)
from benchmarks.recall.scoring import RawBM25, holds_answer, recall_at

BUDGETS = (1000, 2000)
SEARCH_K = 10
NO_SEARCH = "n/a (Memory.search not on main yet)"
NO_QUERY = "n/a (Memory.context has no query argument on main yet)"


def context_takes_query(memory: Memory) -> bool:
    return "query" in inspect.signature(memory.context).parameters


def ask(conv: Conversation, q: Question, memory: Memory, bm25: RawBM25,
        plain: Mapping[int, str]) -> QuestionOutcome:
    """Every figure of one question against the replayed workspace."""
    evidence = [conv.turn(e).text for e in q.evidence]
    derived = evidence if q.derived else ()
    metrics: dict[str, float | None] = {}
    chars: dict[int, int] = {}
    if hasattr(memory, "search"):
        hits = [h.text for h in memory.search(q.question, k=SEARCH_K)]
        metrics["recall@5"] = recall_at(hits, evidence, 5)
        metrics["recall@10"] = recall_at(hits, evidence, 10)
    else:
        metrics["recall@5"] = metrics["recall@10"] = None
    with_query = context_takes_query(memory)
    for budget in BUDGETS:
        block = memory.context(budget, query=q.question) if with_query else None  # type: ignore[call-arg]
        metrics[f"ctx({budget},q)"] = (
            None if block is None else float(holds_answer(block, q.answers, derived_from=derived))
        )
        chars[budget] = len(block if block is not None else plain[budget])
        metrics[f"bm25@{budget}"] = float(
            holds_answer(bm25.block(q.question, chars[budget]), q.answers, derived_from=derived)
        )
        metrics[f"ctx({budget})"] = float(
            holds_answer(plain[budget], q.answers, derived_from=derived)
        )
    return QuestionOutcome(conv.id, conv.split, q.id, q.category, metrics, chars)


def dense_overrides(url: str, model: str) -> dict[str, Any]:
    """The configuration a user writes for dense retrieval through ``url`` (no API key)."""
    return {"embeddings": True, "embedding_base_url": url, "embedding_model": model}


def set_rrf_k(k: int) -> None:
    """Make the search fuse with ``1 / (k + rank)`` (this process only; an experiment)."""
    search_index.fuse_ranks = functools.partial(fuse_ranks, k=k)  # type: ignore[assignment]


async def score_conversation(
    conv: Conversation, root: Path, *, overrides: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None, engine_factory: EngineFactory | None = None,
) -> tuple[Replayed, list[QuestionOutcome]]:
    """Replay ``conv`` into ``root``, then ask all its questions."""
    replayed = await replay(conv, root, overrides=overrides, progress=progress,
                            engine_factory=engine_factory)
    clock = ScriptClock(conv.sessions[-1].end)
    config = recall_config(root, overrides)
    engine = engine_factory(Workspace(root), config, clock) if engine_factory else None
    memory = Memory(root, config=config, clock=clock, engine=engine)
    try:
        plain = {b: memory.context(b) for b in BUDGETS}
        bm25 = RawBM25(conv.turns)
        rows = [ask(conv, q, memory, bm25, plain) for q in conv.questions]
    finally:
        memory.close()
    return replayed, rows


async def run_benchmark(
    conversations: Sequence[Conversation], workdir: Path, *,
    overrides: Mapping[str, Any] | None = None, progress: Callable[[str], None] | None = None,
    engine_factory: EngineFactory | None = None,
) -> tuple[list[Replayed], list[QuestionOutcome]]:
    """Every conversation, each in ``workdir/<id>``."""
    replays, rows = [], []
    for conv in conversations:
        replayed, outcome = await score_conversation(
            conv, Path(workdir) / conv.id, overrides=overrides, progress=progress,
            engine_factory=engine_factory,
        )
        replays.append(replayed)
        rows.extend(outcome)
    return replays, rows


def api_notes(root: Path) -> list[str]:
    """One line per API that main lacks, so the n/a columns are explained."""
    memory = Memory(root, config=recall_config(root))
    try:
        notes = [] if hasattr(memory, "search") else [f"recall@5, recall@10: {NO_SEARCH}"]
        if not context_takes_query(memory):
            notes.append(f"ctx(B,q): {NO_QUERY}; raw BM25 gets the length of context(B)")
    finally:
        memory.close()
    return notes


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.recall.run",
                                     description="Recall benchmark: search and query-aware context.")
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--conversation", action="append", metavar="ID",
                        help="run only this conversation (repeatable)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every figure here")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="replay in DIR and keep the workspaces (default: a temp dir)")
    parser.add_argument("--embeddings", metavar="URL",
                        help="dense retrieval through this OpenAI-compatible base URL "
                             "(e.g. benchmarks/embed_server.py's http://127.0.0.1:PORT/v1)")
    parser.add_argument("--embed-model", metavar="NAME", default="all-MiniLM-L6-v2",
                        help="[search] embedding_model with --embeddings (default %(default)s)")
    parser.add_argument("--rrf-k", type=int, metavar="N",
                        help="the reciprocal-rank fusion constant (default: nanomem's)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    conversations = load_conversations(args.split, ids=args.conversation)
    if not conversations:
        print("no conversation matches; see benchmarks/recall/conversations/", file=sys.stderr)
        return 2
    progress = lambda line: print(f"  {line}", file=sys.stderr)  # noqa: E731
    overrides = dense_overrides(args.embeddings, args.embed_model) if args.embeddings else None
    if args.rrf_k is not None:
        set_rrf_k(args.rrf_k)

    def run(workdir: Path) -> tuple[list[Replayed], list[QuestionOutcome], list[str]]:
        replays, rows = asyncio.run(run_benchmark(conversations, workdir, overrides=overrides,
                                                  progress=progress))
        return replays, rows, api_notes(replays[0].root)

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        replays, rows, notes = run(args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="nanomem-recall-") as tmp:
            replays, rows, notes = run(Path(tmp))
    command = "python -m benchmarks.recall.run" + "".join(
        f" {shlex.quote(a)}" for a in (argv if argv is not None else sys.argv[1:])
    )
    print(f"\n$ {command}")
    turns, archived = sum(r.turns for r in replays), sum(r.archived for r in replays)
    print(f"{len(conversations)} conversations, {turns} turns ({archived} archived, "
          f"fed via {replays[0].via}), {len(rows)} questions; offline engine"
          + (f"; dense retrieval: {args.embed_model} at {args.embeddings}" if args.embeddings else "")
          + (f"; RRF k {args.rrf_k}" if args.rrf_k is not None else "") + "\n")
    print(render_table(rows))
    print("\n" + render_budgets(rows))
    print("\n" + render_targets(rows, notes))
    if args.json:
        args.json.write_text(json.dumps({
            "command": command,
            "replays": [{"conversation": c.id, **r.to_json()} for c, r in zip(conversations, replays)],
            "questions": [r.to_json() for r in rows],
            "notes": notes,
        }, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
