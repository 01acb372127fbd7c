"""The offline engine's Dream: deterministic rules that answer with the same tool calls a model
would make, so every edit still passes jsonschema and the gates.

:func:`plan_dream_reply` reads the :class:`~nanomem.dream.prompt.DreamTask` of a request:

- first turn (no tool results in the conversation yet): parse the batch's facts
  (``- [mark] text`` lines; a plain note without marks counts as durable facts, one per line;
  ``[RAW]`` entries are skipped), then plan, in this order,
  1. each ``[correction]``: replace the existing line it corrects (preferably one that sets the
     same slot with another value, :mod:`nanomem.engines.offline.slots`; else the most similar unpinned
     bullet that shares a distinctive token or a topic such as *where the person lives*),
     written without the clauses that restate the old value; a ``<!-- permanent -->`` line is
     replaced only when :func:`nanomem.dream.gates.corrections.matches` agrees, and keeps its mark; with no
     match the correction is added as a new fact;
  2. expiry: remove ``<!-- ephemeral YYYY-MM-DD -->`` lines older than ``task.ttl_days``
     before ``task.now`` (never pinned lines; within the run's deletion share);
  3. new facts: route each (SOUL = agent behaviour and requests about how to answer,
     USER = the person, MEMORY = the work; :mod:`nanomem.engines.offline.routing`),
     skip near-duplicates, and add the rest at the end of the file's ``## Facts`` /
     ``## Behaviour`` section with one ``edit_file`` per file (``write_file`` for an empty file);
     a fact over its file's cap first makes room (:mod:`nanomem.engines.offline.room`).
  All calls go out in one reply.
- next turn: ``finish`` (``updated`` if it proposed edits, else ``no_changes_needed``).

A fact is a near-duplicate of an existing line when at least :data:`nanomem.text.overlap.DUPLICATE_THRESHOLD` of its
normalised tokens occur in the line (containment) and every distinctive token (number,
identifier, capitalised name) of the fact occurs there too, so ``Contract KX-7731 ends in
April`` is not a duplicate of ``Contract KX-7731 ends in March``.

>>> is_duplicate("I live in Lisbon.", "- I live in Lisbon <!-- permanent -->")
True
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from nanomem.engines.chat import ChatResponse, ToolCall
from nanomem.dream.gates.checks import deletion_allowance
from nanomem.dream.gates.corrections import matches as permanent_correction_matches
from nanomem.dream.gates.corrections import topics_of
from nanomem.dream.gates.injection import find_injection
from nanomem.text.redact import redact
from nanomem.text.filler import nonfact_reason
from nanomem.text.noise import cut_masked_clauses
from nanomem.text.sanitize import find_controls
from nanomem.engines.offline.chatfix import recent_lines, starred_fix
from nanomem.text.overlap import distinctive, is_duplicate, phrases, tokens
from nanomem.engines.offline.remainder import plan_corrected_line
from nanomem.engines.offline.reslot import implied_correction
from nanomem.engines.offline.room import plan_make_room, replace_line
from nanomem.engines.offline.routing import route_fact
from nanomem.engines.offline.subject import replaces_named_thing
from nanomem.engines.offline.slots import (
    attributes_of,
    identifier_families,
    old_value,
    same_slot,
    substitute_value,
    trim_correction,
    values_of,
)
from nanomem.text.units import LINE_PREFIX, count_overlapping
from nanomem.vocab import (
    BULLET,
    FACT_MARKS,
    MEMORY_MD,
    RAW_MARK,
    SKIP_MARK,
    SOUL_MD,
    USER_MD,
    PIN_MARK,
    find_hedge,
    is_permanent,
    is_pinned,
)

HEDGED_QUESTION = "The history says this with a hedge (maybe, I think…): is it so?"
CORRECTION_THRESHOLD = 0.34
SECTION_HEADINGS = ("## Facts", "## Behaviour", "## Behavior")
NEW_FILE_HEADINGS = {
    SOUL_MD: "# Soul\n\n## Behaviour\n",
    USER_MD: "# User\n\n## Facts\n",
    MEMORY_MD: "# Memory\n\n## Facts\n",
}

_I = re.IGNORECASE
_MARKED = re.compile(r"^\s*[-*]\s*\[(" + "|".join((*FACT_MARKS, SKIP_MARK)) + r")\]\s*(.*?)\s*$", _I)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_NOT_EDITS = ("read_file", "finish")
_EPHEMERAL = re.compile(r"<!--\s*ephemeral\s+(\d{4}-\d{2}-\d{2})\s*-->")
_ROLE_LINE = re.compile(r"^\s*(?:\[\d{4}-\d{2}-\d{2}[ T][\d:]+\]\s*)?(USER|ASSISTANT|SYSTEM|TOOL)\b[^:]{0,40}:", _I)
_SAID = re.compile(r"\s*\(said (\d{4}-\d{2}-\d{2})\)\s*$")
# Words that open a correction but say nothing themselves; dropped when the fact is written.
_LEAD_IN = re.compile(
    r"^\s*(?:actually\b[,，]?\s*"
    r"|(?:correction|update|change of plans?)\b[^:：,，.!?]{0,30}?[:：,，]\s*"
    r"|(?:oh|oops|sorry|wait|no|so|and|also|in fact|well|ok|okay)\s*[,，:：]\s*"
    r"|(?:其实|另外)[，,：:]?|(?:不对|更正|纠正)(?:一下)?[，,：:]"
    r")+", _I)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Fact:
    """One fact of the batch: its mark, its text (marks and comments removed), the entry date."""

    mark: str
    text: str
    day: str


def plan_dream_reply(task: Any, messages: Sequence[Mapping[str, Any]]) -> ChatResponse:
    """The offline engine's reply to one Dream request (pure): edits and ``finish`` in one reply.

    >>> from datetime import datetime
    >>> from types import SimpleNamespace as E
    >>> from nanomem.dream.prompt import DreamTask
    >>> task = DreamTask((E(cursor=1, timestamp="2026-11-30 10:00", content="- [durable] I like tea",
    ...                     kind="summary"),), {"USER.md": "## Facts\\n"}, datetime(2026, 11, 30), 7)
    >>> reply = plan_dream_reply(task, [{"role": "user", "content": "..."}])
    >>> [(c.name, json.loads(c.arguments).get("new_text")) for c in reply.tool_calls]
    [('edit_file', '## Facts\\n- I like tea\\n'), ('finish', None)]
    >>> plan_dream_reply(task, [*[{"role": "user"}], reply.assistant_message(),
    ...                         {"role": "tool", "content": "ok"}]).tool_calls[0].name
    'finish'
    """
    if any(message.get("role") == "tool" for message in messages):
        return _finish_reply(messages)
    calls, note = plan_edits(task)
    if not calls:
        return _reply([("finish", {"status": "no_changes_needed", "note": note})], content=None)
    return _reply([*calls, ("finish", {"status": "updated", "note": note})], content=note)


def plan_edits(task: Any) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """``([(tool, arguments)], note)``: every edit of the first turn, in order (pure).

    Facts are taken in batch order, so a correction also fixes a fact added earlier in the
    same batch. Emitted order: corrections of existing lines, expiries, then one append per file.
    """
    files = {rel: str(text) for rel, text in task.files.items()}
    today = task.now.date()
    budget = {rel: _deletion_budget(text, task.max_deletion_share) for rel, text in files.items()}
    counts = dict.fromkeys(("added", "corrected", "expired", "duplicates", "moved out", "skipped", "asked"), 0)
    edits: list[tuple[str, dict[str, Any]]] = []
    touched: set[str] = set()
    planned: dict[str, list[str]] = {}
    found_again: set[str] = set()  # lines a fact of this batch repeats: never moved out

    def add(fact: Fact) -> None:
        if is_junk(fact.text):
            counts["skipped"] += 1  # social filler or a bare [REDACTED:…]: no fact to keep
            return
        if fact.mark == "ephemeral" and _age_days(fact.day, today) > task.ttl_days:
            counts["skipped"] += 1  # already stale when Dream sees it
            return
        known = [line for rel in files for line in _bullets(files[rel]) + planned.get(rel, [])]
        same = next((line for line in known if is_duplicate(fact.text, line)), None)
        if same is not None:
            found_again.add(same.strip())
            counts["duplicates"] += 1
            return
        rel, line = route_fact(fact.text), render_line(fact)
        cap = task.caps.get(rel)
        size = len(files.get(rel, "")) + sum(len(x) + 1 for x in planned.get(rel, []))
        if cap is not None and not make_room(rel, size + len(line) + 1 - cap):
            counts["skipped"] += 1  # nothing movable frees the room; the ledger says cap
            return
        planned.setdefault(rel, []).append(line)
        counts["added"] += 1

    def make_room(rel: str, need: int) -> bool:  # the lines removed are moved to memory/MOVED.md
        going = {line.strip() for r, line in expired_lines(files, today, task.ttl_days) if r == rel}
        room = plan_make_room(rel, files.get(rel, ""), need, keep=touched | found_again, first=going,
                              limit=budget.get(rel, 0), reinforced=getattr(task, "reinforced", None) or {})
        if room is not None:
            files[rel], lines, calls = room
            edits.extend(calls)
            budget[rel] = budget.get(rel, 0) - len(lines)
            touched.update(line.strip() for line in lines)
            counts["moved out"] += len(lines)
        return room is not None

    for fact in parse_facts(task.batch, default_day=today.isoformat()):
        fact = Fact(fact.mark, cut_masked_clauses(fact.text) or fact.text, fact.day)  # session 26: "ref HM-XXXX"
        view = {rel: "\n".join([files.get(rel, ""), *planned.get(rel, [])]) for rel in {*files, *planned}}
        fixed = starred_fix(fact.text, recent_lines(files, [x for lines in planned.values() for x in lines]))
        fact = fact if fixed is None else Fact("correction", fixed, fact.day)  # session 24: "*5831 sorry"
        # round 8: a plain fact that sets a slot in memory anew is a correction, whatever its words
        implied = None
        if fact.mark == "durable" and not is_junk(fact.text) and not any(
                is_duplicate(fact.text, line) for text in view.values() for line in _bullets(text)):
            implied = implied_correction(fact.text, view)  # a fact already in memory sets nothing anew
        if (fact.mark != "correction" and implied is None) or is_junk(fact.text):
            add(fact)
            continue
        target = implied or find_corrected(fact.text, view) or implied_correction(fact.text, view)
        if target is not None and is_pinned(target[1]) and target[1] in files.get(target[0], ""):
            ask = _ask_call(target[0], files[target[0]], target[1], fact)  # the pins gate asks it
            edits += [ask] if ask else []
            counts["asked" if ask else "skipped"] += 1
            continue
        if target is None or target[1].strip() in touched:
            add(Fact("durable", trim_correction(fact.text), fact.day))
            continue
        rel, line = target
        plain = Fact("durable", corrected_text(fact.text, _COMMENT.sub("", line)), fact.day)
        new_line = render_line(plain, permanent=is_permanent(line))
        if line in planned.get(rel, []):
            planned[rel][planned[rel].index(line)] = new_line
            counts["corrected"] += 1
            continue
        edit = replace_line(files[rel], line, new_line) if budget.get(rel, 0) >= 1 else None
        if edit is None:
            add(plain)
            continue
        if find_hedge(fact.text):  # a hedged correction: asked of the person, never applied
            edits.append(("edit_file", {"path": rel, "old_text": edit[0], "new_text": edit[1],
                                        "uncertain": True, "question": HEDGED_QUESTION}))
            counts["asked"] += 1
            continue
        edits.append(("edit_file", {"path": rel, "old_text": edit[0], "new_text": edit[1]}))
        files[rel] = files[rel].replace(edit[0], edit[1], 1)
        budget[rel] -= 1
        touched.update((line.strip(), new_line.strip()))
        counts["corrected"] += 1
    for rel, line in expired_lines(files, today, task.ttl_days):
        edit = replace_line(files[rel], line, None)
        if budget.get(rel, 0) < 1 or line.strip() in touched or edit is None:
            continue
        edits.append(("edit_file", {"path": rel, "old_text": edit[0], "new_text": edit[1]}))
        files[rel] = files[rel].replace(edit[0], edit[1], 1)
        budget[rel] -= 1
        touched.add(line.strip())
        counts["expired"] += 1
    for rel, lines in planned.items():
        # a line the injection or control-character gate will refuse goes in a call of its
        # own, so the refusal (audited) takes only that line and the batch's other facts land
        screened = [line for line in lines if find_injection(line) is not None or find_controls(line)]
        for line in screened:
            edits.append(_append_call(rel, files.get(rel, ""), [line], touched))
        clean = [line for line in lines if line not in screened]
        if clean:
            edits.append(_append_call(rel, files.get(rel, ""), clean, touched))
    done = ", ".join(f"{n} {what}" for what, n in counts.items() if n)
    return edits, f"offline Dream: {done or 'nothing new in this batch'}"


def parse_facts(batch: Sequence[Any], *, default_day: str) -> list[Fact]:
    """The facts of a batch, in order; ``[skip]`` facts and ``[RAW]`` entries are left out.

    >>> from types import SimpleNamespace as E
    >>> parse_facts([E(timestamp="2026-11-30 10:00", kind=None, content="Likes tea\\nUSER: hi")],
    ...             default_day="2026-12-01")
    [Fact(mark='durable', text='Likes tea', day='2026-11-30')]
    """
    facts: list[Fact] = []
    for entry in batch:
        content = redact(str(entry.content)).text  # history older than a secret kind
        if getattr(entry, "kind", None) == "raw" or content.lstrip().startswith(RAW_MARK):
            continue
        stamp = str(getattr(entry, "timestamp", ""))
        day = stamp[:10] if _DAY.match(stamp) else default_day
        lines = content.splitlines()
        marked = [_MARKED.match(line) for line in lines]
        if any(marked):
            pairs = [(m.group(1).lower(), m.group(2)) for m in marked if m]
        else:  # a plain note (nanomem append "..."): each line is a durable fact
            pairs = [("durable", re.sub(r"^\s*[-*+]\s+", "", line)) for line in lines
                     if line.strip() and not line.lstrip().startswith("#") and not _ROLE_LINE.match(line)]
        for mark, text in pairs:
            clean = " ".join(_COMMENT.sub(" ", text).split())
            said = _SAID.search(clean)
            if said:
                clean = clean[:said.start()].rstrip()
            if mark != "skip" and clean:
                facts.append(Fact(mark, clean, said.group(1) if said else day))
    return facts


def is_junk(text: str) -> bool:
    """Social filler, a sentence whose only content is a ``[REDACTED:…]`` placeholder, or the
    assistant's words (:func:`nanomem.text.filler.nonfact_reason`): never stored as a fact.

    >>> is_junk("That must have been awesome!"), is_junk("My API key is [REDACTED:openai-key]")
    (True, True)
    """
    return nonfact_reason(text) is not None


def render_line(fact: Fact, *, permanent: bool = False) -> str:
    """``- text`` with the machine mark its fact needs.

    >>> render_line(Fact("ephemeral", "Dentist on Friday", "2026-11-30"))
    '- Dentist on Friday <!-- ephemeral 2026-11-30 -->'
    """
    line = f"- {strip_lead_in(fact.text)}"
    if permanent or fact.mark == "permanent":
        line += " <!-- permanent -->"
    elif fact.mark == "ephemeral":
        line += f" <!-- ephemeral {fact.day} -->"
    return line


def strip_lead_in(text: str) -> str:
    """``text`` without the words that only announce a correction, capitalised again.

    >>> strip_lead_in("Actually, I moved to Lisbon."), strip_lead_in("其实我不吃香菜了。")
    ('I moved to Lisbon.', '我不吃香菜了。')
    >>> strip_lead_in("Update: the gym now opens at 6."), strip_lead_in("Actually")
    ('The gym now opens at 6.', 'Actually')
    """
    found = _LEAD_IN.match(text)
    rest = text[found.end():] if found else text
    if not rest.strip() or rest == text:
        return text
    return rest[:1].upper() + rest[1:]


@lru_cache(maxsize=8192)
def topic_tags(text: str, *, correction: bool) -> frozenset[str]:
    """The person topics of a memory line or a correction as tags such as ``@residence``: the
    one topic rule of the corrections gate (:func:`nanomem.dream.gates.corrections.topics_of`).

    >>> sorted(topic_tags("- The user lives in Lisbon <!-- permanent -->", correction=False))
    ['@residence']
    """
    body = LINE_PREFIX.sub("", _COMMENT.sub(" ", text), count=1)
    return frozenset("@" + topic for topic in topics_of(body, correction=correction))


_BOOKED_PLACES = frozenset({"hotel", "venue", "courier"})  # families whose words name one booked thing


def find_corrected(correction: str, files: Mapping[str, str]) -> tuple[str, str] | None:
    """``(path, line)`` of the bullet a correction corrects, or None (pinned lines included,
    so that the caller can let a pin win). A line related only by topic must sit in the file
    the correction itself routes to: "the meeting moved" never corrects where the person lives.
    A line that holds the same slot with another value (:func:`nanomem.engines.offline.slots.same_slot`:
    "rent is 1,150 now" for "Rent is 980 a month") and shares a word with the correction is
    preferred, in any file, and so is one that names a thing the correction puts aside ("traded
    in the old van", :func:`nanomem.engines.offline.subject.replaces_named_thing`, round 20); a
    pinned line is never chosen by its slot alone."""
    mine, marks = tokens(correction) | topic_tags(correction, correction=True), distinctive(correction)
    home = route_fact(correction)
    named_old = old_value(correction)
    old_values = values_of(named_old) if named_old else {}
    best: tuple[tuple[bool, float], str, str] | None = None
    for rel, text in files.items():
        for line in text.splitlines():
            if not BULLET.match(line):
                continue
            words = tokens(line)
            theirs = words | topic_tags(line, correction=False)
            if not theirs:
                continue
            shared = mine & theirs
            by_topic = any(t.startswith("@") for t in shared) and rel == home
            related = bool(marks & (distinctive(line) | theirs)) or len(shared) >= 2 or by_topic
            score = len(shared) / max(1, len(words))  # a topic tag stands for a word of the line
            same_subject = bool(phrases(correction) & phrases(line))
            close = related and (score >= CORRECTION_THRESHOLD or same_subject or by_topic)  # session 27: a topic of the person
            plain = _COMMENT.sub("", line)
            family = bool(identifier_families(correction).keys() & identifier_families(plain).keys())
            # round 11: a word of the same family of booked places counts as shared ("hotel" for "guest house")
            kin = bool(attributes_of(correction) & attributes_of(plain) & _BOOKED_PLACES)
            slot = (bool(shared) or family or kin) and same_slot(correction, plain)
            slot = slot or replaces_named_thing(correction, plain)  # round 20: "traded in the old van … got a Transit"
            holds_old = named_old is not None and (named_old.casefold() in plain.casefold() or any(
                old_values[kind] & values_of(plain)[kind] for kind in old_values
                if kind != "name"))  # round 11: a name is held whole ("Green Point" is not "Mouille Point")
            if holds_old:
                slot = True  # the line holds the old value the correction names ("from 40 to 55")
            elif named_old:
                continue  # round 9: the correction names the value it puts out of use, and this line lacks it
            if not close and not (slot and not is_pinned(line)):
                continue
            if is_permanent(line) and not permanent_correction_matches(line, correction):
                continue
            if best is None or (slot, score) > best[0]:
                best = ((slot, score), rel, line)
    return None if best is None else (best[1], best[2])


def corrected_text(correction: str, line: str) -> str:
    """The text that replaces ``line``: the correction without the old value, with the line's
    other facts kept (:func:`nanomem.engines.offline.remainder.plan_corrected_line`); or, when
    the correction says nothing of what the line is about ("The number on it is K-20." for
    "My locker key is K-11"), the line with the new value put in its place.

    >>> corrected_text("The number on it is K-20.", "- My locker key is K-11")
    'My locker key is K-20'
    >>> corrected_text("We raised the fee from 40 to 55 euros.", "- The fee is 40 euros")
    'We raised the fee to 55 euros.'
    """
    body = re.sub(r"^\s*[-*+]\s+", "", line).strip()
    shared = tokens(correction) & tokens(body)
    words = {t for t in shared if not _DIGIT.search(t)}
    if not words and not attributes_of(correction) & attributes_of(body):
        swapped = substitute_value(correction, body)
        if swapped is not None:
            return swapped
    return plan_corrected_line(trim_correction(correction, line), body, named=old_value(correction))


def expired_lines(files: Mapping[str, str], today: date, ttl_days: int) -> list[tuple[str, str]]:
    """``(path, line)`` of every unpinned ephemeral line older than ``ttl_days``."""
    out = []
    for rel, text in files.items():
        for line in text.splitlines():
            found = _EPHEMERAL.search(line)
            if found and not is_pinned(line) and _age_days(found.group(1), today) > ttl_days:
                out.append((rel, line))
    return out


def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if BULLET.match(line)]


def _age_days(day: str, today: date) -> int:
    try:
        return (today - date.fromisoformat(day)).days
    except ValueError:
        return 0


def _deletion_budget(text: str, share: float) -> int:
    return deletion_allowance(sum(1 for line in text.splitlines() if line.strip()), share)



def _ask_call(rel: str, text: str, line: str, fact: Fact) -> tuple[str, dict[str, Any]] | None:
    """The edit a correction of the pinned ``line`` would make, the pin kept: sent as it is,
    so that the pins gate turns it into a question for the person (never applied here)."""
    plain = Fact("durable", corrected_text(fact.text, _COMMENT.sub("", line)), fact.day)
    edit = replace_line(text, line, f"{render_line(plain, permanent=is_permanent(line))} {PIN_MARK}")
    return None if edit is None else ("edit_file", {"path": rel, "old_text": edit[0],
                                                    "new_text": edit[1]})


def _append_call(rel: str, text: str, lines: list[str], touched: set[str]) -> tuple[str, dict[str, Any]]:
    block = "".join(line + "\n" for line in lines)
    if not text.strip():
        return "write_file", {"path": rel, "content": NEW_FILE_HEADINGS.get(rel, "") + block}
    anchor = _anchor(text, touched)
    joiner = "" if anchor.endswith("\n") else "\n"
    return "edit_file", {"path": rel, "old_text": anchor, "new_text": anchor + joiner + block}


def _anchor(text: str, touched: set[str]) -> str:
    """A unique line after which new facts go: the last untouched non-blank line of the
    ``## Facts``/``## Behaviour`` section (else of the last section); the whole text if no
    single line is unique."""
    lines = text.splitlines(keepends=True)
    stripped = [line.strip() for line in lines]
    heading = next((i for i, s in enumerate(stripped) if s in SECTION_HEADINGS), None)
    if heading is None:
        heading = max((i for i, s in enumerate(stripped) if s.startswith("#")), default=-1)
    end = next((i for i in range(heading + 1, len(lines)) if stripped[i].startswith("#")), len(lines))
    for index in range(end - 1, max(heading, 0) - 1, -1):
        if stripped[index] and stripped[index] not in touched and count_overlapping(text, lines[index]) == 1:
            return lines[index]
    return "".join(lines[:end]) if end < len(lines) and count_overlapping(text, "".join(lines[:end])) == 1 else text


def _finish_reply(messages: Sequence[Mapping[str, Any]]) -> ChatResponse:  # after a held-back finish
    last: Mapping[str, Any] = next((m for m in reversed(messages) if m.get("role") == "assistant"), {})
    proposed = [c.get("id") for c in last.get("tool_calls") or [] if c.get("function", {}).get("name") not in _NOT_EDITS]
    results = {m.get("tool_call_id"): str(m.get("content", "")) for m in messages if m.get("role") == "tool"}
    refused = sum(1 for call_id in proposed if not results.get(call_id, "").startswith("ok:"))
    note = str(last.get("content") or "offline Dream")
    if refused:
        note += f" ({refused} of {len(proposed)} edits refused by the gates)"
    status = "updated" if len(proposed) > refused else "no_changes_needed"
    return _reply([("finish", {"status": status, "note": note})], content=None)


def _reply(calls: list[tuple[str, dict[str, Any]]], *, content: str | None) -> ChatResponse:
    tool_calls = tuple(
        ToolCall(id=f"offline-dream-{i}", name=name, arguments=json.dumps(args, ensure_ascii=False))
        for i, (name, args) in enumerate(calls, 1)
    )
    return ChatResponse(content=content, tool_calls=tool_calls, finish_reason="tool_calls")
