"""The reply of ``/memory moved``: every line Dream moved out of a full memory file (pure).

``/memory`` names only the newest three lines of ``memory/MOVED.md``; this view lists them all,
newest first, each with the file it left and the day, up to :data:`MAX_LINES` lines and
:data:`MAX_CHARS` characters of reply, then counts the rest and says where they are (the file
itself, and search, which reads it). It reads nothing but the lines it is given.

>>> from nanomem.store.moved import MovedLine
>>> print(render_moved_list([MovedLine("- Likes figs", "USER.md", "2026-11-30")]))
**Moved lines** (`memory/MOVED.md`): 1 line Dream moved out of a full memory file; search still finds it.
- Likes figs (from USER.md, 2026-11-30)
"""

from __future__ import annotations

from collections.abc import Sequence

from nanomem.store.moved import MovedLine
from nanomem.text.sanitize import sanitize_line
from nanomem.vocab import MOVED_MD

MAX_LINES = 50
MAX_CHARS = 6000
LINE_WIDTH = 300  # characters of one moved line in the reply


def render_moved_list(lines: Sequence[MovedLine], *, max_lines: int = MAX_LINES,
                      max_chars: int = MAX_CHARS) -> str:
    """The ``/memory moved`` reply for the lines of ``memory/MOVED.md`` in file order (oldest
    first): newest first, bounded, with the count of the lines left out and where they are."""
    if not lines:
        return f"**No moved lines**: Dream has moved nothing out of a full memory file (`{MOVED_MD}` is empty)."
    total = len(lines)
    it = "it" if total == 1 else "them"
    out = [f"**Moved lines** (`{MOVED_MD}`): {total} line{'s' if total != 1 else ''} Dream moved out of "
           f"a full memory file; search still finds {it}."]
    size = len(out[0])
    shown = 0
    for moved in reversed(lines):
        text = sanitize_line(moved.text.strip().lstrip("-*+").strip())
        if len(text) > LINE_WIDTH:
            text = text[:LINE_WIDTH - 1] + "…"
        row = f"- {text} (from {moved.source}, {moved.day})"
        if shown >= max_lines or size + len(row) + 1 > max_chars:
            break
        out.append(row)
        size += len(row) + 1
        shown += 1
    rest = total - shown
    if rest:
        out.append(f"… and {rest} older line{'s' if rest != 1 else ''} not shown: read `{MOVED_MD}` in the "
                   "workspace, or find one with `/recall WORDS` (`nanomem search WORDS`).")
    return "\n".join(out)
