"""Where a memory line's clauses begin and end, and whether a correction names a new thing (pure).

A bullet often holds several facts: "Sam works as a nurse at St Mary's and lives in Leeds". A
correction changes one of them, the *clause* that holds the old value, and leaves the others.
Two parts of the project must agree on where one clause ends and the next begins:

- the offline engine (:mod:`nanomem.engines.offline.remainder`) rewrites a corrected line so
  that its other clauses survive;
- the gate ``details`` (:mod:`nanomem.dream.gates.details`) refuses a model's edit that drops
  them.

A line is cut at ``,`` (not inside a number: ``4,500``), ``;``, ``and``/``but``, the end of a
sentence (not after a title or an initial: "Dr. Lee", "J. Smith"), a bracket, and the Chinese
``，`` ``；`` ``。`` ``！`` ``？``. :func:`split_clauses` keeps the separators, so that the kept
clauses can be joined again as the line had them.

A correction that puts a **new thing** in place of the old one ("we're in a new flat", "we
replaced Ada with Bo", 新的, 换成) is told by :func:`names_new_thing`: the old line's other
clauses spoke of the old thing and may go with it.

Moved here from the offline engine (session 22) so that the gate no longer imports its clause
rule from an engine; the rule is as it was.

>>> split_clauses("Sam works as a nurse at St Mary's and lives in Leeds")
(["Sam works as a nurse at St Mary's", 'lives in Leeds'], [' and '])
>>> clauses("Budget is $4,500, paid by Dr. Lee (monthly)")
['Budget is $4,500', 'paid by Dr. Lee', 'monthly', '']
>>> names_new_thing("We're in a new flat on Bath Street"), names_new_thing("Ana moved to Lisbon")
(True, False)
"""

from __future__ import annotations

import re

# A clause boundary with the spaces and the "and"/"but" around it (one group: split keeps it).
CLAUSE_BOUNDARY = re.compile(
    r"(\s*(?:[;，；。！？()（）]|(?<!\b[A-Z][a-z])(?<!\b[A-Z])[.!?](?=\s)|,(?!\d))\s*(?:(?:and|but)\s+)?"
    r"|\s+(?:and|but)\s+|\s+\|\s+"  # session 26: a cell of a pasted row ("Tuesdays 07:55 | Ashby room")
    # round 11: a pause of voice input, a space between Chinese words ("椰林苑小区 3栋 二楼")
    r"|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff\d])|(?<=[\u4e00-\u9fff\d])\s+(?=[\u4e00-\u9fff]))", re.IGNORECASE)
# A boundary that may join two neighbouring clauses again as they were (", " or " and ").
GLUE = re.compile(r"^\s*(?:,|\s(?:and|but)\s)\s*$|^\s*[，]\s*$", re.IGNORECASE)
_NEW_THING = re.compile(r"\b(?:new|replac\w*|swapp?\w*)\b|新的|换成|换了", re.IGNORECASE)


def split_clauses(text: str) -> tuple[list[str], list[str]]:
    """``(clauses, separators)``: the clauses of ``text`` in order (possibly empty strings, e.g.
    after a closing bracket) and the separators between them, one fewer than the clauses."""
    parts = CLAUSE_BOUNDARY.split(text)
    return parts[0::2], parts[1::2]


def clauses(text: str) -> list[str]:
    """The clauses of ``text`` without their separators (see :func:`split_clauses`)."""
    return split_clauses(text)[0]


def names_new_thing(text: str) -> bool:
    """Whether ``text`` (a correction, or the line that replaces an old one) puts a new thing in
    place of the old one: ``new``, ``replaced``, ``swapped``, 新的, 换成, 换了."""
    return _NEW_THING.search(text) is not None
