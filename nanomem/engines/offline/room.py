"""Making room in a full memory file: which lines the offline Dream moves out (pure).

When a new fact does not fit under its file's cap, the offline engine removes the least
valuable lines of that file, and the Dream run moves every line removed that way to
``memory/MOVED.md`` (:mod:`nanomem.dream.moves`), where search still finds it. The rule:

1. never a pinned (``<!-- pin -->``) or permanent (``<!-- permanent -->``) line, never a line
   this run wrote, corrected or found again (a fact of this batch that duplicates it), and
   only bullets (``- …``), never headings or prose;
2. lines that are going anyway first (an ephemeral line past its TTL);
3. then the lines no later batch reinforced, oldest first: the order of the file, because
   Dream appends new facts at the end of their section, so the first line is the oldest;
4. then the reinforced lines, the one reinforced longest ago first. A line is reinforced when
   a later batch brought the same fact again (the ledger's ``merged`` state, in
   ``memory/dream-audit.jsonl``) or corrected it (``corrected``);
5. as few lines as free the room, within the run's deletion share; when the movable lines
   cannot free it, nothing moves and the fact is skipped (``skipped: cap``, in the ledger and
   the commit body).

>>> text = "## Facts\\n- A old <!-- pin -->\\n- B older\\n- C newer\\n- D newest\\n"
>>> plan_room(text, 10, keep=set(), reinforced={"- B older": "2026-11-01T10:00:00"}, limit=3)
['- C newer']
>>> plan_room(text, 100, keep=set(), reinforced={}, limit=3) is None
True
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from nanomem.text.units import count_overlapping
from nanomem.vocab import BULLET, is_permanent, is_pinned



def plan_room(text: str, need: int, *, keep: Collection[str], reinforced: Mapping[str, str],
              limit: int, first: Collection[str] = ()) -> list[str] | None:
    """The lines of ``text`` to move out so that ``need`` more characters fit (each line frees
    its length and its newline), in the order of the rule above; ``[]`` when ``need <= 0``;
    None when at most ``limit`` movable lines cannot free that much.

    ``keep`` holds lines (stripped) that must stay, ``reinforced`` maps a line (stripped) to the
    time of its newest reinforcement (ISO 8601), ``first`` the lines (stripped) to take first.
    """
    if need <= 0:
        return []
    movable = [(index, line) for index, line in enumerate(text.splitlines())
               if BULLET.match(line) and not is_pinned(line) and not is_permanent(line)
               and line.strip() not in keep]
    order = sorted(movable, key=lambda item: (item[1].strip() not in first,
                                              reinforced.get(item[1].strip(), ""), item[0]))
    chosen: list[str] = []
    freed = 0
    for _, line in order:
        if freed >= need or len(chosen) >= limit:
            break
        chosen.append(line)
        freed += len(line) + 1
    return chosen if freed >= need else None


def replace_line(text: str, line: str, new_line: str | None) -> tuple[str, str] | None:
    """``(old_text, new_text)`` replacing (or, with None, removing) one line; the old text
    grows upwards with the lines before it until it occurs exactly once."""
    lines = text.splitlines(keepends=True)
    for index, current in enumerate(lines):
        if current.rstrip("\r\n") != line:
            continue
        ending = current[len(line):]
        replacement = "" if new_line is None else new_line + ending
        for start in range(index, -1, -1):
            old = "".join(lines[start:index + 1])
            if count_overlapping(text, old) == 1:
                return old, "".join(lines[start:index]) + replacement
        return None
    return None


def plan_removals(text: str, lines: list[str]) -> tuple[str, list[tuple[str, str]]] | None:
    """``(text without lines, [(old_text, new_text)])``: one edit per removed line, in order;
    None when one of them has no unique ``old_text``."""
    edits = []
    for line in lines:
        edit = replace_line(text, line, None)
        if edit is None:
            return None
        edits.append(edit)
        text = text.replace(edit[0], edit[1], 1)
    return text, edits


def plan_make_room(rel: str, text: str, need: int, *, keep: Collection[str],
                   reinforced: Mapping[str, str], limit: int, first: Collection[str] = ()
                   ) -> tuple[str, list[str], list[tuple[str, dict[str, Any]]]] | None:
    """``(text after, lines removed, edit_file calls)`` that make ``need`` characters of room in
    file ``rel`` by :func:`plan_room`; None when they cannot be freed (the fact is skipped)."""
    lines = plan_room(text, need, keep=keep, reinforced=reinforced, limit=limit, first=first)
    removed = None if lines is None else plan_removals(text, lines)
    if lines is None or removed is None:
        return None
    calls = [("edit_file", {"path": rel, "old_text": a, "new_text": b}) for a, b in removed[1]]
    return removed[0], lines, calls
