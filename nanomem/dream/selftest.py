"""The recall self-test of a Dream: can search find what the ledger says was kept, moved or skipped?

For each fact that the run's ledger marks ``kept`` or ``skipped``, and each line it ``moved``
out of a full file (but not filler or a bare
secret placeholder, which are meant to be dropped), search with the fact's key terms (its
numbers, identifiers and names first, then its other content words, at most
:data:`MAX_TERMS`) must return, among its top :data:`TOP_K` results, a text that says the fact
(a memory-file line for a kept fact, a line of ``memory/MOVED.md`` for a moved one, the history
or the archive for a skipped one). The share
that passes is the run's **recall health**. It is a measurement, never a gate: a low score is
reported with the failing facts, and nothing is refused for it.

The search is passed in (``search(query, k) -> hits with .text``), so this module stays pure.
Dream runs it before its commit, against the files as the run leaves them (the index is told
their new bytes) and ``memory/MOVED.md``, so its one-line summary is in the commit body
(:func:`render_recall_lines`), as well as in ``dream --json``, the audit and ``status``.

>>> from types import SimpleNamespace as H
>>> from nanomem.dream.ledger import LedgerEntry
>>> ledger = [LedgerEntry(3, "durable", "Gate code is 4417", "kept", "USER.md", 5),
...           LedgerEntry(4, "durable", "Likes figs", "skipped", reason="cap")]
>>> search = lambda q, k: [H(text="- Gate code is 4417")] if "4417" in q else []
>>> health = check_recall(ledger, search)
>>> health.found, health.checked, health.failures
(1, 2, ('Likes figs',))
>>> health.summary
'1/2 facts found by search (50%)'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from nanomem.dream.ledger import LedgerEntry, says_fact
from nanomem.text.overlap import distinctive, tokens

TOP_K = 5
MAX_TERMS = 6
CHECKED_STATES = ("kept", "moved", "skipped")
NOT_CHECKED_REASONS = ("filler", "secret-placeholder", "template-placeholder", "assistant's words")
MAX_LISTED = 20  # failures named in the result; the count covers them all
BODY_FAILURES = 5  # failures named in the commit body

Search = Callable[[str, int], Sequence[Any]]


@dataclass(frozen=True)
class RecallHealth:
    """``found`` of ``checked`` facts came back in the top :data:`TOP_K`; ``failures`` names
    the first :data:`MAX_LISTED` facts that did not."""

    checked: int
    found: int
    failures: tuple[str, ...] = ()

    JSON_PROPERTIES = ("share",)

    @property
    def share(self) -> float | None:
        return self.found / self.checked if self.checked else None

    @property
    def summary(self) -> str:
        if not self.checked:
            return "no facts to check"
        return f"{self.found}/{self.checked} facts found by search ({100 * self.found / self.checked:.0f}%)"



def render_recall_lines(health: RecallHealth, limit: int = BODY_FAILURES) -> list[str]:
    """The commit body's lines: ``Recall: 5/6 facts found in the top 5`` and, when some were
    not, one line per failing fact (at most ``limit``, then a count).

    >>> render_recall_lines(RecallHealth(3, 2, ("Likes figs",)))
    ['Recall: 2/3 facts found in the top 5; not found:', '  - Likes figs']
    >>> render_recall_lines(RecallHealth(0, 0))
    ['Recall: no facts to check']
    """
    if not health.checked:
        return ["Recall: no facts to check"]
    head = f"Recall: {health.found}/{health.checked} facts found in the top {TOP_K}"
    missing = health.checked - health.found
    if not missing:
        return [head]
    lines = [head + "; not found:"] + [f"  - {fact[:100]}" for fact in health.failures[:limit]]
    if missing > min(limit, len(health.failures)):
        lines.append(f"  - … {missing - min(limit, len(health.failures))} more (memory/dream-audit.jsonl)")
    return lines


def key_terms(fact: str) -> str:
    """The search query for a fact: its distinctive tokens, then its other content words.

    >>> key_terms("The gate code for Flat 2 is 4417 since March")
    '2 4417 flat march gate code'
    """
    marks = sorted(distinctive(fact), key=lambda t: (not any(c.isdigit() for c in t), t))
    words = [t for t in _ordered_tokens(fact) if t not in marks]
    return " ".join([*marks, *words][:MAX_TERMS])


def check_recall(ledger: Sequence[LedgerEntry], search: Search) -> RecallHealth:
    """Run the self-test over ``ledger`` with ``search`` (see the module doc)."""
    checked = found = 0
    failures: list[str] = []
    for entry in ledger:
        if entry.state not in CHECKED_STATES or entry.reason in NOT_CHECKED_REASONS:
            continue
        query = key_terms(entry.fact)
        if not query:
            continue
        checked += 1
        hits = search(query, TOP_K)
        if any(says_fact(entry.fact, str(getattr(hit, "text", ""))) for hit in hits[:TOP_K]):
            found += 1
        else:
            failures.append(entry.fact)
    return RecallHealth(checked, found, tuple(failures[:MAX_LISTED]))


def _ordered_tokens(fact: str) -> list[str]:
    """The fact's content tokens in the order they are written."""
    wanted = tokens(fact)
    out: list[str] = []
    for word in fact.replace(",", " ").split():
        for token in sorted(tokens(word)):
            if token in wanted and token not in out:
                out.append(token)
    return out + sorted(wanted - set(out))
