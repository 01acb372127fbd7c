"""How much two texts share: content tokens, two-word phrases and distinctive values, and the
duplicate test built on them (pure). The offline engine (its Dream, corrections and reslotting),
the Dream stage (ledger, self-test, questions, moves) and the gate ``details`` all read text
through these functions, so they agree on what a content word and a value are.

Moved out of :mod:`nanomem.engines.offline.dream` (stop 20, round 8) to keep that module under
the size ceiling, then from ``engines/offline/`` to ``text/`` (session 23) so that a Dream gate
no longer imports an engine; the functions are as they were.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from nanomem.vocab import CJK_RUN, STOP_WORDS

DUPLICATE_THRESHOLD = 0.8
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TITLE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s*$")  # "Dr. Lee": a name, not a sentence opening
_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[^\W_]+(?:[-.,:/'][^\W_]+)*")


@lru_cache(maxsize=8192)
def tokens(text: str) -> frozenset[str]:
    """Normalised content tokens: casefolded words without stop words or a plural ``s``, and
    CJK character pairs.

    >>> sorted(tokens("- The user lives in Lisbon <!-- permanent -->"))
    ['lisbon', 'live']
    """
    text = unicodedata.normalize("NFKC", _COMMENT.sub(" ", text)).casefold()
    out: set[str] = set()
    for run in CJK_RUN.findall(text):
        out.update(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    for word in _WORD.findall(CJK_RUN.sub(" ", text)):
        word = word.replace(",", "") if _DIGIT.search(word) else word
        if word in STOP_WORDS:
            continue
        out.add(word[:-1] if word.endswith("s") and len(word) > 3 and word.isalpha() else word)
    return frozenset(out)


@lru_cache(maxsize=8192)
def phrases(text: str) -> frozenset[str]:
    """Two-word phrases of adjacent content words, and for Chinese four-character runs: a
    phrase shared by a correction and a line names the same subject ("the staging server").

    >>> sorted(phrases("We moved the staging server to Frankfurt."))
    ['staging server']
    >>> "会议时间" in phrases("周会的会议时间改到周四")
    True
    """
    text = unicodedata.normalize("NFKC", _COMMENT.sub(" ", text)).casefold()
    out: set[str] = set()
    for run in CJK_RUN.findall(text):
        out.update(run[i:i + 4] for i in range(len(run) - 3))
    words = []
    for word in _WORD.findall(CJK_RUN.sub(" , ", text)):
        if word in STOP_WORDS or _DIGIT.search(word):
            words.append("")  # a stop word or a value breaks the phrase
            continue
        words.append(word[:-1] if word.endswith("s") and len(word) > 3 and word.isalpha() else word)
    out.update(f"{a} {b}" for a, b in zip(words, words[1:]) if a and b)
    return frozenset(out)


@lru_cache(maxsize=8192)
def distinctive(text: str) -> frozenset[str]:
    """Numbers, identifiers and capitalised names (not opening a sentence), casefolded.

    >>> sorted(distinctive("Contract KX-7731 with Ana ends in March"))
    ['ana', 'kx-7731', 'march']
    >>> sorted(distinctive("My vet is Dr. Lee."))
    ['dr', 'lee']
    """
    text = unicodedata.normalize("NFKC", _COMMENT.sub(" ", text))
    text = re.sub(r"^\s*[-*+]\s+", "", text)
    out: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0)
        before = text[:match.start()]
        opening = match.start() == 0 or (re.search(r"[.!?:]\s*$", before) and not _TITLE.search(before))
        if _DIGIT.search(word):
            out.add(word.replace(",", "").casefold())
        elif word[:1].isupper() and not opening and word.casefold() not in STOP_WORDS:
            out.add(word.casefold())
    return frozenset(out)


def is_duplicate(fact: str, line: str) -> bool:
    """Whether ``line`` already says ``fact`` (containment over normalised tokens)."""
    mine = tokens(fact)
    if not mine:
        return True  # nothing but stop words: nothing worth adding
    theirs = tokens(line)
    if len(mine & theirs) / len(mine) < DUPLICATE_THRESHOLD:
        return False
    return distinctive(fact) <= (distinctive(line) | theirs)
