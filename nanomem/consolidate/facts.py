"""One fact a person or an agent asks to remember, as a history line for the next Dream (pure).

``/remember``, the MCP tool ``memory_remember`` and the agent tool of the same name all come
here: the text may start with a mark (``[permanent]``, ``[durable]``, ``[ephemeral]``,
``[correction]``), or the mark is given apart; without one the fact is durable. The entry has
the consolidator's summary shape, so Dream reads it like any archived fact.

>>> parse_fact("[permanent]  Allergic to\\npeanuts. ")
('permanent', 'Allergic to peanuts.')
>>> render_fact(*parse_fact("Prefers metric units."))
'- [durable] Prefers metric units.'
"""

from __future__ import annotations

import dataclasses
import re

from nanomem.errors import HistoryError
from nanomem.vocab import FACT_MARKS

DEFAULT_MARK = "durable"
MAX_FACT_CHARS = 4_000  # one fact, not a document: well under the history's summary cap
_LEADING_MARK = re.compile(r"^\[([A-Za-z]+)\]\s*")


def parse_fact(text: str, mark: str | None = None) -> tuple[str, str]:
    """``(mark, text)`` of a fact: a leading ``[mark]`` is read when ``mark`` is not given,
    whitespace (newlines included) collapses to single spaces. Raises :class:`HistoryError`
    for an empty or over-long text and for a word in brackets that is not a mark.

    >>> parse_fact("Moved to Porto.", "correction")
    ('correction', 'Moved to Porto.')
    >>> parse_fact("[permanant] typo")
    Traceback (most recent call last):
    ...
    nanomem.errors.HistoryError: `[permanant]` is not a mark; start with [permanent], [durable], [ephemeral] or [correction], or leave the mark out
    """
    if not isinstance(text, str):
        raise HistoryError(f"the fact must be text, not {type(text).__name__}")
    text = text.strip()
    if mark is None:
        found = _LEADING_MARK.match(text)
        if found:
            mark = found.group(1).lower()
            if mark not in FACT_MARKS:
                raise HistoryError(
                    f"`{found.group(0).strip()}` is not a mark; start with "
                    f"{_choices()}, or leave the mark out"
                )
            text = text[found.end():]
    elif mark not in FACT_MARKS:
        raise HistoryError(f"mark {mark!r} is not one of {', '.join(FACT_MARKS)}")
    text = " ".join(text.split())
    if not text:
        raise HistoryError("nothing to remember: give the fact as text, e.g. "
                           "`/remember [permanent] Allergic to peanuts.`")
    if len(text) > MAX_FACT_CHARS:
        raise HistoryError(
            f"the fact has {len(text):,} characters, more than {MAX_FACT_CHARS:,}; "
            "remember one short fact at a time"
        )
    return mark or DEFAULT_MARK, text


def render_fact(mark: str, text: str) -> str:
    """The history line of a fact, ``- [mark] text``."""
    return f"- [{mark}] {text}"


def _choices() -> str:
    marks = [f"[{m}]" for m in FACT_MARKS]
    return ", ".join(marks[:-1]) + f" or {marks[-1]}"


@dataclasses.dataclass(frozen=True)
class RememberResult:
    """What :meth:`Memory.remember` appended: the history ``cursor``, the ``mark`` and the
    fact's ``text`` (before redaction). ``status`` is ``remembered``."""

    status: str
    cursor: int
    mark: str
    text: str
