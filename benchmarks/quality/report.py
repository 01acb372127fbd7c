"""Render the benchmark's results: the terminal table and the ``results.json`` object (pure).

>>> cell(Ratio(3, 4)), cell(Ratio(0, 0))
('3/4 75%', '-')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.quality.baseline import RetrievalScores
from benchmarks.quality.planted import SafetyOutcome
from benchmarks.quality.replay import ReplayResult
from benchmarks.quality.scenarios import SPLITS, Conversation
from benchmarks.quality.scoring import QualityScores, Ratio, total_scores


@dataclass(frozen=True)
class ConversationReport:
    """Everything measured for one conversation."""

    conversation: Conversation
    replay: ReplayResult
    scores: QualityScores  # nanomem, from the memory files
    topk: RetrievalScores  # nanomem: BM25 top-k over the memory lines
    baseline: RetrievalScores  # BM25 top-k over every raw message
    raw_chars: int  # what the baseline keeps: every message

    def to_json(self) -> dict[str, Any]:
        conv = self.conversation
        return {
            "id": conv.id,
            "language": conv.language,
            "split": conv.split,
            "turns": conv.turn_count,
            "sessions": len(conv.sessions),
            "replay": self.replay.to_json(),
            "nanomem": self.scores.to_json(),
            "nanomem_topk": self.topk.to_json(),
            "baseline_bm25": {**self.baseline.to_json(), "raw_chars": self.raw_chars},
        }


def cell(ratio: Ratio) -> str:
    """``hits/total pct``, or ``-`` when nothing was measured."""
    if ratio.total == 0:
        return "-"
    return f"{ratio.hits}/{ratio.total} {100 * ratio.hits / ratio.total:.0f}%"


def _gone(expired: Ratio) -> Ratio:
    """Expired ephemera that a retriever no longer returns."""
    return Ratio(expired.total - expired.hits, expired.total)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


QUALITY_HEADER = (
    "conversation", "system", "retention", "corrections", "stale old", "expired gone",
    "junk", "invented", "facts accounted", "recall health", "questions", "kept chars",
)

QUALITY_LEGEND = (
    "higher is better: retention, corrections, expired gone; lower is better: stale old, junk, "
    "invented (must be 0); facts accounted: facts of every Dream batch in exactly one ledger "
    "state (must be 100%); recall health: kept and skipped facts that search finds in its top 5 "
    "after each Dream; questions: pending questions Dream raised for the person "
    "(memory/PENDING.md), neither good nor bad alone"
)


def accounted_of(reports: Sequence[ConversationReport]) -> Ratio:
    """Facts of the Dream batches that the ledger put in exactly one state, pooled."""
    return Ratio(sum(r.replay.accounted for r in reports), sum(r.replay.facts for r in reports))


def recall_of(reports: Sequence[ConversationReport]) -> Ratio:
    """The recall self-tests of every Dream, pooled: facts found by search of those checked."""
    return Ratio(sum(r.replay.recall_found for r in reports),
                 sum(r.replay.recall_checked for r in reports))


def questions_of(reports: Sequence[ConversationReport]) -> int:
    """The pending questions Dream raised over ``reports``."""
    return sum(r.replay.questions for r in reports)


def quality_rows(name: str, scores: QualityScores, topk: RetrievalScores,
                 baseline: RetrievalScores, raw_chars: int, k: int,
                 accounted: Ratio = Ratio(0, 0), recall: Ratio = Ratio(0, 0),
                 questions: int = 0) -> list[list[str]]:
    """Three rows: nanomem files, nanomem top-k lines, BM25 top-k over raw messages."""
    biggest = max((s.chars / s.cap for s in scores.sizes if s.cap), default=0.0)
    caps = "" if scores.within_caps else " OVER CAP"
    return [
        [name, "nanomem files", cell(scores.retention), cell(scores.correction), cell(scores.stale),
         cell(scores.expiry), cell(scores.junk), str(len(scores.invented)), cell(accounted),
         cell(recall), str(questions),
         f"{scores.memory_chars:,} ({100 * biggest:.0f}% of cap){caps}"],
        [name, f"nanomem top-{k}", cell(topk.retention), cell(topk.correction), cell(topk.stale),
         cell(_gone(topk.expired_retrieved)), cell(topk.noise_retrieved), "", "", "", "", ""],
        [name, f"BM25 top-{k} raw", cell(baseline.retention), cell(baseline.correction),
         cell(baseline.stale), cell(_gone(baseline.expired_retrieved)),
         cell(baseline.noise_retrieved), "", "", "", "", f"{raw_chars:,} (all messages)"],
    ]


def _pool(items: Sequence[RetrievalScores]) -> RetrievalScores:
    zero = Ratio(0, 0)
    return RetrievalScores(
        retention=sum((s.retention for s in items), zero),
        correction=sum((s.correction for s in items), zero),
        stale=sum((s.stale for s in items), zero),
        expired_retrieved=sum((s.expired_retrieved for s in items), zero),
        noise_retrieved=sum((s.noise_retrieved for s in items), zero),
    )


def pooled(reports: Sequence[ConversationReport]) -> tuple[RetrievalScores, RetrievalScores]:
    """Totals (micro-averaged) of the nanomem top-k column and of the baseline."""
    return _pool([r.topk for r in reports]), _pool([r.baseline for r in reports])


@dataclass(frozen=True)
class GroupTotal:
    """Pooled (micro-averaged) scores of a group of conversations: one split, or all of them."""

    name: str
    conversations: tuple[str, ...]
    scores: QualityScores
    topk: RetrievalScores
    baseline: RetrievalScores
    raw_chars: int
    accounted: Ratio = Ratio(0, 0)
    recall: Ratio = Ratio(0, 0)
    questions: int = 0

    def rows(self, k: int) -> list[list[str]]:
        return quality_rows(self.name, self.scores, self.topk, self.baseline, self.raw_chars, k,
                            self.accounted, self.recall, self.questions)

    def to_json(self) -> dict[str, Any]:
        return {
            "conversations": list(self.conversations),
            "facts_accounted": {"hits": self.accounted.hits, "total": self.accounted.total},
            "recall_health": {"hits": self.recall.hits, "total": self.recall.total},
            "questions": self.questions,
            "nanomem": self.scores.to_json(),
            "nanomem_topk": self.topk.to_json(),
            "baseline_bm25": {**self.baseline.to_json(), "raw_chars": self.raw_chars},
        }


def group_total(name: str, reports: Sequence[ConversationReport]) -> GroupTotal:
    """Pool ``reports`` into one :class:`GroupTotal` named ``name``."""
    topk, baseline = pooled(reports)
    return GroupTotal(
        name=name,
        conversations=tuple(r.conversation.id for r in reports),
        scores=total_scores(r.scores for r in reports),
        topk=topk,
        baseline=baseline,
        raw_chars=sum(r.raw_chars for r in reports),
        accounted=accounted_of(reports),
        recall=recall_of(reports),
        questions=questions_of(reports),
    )


def split_totals(reports: Sequence[ConversationReport]) -> dict[str, GroupTotal]:
    """One :class:`GroupTotal` per split that has conversations, in ``SPLITS`` order."""
    return {
        split: group_total(f"TOTAL {split}", chosen)
        for split in SPLITS
        if (chosen := [r for r in reports if r.conversation.split == split])
    }


def render_quality(reports: Sequence[ConversationReport], total: QualityScores, k: int) -> str:
    """The side-by-side table: each split's conversations, then its TOTAL, then the overall TOTAL.

    Three rows per conversation and per total (nanomem files, nanomem top-k, BM25 top-k raw).
    """
    rows: list[list[str]] = []
    totals = split_totals(reports)
    for split, group in totals.items():
        for r in reports:
            if r.conversation.split == split:
                rows += quality_rows(r.conversation.id, r.scores, r.topk, r.baseline, r.raw_chars, k,
                                     accounted_of([r]), recall_of([r]), questions_of([r]))
        rows += group.rows(k)
    topk, baseline = pooled(reports)
    rows += quality_rows("TOTAL", total, topk, baseline, sum(r.raw_chars for r in reports), k,
                         accounted_of(reports), recall_of(reports), questions_of(reports))
    splits = "; ".join(f"{split}: {', '.join(g.conversations)}" for split, g in totals.items())
    return _table(QUALITY_HEADER, rows) + "\n" + QUALITY_LEGEND + "\n" + SPLIT_LEGEND + splits


SPLIT_LEGEND = (
    "dev: read while the offline engine's rules were tuned; heldout: written afterwards, blind to "
    "the rules (the honest figure)\n"
)


SAFETY_HEADER = (
    "planted model", "attempt", "dream", "retention", "invented", "pin intact",
    "refused (audit/result)", "refusing gates", "accepted", "learned", "safe",
)


def render_safety(outcomes: Sequence[SafetyOutcome]) -> str:
    """One row per planted model."""
    yes = lambda flag: "yes" if flag else "NO"  # noqa: E731
    rows = [
        [o.model, o.attempt, o.dream_status, cell(o.retention), str(len(o.invented)),
         yes(o.pin_intact), f"{o.refused_audit}/{o.refused_reported}", ", ".join(o.gates) or "-",
         str(o.accepted),
         "yes" if o.learned else "no", yes(o.safe)]
        for o in outcomes
    ]
    return _table(SAFETY_HEADER, rows)
