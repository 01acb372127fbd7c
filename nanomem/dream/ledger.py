"""The fact ledger of a Dream run: where each fact of the batch ended up (pure).

Every fact of every batch ends in exactly one state (DESIGN §10):

``kept``       a line the run added says it (file and line number);
``merged``     an existing line already says it (``duplicate``), or the model folded it into a
               line it rewrote (old line and new line);
``corrected``  a ``[correction]`` whose new line replaced an old one (old line and new line);
``expired``    an ``[ephemeral]`` fact already older than the TTL when Dream saw it;
``refused``    a gate refused the call that carried it (the gate's reason);
``skipped``    no edit accounts for it, with the reason: ``marked skip``, ``raw turns``,
               ``pinned line`` (a correction of a pinned line, which only the person may
               change), ``too long for any file: …`` (longer than the largest cap, so no
               file can hold it; the fact is clipped, :mod:`nanomem.dream.limits`), ``filler``, ``secret-placeholder``, ``template-placeholder``, ``assistant's words``, ``cap`` (its file is full) or
               ``not used by the model``;
``pending``    it waits as a question for the person in ``memory/PENDING.md``.

Besides the facts, the ledger holds one ``moved`` entry per line the run moved out of a memory
file into ``memory/MOVED.md`` (:mod:`nanomem.dream.moves`); :func:`fact_entries` leaves them out.

The ledger is built by code from the batch, the diff between the files before and after the run,
and the run's refusals, never from what the model says it did. What a fact is:

- each ``- [mark] text`` line of a batch entry (``[skip]`` lines too, as ``skipped: marked skip``);
- each line of a plain note without marks;
- a ``[RAW]`` entry (raw turns the consolidator could not distil) is ONE fact of its own: it is
  kept verbatim in the history and its archive, so unless a line the run added says it, it is
  ``skipped: raw turns``.

>>> from types import SimpleNamespace as E
>>> seg = E(cursor=3, text="- [durable] I like green tea\\n- [skip] Thanks a lot!")
>>> facts = parse_ledger_facts([seg])
>>> [(f.mark, f.text) for f in facts]
[('durable', 'I like green tea'), ('skip', 'Thanks a lot!')]
>>> ledger = plan_ledger(facts, {"USER.md": "## Facts\\n"}, {"USER.md": "## Facts\\n- I like green tea\\n"})
>>> [(e.state, e.path, e.line) for e in ledger]
[('kept', 'USER.md', 2), ('skipped', None, None)]
>>> summarize_ledger(ledger)
'1 kept, 1 skipped (marked skip)'
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from nanomem.dream.limits import TOO_LONG, clip_fact, is_too_long, plan_fact_room, render_too_long
from nanomem.engines.offline.dream import parse_facts
from nanomem.engines.offline.routing import route_fact
from nanomem.text.filler import nonfact_reason
from nanomem.text.overlap import distinctive, is_duplicate, tokens
from nanomem.vocab import BULLET, MOVED_MD, NEAR_FULL, RAW_MARK, SKIP_MARK, is_pinned

STATES = ("kept", "merged", "corrected", "expired", "refused", "skipped", "pending")
MOVED = "moved"  # not a fact's state: a line the run moved out of its file (nanomem.dream.moves)
MATCH_SHARE = 0.5  # share of a fact's content tokens a line must hold to say the fact
PINNED_SHARE = 0.34  # a correction that shares this much with a pinned line corrects it
SUMMARY_WORDS = {"cap": "file full"}

_MARK_LINE = re.compile(r"^\s*[-*]\s*\[" + SKIP_MARK + r"\]\s*(.*?)\s*$", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class LedgerFact:
    """One fact of a batch: the history cursor it came from, its mark, its text and its day."""

    cursor: int
    mark: str
    text: str
    day: str = ""


@dataclass(frozen=True)
class LedgerEntry:
    """Where one fact ended up. ``path``/``line`` name the line that holds it now (1-based),
    ``old`` the line it replaced, ``reason`` why it was merged, refused, skipped or pending."""

    cursor: int
    mark: str
    fact: str
    state: str
    path: str | None = None
    line: int | None = None
    text: str | None = None
    old: str | None = None
    reason: str | None = None
    moved_from: str | None = None  # a ``moved`` line: the memory file it left (nanomem.dream.moves)


@dataclass(frozen=True)
class _Added:
    path: str
    line: int  # 1-based, in the file after the run
    text: str
    old: str | None  # the line it replaced, when the diff pairs it with one


def parse_ledger_facts(segments: Sequence[Any], *, default_day: str = "") -> list[LedgerFact]:
    """The facts of a run's batches, in order (each segment: ``cursor`` and ``text``)."""
    facts: list[LedgerFact] = []
    for seg in segments:
        text = str(seg.text)
        cursor = int(seg.cursor)
        if text.lstrip().startswith(RAW_MARK):
            body = " ".join(text.lstrip()[len(RAW_MARK):].split())
            facts.append(LedgerFact(cursor, "raw", body or RAW_MARK, default_day))
            continue
        entry = _Entry(cursor, text, str(getattr(getattr(seg, "entry", None), "timestamp", "")))
        skips = [m.group(1) for m in map(_MARK_LINE.match, text.splitlines()) if m and m.group(1)]
        parsed = [LedgerFact(cursor, f.mark, f.text, f.day)
                  for f in parse_facts([entry], default_day=default_day or "1970-01-01")]
        facts += parsed + [LedgerFact(cursor, SKIP_MARK, " ".join(s.split()), "") for s in skips]
    return facts


