"""Render the memory block an agent puts in its system prompt (pure).

Each memory file appears under its own heading with a usage header, so the model (and a person
reading the prompt) can see how full each file is::

    >>> files = {"USER.md": "# User\\n\\n## Facts\\n- Allergic to peanuts <!-- pin -->\\n"}
    >>> print(render_context(files, {"USER.md": 6000}, 200))
    ## USER.md 52/6,000 chars
    # User
    <BLANKLINE>
    ## Facts
    - Allergic to peanuts <!-- pin -->

After the files come, when there are any, the open questions of ``memory/PENDING.md`` (one
line each, ``## Questions for the person …``), the history entries Dream has not processed yet
(``## Recent history …``) and the turns recalled for the current query (``## Recalled …``,
one per line as ``[2026-05-08] Ana (user): …``), so the model can answer "when" and "who".

The block never exceeds ``budget_tokens`` (as :func:`nanomem.text.tokens.estimate_text` counts).
When something must go, the choice is made in this order, and every cut is announced:

1. the usage header of each file and of each section, and room for the omission notes;
2. pinned lines of every file (:func:`nanomem.vocab.is_pinned`), then markdown headings,
   then the open questions, oldest first;
3. without ``relevance``: the other lines in file order, round-robin across the files so that no
   file starves the others; with ``relevance`` (a query was given): the lines that match it,
   most relevant first;
4. the pending history entries, newest first (with a query, at most half of what is left);
5. the recalled turns, best first;
6. with a query, the other file lines, in file order.

Kept lines are shown in their original order. A file that lost lines ends with a note such as
``… 12 lines omitted to fit the budget; see memory/MEMORY.md``; the sections say how many entries
or turns they left out. Lines listed in ``skip`` (the template's explanations written for
people) never appear and are not counted as cut.

**Below the headers.** The usage headers and notes of three files and a section cost about
50–120 tokens. When that layout cannot hold every pinned line and every line that matches the
query (or nothing of it fits at all), the compact layout is tried, and the one that keeps more
pinned lines, then more matching lines, wins (a tie keeps the files' layout). The compact layout is one header, ``## Memory``, the lines chosen in the same
order of priority (without the markdown headings), and one note that counts every cut::

    ## Memory
    - Allergic to peanuts <!-- pin -->
    … 57 lines and 1 history entry omitted to fit the budget; see USER.md, memory/history.jsonl

When the note with its paths does not fit, it loses them; when no line fits beside it, the block
is ``## Memory`` and ``… memory omitted to fit the budget`` (10 tokens), then that note alone (8),
then ``… memory omitted`` (3). Below 3 tokens the block is empty: a block is never over budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nanomem.text.redact import redact_for_model
from nanomem.text.tokens import estimate_text
from nanomem.vocab import is_pinned

PENDING_HEADER = "## Recent history (not yet in the files; oldest first)"
QUESTIONS_HEADER = "## Questions for the person (ask; they answer /memory yes N or /memory no N)"
RECALL_HEADER = "## Recalled from earlier conversations (best match first)"
COMPACT_HEADER = "## Memory"
# The smallest block that says anything (``… memory omitted``); below it the block is empty, or
# a compact header with nothing under it (2 tokens) would be all there is.
MIN_BLOCK_TOKENS = 3
#: The shortest announcements of a cut, longest first: the last resorts of a tiny budget.
CUT_NOTES = ("… memory omitted to fit the budget", "… memory omitted")
SNIPPET_CHARS = 400


@dataclass(frozen=True)
class PendingEntry:
    """A history entry Dream has not processed yet."""

    timestamp: str
    text: str


@dataclass(frozen=True)
class RecalledTurn:
    """A turn (or history entry) found for the query: when, who, what."""

    date: str
    speaker: str
    text: str


@dataclass(frozen=True)
class _Line:
    index: int
    text: str
    tier: int  # 0 pinned, 1 heading, 2 other, -1 template text (never shown)


def render_usage(rel_path: str, chars: int, cap: int) -> str:
    """The heading line of one file.

    >>> render_usage("USER.md", 640, 1375)
    '## USER.md 640/1,375 chars'
    """
    return f"## {rel_path} {chars:,}/{cap:,} chars"


def render_omission(rel_path: str, omitted: int) -> str:
    """The note that replaces lines left out of one file.

    >>> render_omission("memory/MEMORY.md", 12)
    '… 12 lines omitted to fit the budget; see memory/MEMORY.md'
    """
    noun = "line" if omitted == 1 else "lines"
    return f"… {omitted} {noun} omitted to fit the budget; see {rel_path}"


def render_recalled(turn: RecalledTurn) -> str:
    """One recalled turn on one line.

    >>> render_recalled(RecalledTurn("2026-05-08", "user", "We painted a\\nsunrise."))
    '[2026-05-08] user: We painted a sunrise.'
    """
    when = f"[{turn.date}] " if turn.date else ""
    return f"{when}{turn.speaker}: {' '.join(turn.text.split())}"


def render_snippet(text: str, words: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to about ``width`` characters around the first of ``words``
    it contains, with ``…`` where it was cut.

    >>> render_snippet("a " * 300 + "kayak trip" + " b" * 300, ["kayak"], 20)
    '… a a a a a kayak trip …'
    """
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    found = [p for p in (lower.find(w.lower()) for w in words if w) if p >= 0]
    start = max(0, min(found) - width // 2) if found else 0
    start = min(start, len(flat) - width)
    cut = flat[start:start + width].strip()
    return ("… " if start > 0 else "") + cut + (" …" if start + width < len(flat) else "")


def render_context(
    files: Mapping[str, str],
    caps: Mapping[str, int],
    budget_tokens: int,
    *,
    relevance: Mapping[str, Mapping[int, float]] | None = None,
    pending: Sequence[PendingEntry] = (),
    recalled: Sequence[RecalledTurn] = (),
    skip: frozenset[str] = frozenset(),
    questions: Sequence[str] = (),
) -> str:
    """Render the memory block within ``budget_tokens`` (see the module docstring).

    ``files`` maps a relative path to its text, ``caps`` gives each file's character cap for its
    usage header (a missing cap shows as 0); an empty file shows as ``(empty)``. ``relevance``
    maps a file to ``{0-based line index: score}`` for the lines that match the query;
    ``pending`` is newest first; ``recalled`` best first; ``questions`` one line each, oldest
    first. Below the file headers the block is compact (see the module docstring); it is
    ``""`` only when not even ``… memory omitted`` (3 tokens) fits.

    >>> render_context({"SOUL.md": "- Be brief.\\n"}, {"SOUL.md": 4000}, 100)
    '## SOUL.md 12/4,000 chars\\n- Be brief.'
    >>> render_context({"SOUL.md": "- Be brief. <!-- pin -->\\n- Be kind.\\n"}, {"SOUL.md": 4000}, 20)
    '## Memory\\n- Be brief. <!-- pin -->\\n… 1 line omitted to fit the budget'
    >>> render_context({"SOUL.md": "- Be brief.\\n"}, {"SOUL.md": 4000}, 2)
    ''
    """
    if budget_tokens < MIN_BLOCK_TOKENS or not (files or pending or recalled or questions):
        return ""
    block = _Block(files, caps, skip, pending, recalled, questions)
    everything = block.all_items()
    # Each item is a newline-separated piece of the full block and no token spans a newline,
    # so the full block's estimate is at least the sum of (item cost - 1): when that alone is
    # over budget, the full block cannot fit and is neither assembled nor estimated.
    if sum(block._cost(item) - 1 for item in everything) <= budget_tokens + 1:
        full = block.assemble(set(everything))
        if estimate_text(full) <= budget_tokens:
            return full
    chosen = block.choose(budget_tokens, relevance)
    text = _fit(block.assemble, chosen, budget_tokens)
    if text and block.standing(chosen, relevance) == block.standing(everything, relevance):
        return text
    best, most = "", (-1, -1)  # the compact layout: the note shortens only as far as needed
    for level in range(4):
        compact = block.choose(budget_tokens, relevance, compact=level)
        small = _fit(lambda kept: block.assemble_compact(kept, level), compact, budget_tokens)
        if small and block.standing(compact, relevance) > most:
            best, most = small, block.standing(compact, relevance)
    if text and block.standing(chosen, relevance) >= most:
        return text
    if best:
        return best
    return CUT_NOTES[-1] if estimate_text(CUT_NOTES[-1]) <= budget_tokens else ""


def _fit(assemble: Callable[[set[_Item]], str], chosen: list[_Item], budget: int) -> str:
    """``assemble`` of the chosen items, dropping the least important until it fits; ``""``
    when not even the items' frame fits. ``chosen`` keeps what was kept."""
    while True:
        text = assemble(set(chosen))
        if estimate_text(text) <= budget:
            return text
        if not chosen:
            return ""
        chosen.pop()


# Memos by value (pure: the same text gives the same result): a file's redaction and its
# parsed lines are recomputed only for the file that changed, and the whole block only when an
# input changed. Bounded: each is cleared when it grows past its limit.
_MEMO_LIMIT = 64
_REDACTED: dict[str, str] = {}
_LINES: dict[tuple[str, frozenset[str]], Any] = {}
_BLOCKS: dict[tuple[Any, ...], str] = {}


def _memo(table: dict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
    found = table.get(key)
    if found is None:
        if len(table) >= _MEMO_LIMIT:
            table.clear()
        found = table[key] = make()
    return found


_LINE_COSTS: dict[str, int] = {}
_LINE_COSTS_LIMIT = 8192


def _line_cost(text: str) -> int:
    """Tokens of one file line and its newline, remembered by value: when a file changes, most
    of its lines did not."""
    found = _LINE_COSTS.get(text)
    if found is None:
        if len(_LINE_COSTS) >= _LINE_COSTS_LIMIT:
            _LINE_COSTS.clear()
        found = _LINE_COSTS[text] = estimate_text(text + "\n")
    return found


def _redacted(text: str) -> str:
    return _memo(_REDACTED, text, lambda: redact_for_model(text))


def _parsed_lines(text: str, skip: frozenset[str]) -> Any:
    return _memo(_LINES, (text, skip), lambda: tuple(_parse_lines(text, skip)))


def render_context_memo(
    files: Mapping[str, str], caps: Mapping[str, int], budget_tokens: int, *,
    pending: Sequence[PendingEntry] = (), skip: frozenset[str] = frozenset(),
    questions: Sequence[str] = (),
) -> str:
    """:func:`render_context` without a query, remembered by the value of every input: the
    same files, caps, budget, pending entries and questions give the same block without
    rendering."""
    key = (tuple(files.items()), tuple(caps.items()), budget_tokens, tuple(pending), skip,
           tuple(questions))
    return _memo(_BLOCKS, key, lambda: render_context(files, caps, budget_tokens,
                                                      pending=pending, skip=skip,
                                                      questions=questions))


_Item = tuple[str, str, int]  # ("file", rel, index) | ("pending"|"recall"|"question", "", i)


def _kept(kept: set[_Item], kind: str, items: Sequence[str]) -> list[int]:
    """The indices of ``items`` (pending entries, recalled turns or questions) the budget kept."""
    return [i for i in range(len(items)) if (kind, "", i) in kept]


def _section(header: str, items: Sequence[str], shown: Sequence[int],
             omitted: Callable[[int], str]) -> str:
    """``header``, the ``shown`` items in that order, and ``omitted(left)`` when some are left out."""
    left = len(items) - len(shown)
    return "\n".join([header, *(items[i] for i in shown), *([omitted(left)] if left else [])])


class _Block:
    """The parts of one prompt block and how they are chosen and assembled."""

    def __init__(self, files: Mapping[str, str], caps: Mapping[str, int], skip: frozenset[str],
                 pending: Sequence[PendingEntry], recalled: Sequence[RecalledTurn],
                 questions: Sequence[str] = ()) -> None:
        self.files = {rel: _redacted(text) for rel, text in files.items()}  # never into a prompt
        self.caps = caps
        self.lines = {rel: _parsed_lines(text, skip) for rel, text in self.files.items()}
        self.pending = [f"[{e.timestamp}] {redact_for_model(e.text)}" if e.timestamp
                        else redact_for_model(e.text) for e in pending]
        self.recalled = [redact_for_model(render_recalled(turn)) for turn in recalled]
        self.questions = [redact_for_model(" ".join(q.split())) for q in questions]

    def all_items(self) -> list[_Item]:
        items: list[_Item] = [("file", rel, ln.index) for rel, lines in self.lines.items()
                              for ln in lines if ln.tier >= 0]
        items += [("pending", "", i) for i in range(len(self.pending))]
        items += [("recall", "", i) for i in range(len(self.recalled))]
        items += [("question", "", i) for i in range(len(self.questions))]
        return items

    def assemble(self, kept: set[_Item]) -> str:
        blocks = []
        for rel, text in self.files.items():
            lines = self.lines[rel]
            out = [render_usage(rel, len(text), int(self.caps.get(rel, 0)))]
            if not lines:
                out.append("(empty)")
            for line in lines:
                if ("file", rel, line.index) in kept and (line.text.strip() or out[-1].strip()):
                    out.append(line.text)  # blank lines left by skipped text collapse into one
            omitted = sum(1 for ln in lines if ln.tier >= 0 and ln.text.strip()
                          and ("file", rel, ln.index) not in kept)
            if omitted:
                out.append(render_omission(rel, omitted))
            blocks.append("\n".join(out))
        if self.questions:
            shown = _kept(kept, "question", self.questions)
            blocks.append(_section(QUESTIONS_HEADER, self.questions, shown, lambda left: (
                f"… {left} more {'question' if left == 1 else 'questions'} omitted to fit the "
                "budget; see memory/PENDING.md")))
        if self.pending:
            newest_first = _kept(kept, "pending", self.pending)[::-1]
            blocks.append(_section(PENDING_HEADER, self.pending, newest_first, lambda left: (
                f"… {left} older {'entry' if left == 1 else 'entries'} omitted to fit the budget; "
                "see memory/history.jsonl")))
        if self.recalled:
            shown = _kept(kept, "recall", self.recalled)
            blocks.append(_section(RECALL_HEADER, self.recalled, shown, lambda left: (
                f"… {left} more recalled {'turn' if left == 1 else 'turns'} omitted to fit the "
                "budget")))
        return "\n\n".join(blocks)

    def choose(self, budget: int, relevance: Mapping[str, Mapping[int, float]] | None, *,
               compact: int | None = None) -> list[_Item]:
        """Greedy choice in priority order; returns the chosen items, most important first.
        ``compact``: the note level of :meth:`assemble_compact` (no markdown headings)."""
        frame = self.assemble(set()) if compact is None else self.assemble_compact(set(), compact)
        fixed = estimate_text(frame) + (4 if compact is None else 0)  # _fit trims any excess
        left = budget - fixed
        chosen: list[_Item] = []

        def take(item: _Item) -> bool:
            nonlocal left
            cost = self._cost(item)
            if cost > left:
                return False
            left -= cost
            chosen.append(item)
            return True

        for tier in (0, 1) if compact is None else (0,):
            for rel, lines in self.lines.items():
                for line in lines:
                    if line.tier == tier:
                        take(("file", rel, line.index))
        for i in range(len(self.questions)):
            take(("question", "", i))
        others = {rel: [ln for ln in lines if ln.tier == 2] for rel, lines in self.lines.items()}
        later: dict[str, list[_Line]] = {rel: [] for rel in others}
        if relevance is None:
            _round_robin(others, take)
        else:
            scored = [(score, rel, ln.index) for rel, lines in others.items() for ln in lines
                      if (score := relevance.get(rel, {}).get(ln.index, 0.0)) > 0]
            for _, rel, index in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
                take(("file", rel, index))
            taken = set(chosen)
            later = {rel: [ln for ln in lines if ("file", rel, ln.index) not in taken]
                     for rel, lines in others.items()}
        share = left if relevance is None or not self.recalled else left // 2
        for i in range(len(self.pending)):
            cost = self._cost(("pending", "", i))
            if cost <= share and take(("pending", "", i)):
                share -= cost
        for i in range(len(self.recalled)):
            take(("recall", "", i))
        _round_robin(later, take)
        return chosen

    def standing(self, items: Sequence[_Item],
                 relevance: Mapping[str, Mapping[int, float]] | None) -> tuple[int, int]:
        """How many of ``items`` are pinned file lines, and how many match the query: what the
        two layouts are compared by (the first two priorities)."""
        pinned = matching = 0
        for kind, rel, index in items:
            if kind == "file" and self.lines[rel][index].tier == 0:
                pinned += 1
            elif kind == "file" and relevance and relevance.get(rel, {}).get(index, 0.0) > 0:
                matching += 1
        return pinned, matching

    def assemble_compact(self, kept: set[_Item], level: int = 0) -> str:
        """One header, the kept items (file lines in file order, then questions, pending
        entries oldest first, recalled turns) and one note of the cut: at ``level`` 0 it counts
        every cut and names the files to see, at 1 it counts, at 2 and 3 it is a ``CUT_NOTES``."""
        out, omitted, where = [COMPACT_HEADER], [0, 0, 0, 0], []
        for rel, lines in self.lines.items():
            content = [ln for ln in lines if ln.tier >= 0 and ln.text.strip()]
            out += [ln.text for ln in content if ("file", rel, ln.index) in kept]
            cut = sum(1 for ln in content if ("file", rel, ln.index) not in kept)
            omitted[0] += cut
            where += [rel] if cut else []
        for slot, (kind, texts, order, path) in enumerate((
                ("question", self.questions, 1, "memory/PENDING.md"),
                ("pending", self.pending, -1, "memory/history.jsonl"),
                ("recall", self.recalled, 1, ""))):
            shown = [i for i in range(len(texts)) if (kind, "", i) in kept][::order]
            out += [texts[i] for i in shown]
            omitted[slot + 1] = len(texts) - len(shown)
            where += [path] if path and len(shown) < len(texts) else []
        nouns = (("line", "lines"), ("question", "questions"), ("history entry", "history entries"),
                 ("recalled turn", "recalled turns"))
        parts = [f"{n} {nouns[i][n != 1]}" for i, n in enumerate(omitted) if n]
        if parts and level >= 2:
            out.append(CUT_NOTES[level - 2])
        elif parts:
            counted = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
            see = f"; see {', '.join(where)}" if level == 0 and where else ""
            out.append(f"… {counted} omitted to fit the budget{see}")
        return "\n".join(out)

    def _cost(self, item: _Item) -> int:
        kind, rel, index = item
        if kind == "file":
            text = self.lines[rel][index].text
            return _line_cost(text) if text.strip() else 1
        text = {"pending": self.pending, "recall": self.recalled, "question": self.questions}[kind][index]
        return estimate_text(text + "\n")


def _round_robin(queues: Mapping[str, list[_Line]], take: Callable[[_Item], bool]) -> None:
    pending = {rel: list(lines) for rel, lines in queues.items()}
    active = [rel for rel in pending if pending[rel]]
    while active:
        still = []
        for rel in active:
            line = pending[rel].pop(0)
            if take(("file", rel, line.index)) and pending[rel]:
                still.append(rel)
        active = still


def _parse_lines(text: str, skip: frozenset[str]) -> list[_Line]:
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    parsed = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped and stripped in skip:
            tier = -1
        elif is_pinned(stripped):
            tier = 0
        elif stripped.startswith("#"):
            tier = 1
        else:
            tier = 2
        parsed.append(_Line(index, line, tier))
    return parsed
