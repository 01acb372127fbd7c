"""The moved-lines file ``memory/MOVED.md``: lines Dream moved out of a full memory file.

Append-mostly markdown a person can read. Headings, then one line per moved line, as it was in
its file, followed by where it came from and the day it moved::

    # Moved lines

    ## Dream moved these out of a full memory file; search still finds them

    - Visited the museum last spring <!-- moved from USER.md 2026-11-30 -->

It is bookkeeping (under ``memory/``, :func:`nanomem.vocab.is_bookkeeping`): no Dream tool may
write it and no memory file may link to it. It is not versioned (the memory repository's
whitelist leaves it out), like the history and the archive. A restore that brings a moved
line back into its file takes it out of here (:func:`plan_returned`), so no line is in both
places. Search indexes its lines as ``file`` hits with ``path="memory/MOVED.md"``, forget scrubs it, and
``status`` and ``/memory`` count it. A file that is a symlink is never read or written
through: it reads as empty, with a warning, and the next append replaces the link by a file.

>>> text, numbers = plan_append("", [MovedLine("- Likes figs", "USER.md", "2026-11-30")])
>>> numbers, text.splitlines()[-1]
([5], '- Likes figs <!-- moved from USER.md 2026-11-30 -->')
>>> [m.source for m in parse_moved(text)]
['USER.md']
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nanomem.store.fsutil import atomic_write
from nanomem.store.workspace import Workspace
from nanomem.vocab import MOVED_MD

log = logging.getLogger(__name__)

HEADER = ("# Moved lines\n\n"
          "## Dream moved these out of a full memory file; search still finds them\n\n")
_LINE = re.compile(r"^(?P<text>.*?)\s*<!--\s*moved from (?P<source>\S+) (?P<day>\d{4}-\d{2}-\d{2})\s*-->\s*$")


@dataclass(frozen=True)
class MovedLine:
    """One moved line: its text as it was in ``source`` (``- …``, marks kept) and the day it
    moved (``YYYY-MM-DD``)."""

    text: str
    source: str
    day: str


@dataclass(frozen=True)
class MovedSummary:
    """What ``status`` and ``/memory`` say of the file: how many lines, since when (the day of
    the first), and the newest few (newest first)."""

    count: int = 0
    since: str | None = None
    newest: tuple[MovedLine, ...] = ()


def render_moved_line(moved: MovedLine) -> str:
    """The line of ``MOVED.md`` for ``moved``.

    >>> render_moved_line(MovedLine("- Likes figs", "USER.md", "2026-11-30"))
    '- Likes figs <!-- moved from USER.md 2026-11-30 -->'
    """
    return f"{moved.text.rstrip()} <!-- moved from {moved.source} {moved.day} -->"


def parse_moved(text: str) -> list[MovedLine]:
    """The moved lines of the file's text, in file order (other lines are left out)."""
    out = []
    for line in text.splitlines():
        found = _LINE.match(line)
        if found and found.group("text").strip():
            out.append(MovedLine(found.group("text"), found.group("source"), found.group("day")))
    return out


def plan_append(text: str, lines: Sequence[MovedLine]) -> tuple[str, list[int]]:
    """``(new_text, numbers)``: the file's text with ``lines`` appended, and the 1-based line
    number that holds each (pure). A line already there with the same text and source (left by
    a run that failed after writing it) is not written twice: its number is the existing one."""
    body = text if text.strip() else HEADER
    if not body.endswith("\n"):
        body += "\n"
    known = {(m.text.strip(), m.source): n for n, m in _numbered(body)}
    count = body.count("\n")
    numbers = []
    for moved in lines:
        key = (moved.text.strip(), moved.source)
        if key not in known:
            body += render_moved_line(moved) + "\n"
            count += 1
            known[key] = count
        numbers.append(known[key])
    return body, numbers


def plan_returned(text: str, files: Mapping[str, str]) -> tuple[str, list[MovedLine]]:
    """``(new_text, returned)``: the file's text without each moved line that is again a line
    of the file it came from (``files``: the memory files' text now, e.g. after a restore), and
    those lines (pure). Other lines, and moved lines whose file is not in ``files``, stay.

    >>> text = plan_append("", [MovedLine("- A", "USER.md", "2026-11-01"),
    ...                         MovedLine("- B", "USER.md", "2026-11-02")])[0]
    >>> new, back = plan_returned(text, {"USER.md": "# User\\n- A\\n"})
    >>> [m.text for m in back], [m.text for m in parse_moved(new)]
    (['- A'], ['- B'])
    """
    present = {rel: {line.strip() for line in body.splitlines()} for rel, body in files.items()}
    kept: list[str] = []
    returned: list[MovedLine] = []
    for line in text.splitlines(keepends=True):
        found = parse_moved(line)
        if found and found[0].text.strip() in present.get(found[0].source, ()):
            returned.append(found[0])
        else:
            kept.append(line)
    return "".join(kept), returned


def plan_summary(text: str, newest: int = 3) -> MovedSummary:
    """:class:`MovedSummary` of the file's text.

    >>> plan_summary(plan_append("", [MovedLine("- A", "USER.md", "2026-11-01"),
    ...                               MovedLine("- B", "SOUL.md", "2026-11-02")])[0], newest=1)
    MovedSummary(count=2, since='2026-11-01', newest=(MovedLine(text='- B', source='SOUL.md', day='2026-11-02'),))
    """
    lines = parse_moved(text)
    if not lines:
        return MovedSummary()
    return MovedSummary(len(lines), min(m.day for m in lines), tuple(reversed(lines[-newest:])))


def read_moved_bytes(workspace: Workspace) -> bytes | None:
    """The file's bytes; None when it is absent, or a symlink (never followed, warned)."""
    path = workspace.path(MOVED_MD)
    if path.is_symlink():
        log.warning("%s is a symlink; nanomem neither reads nor writes through it (the next "
                    "move replaces it with a file)", MOVED_MD)
        return None
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def read_moved_text(workspace: Workspace) -> str:
    """The file's text ("" when absent)."""
    data = read_moved_bytes(workspace)
    return "" if data is None else data.decode("utf-8", "replace")


def write_moved_text(workspace: Workspace, text: str) -> None:
    """Replace the file with ``text``, atomically (a symlink is replaced, never followed).
    The caller holds the memory files' writer lock (Dream)."""
    atomic_write(workspace.path(MOVED_MD), text)


def _numbered(text: str) -> list[tuple[int, MovedLine]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        found = parse_moved(line)
        if found:
            out.append((number, found[0]))
    return out
