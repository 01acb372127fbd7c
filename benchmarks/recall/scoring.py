"""The recall benchmark's matching rules and its raw-turn BM25 baseline (pure).

- **Evidence match.** A search hit matches an evidence turn when the hit's text, normalised
  (NFKC, case-folded, whitespace runs as one space), contains the first 80 characters of the
  turn's normalised text (the whole text when it is shorter). Recall@k of a question is the
  share of its evidence turns matched by at least one of the first k hits.
- **Answer containment.** A block of text holds the answer when its normalised form contains
  any accepted answer, normalised. For a derived date ("yesterday" said on a known day), the
  block also holds it when it contains every evidence turn (same rule as above): the date
  and the turn are what a model needs to compute it.
- **Raw BM25 baseline.** Every turn of the conversation as ``[YYYY-MM-DD] speaker: text``,
  ranked by BM25 (rank-bm25's Okapi) against the question, packed best first, a turn that
  does not fit in what is left of the character budget skipped, until none fits.
  Tokens: NFKC case-folded runs of letters/digits; a run of CJK characters gives its single
  characters and its two-character pairs.

>>> evidence_matched("[2026-03-03] Maya: He ate one of my gloves.", "he ate one of  my gloves.")
True
>>> holds_answer("Maya's dog is a BEAGLE.", ["beagle"]), holds_answer("a corgi", ["beagle"])
(True, False)
>>> tokens("周宁的狗叫可乐 Cola!")[-3:], tokens("Am和弦")
(['叫可', '可乐', 'cola'], ['am', '和', '弦', '和弦'])
>>> tokens("周宁的狗叫可乐 Cola!")
['周', '宁', '的', '狗', '叫', '可', '乐', '周宁', '宁的', '的狗', '狗叫', '叫可', '可乐', 'cola']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

from benchmarks.recall.data import Turn, normalise

PREFIX_CHARS = 80
_CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK_CHARS}]+|[^\W_{_CJK_CHARS}]+")
_CJK = re.compile(rf"[{_CJK_CHARS}]")


def evidence_key(text: str) -> str:
    """What a hit must contain to match a turn: its first 80 normalised characters."""
    return normalise(text)[:PREFIX_CHARS]


def evidence_matched(hit_text: str, turn_text: str) -> bool:
    """Whether ``hit_text`` holds the turn (see the module's matching rule)."""
    return evidence_key(turn_text) in normalise(hit_text)


def recall_at(hit_texts: Sequence[str], evidence_texts: Sequence[str], k: int) -> float:
    """The share of ``evidence_texts`` matched by at least one of the first ``k`` hits.

    >>> recall_at(["x", "the cat sat"], ["the cat sat", "a dog ran"], 1)
    0.0
    >>> recall_at(["x", "the cat sat"], ["the cat sat", "a dog ran"], 2)
    0.5
    """
    if not evidence_texts:
        raise ValueError("a question needs at least one evidence turn")
    top = [normalise(h) for h in hit_texts[:k]]
    found = sum(1 for e in evidence_texts if any(evidence_key(e) in h for h in top))
    return found / len(evidence_texts)


def holds_answer(
    block: str, answers: Iterable[str], *, derived_from: Sequence[str] = (),
) -> bool:
    """Whether ``block`` holds any of ``answers``, or (``derived_from``) all those turns."""
    text = normalise(block)
    if any(normalise(a) and normalise(a) in text for a in answers):
        return True
    return bool(derived_from) and all(evidence_key(t) in text for t in derived_from)


def tokens(text: str) -> list[str]:
    """BM25 tokens: word runs, and CJK single characters then two-character pairs."""
    out: list[str] = []
    for run in _WORD.findall(normalise(text)):
        if _CJK.match(run):
            out.extend(run)
            out.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


class RawBM25:
    """BM25 over a conversation's raw turns, packed into a character budget."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.lines = [t.render() for t in turns]
        self.index = BM25Okapi([tokens(line) or ["\u2205"] for line in self.lines])

    def ranked(self, query: str) -> list[str]:
        """Every raw turn, best first (ties in conversation order)."""
        scores = self.index.get_scores(tokens(query) or ["\u2205"])
        order = sorted(range(len(self.lines)), key=lambda i: (-scores[i], i))
        return [self.lines[i] for i in order]

    def block(self, query: str, char_budget: int) -> str:
        """The best turns that fit in ``char_budget`` characters, one per line."""
        return pack(self.ranked(query), char_budget)


def pack(lines: Iterable[str], char_budget: int) -> str:
    """``lines`` in order, joined by newlines, skipping any that would pass ``char_budget``.

    >>> pack(["aaaa", "bbbbbbbb", "cc"], 8)
    'aaaa\\ncc'
    """
    chosen: list[str] = []
    used = 0
    for line in lines:
        cost = len(line) + (1 if chosen else 0)
        if used + cost <= char_budget:
            chosen.append(line)
            used += cost
    return "\n".join(chosen)
