"""When a Dream edit becomes a question for the person instead of an edit (pure).

Three cases ask instead of editing (issue 13), for a model and the offline engine alike:

``pinned``     the pins gate refuses the edit: it rewords a line a person pinned (puts new
               text in its place);
``permanent``  the corrections gate refuses it: it rewords a ``<!-- permanent -->`` fact and
               no ``[correction]`` of the batch matches;
``uncertain``  the engine marked its ``edit_file`` call ``"uncertain": true`` (the tool
               schema has the field; the offline engine sets it for a hedged correction).

An edit the batch does not back (it only removes the line, or its new words are not in the
batch: :func:`backed_by_batch`) is refused as before, so a careless model rewording pinned lines
cannot flood the person with questions. Every other gate still judges the edit first (size, secrets, control characters, injection,
deletion guard, traceability, and no more pinned lines than before): an edit those refuse is
refused, never asked. A yes applies the exact edit through the same gates, the person's
confirmation standing in for the pins and corrections gates (and for traceability, which was
checked when the question was asked against the batch it came from).

>>> from nanomem.config import Config
>>> pinned = "## Facts\\n- Lives in Lisbon <!-- pin -->\\n"
>>> new = "## Facts\\n- Lives in Porto <!-- pin -->\\n"
>>> ctx = GateContext("- [correction] I moved to Porto", {"USER.md": pinned}, {"USER.md": pinned}, Config())
>>> ask, reason = plan_ask(Proposal("USER.md", pinned, new), ctx, old_text=pinned, new_text=new)
>>> (ask.kind, ask.old_text, ask.new_text, reason)
('pinned', '- Lives in Lisbon <!-- pin -->\\n', '- Lives in Porto <!-- pin -->\\n', None)
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING

from nanomem.dream.gates.checks import (GateContext, Proposal, check_all, check_new_pins,
                                        first_refusal)
from nanomem.text.overlap import tokens
from nanomem.store.pending import Question
from nanomem.text.units import count_overlapping
from nanomem.vocab import is_pinned

if TYPE_CHECKING:
    from nanomem.config import Config

ASKING_GATES = {"pins": "pinned", "corrections": "permanent"}  # gate -> kind of question
WAIVED_TO_ASK = frozenset({"pins", "new_pins", "corrections"})
WAIVED_BY_YES = WAIVED_TO_ASK | {"traceability"}
MAX_QUESTIONS = 10  # per Dream run; more are refused with the gate's reason (and audited)
WHY = {
    "pinned": "the line is pinned by a person; only your yes changes it",
    "permanent": "it is a permanent fact and no [correction] in the batch matches it",
    "uncertain": "the engine was not sure of this inference",
}


def plan_ask(proposal: Proposal, context: GateContext, *, old_text: str, new_text: str,
             uncertain: bool = False, question: str = "",
             batch: str = "") -> tuple[Question | None, str | None]:
    """``(question, None)`` when the edit is to be asked, ``(None, reason)`` when a gate
    refuses it, ``(None, None)`` when it is applied as it is. ``old_text``/``new_text`` are
    the call's arguments; the question keeps them narrowed to the lines that change."""
    found = first_refusal(proposal, context)
    if found is None and not uncertain:
        return None, None
    if found is not None and (found[0] not in ASKING_GATES or not backed_by_batch(proposal, context)):
        return None, found[1]  # a removal, or a rewording the batch does not back: refused
    rest = check_all(proposal, context, waive=WAIVED_TO_ASK)
    if rest is None and _pins(proposal.after) > _pins(context.original_files.get(proposal.path, "")):
        rest = check_new_pins(proposal, context)
    if rest is not None:
        return None, found[1] if found is not None else rest
    kind = ASKING_GATES[found[0]] if found is not None else "uncertain"
    old, new = narrow_edit(proposal.before, old_text, new_text)
    where = f" (history entries {batch})" if batch else ""
    return Question(0, kind, proposal.path, old, new, WHY[kind] + where,
                    " ".join(question.split()), batch), None


def check_answer(path: str, before: str, after: str, config: Config) -> str | None:
    """The gates a yes passes: all but those the person's confirmation stands in for."""
    context = GateContext("", {path: before}, {path: before}, config)
    return check_all(Proposal(path, before, after), context, waive=WAIVED_BY_YES)


def narrow_edit(text: str, old: str, new: str) -> tuple[str, str]:
    """The edit ``old`` -> ``new`` of ``text`` without the leading and trailing lines both
    sides share, as long as what is left of ``old`` still occurs exactly once in ``text`` (so
    the narrowed edit gives the same file, and survives edits elsewhere in it).

    >>> narrow_edit("# U\\n- a\\n- b\\n", "# U\\n- a\\n- b\\n", "# U\\n- a\\n- c\\n")
    ('- b\\n', '- c\\n')
    """
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    while len(a) > 1 and len(b) > 1 and a[0] == b[0] and count_overlapping(text, "".join(a[1:])) == 1:
        a, b = a[1:], b[1:]
    while len(a) > 1 and len(b) > 1 and a[-1] == b[-1] and count_overlapping(text, "".join(a[:-1])) == 1:
        a, b = a[:-1], b[:-1]
    return "".join(a), "".join(b)


def render_question_audit(q: Question, *, event: str, time: datetime, commit: str | None,
                          **extra: object) -> str:
    """One ``memory/dream-audit.jsonl`` line for a question ``asked``, or answered ``yes`` /
    ``no``: ``{"kind": "question", "event": …, "question": N, "path": …, …}``."""
    record = {"kind": "question", "event": event, "time": time.isoformat(timespec="seconds"),
              "question": q.number, "reason_kind": q.kind, "path": q.path,
              "old_text": q.old_text, "new_text": q.new_text, "reason": q.reason,
              "batch": q.batch, "commit": commit, **extra}
    return json.dumps(record, ensure_ascii=False) + "\n"


def backed_by_batch(proposal: Proposal, context: GateContext) -> bool:
    """Whether the edit is a correction the batch backs: it puts new lines in the file, and a
    word of them that the removed lines lack occurs in the batch (the new value came from what
    the person said, not from the model).

    >>> from nanomem.config import Config
    >>> ctx = GateContext("- [correction] I moved to Porto", {}, {}, Config())
    >>> backed_by_batch(Proposal("USER.md", "- Lives in Lisbon\\n", "- Lives in Porto\\n"), ctx)
    True
    >>> backed_by_batch(Proposal("USER.md", "- Lives in Lisbon\\n", "- Lisbon\\n"), ctx)
    False
    """
    old, new = Counter(proposal.before.splitlines()), Counter(proposal.after.splitlines())
    added, removed = "\n".join(new - old), "\n".join(old - new)
    fresh = tokens(added) - tokens(removed)
    return bool(fresh & tokens(context.batch_text))


def _pins(text: str) -> int:
    return sum(1 for line in text.splitlines() if is_pinned(line.strip()))
