"""Which facts an edit drops from the lines it rewrites (pure; the gate ``details``).

A line rewritten by an ``edit_file`` call (a removed bullet that shares a word with an added
one) may lose its old value, the one a correction replaces, and the words of the clause that
held it, but not its other clauses. The line is cut into clauses by the rule the offline engine
uses (:mod:`nanomem.text.clauses`). A clause is **lost** when the file, after the edit, no longer
holds one of its values (numbers, identifiers, capitalised names, 《titles》), exactly as they
were, or more than half of its content words (stop words aside), each compared by its stem
(:mod:`nanomem.text.stems`: "hikes" keeps "hiking", "taught" keeps "teaches"); for a clause in
Chinese only its values count. One
lost clause is the correction's own; when two or more are lost, the edit drops facts, and the
words it drops are those of every lost clause but the one closest to the new line (the largest
share of its words found there). So a condensed line ("is a nurse" for "works as a nurse"), a
reworded one ("enjoys hikes" for "loves hiking"), a line merged with another, or a value swapped
in place passes; "Sam lives in York" for "Sam
works as a nurse at St Mary's and lives in Leeds" does not.

A removed line that shares no word with any added line is a deletion, which the deletion guard
judges; a rewrite that puts a new thing in place of the old one ("a new flat", "replaced") may
drop what spoke of the old thing.

>>> find_dropped("- Ana lives in Porto, has two kids and a dog called Rex\\n",
...              "- Ana lives in Lisbon, has two kids\\n")
[('- Ana lives in Porto, has two kids and a dog called Rex', ['rex', 'called', 'dog'])]
>>> find_dropped("- Ana lives in Porto, has a dog called Rex\\n", "- Ana lives in Lisbon, has a dog called Rex\\n")
[]
>>> find_dropped("- Sam works as a nurse at St Mary's and lives in Leeds\\n", "- Sam lives in York\\n")
[("- Sam works as a nurse at St Mary's and lives in Leeds", ["mary's", 'st', 'nurse', 'work'])]
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from nanomem.text.overlap import distinctive, tokens
from nanomem.text.stems import stem, stems
from nanomem.text.clauses import clauses, names_new_thing
from nanomem.vocab import BULLET, HAN_CHAR

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_PREFIX = re.compile(r"^\s*[-*+]\s+")
_TITLE = re.compile(r"《[^》]+》")


def find_dropped(before: str, after: str) -> list[tuple[str, list[str]]]:
    """``(removed line, [values and words])`` for each rewritten line whose other clauses the
    edit drops: the values first, then the content words."""
    removed = Counter(line.strip() for line in before.splitlines() if BULLET.match(line))
    added = Counter(line.strip() for line in after.splitlines() if BULLET.match(line))
    gone, new = removed - added, list((added - removed).keys())
    if not gone or not new:
        return []
    plain = _COMMENT.sub(" ", after)
    rest = _Kept(tokens(plain) | distinctive(plain) | set(_TITLE.findall(plain)), stems(tokens(plain)))
    out = []
    for line in gone:
        body = _body(line)
        related = " ".join(_body(a) for a in new if tokens(_body(a)) & tokens(body))
        if not related or names_new_thing(related):
            continue  # a deletion beside an addition (the deletion guard's), or a new thing
        lost = _lost_words(body, related, rest)
        if lost:
            out.append((line, lost))
    return out


class _Kept(NamedTuple):
    """What a text holds: its values and words as they are, and its words' stems."""

    exact: frozenset[str]
    stems: frozenset[str]

    def holds_word(self, word: str) -> bool:
        return word in self.exact or stem(word) in self.stems


def _lost_words(body: str, related: str, rest: _Kept) -> list[str]:
    """The values and words of ``body``'s lost clauses but the one closest to ``related``."""
    lost = []  # (closeness to the new line, values gone, words gone) of each lost clause
    mine = _Kept(tokens(related) | distinctive(related), stems(tokens(related)))
    for clause in clauses(body):
        values, words = _values(clause), _words(clause)
        if not values and not words:
            continue
        gone_values = sorted(values - rest.exact)  # a value is kept only as it was
        gone_words = sorted(w for w in words - values if not rest.holds_word(w))
        if gone_values or 2 * len(gone_words) > len(words):
            near = len(values & mine.exact) + sum(1 for w in words - values if mine.holds_word(w))
            closeness = near / len(values | words)
            lost.append((closeness, gone_values, gone_words))
    if len(lost) < 2:
        return []  # at most the correction's own clause goes
    lost.remove(max(lost, key=lambda item: item[0]))
    found = [v for _, values, _ in lost for v in values]
    return found + [w for _, _, words in lost for w in words if w not in found]


def _values(clause: str) -> frozenset[str]:
    """Numbers and 《titles》; in a clause not in Chinese, capitalised names and identifiers too."""
    found = {t for t in tokens(clause) if any(ch.isdigit() for ch in t)} | set(_TITLE.findall(clause))
    return frozenset(found if HAN_CHAR.search(clause) else found | distinctive(clause))


def _words(clause: str) -> frozenset[str]:
    """Content words (no stop words, no plural ``s``); none for a clause in Chinese."""
    return frozenset() if HAN_CHAR.search(clause) else tokens(clause)


def _body(line: str) -> str:
    return _PREFIX.sub("", _COMMENT.sub(" ", line)).strip()
