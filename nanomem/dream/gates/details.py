"""Which facts an edit drops from the lines it rewrites (pure; the gate ``details``).

A line rewritten by an ``edit_file`` call (a removed bullet that shares a word with an added
one) may lose its old value, the one a correction replaces, but not the other facts it held:
the values (numbers, identifiers, names, 《titles》) that stand outside the clause of the old
value (:func:`nanomem.engines.offline.remainder.dropped_details`, the offline engine's own rule)
and that the file no longer holds anywhere after the edit. A removed line that shares no word
with any added line is a deletion, which the deletion guard judges; a rewrite that puts a new
thing in place of the old one ("a new flat", "replaced") may drop what spoke of the old thing.

>>> find_dropped("- Ana lives in Porto, has two kids and a dog called Rex\\n",
...              "- Ana lives in Lisbon, has two kids\\n")
[('- Ana lives in Porto, has two kids and a dog called Rex', ['rex'])]
>>> find_dropped("- Ana lives in Porto, has a dog called Rex\\n", "- Ana lives in Lisbon, has a dog called Rex\\n")
[]
"""

from __future__ import annotations

import re
from collections import Counter

from nanomem.engines.offline.overlap import distinctive, tokens
from nanomem.engines.offline.remainder import dropped_details
from nanomem.vocab import BULLET

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_PREFIX = re.compile(r"^\s*[-*+]\s+")


def find_dropped(before: str, after: str) -> list[tuple[str, list[str]]]:
    """``(removed line, [values])`` for each rewritten line whose other facts the edit drops."""
    removed = Counter(line.strip() for line in before.splitlines() if BULLET.match(line))
    added = Counter(line.strip() for line in after.splitlines() if BULLET.match(line))
    gone, new = removed - added, list((added - removed).keys())
    if not gone or not new:
        return []
    rest = tokens(_COMMENT.sub(" ", after)) | distinctive(_COMMENT.sub(" ", after))
    out = []
    for line in gone:
        body = _body(line)
        related = [_body(a) for a in new if tokens(_body(a)) & tokens(body)]
        if not related:
            continue  # a deletion beside an addition: the deletion guard's business
        lost = [value for value in dropped_details(body, " ".join(related)) if value not in rest]
        if lost:
            out.append((line, lost))
    return out


def _body(line: str) -> str:
    return _PREFIX.sub("", _COMMENT.sub(" ", line)).strip()
