"""How the gates read memory text: checked chunks, words, names and sentence openings (pure).

A *checked chunk* is a run of word characters joined by ``. , : / @ + ' - –`` that holds a
digit, an ``@`` or ``://``: a number, an identifier, a date, an e-mail or a URL. Chunks are
compared in a normal form (casefolded, thousands separators and a final ``'s`` dropped) and
also by their *pieces* (split at ``- / – , +``). Chinese, Japanese and Korean characters are
spaced apart so that each is a word of its own. :mod:`nanomem.dream.gates.traceability` and
:mod:`nanomem.dream.gates.corrections` read text through these units, so they agree on what a number or a
name is.

>>> text = prepare("Budget $4,500 for Acme. Prefers email")
>>> [chunk for chunk in CHUNK.findall(text) if is_checked_chunk(chunk)]
['4,500']
>>> normal_chunk("4,500"), [text[start:].split()[0] for start in sorted(sentence_starts(text))]
('4500', ['Budget', 'Prefers'])
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.vocab import CJK_CHAR

CHUNK = re.compile(r"\w+(?:[.,:/@+'’\-–]+\w+)*")
WORD = re.compile(r"[^\W\d_]+")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
PIECE_SPLIT = re.compile(r"[-/–,+]")
LINE_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)*[*_`\"'“(]*")
# A full stop after a title or a single initial ("Dr. Brennan", "J. Smith") does not end a sentence,
# so the name after it is still checked.
_SENTENCE_BREAK = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMrs)(?<!\bProf)(?<!\b[A-Z])"
    r"[.!?;]\s+[*_`\"'“(]*"
)


def prepare(text: str) -> str:
    """``text`` in NFKC form with every CJK character spaced apart.

    >>> prepare("合同 ５０００")
    ' 合  同  5000'
    """
    return CJK_CHAR.sub(r" \1 ", unicodedata.normalize("NFKC", text))


def normal_chunk(chunk: str) -> str:
    """The form chunks are compared in: casefolded, no thousands separators, no final ``'s``.

    >>> normal_chunk("KX-7731's"), normal_chunk("4,500")
    ('kx-7731', '4500')
    """
    chunk = THOUSANDS.sub("", chunk.casefold())
    for suffix in ("'s", "’s"):
        if chunk.endswith(suffix):
            chunk = chunk[: -len(suffix)]
    return chunk


def is_checked_chunk(chunk: str) -> bool:
    """Whether a chunk is a number, identifier, e-mail or URL (it holds a digit, ``@`` or ``://``).

    >>> is_checked_chunk("v2"), is_checked_chunk("Acme")
    (True, False)
    """
    return any(ch.isdigit() for ch in chunk) or "@" in chunk or "://" in chunk


def sentence_starts(text: str) -> set[int]:
    """The offsets in a ``prepare``-d line where a sentence opens: after the line's markup
    (heading marks, bullets, numbering, quotes) and after each ``. ! ? ;``."""
    starts = {LINE_PREFIX.match(text).end()}  # type: ignore[union-attr]
    starts.update(match.end() for match in _SENTENCE_BREAK.finditer(text))
    return starts


def count_overlapping(text: str, needle: str) -> int:
    """How many times ``needle`` occurs in ``text``, overlaps included (``edit_file``'s
    "exactly once" rule).

    >>> count_overlapping("aaa", "aa")
    2
    """
    count, start = 0, text.find(needle)
    while start != -1:
        count += 1
        start = text.find(needle, start + 1)
    return count
