"""What Dream can never place, found before any engine rule runs (pure; one stat edge).

Two limits, the same for every engine (a model's or the offline one), both from the caps:

* **A fact too long for any file.** A fact needs ``- `` and a newline around it, so one longer
  than the largest cap less those three characters (:func:`plan_fact_room`) fits no memory
  file, however empty. :func:`screen_entries` takes the lines whose fact is that long out of
  what the engine is shown (a ``[RAW]`` entry aside: it is material to distil, not one fact),
  and the ledger marks their facts ``skipped`` with :func:`render_too_long` as the reason and
  the fact clipped (:func:`clip_fact`), before any text rule runs on them. Their words stay in
  the history (and its segments and archive), where search finds them; nothing is cut there.
* **A memory file over its read ceiling.** A file of more than
  :func:`nanomem.store.memfiles.read_ceiling` bytes (16 per character of its cap) was not
  written by Dream: a person pasted it. Dream refuses the whole run
  (:func:`nanomem.store.memfiles.find_over_ceiling`, :func:`render_refusal`): no file is read
  whole or written, the cursor does not move, so the facts that wait are not passed by, and the
  message names the file, its size, the ceiling and the fix. The file stays exactly as the
  person left it (restore, forget and ``manual:`` commits refuse it too:
  :func:`nanomem.store.memfiles.refuse_over_ceiling`).

>>> room = plan_fact_room({"USER.md": 6_000, "memory/MEMORY.md": 12_000})
>>> room
FactRoom(chars=11997, path='memory/MEMORY.md', cap=12000)
>>> from types import SimpleNamespace as E
>>> entry = E(cursor=4, timestamp="2026-11-30 10:00", kind=None,
...           content="- [durable] Likes tea\\n- [durable] " + "word " * 3_000 + "\\n")
>>> [e.content for e in screen_entries([entry], room)]
['- [durable] Likes tea\\n']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from nanomem.engines.offline.dream import parse_facts
from nanomem.store.memfiles import OverCeiling, render_ceiling_refusal
from nanomem.vocab import RAW_MARK

FRAME = len("- \n")  # what a fact's line adds around it
CLIP_CHARS = 200  # what the ledger quotes of a fact too long for any file
TOO_LONG = "too long for any file"  # the reason's opening words, and its summary


class FactRoom(NamedTuple):
    """The most characters one fact may have and still fit a file: the largest cap (of
    ``path``) less :data:`FRAME`."""

    chars: int
    path: str
    cap: int


def plan_fact_room(caps: Mapping[str, int]) -> FactRoom | None:
    """The room of the largest cap; None without caps (then nothing is too long)."""
    if not caps:
        return None
    path = max(caps, key=lambda rel: (caps[rel], rel))
    return FactRoom(max(0, caps[path] - FRAME), path, caps[path])


def is_too_long(fact: str, room: FactRoom | None) -> bool:
    """Whether ``fact`` (a fact's text as the ledger parses it) fits no file."""
    return room is not None and len(fact) > room.chars


def render_too_long(length: int, room: FactRoom) -> str:
    """The ledger reason of a fact too long for any file.

    >>> render_too_long(28_000, FactRoom(11_997, "memory/MEMORY.md", 12_000))
    'too long for any file: 28,000 characters, the largest cap is 12,000 (memory/MEMORY.md); the text stays in the history'
    """
    return (f"{TOO_LONG}: {length:,} characters, the largest cap is {room.cap:,} ({room.path}); "
            "the text stays in the history")


def clip_fact(fact: str, limit: int = CLIP_CHARS) -> str:
    """The first words of a long fact, cut at a space, then ``…`` (no count: a number in the
    quote would be a number the fact does not hold).

    >>> clip_fact("alpha beta gamma delta", 12)
    'alpha beta …'
    """
    if len(fact) <= limit:
        return fact
    cut = fact.rfind(" ", 0, limit + 1)
    return fact[: cut if cut > 0 else limit].rstrip() + " …"


def screen_entries(entries: Sequence[Any], room: FactRoom | None) -> list[Any]:
    """The entries as the engine is shown them: each line whose fact fits no file left out
    (the same object when an entry has none; the history keeps every line)."""
    return [screen_entry(entry, room) for entry in entries]


def screen_entry(entry: Any, room: FactRoom | None) -> Any:
    """``entry`` without the lines too long for any file (:func:`too_long_lines`)."""
    content = str(entry.content)
    if room is None or len(content) <= room.chars or content.lstrip().startswith(RAW_MARK) \
            or getattr(entry, "kind", None) == "raw":
        return entry
    lines = content.splitlines(keepends=True)
    keep = [line for line in lines if not _line_too_long(entry, line, room)]
    if len(keep) == len(lines):
        return entry
    if dataclasses.is_dataclass(entry) and not isinstance(entry, type):
        return dataclasses.replace(entry, content="".join(keep))
    return _Screened(entry, "".join(keep))


def _line_too_long(entry: Any, line: str, room: FactRoom) -> bool:
    """A line longer than the room whose fact (parsed alone, as the ledger parses it) does not
    fit, or that holds no fact at all (a heading, a role line, a ``[skip]``): either way no file
    can take it. A shorter line always fits."""
    if len(line) <= room.chars:
        return False
    alone = _Line(line, str(getattr(entry, "timestamp", "")))
    facts = parse_facts([alone], default_day="1970-01-01")
    return not facts or all(len(f.text) > room.chars for f in facts)


@dataclasses.dataclass(frozen=True)
class _Line:
    content: str
    timestamp: str
    kind: str | None = None


class _Screened:
    """A screened copy of an entry that is not a dataclass (tests pass namespaces)."""

    def __init__(self, entry: Any, content: str) -> None:
        self.__dict__.update(vars(entry))
        self.content = content


def render_refusal(over: Sequence[OverCeiling], cursor: int) -> str:
    """Why Dream did not run: each file, its size, the ceiling, the cap and the fix.

    >>> print(render_refusal([OverCeiling("USER.md", 20_000_000, 6_000)], 17))  # doctest: +NORMALIZE_WHITESPACE
    USER.md is 20,000,000 bytes, over the 96,000 Dream works on (16 per character of its cap
    of 6,000); Dream did not run: no file was changed and the dream cursor stays at 17, so the
    entries after it wait for the next run. Move what you want to keep out of USER.md (nanomem
    never cuts a file you wrote), or raise [caps] "USER.md" in nanomem.toml; then run Dream again
    """
    return render_ceiling_refusal(
        over, "Dream works on",
        f"Dream did not run: no file was changed and the dream cursor stays at {cursor}, so the "
        "entries after it wait for the next run", "run Dream again")
