"""Lines a Dream run moved out of the memory files, and what reinforced a line (pure).

A line leaves a memory file in a Dream run in one of three ways: a new line replaced it (a
correction, a rewrite), it expired (an ephemeral line past its TTL), or it was removed outright
(the offline engine making room in a full file, or a model deleting it). The last kind is
**moved**: the run appends it to ``memory/MOVED.md`` (:mod:`nanomem.store.moved`) before it
commits, and the ledger gains one ``moved`` entry per line (``moved_from`` the file, ``path``
and ``line`` where it is now), so nothing that leaves a file is unaccounted for.

What counts as removed outright, from the diff of each file (``difflib``, by lines): a bullet
(``- …``) of a ``delete`` block, or of a ``replace`` block when no new line of that block
shares a content word with it, that is neither the old line of a ledger entry (corrected or
merged) nor an ephemeral line past its TTL.

A line is **reinforced** (:func:`plan_reinforced`) when a later batch brought its fact again
(``merged``) or corrected it (``corrected``), as the ledger lines of ``memory/dream-audit.jsonl``
record; the offline engine moves reinforced lines last (:mod:`nanomem.engines.offline.room`).

>>> before = {"USER.md": "## Facts\\n- Likes figs\\n- Lives in Porto\\n"}
>>> after = {"USER.md": "## Facts\\n- Lives in Porto\\n- Allergic to peanuts\\n"}
>>> plan_moves(before, after, ledger=(), today=date(2026, 11, 30), ttl_days=7)
[('USER.md', '- Likes figs')]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date

from nanomem.dream.ledger import MOVED as MOVED_STATE
from nanomem.dream.ledger import LedgerEntry, iter_changed_blocks
from nanomem.engines.offline.dream import expired_lines
from nanomem.store.moved import MovedLine, plan_append
from nanomem.text.overlap import tokens
from nanomem.vocab import BULLET, MOVED_MD

REINFORCING = ("merged", "corrected")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def plan_moves(before: Mapping[str, str], after: Mapping[str, str], *,
               ledger: Sequence[LedgerEntry], today: date, ttl_days: int) -> list[tuple[str, str]]:
    """``(file, line)`` of each line the run removed outright (see the module doc), in order."""
    replaced = {e.old.strip() for e in ledger if e.old}
    expired = {(rel, line.strip()) for rel, line in expired_lines(before, today, ttl_days)}
    out: list[tuple[str, str]] = []
    for rel, tag, old_lines, new_lines, _ in iter_changed_blocks(before, after):
        if tag not in ("delete", "replace"):
            continue
        added = [tokens(line) for line in new_lines]
        for line in old_lines:
            if (not BULLET.match(line) or line.strip() in replaced
                    or (rel, line.strip()) in expired
                    or any(tokens(line) & words for words in added)):
                continue
            out.append((rel, line))
    return out


def plan_moved_entries(moves: Sequence[tuple[str, str]], moved_text: str, day: str
                       ) -> tuple[str, tuple[LedgerEntry, ...]]:
    """``(new MOVED.md text, ledger entries)`` for ``moves`` appended on ``day``."""
    lines = [MovedLine(line, rel, day) for rel, line in moves]
    text, numbers = plan_append(moved_text, lines)
    entries = tuple(
        LedgerEntry(0, MOVED_STATE, " ".join(_COMMENT.sub(" ", line).split()).lstrip("-*+ "),
                    MOVED_STATE, path=MOVED_MD, line=number, text=text.splitlines()[number - 1],
                    old=line, reason=f"moved out of {rel} to make room", moved_from=rel)
        for (rel, line), number in zip(moves, numbers))
    return text, entries


def plan_reinforced(audit_text: str) -> dict[str, str]:
    """``{line (stripped): time}``: the newest time a ledger line of the audit's text reinforced
    each memory-file line (a fact ``merged`` into it or ``corrected`` to it).

    >>> line = json.dumps({"kind": "ledger", "time": "2026-11-30T12:00:00", "facts": [
    ...     {"state": "merged", "text": "- Likes figs ", "fact": "I like figs"}]})
    >>> plan_reinforced(line)
    {'- Likes figs': '2026-11-30T12:00:00'}
    """
    out: dict[str, str] = {}
    for raw in audit_text.splitlines():
        if '"ledger"' not in raw:
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or record.get("kind") != "ledger":
            continue
        when = str(record.get("time") or "")
        for fact in record.get("facts") or []:
            if isinstance(fact, dict) and fact.get("state") in REINFORCING and fact.get("text"):
                key = str(fact["text"]).strip()
                out[key] = max(out.get(key, ""), when)
    return out