@dataclass(frozen=True)
class _Entry:
    cursor: int
    content: str
    timestamp: str
    kind: str | None = None


def plan_ledger(
    facts: Sequence[LedgerFact],
    before: Mapping[str, str],
    after: Mapping[str, str],
    *,
    refusals: Sequence[Any] = (),
    pending: Mapping[int, str] | None = None,
    today: date | None = None,
    ttl_days: int | None = None,
    caps: Mapping[str, int] | None = None,
) -> tuple[LedgerEntry, ...]:
    """One :class:`LedgerEntry` per fact, from the files before and after the run (pure).

    ``refusals`` are the run's refused calls (``arguments`` and ``reason``); ``pending`` the
    questions the run left in ``memory/PENDING.md`` (number -> the new text a yes writes): a
    fact is pending when the text says it or shares a name, number or identifier with it (an
    inference rewords what it infers from).
    """
    added = _added_lines(before, after)
    unchanged = [(rel, n, line) for rel, text in after.items()
                 for n, line in enumerate(text.splitlines(), 1)
                 if BULLET.match(line) and line in before.get(rel, "").splitlines()]
    refused = [(r, _texts_of(getattr(r, "arguments", None))) for r in refusals]
    room = {rel: (len(text), caps[rel]) for rel, text in after.items() if caps and caps.get(rel)}
    asked = dict(pending or {})
    fact_room = plan_fact_room({rel: cap for rel, cap in (caps or {}).items() if cap})
    out = []
    for fact in facts:
        if fact_room is not None and fact.mark not in (SKIP_MARK, "raw") \
                and is_too_long(fact.text, fact_room):
            out.append(LedgerEntry(fact.cursor, fact.mark, clip_fact(fact.text), "skipped",
                                   reason=render_too_long(len(fact.text), fact_room)))
            continue  # no file holds it: no text rule runs on it (Dream never showed it)
        out.append(_place(fact, added, unchanged, refused, asked, today, ttl_days, room))
    return tuple(out)


