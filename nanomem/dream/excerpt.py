"""Which lines of a large memory file one Dream batch is shown (pure).

A memory file of at most :data:`EXCERPT_MIN_TOKENS` estimated tokens is shown whole. A larger
one is shown as an excerpt (:func:`plan_excerpt`): its headings, its pinned lines, its stale
``<!-- ephemeral -->`` lines (so Dream can drop them) and every line that shares a term with
the batch. Terms follow the search index's rule (:mod:`nanomem.search.terms`: NFKC, lower
case, Latin words minus stop words, CJK character pairs), with machine marks, fact marks and
one-character words left out and a plural ``s`` folded. A term found in more than
:data:`COMMON_SHARE` of the file's lines (and in more than :data:`COMMON_FLOOR` lines) selects
nothing, as the index leaves out a term found in too many documents: a word on every line
would turn the excerpt back into the whole file.

Shown lines are the file's lines exactly (so ``old_text`` copied from them matches the staged
file); each run of lines left out becomes one gap line ``⋯ (N lines not shown)``, and a note
says how many lines are not shown and that ``read_file`` shows the whole file
(:func:`render_excerpt`). Only blank lines between shown ones are shown rather than counted.

>>> text = "# User\\n\\n## Facts\\n- Likes tea\\n- Lives in Porto\\n- Name is Ana <!-- pin -->\\n"
>>> shown = plan_excerpt(text, ["- [durable] Moved from Porto to Braga"], min_tokens=0)
>>> print(render_excerpt(text, shown))
# User
<BLANKLINE>
## Facts
⋯ (1 line not shown)
- Lives in Porto
- Name is Ana <!-- pin -->
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date

from nanomem.search import terms
from nanomem.vocab import FACT_MARKS, MARK, SKIP_MARK, is_pinned

EXCERPT_MIN_TOKENS = 500  # a file estimated above this many tokens is shown as an excerpt
COMMON_SHARE = 0.1  # a term in more than this share of a file's lines selects nothing ...
COMMON_FLOOR = 4  # ... when it is also in more than this many lines
GAP = "⋯ ({count} line{s} not shown)"

_EPHEMERAL = re.compile(r"<!--\s*ephemeral\s+(\d{4})-(\d{2})-(\d{2})\s*-->")
_WORD = re.compile(r"\w+")
_IGNORED = frozenset({*FACT_MARKS, SKIP_MARK, "raw", "pin", "entry", "part"})

Estimate = Callable[[str], int]


def plan_terms(text: str) -> frozenset[str]:
    """The content terms of ``text``, as the excerpt compares them.

    >>> sorted(plan_terms("- [durable] Ana's projects: KX-7731 in 北京 <!-- permanent -->"))
    ['7731', 'ana', 'kx', 'project', '京', '北京']
    """
    text = terms.normalise(MARK.sub(" ", text))
    found: set[str] = set()
    for word in _WORD.findall(terms.CJK_RUN.sub(" ", text)):
        if len(word) < 2 or word in terms.STOP_WORDS or word in _IGNORED or word == "_" * len(word):
            continue
        found.add(_fold_plural(word))
    for run in terms.CJK_RUN.findall(text):
        found.update(run[i:i + 2] for i in range(len(run) - 1))
        found.add(run[-1])
    return frozenset(found)


def _fold_plural(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plan_excerpt(
    text: str,
    batch_texts: Sequence[str],
    *,
    min_tokens: int = EXCERPT_MIN_TOKENS,
    estimate: Estimate | None = None,
    today: date | None = None,
    ttl_days: int | None = None,
) -> tuple[int, ...] | None:
    """The 0-based indexes (in ``text.split("\\n")``) of the lines to show, or ``None`` when
    the file is shown whole: it is at most ``min_tokens`` estimated tokens, or every line
    would be shown anyway. With ``today`` and ``ttl_days``, an ephemeral line older than the
    TTL is shown too.

    >>> plan_excerpt("# Small\\n- fact\\n", ["fact"]) is None
    True
    """
    estimate = estimate or _default_estimate
    if estimate(text) <= min_tokens:
        return None
    lines = text.split("\n")
    line_terms = [plan_terms(line) for line in lines]
    counts: dict[str, int] = {}
    for found in line_terms:
        for term in found:
            counts[term] = counts.get(term, 0) + 1
    limit = max(COMMON_FLOOR, COMMON_SHARE * sum(1 for line in lines if line.strip()))
    wanted = {term for batch in batch_texts for term in plan_terms(batch)}
    wanted = {term for term in wanted if counts.get(term, 0) <= limit}
    shown = [i for i, line in enumerate(lines)
             if _always_shown(line, today, ttl_days) or (line_terms[i] & wanted)]
    shown = _with_blank_gaps(lines, shown)
    if len(shown) == len(lines):
        return None
    return tuple(shown)


def _always_shown(line: str, today: date | None, ttl_days: int | None) -> bool:
    stripped = line.strip()
    if stripped.startswith("#") or is_pinned(stripped):
        return True
    found = _EPHEMERAL.search(line) if today is not None and ttl_days is not None else None
    if found is None or today is None or ttl_days is None:
        return False
    try:
        learned = date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
    except ValueError:
        return False
    return (today - learned).days > ttl_days


def _with_blank_gaps(lines: Sequence[str], shown: Sequence[int]) -> list[int]:
    """``shown`` plus the lines of every gap that holds only blank lines (and a blank last
    line: the file's final newline)."""
    out: list[int] = []
    for index in shown:
        if out and all(not lines[i].strip() for i in range(out[-1] + 1, index)):
            out.extend(range(out[-1] + 1, index))
        out.append(index)
    if out and all(not lines[i].strip() for i in range(out[-1] + 1, len(lines))):
        out.extend(range(out[-1] + 1, len(lines)))
    return out


def render_excerpt(text: str, shown: Sequence[int]) -> str:
    """The shown lines exactly, each run of lines left out as one gap line."""
    lines = text.split("\n")
    out: list[str] = []
    previous = -1
    for index in shown:
        if index > previous + 1:
            out.append(_gap(index - previous - 1))
        out.append(lines[index])
        previous = index
    if previous < len(lines) - 1:
        out.append(_gap(len(lines) - 1 - previous))
    return "\n".join(out)


def render_excerpt_note(rel: str, text: str, shown: Sequence[int]) -> str:
    """The one-line note under an excerpt: how many lines are not shown, and how to see them.

    >>> render_excerpt_note("USER.md", "a\\nb\\nc", (0,))
    'EXCERPT of USER.md: 1 of 3 lines shown; the 2 other lines are not shown: read_file("USER.md") shows the whole file. Shown lines are exact; an old_text must not span a ⋯ gap line.'
    """
    total = len(text.split("\n"))
    hidden = total - len(shown)
    return (f"EXCERPT of {rel}: {len(shown)} of {total} lines shown; the {hidden} other "
            f"line{'s are' if hidden != 1 else ' is'} not shown: read_file(\"{rel}\") shows the "
            "whole file. Shown lines are exact; an old_text must not span a ⋯ gap line.")


def _gap(count: int) -> str:
    return GAP.format(count=count, s="s" if count != 1 else "")


def _default_estimate(text: str) -> int:
    from nanomem.text.tokens import estimate_text

    return estimate_text(text)
