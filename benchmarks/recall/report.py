"""Per-question outcomes of the recall benchmark, their totals, and the printed tables (pure).

A metric is ``None`` ("n/a") when main lacks the API it measures (``Memory.search``, or the
``query`` argument of ``Memory.context``); a total over only ``None`` is ``None`` too.

>>> rows = [QuestionOutcome("c", "dev", "q1", "temporal", {"recall@5": 1.0, "ctx(2000,q)": None}),
...         QuestionOutcome("c", "dev", "q2", "temporal", {"recall@5": 0.0, "ctx(2000,q)": None})]
>>> totals(rows)
{'recall@5': 0.5, 'ctx(2000,q)': None}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

METRICS = ("recall@5", "recall@10", "ctx(1000,q)", "ctx(2000,q)",
           "bm25@1000", "bm25@2000", "ctx(1000)", "ctx(2000)")
RATIO_TARGET = 1.3  # context(2000, query) containment over raw BM25's at the same budget
RECALL_TARGET = 0.60  # evidence recall@5 of search


@dataclass(frozen=True)
class QuestionOutcome:
    """One question's figures: recall as a share of evidence turns, containment as 0 or 1."""

    conversation: str
    split: str
    question: str
    category: str
    metrics: Mapping[str, float | None]
    chars: Mapping[int, int] = field(default_factory=dict)  # BM25's character budget per B

    def to_json(self) -> dict[str, Any]:
        return {"conversation": self.conversation, "split": self.split, "id": self.question,
                "category": self.category, **dict(self.metrics),
                "bm25_chars": {str(b): n for b, n in self.chars.items()}}


def totals(rows: Iterable[QuestionOutcome]) -> dict[str, float | None]:
    """The mean of each metric over ``rows``, ignoring n/a; n/a when all are n/a."""
    rows = list(rows)
    out: dict[str, float | None] = {}
    names = [m for m in METRICS if any(m in r.metrics for r in rows)] or list(METRICS)
    for name in names:
        values = [r.metrics[name] for r in rows if r.metrics.get(name) is not None]
        out[name] = sum(values) / len(values) if values else None  # type: ignore[arg-type]
    return out


def ratio(total: Mapping[str, float | None]) -> float | None:
    """``ctx(2000,q)`` over ``bm25@2000``; n/a when either is n/a or BM25 held nothing."""
    ours, base = total.get("ctx(2000,q)"), total.get("bm25@2000")
    if ours is None or not base:
        return None
    return ours / base


def groups(rows: Sequence[QuestionOutcome]) -> dict[str, dict[str, list[QuestionOutcome]]]:
    """Rows by split (plus ``all``), then by category (plus ``total``), in a stable order."""
    out: dict[str, dict[str, list[QuestionOutcome]]] = {}
    splits = sorted({r.split for r in rows}) + ["all"]
    for split in splits:
        chosen = [r for r in rows if split in ("all", r.split)]
        by_cat: dict[str, list[QuestionOutcome]] = {}
        for r in chosen:
            by_cat.setdefault(r.category, []).append(r)
        out[split] = {**dict(sorted(by_cat.items())), "total": chosen}
    return out


def render_budgets(rows: Sequence[QuestionOutcome]) -> str:
    """The mean character budget raw BM25 was given at each token budget."""
    budgets = sorted({b for r in rows for b in r.chars})
    parts = [f"{b} tokens -> {sum(r.chars[b] for r in rows) / len(rows):,.0f} chars"
             for b in budgets if rows]
    return "raw BM25 character budget (mean): " + "; ".join(parts)


def _cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render_table(rows: Sequence[QuestionOutcome]) -> str:
    """Per split, one line per category and a total line, every metric side by side."""
    head = f"{'split / category':<24}{'n':>4}  " + "  ".join(f"{m:>11}" for m in METRICS)
    lines = [head, "-" * len(head)]
    for split, cats in groups(rows).items():
        for cat, members in cats.items():
            label = f"{split} {'TOTAL' if cat == 'total' else cat}"
            t = totals(members)
            lines.append(f"{label:<24}{len(members):>4}  "
                         + "  ".join(f"{_cell(t.get(m)):>11}" for m in METRICS))
        lines.append("")
    return "\n".join(lines).rstrip()


def render_targets(rows: Sequence[QuestionOutcome], notes: Sequence[str] = ()) -> str:
    """The issue's two targets, per split, computed from ``rows``."""
    lines = []
    for split, cats in groups(rows).items():
        t = totals(cats["total"])
        r = ratio(t)
        rec = t.get("recall@5")
        lines.append(
            f"{split:<8} context(2000,q) / raw BM25 @ same chars = {_cell(r)} "
            f"(target >= {RATIO_TARGET}{'' if r is None else ', met' if r >= RATIO_TARGET else ', NOT met'}); "
            f"evidence recall@5 = {_cell(rec)} "
            f"(target >= {RECALL_TARGET:.2f}{'' if rec is None else ', met' if rec >= RECALL_TARGET else ', NOT met'})"
        )
    return "\n".join([*lines, *notes])
