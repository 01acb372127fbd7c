"""Traceability: is every number, identifier and name in new text known? (pure)

Dream may write only what the batch or the memory files already say. :func:`find_untraced`
returns the tokens of new lines that none of the known texts contains: numbers and
identifiers (compared in normal form, or piece by piece; dates, e-mails and URLs only whole)
and capitalised words (compared without case). A Title-case word that opens a sentence or
sits in a heading is an ordinary word when the known texts share its stem or it looks like an
English verb or adverb form. The rules in full are in ``docs/gates.md``, "Traceability";
:func:`nanomem.dream.gates.checks.check_traceability` turns the result into a refusal.

>>> find_untraced(["- Budget: 4500 USD, ask Bob"], ["- [durable] Budget is $4,500"])
['USD', 'Bob']
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from nanomem.text.units import (
    CHUNK,
    LINE_PREFIX,
    PIECE_SPLIT,
    THOUSANDS,
    WORD,
    is_checked_chunk,
    normal_chunk,
    prepare,
    sentence_starts,
)
from nanomem.vocab import COMMON_WORDS

_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")


def find_untraced(lines: Iterable[str], known: Iterable[str]) -> list[str]:
    """The numbers, identifiers and capitalised names of ``lines`` that no text of ``known``
    contains, each once, in the order they first appear.

    >>> find_untraced(["- Meeting with João at 14:00"], ["meeting with joão at 14:00-15:00"])
    []
    >>> find_untraced(["- Due 2026-12-16"], ["due 2026-12-15"])
    ['2026-12-16']
    """
    corpus = _Corpus(known)
    unknown: list[str] = []
    for line in lines:
        for token in _untraced(line, corpus):
            if token not in unknown:
                unknown.append(token)
    return unknown


class _Corpus:
    """What the batch and the files contain: normalised number/identifier chunks and their
    pieces, and every word (casefolded)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.chunks: set[str] = set()
        self.words: set[str] = set()
        self.prefixes: dict[str, set[str]] = {}
        for text in texts:
            prepared = prepare(text)
            for chunk in CHUNK.findall(prepared):
                if is_checked_chunk(chunk):
                    normal = normal_chunk(chunk)
                    self.chunks.add(normal)
                    self.chunks.update(piece for piece in PIECE_SPLIT.split(normal) if piece)
            for word in WORD.findall(prepared):
                self.words.add(word.casefold())
        for word in self.words:
            if len(word) >= 4:
                self.prefixes.setdefault(word[:4], set()).add(word)

    def knows_stem(self, word: str) -> bool:
        """A sentence-opening word is an ordinary word when the corpus has the same stem
        (``Prefers`` for ``prefer``): a shared prefix of at least ``max(4, len - 2)``."""
        word = word.casefold()
        need = max(4, len(word) - 2)
        for other in self.prefixes.get(word[:4], ()):
            if len(posixpath.commonprefix([word, other])) >= need:
                return True
        return False


def _untraced(line: str, corpus: _Corpus) -> list[str]:
    """Tokens of one new line that the corpus does not contain."""
    prepared = prepare(line)
    heading = prepared.lstrip().startswith("#")
    prefix_end = LINE_PREFIX.match(prepared).end()  # type: ignore[union-attr]
    starts = sentence_starts(prepared)
    unknown: list[str] = []
    for match in CHUNK.finditer(prepared):
        chunk = match.group(0)
        if match.end() <= prefix_end:
            continue  # list numbering such as "1." is markup, not a fact
        if is_checked_chunk(chunk):
            if not _chunk_known(chunk, corpus):
                unknown.append(chunk)
            continue
        for word in WORD.finditer(chunk):
            text = word.group(0)
            if len(text) < 2 or not text[0].isupper():
                continue
            folded = text.casefold()
            if folded in corpus.words or folded in COMMON_WORDS:
                continue
            opening = heading or (match.start() + word.start()) in starts
            if opening and text[1:].islower() and (corpus.knows_stem(text) or _inflected(folded)):
                continue
            unknown.append(text)
    return unknown


def _inflected(word: str) -> bool:
    """An English verb or adverb form (``enjoys``, ``moved``, ``running``, ``mostly``): at the
    start of a sentence such a word is an ordinary word, not a name. Names that end in
    ``-as``, ``-is``, ``-os``, ``-us`` or ``-ss`` (Lucas, Paris, Carlos) are still checked."""
    if len(word) < 5:
        return False
    if word.endswith(("ed", "ing", "ly")):
        return True
    return word.endswith("s") and word[-2] not in "aiousé"


def _chunk_known(chunk: str, corpus: _Corpus) -> bool:
    normal = normal_chunk(chunk)
    if normal in corpus.chunks:
        return True
    if _DATE.match(normal) or "@" in normal or "://" in normal:
        return False
    for piece in PIECE_SPLIT.split(THOUSANDS.sub("", chunk)):
        folded = normal_chunk(piece)
        if not folded:
            continue
        if any(ch.isdigit() for ch in folded):
            if folded not in corpus.chunks:
                return False
        elif piece[:1].isupper() and folded not in corpus.words and folded not in COMMON_WORDS:
            return False
    return True
