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

The block never exceeds ``budget_tokens`` (as :func:`nanomem.text.tokens.estimate_text` counts).
When lines must go, the choice is made in this order, and every cut is announced:

1. the usage header of each file, and room for an omission note;
2. pinned lines (ending in ``<!-- pin -->``, any spacing: :func:`nanomem.vocab.is_pinned`) of
   every file;
3. markdown headings;
4. the other lines, in file order, taken round-robin across the files so that no file
   starves the others.

Kept lines are shown in their original order. A file that lost lines ends with a visible note
such as ``… 12 lines omitted to fit the budget; see memory/MEMORY.md``; nothing is cut silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nanomem.text.redact import redact_for_model
from nanomem.text.tokens import estimate_text
from nanomem.vocab import is_pinned


@dataclass(frozen=True)
class _Line:
    index: int
    text: str
    tier: int  # 0 pinned, 1 heading, 2 other


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


def render_context(files: Mapping[str, str], caps: Mapping[str, int], budget_tokens: int) -> str:
    """Render ``files`` (relative path -> text) as one prompt block within ``budget_tokens``.

    ``caps`` gives each file's character cap for its usage header (a missing cap shows as 0).
    An empty file is shown as ``(empty)``. Returns ``""`` when not even the headers fit.

    >>> render_context({"SOUL.md": "- Be brief.\\n"}, {"SOUL.md": 4000}, 100)
    '## SOUL.md 12/4,000 chars\\n- Be brief.'
    >>> render_context({"SOUL.md": "- Be brief.\\n"}, {"SOUL.md": 4000}, 0)
    ''
    """
    if budget_tokens <= 0 or not files:
        return ""
    files = {rel: redact_for_model(text) for rel, text in files.items()}  # never into a prompt
    parsed = {rel: _parse_lines(text) for rel, text in files.items()}
    full = _assemble(files, caps, parsed, {rel: set(range(len(ls))) for rel, ls in parsed.items()})
    if estimate_text(full) <= budget_tokens:
        return full
    chosen = _choose_lines(files, caps, parsed, budget_tokens)
    while True:
        text = _assemble(files, caps, parsed, {rel: set(idx) for rel, idx in chosen.items()})
        if estimate_text(text) <= budget_tokens:
            return text
        if not _drop_last_choice(chosen, parsed):
            break
    skeleton = _assemble(files, caps, parsed, {rel: set() for rel in parsed})
    return skeleton if estimate_text(skeleton) <= budget_tokens else ""


def _parse_lines(text: str) -> list[_Line]:
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    parsed = []
    for index, line in enumerate(lines):
        stripped = line.rstrip()
        if is_pinned(stripped):
            tier = 0
        elif stripped.startswith("#"):
            tier = 1
        else:
            tier = 2
        parsed.append(_Line(index, line, tier))
    return parsed


def _assemble(
    files: Mapping[str, str],
    caps: Mapping[str, int],
    parsed: Mapping[str, list[_Line]],
    kept: Mapping[str, set[int]],
) -> str:
    blocks = []
    for rel, text in files.items():
        lines = parsed[rel]
        out = [render_usage(rel, len(text), int(caps.get(rel, 0)))]
        if not lines:
            out.append("(empty)")
        out.extend(line.text for line in lines if line.index in kept[rel])
        omitted = sum(1 for line in lines if line.index not in kept[rel] and line.text.strip())
        if omitted:
            out.append(render_omission(rel, omitted))
        blocks.append("\n".join(out))
    return "\n\n".join(blocks)


def _choose_lines(
    files: Mapping[str, str],
    caps: Mapping[str, int],
    parsed: Mapping[str, list[_Line]],
    budget_tokens: int,
) -> dict[str, list[int]]:
    """Greedy choice by tier; returns, per file, the chosen line indexes in choice order."""
    # Fixed cost: headers, block separators and a worst-case omission note for every file.
    fixed = 0
    for rel, text in files.items():
        fixed += estimate_text(render_usage(rel, len(text), int(caps.get(rel, 0))) + "\n\n")
        fixed += estimate_text(render_omission(rel, max(len(parsed[rel]), 1)) + "\n")
    left = budget_tokens - fixed
    chosen: dict[str, list[int]] = {rel: [] for rel in parsed}

    def take(rel: str, line: _Line) -> bool:
        nonlocal left
        cost = estimate_text(line.text + "\n") if line.text.strip() else 1
        if cost > left:
            return False
        left -= cost
        chosen[rel].append(line.index)
        return True

    for tier in (0, 1):
        for rel, lines in parsed.items():
            for line in lines:
                if line.tier == tier:
                    take(rel, line)
    queues = {rel: [ln for ln in lines if ln.tier == 2] for rel, lines in parsed.items()}
    active = [rel for rel in parsed if queues[rel]]
    while active:
        still = []
        for rel in active:
            line = queues[rel].pop(0)
            if take(rel, line) and queues[rel]:
                still.append(rel)
        active = still
    return chosen


def _drop_last_choice(chosen: dict[str, list[int]], parsed: Mapping[str, list[_Line]]) -> bool:
    """Drop the least important chosen line (highest tier, last chosen); False if none left."""
    best: tuple[int, int, str] | None = None
    for rel, indexes in chosen.items():
        if not indexes:
            continue
        idx = indexes[-1]
        tier = parsed[rel][idx].tier
        key = (tier, idx, rel)
        if best is None or key > best:
            best = key
    if best is None:
        return False
    chosen[best[2]].pop()
    return True
