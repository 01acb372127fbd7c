"""The gates: pure checks that every Dream edit must pass before it touches the staged files.

The model proposes, code enforces (DESIGN §4). A :class:`Proposal` is one file's text before
and after a tool call; :class:`GateContext` holds the batch, the files as they were at the
start of the run and as they are staged now, and the config. Each ``check_<name>`` returns
``None`` to accept or a reason a person (and the model) understands. Cumulative rules (the
deletion guard, pins, permanent facts) compare against the ORIGINAL text of the run, so a
run cannot get around them in many small steps. Nothing here does I/O.

>>> from nanomem.config import Config
>>> ctx = GateContext("- [durable] Budget is $4,500", {"USER.md": ""}, {"USER.md": ""}, Config())
>>> check_all(Proposal("USER.md", "", "- Budget: 4500\\n"), ctx) is None
True
>>> check_all(Proposal("USER.md", "", "- Budget: 5000\\n"), ctx)
"traceability: '5000' in the new text of USER.md does not appear in the batch or the memory files; copy numbers, identifiers and names exactly as the batch writes them, or leave them out"

Order of :func:`check_all` (the first refusal wins): size, secrets, control characters,
injection, pins, new pins, corrections only, deletion guard, traceability, details. Paths are checked before a
proposal exists, by :func:`check_path` and :func:`check_symlink`. ``docs/gates.md`` explains each rule.

The judging of words lives in two pure modules the gates call: :mod:`nanomem.dream.gates.corrections`
(which ``[correction]`` is about which permanent fact) and :mod:`nanomem.dream.gates.traceability` (which
numbers, identifiers and names of new text are unknown).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nanomem.dream.gates import corrections, details
from nanomem.dream.gates.injection import find_injection
from nanomem.dream.gates import traceability
from nanomem.text.redact import find_secrets
from nanomem.text.sanitize import find_controls
from nanomem.vocab import (
    MEMORY_FILES,
    PERMANENT_MARK,
    PIN_MARK,
    check_link_target,
    is_permanent,
    is_pinned,
)

if TYPE_CHECKING:
    from nanomem.config import Config  # the values only: loading config is I/O


@dataclass(frozen=True)
class Proposal:
    """One proposed change: the whole text of ``path`` before and after the call."""

    path: str
    before: str
    after: str


@dataclass(frozen=True)
class GateContext:
    """The state the gates judge against.

    ``original_files``: the memory files at the start of the run; ``staged_files``: the staged
    texts before this call; ``batch_text``: the history batch as shown to the model (with the
    entry timestamps).
    """

    batch_text: str
    original_files: Mapping[str, str]
    staged_files: Mapping[str, str]
    config: Config

def normalise_path(raw: str) -> str:
    """Trim surrounding whitespace and leading ``./``; nothing else is rewritten.

    >>> normalise_path(" ./USER.md ")
    'USER.md'
    """
    path = raw.strip()
    while path.startswith("./"):
        path = path[2:]
    return path


def check_path(raw: str) -> str | None:
    """Refuse anything but ``SOUL.md``, ``USER.md`` and ``memory/MEMORY.md``.

    >>> check_path("./USER.md") is None
    True
    >>> check_path("memory/history.jsonl")
    "'memory/history.jsonl' is not a memory file; Dream may edit only SOUL.md, USER.md, memory/MEMORY.md"
    """
    allowed = ", ".join(MEMORY_FILES)
    shown = safe_text(raw[:120])
    if "\x00" in raw or any(unicodedata.category(ch) == "Cc" for ch in raw):
        return f"path '{shown}' contains control characters; use one of {allowed}"
    if "\\" in raw:
        return f"path '{shown}' contains a backslash; use a forward-slash path: {allowed}"
    path = normalise_path(raw)
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or raw.strip().startswith("~"):
        return f"absolute path '{shown}' is not allowed; use a workspace-relative path: {allowed}"
    if ".." in path.split("/"):
        return f"path '{shown}' leaves its directory with '..'; use one of {allowed}"
    if path not in MEMORY_FILES:
        return f"'{shown}' is not a memory file; Dream may edit only {allowed}"
    return None


def check_symlink(path: str, resolved: str, root: str) -> str | None:
    """Refuse a memory path whose real location (links followed) is outside the workspace,
    or is a bookkeeping file such as ``memory/history.jsonl`` (the one policy,
    :func:`nanomem.vocab.check_link_target`). Pure string logic: the caller passes
    ``os.path.realpath`` of the file and of the workspace root.

    >>> check_symlink("USER.md", "/ws/USER.md", "/ws") is None
    True
    >>> check_symlink("USER.md", "/etc/passwd", "/ws")
    'USER.md is a link that leads outside the workspace (to /etc/passwd); Dream does not write through it'
    """
    where = check_link_target(resolved, root)
    if where is None:
        return None
    return f"{path} is a link that leads {safe_text(where)}; Dream does not write through it"


def check_size(proposal: Proposal, context: GateContext) -> str | None:
    """The after text must fit the file's character cap. A file that is already over its cap
    (a person's edit) may still be shrunk, so the model can prune it."""
    cap = context.config.cap_for(proposal.path)
    size, now = len(proposal.after), len(proposal.before)
    if size <= cap or size <= now:
        return None
    return (
        f"size: {proposal.path} would be {size:,} characters, over its cap of {cap:,} "
        f"(now {now:,}); shorten the new text or remove outdated facts first"
    )


def check_secrets(proposal: Proposal, context: GateContext) -> str | None:
    """New text must not contain anything that looks like a credential. A secret already in
    the file (a person put it there) does not block other edits. The reason names the kind,
    never the secret."""
    known = {
        text[m.start : m.end]
        for text in (proposal.before, context.original_files.get(proposal.path, ""))
        for m in find_secrets(text)
    }
    kinds = sorted(
        {m.kind for m in find_secrets(proposal.after) if proposal.after[m.start : m.end] not in known}
    )
    if not kinds:
        return None
    return (
        f"secrets: the new text of {proposal.path} contains what looks like a credential "
        f"({', '.join(kinds)}); memory never stores secrets, leave it out"
    )


def check_controls(proposal: Proposal, context: GateContext) -> str | None:
    """New text must not add control characters (NUL, ESC sequences, C1, bidi overrides):
    the files go into prompts, diffs and terminals. Newlines, tabs and ``\\r\\n`` are fine,
    and a control character already in the file does not block other edits."""
    added = sorted(find_controls(proposal.after) - find_controls(proposal.before))
    if not added:
        return None
    return (
        f"control characters: the new text of {proposal.path} contains {', '.join(added[:5])}; "
        "write plain text (newlines and tabs only)"
    )


def check_injection(proposal: Proposal, context: GateContext) -> str | None:
    """No new line may be an instruction aimed at the model: to reveal its prompt or secrets,
    to ignore its rules, or to speak as the system (:mod:`nanomem.dream.gates.injection`).
    Every memory file is screened, since all three are loaded into the agent's prompt; a line
    a person already wrote does not block other edits."""
    new_lines = Counter(proposal.after.splitlines()) - Counter(proposal.before.splitlines())
    for line in new_lines:
        found = find_injection(line)
        if found is not None:
            return (
                f"injection: the new text of {proposal.path} holds an instruction aimed at the "
                f"model ({found.kind}: '{_quote(found.text, 60)}' in '{_quote(line)}'); memory "
                "keeps facts and the user's preferences, never instructions to reveal prompts "
                "or secrets, to ignore rules, or to speak as the system. Leave the line out"
            )
    return None


def check_pins(proposal: Proposal, context: GateContext) -> str | None:
    """Every line of the original that ends with ``<!-- pin -->`` stays, byte for byte (modulo
    surrounding whitespace); only a person's yes to a question changes one."""
    original = context.original_files.get(proposal.path, "")
    after_lines = Counter(_stripped_lines(proposal.after))
    pinned = Counter(line for line in _stripped_lines(original) if is_pinned(line))
    missing = pinned - after_lines
    if missing:
        line = next(iter(missing))
        return (
            f"pins: {proposal.path} line '{_quote(line)}' is pinned by a person; Dream may not "
            "remove or reword it. Keep it exactly as it is"
        )
    return None


def check_new_pins(proposal: Proposal, context: GateContext) -> str | None:
    """Dream may not add a pin mark of its own: only a person pins a line. A reworded pinned
    line that a question carries keeps the pin as long as no more lines are pinned than
    before (:func:`nanomem.dream.questions.check_question`)."""
    original = context.original_files.get(proposal.path, "")
    after_lines = Counter(_stripped_lines(proposal.after))
    pinned = Counter(line for line in _stripped_lines(original) if is_pinned(line))
    new_pins = Counter(line for line in after_lines.elements() if is_pinned(line)) - pinned
    if new_pins:
        return (
            f"pins: only a person pins a line; remove '{PIN_MARK}' from "
            f"'{_quote(next(iter(new_pins)))}'"
        )
    return None


def check_corrections(proposal: Proposal, context: GateContext) -> str | None:
    """A line marked ``<!-- permanent -->`` in the original may be removed or reworded only
    when the batch holds a ``- [correction] …`` fact that matches it (see
    :func:`nanomem.dream.gates.corrections.matches`).

    Every removal of such a line passes this gate, so a line that is already gone from the
    staged text was removed with a correction's backing; only the lines this call removes
    need one (a later batch of the same run, with other corrections, is not blocked)."""
    original = context.original_files.get(proposal.path, "")
    permanent = Counter(line for line in _stripped_lines(original) if is_permanent(line))
    # A permanent line already gone from ``before`` left through an accepted call (one that a
    # correction backed, maybe in an earlier batch of this run); only this call's removals count.
    still_there = permanent & Counter(_stripped_lines(proposal.before))
    gone = still_there - Counter(_stripped_lines(proposal.after))
    if not gone:
        return None
    facts = corrections.correction_facts(context.batch_text)
    for line in gone:
        if not any(corrections.matches(line, fact) for fact in facts):
            return (
                f"corrections only: {proposal.path} line '{_quote(line)}' is a permanent fact; "
                "it may change only when the batch holds a matching [correction] (none does). "
                "Keep the line as it is"
            )
    return None


def deletion_allowance(lines: int, share: float) -> int:
    """How many of ``lines`` non-blank lines one Dream run may remove from a file: ``share`` of
    them rounded down, but at least 1 when the share is above 0 (the one deletion rule: the
    gate enforces it, the offline engine plans within it).

    >>> deletion_allowance(7, 0.5), deletion_allowance(1, 0.5), deletion_allowance(7, 0.0)
    (3, 1, 0)
    """
    allowed = int(share * lines + 1e-9)
    return max(allowed, 1) if share > 0 and lines else allowed


def check_deletion(proposal: Proposal, context: GateContext) -> str | None:
    """Over the whole run, the non-blank lines removed from the original file (as a multiset;
    a reworded line counts as removed) may not exceed ``config.max_deletion_share`` of its
    non-blank lines, rounded down, but at least 1 when the share is above 0."""
    original = [line for line in _stripped_lines(proposal_original(proposal, context)) if line]
    if not original:
        return None
    share = context.config.max_deletion_share
    allowed = deletion_allowance(len(original), share)
    removed = sum((Counter(original) - Counter(_stripped_lines(proposal.after))).values())
    if removed <= allowed:
        return None
    return (
        f"deletion guard: this run would remove {removed} of the {len(original)} lines "
        f"{proposal.path} started with; at most {allowed} ({share:.0%}) may go in one run. "
        "Edit lines in place, or keep more of them"
    )


def check_traceability(proposal: Proposal, context: GateContext) -> str | None:
    """Every number, identifier and capitalised name in new text must appear in the batch or
    in the memory files (original or staged). The lines of ``after`` that are not in
    ``before`` are the new text."""
    new_lines = Counter(proposal.after.splitlines()) - Counter(proposal.before.splitlines())
    if not new_lines:
        return None
    unknown = traceability.find_untraced(
        new_lines,
        [context.batch_text, proposal.before, *context.original_files.values(),
         *context.staged_files.values()],
    )
    if not unknown:
        return None
    shown = ", ".join(f"'{_quote(token, 40)}'" for token in unknown[:5])
    more = f" (and {len(unknown) - 5} more)" if len(unknown) > 5 else ""
    verb = "does" if len(unknown) == 1 else "do"
    return (
        f"traceability: {shown}{more} in the new text of {proposal.path} {verb} not appear in "
        "the batch or the memory files; copy numbers, identifiers and names exactly as the "
        "batch writes them, or leave them out"
    )


def check_details(proposal: Proposal, context: GateContext) -> str | None:
    """A rewritten line may lose its old value, not the other facts it held: the values outside
    the clause of the old value that the file no longer holds (:mod:`nanomem.dream.gates.details`)."""
    found = details.find_dropped(proposal.before, proposal.after)
    if not found:
        return None
    line, values = found[0]
    shown = ", ".join(f"'{_quote(value, 40)}'" for value in values[:5])
    return (
        f"details: this edit of {proposal.path} drops {shown} from line '{_quote(line)}', which "
        "no other line holds; change only the part that holds the old value and keep the "
        "line's other facts, or remove the line in an edit of its own if it no longer holds"
    )


GATES = (
    check_size,
    check_secrets,
    check_controls,
    check_injection,
    check_pins,
    check_new_pins,
    check_corrections,
    check_deletion,
    check_traceability,
    check_details,
)


def check_all(proposal: Proposal, context: GateContext, *,
              waive: frozenset[str] = frozenset()) -> str | None:
    """Run every gate in a fixed order; return the first refusal, or ``None``. ``waive`` names
    gates a person's confirmation stands in for (``pins``, ``corrections``: see
    :mod:`nanomem.dream.questions`)."""
    found = first_refusal(proposal, context, waive=waive)
    return None if found is None else found[1]


def first_refusal(proposal: Proposal, context: GateContext, *,
                  waive: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """``(gate name, reason)`` of the first gate that refuses (``pins`` for
    :func:`check_pins`), or ``None``; the gates named in ``waive`` are not run."""
    for gate in GATES:
        name = gate.__name__.removeprefix("check_")
        if name in waive:
            continue
        reason = gate(proposal, context)
        if reason is not None:
            return name, reason
    return None


def proposal_original(proposal: Proposal, context: GateContext) -> str:
    """The text ``proposal.path`` had at the start of the run (``""`` for a new file)."""
    return context.original_files.get(proposal.path, "")


def safe_text(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]`` (for reasons and logs)."""
    found = find_secrets(text)
    for match in reversed(found):
        text = text[: match.start] + f"[REDACTED:{match.kind}]" + text[match.end :]
    return text


def _quote(text: str, limit: int = 80) -> str:
    text = safe_text(text.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]