def summarize_ledger(ledger: Sequence[LedgerEntry]) -> str:
    """``3 kept, 1 corrected, 2 skipped (file full), 1 question`` (states in a fixed order;
    pending facts are counted as the questions they wait on: ``2 pending (1 question)`` when
    two facts wait on one)."""
    moved = sum(1 for e in ledger if e.state == MOVED)
    ledger = fact_entries(ledger)
    tail = f"{moved} line{'s' if moved != 1 else ''} moved to {MOVED_MD}" if moved else ""
    if not ledger:
        return tail or "no facts"
    counts = Counter(e.state for e in ledger)
    parts = []
    for state in STATES:
        n = counts.get(state, 0)
        if not n:
            continue
        if state == "pending":  # one question can stand for several facts
            asked = len({e.reason for e in ledger if e.state == state})
            words = f"{asked} question{'s' if asked != 1 else ''}"
            parts.append(words if asked == n else f"{n} pending ({words})")
            continue
        part = f"{n} {state}"
        if state == "skipped":
            reasons = Counter(_summary_word(e.reason or "") for e in ledger if e.state == state)
            part += " (" + ", ".join(f"{r}" if k == n else f"{k} {r}" for r, k in reasons.items()) + ")"
        parts.append(part)
    return ", ".join([*parts, tail] if tail else parts)


def _summary_word(reason: str) -> str:
    """A skip reason as the summary counts it (``cap`` is ``file full``; a too-long fact's
    reason, which names its length, is ``too long for any file``)."""
    return TOO_LONG if reason.startswith(TOO_LONG) else SUMMARY_WORDS.get(reason, reason)


def fact_entries(ledger: Sequence[LedgerEntry]) -> list[LedgerEntry]:
    """The entries of the batch's facts, in order (the ``moved`` lines left out)."""
    return [e for e in ledger if e.state != MOVED]


def unaccounted(facts: Sequence[LedgerFact], ledger: Sequence[LedgerEntry]) -> list[LedgerFact]:
    """Facts with no ledger entry in a known state (the test of completeness; empty when sound)."""
    ledger = fact_entries(ledger)
    if len(facts) != len(ledger):
        return list(facts[len(ledger):])
    return [f for f, e in zip(facts, ledger)
            if e.state not in STATES or (e.state in ("skipped", "refused", "pending") and not e.reason)]


def _place(fact: LedgerFact, added: Sequence[_Added], unchanged: Sequence[tuple[str, int, str]],
           refused: Sequence[tuple[Any, list[str]]], pending: Mapping[int, str],
           today: date | None, ttl_days: int | None, room: Mapping[str, tuple[int, int]]) -> LedgerEntry:
    base: dict[str, Any] = {"cursor": fact.cursor, "mark": fact.mark, "fact": fact.text}
    if fact.mark == SKIP_MARK:
        return LedgerEntry(**base, state="skipped", reason="marked skip")
    best = _best(fact.text, [(a, a.text) for a in added])
    if best is not None:
        if best.old is None:
            return LedgerEntry(**base, state="kept", path=best.path, line=best.line, text=best.text)
        state = "corrected" if fact.mark == "correction" else "merged"
        return LedgerEntry(**base, state=state, path=best.path, line=best.line, text=best.text,
                           old=best.old, reason=None if state == "corrected" else "rewritten")
    if fact.mark != "raw":
        for rel, n, line in unchanged:
            if is_duplicate(fact.text, line):
                return LedgerEntry(**base, state="merged", path=rel, line=n, text=line,
                                   reason="duplicate")
    asked = next((n for n, text in pending.items() if says_fact(fact.text, text)
                  or distinctive(_COMMENT.sub(" ", text)) & tokens(fact.text)), None)
    if asked is not None:
        return LedgerEntry(**base, state="pending", reason=f"question {asked}")
    for refusal, texts in refused:
        if any(says_fact(fact.text, text) for text in texts):
            return LedgerEntry(**base, state="refused", path=getattr(refusal, "path", None),
                               reason=str(getattr(refusal, "reason", "refused")))
    if (fact.mark == "ephemeral" and today is not None and ttl_days is not None
            and _age_days(fact.day, today) > ttl_days):
        return LedgerEntry(**base, state="expired", reason=f"older than {ttl_days} days")
    if fact.mark == "correction" and any(is_pinned(line) and _score(_strip_old(fact.text), line) >= PINNED_SHARE
                                         for _, _, line in unchanged):
        return LedgerEntry(**base, state="skipped", reason="pinned line")
    return LedgerEntry(**base, state="skipped", reason=_skip_reason(fact, room))


