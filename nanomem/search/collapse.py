"""Copies fold into their source (pure).

The offline engine copies decisive sentences word for word, so a memory-file line or a history
entry is often a sentence of an archived turn. :func:`plan_collapse` returns the turn instead,
which says the same and also when and by whom.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from nanomem.search import terms
from nanomem.search.rank import Hit


def plan_collapse(hits: Sequence[Hit]) -> list[Hit]:
    """Fold a memory-file line or history entry into the archived turn it was copied from
    (pure): when every fact line of it is found word for word in one of the archived turns
    among ``hits``, that turn, which also says when and by whom, takes its place, with the
    better of the two scores. ``hits`` is best first; so is the result.

    >>> turn = Hit("a:1", "archive", "Oh yes! I ran my first 5k, 31 minutes.", 1.0, "2026-05-08 10:00")
    >>> line = Hit("f:1", "file", "- I ran my first 5k <!-- permanent -->", 3.0, path="USER.md")
    >>> [(h.id, h.score) for h in plan_collapse([line, turn])]
    [('a:1', 3.0)]
    """
    turns = [(hit, _core(hit.text)) for hit in hits if hit.source == "archive"]
    best: dict[str, float] = {}
    folded: set[str] = set()
    for hit in hits:
        if hit.source == "archive":
            continue
        facts = [_core(line) for line in hit.text.split("\n") if _core(line)]
        for turn, text in turns:
            if facts and all(fact in text for fact in facts):
                best[turn.id] = max(best.get(turn.id, turn.score), hit.score)
                folded.add(hit.id)
                break
    out = [dataclasses.replace(h, score=best[h.id]) if h.id in best else h
           for h in hits if h.id not in folded]
    out.sort(key=lambda h: (-h.score, h.id))
    return out


_FACT_MARK = re.compile(r"^\s*(?:[-*]\s*)?(?:\[[a-z]+\]\s*)?")
_COMMENTS = re.compile(r"<!--.*?-->|\(said \d{4}-\d{2}-\d{2}\)")


def _core(text: str) -> str:
    """A fact's words for containment: list mark, ``[mark]``, machine comments dropped."""
    text = _COMMENTS.sub(" ", _FACT_MARK.sub("", text))
    return " ".join(terms.normalise(text).split()).strip(" .!?,;:")
