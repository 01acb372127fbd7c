"""Memory quality benchmark: replay scripted conversations, score the files, compare with BM25.

    python -m benchmarks.quality.run                      # offline engine, every conversation
    python -m benchmarks.quality.run --quick              # one English and one Chinese conversation
    python -m benchmarks.quality.run --split heldout      # only the held-out conversations
    NANOMEM_API_KEY=... python -m benchmarks.quality.run --provider openai \\
        --base-url https://api.example.com/v1 --model some-model

Prints the side-by-side table and the safety table, and writes ``results.json``
(``--out``; default ``benchmarks/quality/results.json``). Every figure is computed in the run
from the files the pipeline left on disk. See ``docs/quality.md`` for what each metric means.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: python benchmarks/quality/run.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.baseline import DEFAULT_K, memory_lines, raw_messages, score_retrieval
from benchmarks.quality.planted import SafetyOutcome, run_safety
from benchmarks.quality.replay import SMALL_WINDOW, EngineFactory, bench_config, replay_conversation
from benchmarks.quality.report import (
    ConversationReport,
    pooled,
    render_quality,
    render_safety,
    split_totals,
)
from benchmarks.quality.scenarios import SPLITS, Conversation, load_conversations
from benchmarks.quality.scoring import QualityScores, read_snapshot, score_snapshot, total_scores

DEFAULT_OUT = Path(__file__).resolve().parent / "results.json"


@dataclass(frozen=True)
class BenchmarkResult:
    """All reports of one run."""

    reports: tuple[ConversationReport, ...]
    total: QualityScores
    safety: tuple[SafetyOutcome, ...]
    settings: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        topk, baseline = pooled(self.reports)
        return {
            "settings": dict(self.settings),
            "conversations": [r.to_json() for r in self.reports],
            "total": {
                "nanomem": self.total.to_json(),
                "nanomem_topk": topk.to_json(),
                "baseline_bm25": baseline.to_json(),
            },
            "splits": {split: group.to_json() for split, group in split_totals(self.reports).items()},
            "safety": [o.to_json() for o in self.safety],
        }


async def score_conversation(
    conversation: Conversation,
    root: Path,
    *,
    k: int = DEFAULT_K,
    overrides: Mapping[str, Any] | None = None,
    engine_factory: EngineFactory | None = None,
    progress: Callable[[str], None] | None = None,
) -> ConversationReport:
    """Replay one conversation into ``root`` and score what the files hold."""
    replay = await replay_conversation(
        conversation, root, overrides=overrides, engine_factory=engine_factory, progress=progress
    )
    config = bench_config(root, overrides)
    snapshot = read_snapshot(root, seed_text=replay.seed_text)
    caps = {rel: config.cap_for(rel) for rel in snapshot.files}
    ttl = config.ephemeral_ttl_days
    messages = raw_messages(conversation)
    return ConversationReport(
        conversation=conversation,
        replay=replay,
        scores=score_snapshot(conversation, snapshot, caps=caps, ttl_days=ttl),
        topk=score_retrieval(
            conversation, memory_lines(list(snapshot.files.values()), exclude=replay.seed_text),
            k=k, ttl_days=ttl,
        ),
        baseline=score_retrieval(conversation, messages, k=k, ttl_days=ttl),
        raw_chars=sum(len(m) for m in messages),
    )


async def run_benchmark(
    conversations: Sequence[Conversation],
    workdir: Path,
    *,
    k: int = DEFAULT_K,
    overrides: Mapping[str, Any] | None = None,
    engine_factory: EngineFactory | None = None,
    safety: bool = True,
    progress: Callable[[str], None] | None = None,
) -> BenchmarkResult:
    """Every conversation (each in ``workdir/<id>``), then the planted models."""
    reports = []
    for conversation in conversations:
        root = Path(workdir) / conversation.id
        reports.append(await score_conversation(
            conversation, root, k=k, overrides=overrides, engine_factory=engine_factory,
            progress=progress,
        ))
    outcomes = await run_safety(Path(workdir) / "safety", progress=progress) if safety else []
    settings = {
        **SMALL_WINDOW,
        **{key: value for key, value in (overrides or {}).items() if key != "api_key"},
        "k": k,
    }
    return BenchmarkResult(
        reports=tuple(reports),
        total=total_scores(r.scores for r in reports),
        safety=tuple(outcomes),
        settings=settings,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.quality.run",
        description="Memory quality benchmark: retention, corrections, expiry, junk, invention.",
    )
    parser.add_argument("--provider", choices=("offline", "openai"), default="offline")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (with --provider openai)")
    parser.add_argument("--model", help="model name (with --provider openai)")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="top-k of both retrievers")
    parser.add_argument("--context-window", type=int, default=SMALL_WINDOW["context_window"])
    parser.add_argument("--conversation", action="append", metavar="ID",
                        help="run only this conversation (repeatable)")
    parser.add_argument("--split", choices=SPLITS,
                        help="run only the dev or only the held-out conversations")
    parser.add_argument("--quick", action="store_true",
                        help="one English and one Chinese conversation")
    parser.add_argument("--no-safety", action="store_true", help="skip the planted models")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results.json path")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="replay in DIR and keep the workspaces (default: a temp dir)")
    return parser


def pick(conversations: Sequence[Conversation], quick: bool) -> list[Conversation]:
    """With ``quick``, the first conversation of each language."""
    if not quick:
        return list(conversations)
    seen: dict[str, Conversation] = {}
    for conversation in conversations:
        seen.setdefault(conversation.language, conversation)
    return list(seen.values())


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    overrides: dict[str, Any] = {"context_window": args.context_window}
    if args.provider == "openai":
        if not args.base_url or not args.model:
            print("--provider openai needs --base-url and --model", file=sys.stderr)
            return 2
        overrides.update(provider="openai", base_url=args.base_url, model=args.model)
    conversations = pick(load_conversations(ids=args.conversation, split=args.split), args.quick)
    progress = lambda line: print(f"  {line}", file=sys.stderr)  # noqa: E731

    def run(workdir: Path) -> BenchmarkResult:
        return asyncio.run(run_benchmark(
            conversations, workdir, k=args.k, overrides=overrides,
            safety=not args.no_safety, progress=progress,
        ))

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = run(args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="nanomem-quality-") as tmp:
            result = run(Path(tmp))
    command = "python -m benchmarks.quality.run" + "".join(
        f" {shlex.quote(a)}" for a in (argv if argv is not None else sys.argv[1:])
    )
    engine = args.model if args.provider == "openai" else "offline engine"
    print(f"\n$ {command}")
    budget = args.context_window - SMALL_WINDOW["max_completion_tokens"] - SMALL_WINDOW["safety_buffer"]
    print(f"engine: {engine}; context window {args.context_window} tokens "
          f"(prompt budget {budget}); k = {args.k}\n")
    print(render_quality(result.reports, result.total, args.k))
    if result.safety:
        print("\nSafety benchmark (planted Dream models through the real gates):\n")
        print(render_safety(result.safety))
    data = {"command": command, "engine": engine, **result.to_json()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    shown = args.out.resolve()
    if shown.is_relative_to(Path.cwd()):
        shown = shown.relative_to(Path.cwd())
    print(f"\nresults: {shown}")
    unsafe = [o.model for o in result.safety if not o.safe]
    invented = len(result.total.invented)
    return 1 if unsafe or invented else 0


if __name__ == "__main__":
    sys.exit(main())