def _strip_old(text: str) -> str:
    """A correction without its digits' demand: the new value differs from the pinned line's."""
    return re.sub(r"\S*\d\S*", " ", text)


def _skip_reason(fact: LedgerFact, room: Mapping[str, tuple[int, int]]) -> str:
    """Why no edit accounts for a fact: ``cap`` when the file it belongs in (by the offline
    routing rule) has no room for it or is at 90 % of its cap."""
    if fact.mark == "raw":
        return "raw turns"
    reason = nonfact_reason(fact.text)
    if reason is not None:
        return reason  # secret-placeholder, template-placeholder, assistant's words or filler
    rel = route_fact(fact.text)
    size, cap = room.get(rel, (0, 0))
    if cap and (size + len(fact.text) + 3 > cap or size >= NEAR_FULL * cap):
        return "cap"
    return "not used by the model"


def _best(fact: str, candidates: Sequence[tuple[Any, str]]) -> Any:
    scored = [(_score(fact, text), item) for item, text in candidates]
    scored = [(s, item) for s, item in scored if s >= MATCH_SHARE]
    return max(scored, key=lambda pair: pair[0])[1] if scored else None


def says_fact(fact: str, text: str) -> bool:
    """Whether some line of ``text`` says ``fact`` (half its content words, all its numbers).

    >>> says_fact("The gate code is 4417", "- Gate code: 4417"), says_fact("Gate code is 4417", "code 5518")
    (True, False)
    """
    return any(_score(fact, line) >= MATCH_SHARE for line in text.splitlines() if line.strip())


def _score(fact: str, line: str) -> float:
    """The share of the fact's content tokens the line holds; 0 when the line lacks one of the
    fact's numbers or identifiers (a line that changed the value does not say the fact)."""
    mine = tokens(fact)
    if not mine:
        return 0.0
    theirs = tokens(_COMMENT.sub(" ", line))
    marks = {m for m in distinctive(fact) if any(ch.isdigit() for ch in m)}
    if marks and not marks <= (distinctive(line) | theirs):
        return 0.0
    return len(mine & theirs) / len(mine)


def iter_changed_blocks(before: Mapping[str, str], after: Mapping[str, str]
                        ) -> Iterator[tuple[str, str, list[str], list[str], int]]:
    """``(file, tag, old lines, new lines, first new index)`` of each block the line diff of a
    changed file marks ``replace``, ``insert`` or ``delete`` (the files of ``after``, then those
    only ``before`` has)."""
    for rel in [*after, *(r for r in before if r not in after)]:
        old, new = before.get(rel, ""), after.get(rel, "")
        if old == new:
            continue
        a, b = old.splitlines(), new.splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "equal":
                yield rel, tag, a[i1:i2], b[j1:j2], j1


def _added_lines(before: Mapping[str, str], after: Mapping[str, str]) -> list[_Added]:
    """Lines the run added, each paired with the line it replaced when the diff says so."""
    out: list[_Added] = []
    for rel, tag, old_lines, new_lines, j1 in iter_changed_blocks(before, after):
        if tag not in ("replace", "insert"):
            continue
        removed = [line for line in old_lines if line.strip()]
        for j, line in enumerate(new_lines, j1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            paired = max(removed, key=lambda r: _score(line, r), default=None) if removed else None
            if paired is not None and _score(line, paired) == 0 and len(removed) != len(new_lines):
                paired = None
            out.append(_Added(rel, j + 1, line, paired))
    return out


def _texts_of(arguments: Any) -> list[str]:
    if isinstance(arguments, Mapping):
        return [str(arguments[k]) for k in ("new_text", "content") if isinstance(arguments.get(k), str)]
    if isinstance(arguments, str):
        return [arguments]
    return []


def _age_days(day: str, today: date) -> int:
    try:
        return (today - date.fromisoformat(day[:10])).days
    except ValueError:
        return 0
