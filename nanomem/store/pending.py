"""``memory/PENDING.md``: the numbered questions that wait for the person (DESIGN §10).

Dream writes a question here instead of an edit when a gate must refuse a correction that only
the person may make (a pinned line, a permanent fact with no matching ``[correction]``) or when
the engine marked its edit uncertain. The file is markdown for people, and each question ends
with one HTML comment holding the exact edit a yes applies, as JSON::

    ## 1. USER.md: change a pinned line?
    - now: `- Lives in Lisbon <!-- pin -->`
    - new: `- Lives in Porto <!-- pin -->`
    - why: the line is pinned by a person; only your yes changes it
    <!-- nanomem-question {"n": 1, "kind": "pinned", "path": "USER.md", ...} -->

The comments are the source of truth: the text above each is rendered from them again on every
write, so a hand edit of the prose does not survive (an edit of a comment does, if it stays
valid). ``<!-- nanomem-pending {"next": 2} -->`` keeps the next number, so a number once
answered is never given to another question. The file is bookkeeping: never a memory file,
never a link (:func:`nanomem.store.memfiles.memory_file_path`), versioned with the memory files.

>>> q = Question(0, "pinned", "USER.md", "- Lives in Lisbon <!-- pin -->\\n",
...              "- Lives in Porto <!-- pin -->\\n", "the line is pinned by a person")
>>> book, numbered = add_questions(PendingBook(), [q])
>>> [x.number for x in numbered], parse_pending(render_pending(book)) == book
([1], True)
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from nanomem.errors import WorkspaceError
from nanomem.store.filecache import RACY_NS
from nanomem.store.fsutil import atomic_write
from nanomem.store.workspace import Workspace
from nanomem.text.sanitize import sanitize_line
from nanomem.vocab import MEMORY_FILES, PENDING

log = logging.getLogger(__name__)

KINDS = ("pinned", "permanent", "uncertain")
TITLES = {
    "pinned": "change a pinned line?",
    "permanent": "change a permanent fact?",
    "uncertain": "is this right?",
}
_QUESTION = re.compile(r"^<!--\s*nanomem-question\s+(.*?)\s*-->\s*$")
_HEADER = re.compile(r"^<!--\s*nanomem-pending\s+(.*?)\s*-->\s*$")
_MARKER = re.compile(r"^\s*<!--\s*nanomem-(?:question|pending)\b")
SHOWN_CHARS = 160  # of a line in the prose and the prompt block (the comment keeps it whole)
FIX = ("fix the JSON of that comment or delete the question (its '## N.' heading to its "
       "comment); `git log -p memory/PENDING.md` shows the last good version")

_SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 1},
        "kind": {"enum": list(KINDS)},
        "path": {"enum": list(MEMORY_FILES)},
        "old_text": {"type": "string", "minLength": 1},
        "new_text": {"type": "string"},
        "reason": {"type": "string"},
        "question": {"type": "string"},
        "batch": {"type": "string"},
        "asked": {"type": "string"},
    },
    "required": ["n", "kind", "path", "old_text", "new_text", "reason"],
    "additionalProperties": False,
}


@cache
def _validator() -> Any:
    """The schema's validator, built on first use: `nanomem status` must not pay jsonschema's
    import (about 50 ms) for a workspace whose PENDING.md holds no question."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_SCHEMA)

HEAD = """# Pending questions

Dream could not decide these alone. Answer in chat with `/memory yes N` (apply it) or
`/memory no N` (drop it); on the command line `nanomem pending yes N` / `nanomem pending no N`.
The comment under each question is exactly what a yes applies; leave it as it is.
"""


@dataclass(frozen=True)
class Question:
    """One question: its number (0 until it is written), why it is asked (``kind``), and the
    exact edit a yes applies (``old_text`` -> ``new_text`` in ``path``, once)."""

    number: int
    kind: str
    path: str
    old_text: str
    new_text: str
    reason: str
    question: str = ""
    batch: str = ""
    asked: str = ""

    @property
    def change(self) -> tuple[list[str], list[str]]:
        """The lines the edit removes and adds (what a person reads)."""
        old, new = self.old_text.splitlines(), self.new_text.splitlines()
        removed: list[str] = []
        added: list[str] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag != "equal":
                removed += [line for line in old[i1:i2] if line.strip()]
                added += [line for line in new[j1:j2] if line.strip()]
        return removed, added

    def same_edit(self, other: "Question") -> bool:
        return (self.path, self.old_text, self.new_text) == (other.path, other.old_text, other.new_text)


@dataclass(frozen=True)
class PendingBook:
    """The open questions, oldest first, and the number the next one gets."""

    questions: tuple[Question, ...] = ()
    next_number: int = 1

    def get(self, number: int) -> Question | None:
        return next((q for q in self.questions if q.number == number), None)


def parse_pending(text: str, *, name: str = PENDING) -> PendingBook:
    """The questions of a ``PENDING.md`` text; :class:`WorkspaceError` naming the line and the
    fix for a comment that is not a valid question (the prose around them is free)."""
    questions: list[Question] = []
    next_number = 1
    for number, line in enumerate(text.splitlines(), 1):
        if not _MARKER.match(line):
            continue
        where = f"{name} line {number}"
        header = _HEADER.match(line.strip())
        if header is not None:
            data = _load(header.group(1), where)
            if not isinstance(data, dict) or not isinstance(data.get("next"), int) or data["next"] < 1:
                raise WorkspaceError(f'{where}: the header must be {{"next": N}} with N >= 1; {FIX}')
            next_number = max(next_number, data["next"])
            continue
        found = _QUESTION.match(line.strip())
        if found is None:
            raise WorkspaceError(f"{where}: a nanomem comment must fit on one line and end "
                                 f"with '-->'; {FIX}")
        data = _load(found.group(1), where)
        errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.path))
        if errors:
            field = f"'{errors[0].path[-1]}'" if errors[0].path else "the question"
            raise WorkspaceError(f"{where}: {field} is invalid ({_describe(errors[0])}); {FIX}")
        if any(q.number == data["n"] for q in questions):
            raise WorkspaceError(f"{where}: question {data['n']} appears twice; {FIX}")
        questions.append(Question(data["n"], data["kind"], data["path"], data["old_text"],
                                  data["new_text"], data["reason"], data.get("question", ""),
                                  data.get("batch", ""), data.get("asked", "")))
    top = max((q.number for q in questions), default=0)
    return PendingBook(tuple(questions), max(next_number, top + 1))


def render_pending(book: PendingBook) -> str:
    """The text of ``PENDING.md`` for ``book`` (pure; :func:`parse_pending` reads it back)."""
    out = [HEAD, _comment("nanomem-pending", {"next": book.next_number}), ""]
    if not book.questions:
        out += ["No open questions.", ""]
    for q in book.questions:
        removed, added = q.change
        out.append(f"## {q.number}. {q.path}: {TITLES.get(q.kind, 'is this right?')}")
        if q.question:
            out.append(f"- asks: {_shown(q.question)}")
        out += [f"- now: `{_shown(line)}`" for line in removed]
        out += [f"- new: `{_shown(line)}`" for line in added] or ["- new: (the line goes)"]
        out.append(f"- why: {_shown(q.reason)}")
        record: dict[str, Any] = {"n": q.number, "kind": q.kind, "path": q.path,
                                  "old_text": q.old_text, "new_text": q.new_text, "reason": q.reason}
        record.update({k: v for k, v in (("question", q.question), ("batch", q.batch),
                                         ("asked", q.asked)) if v})
        out += [_comment("nanomem-question", record), ""]
    return "\n".join(out)


def render_question_line(q: Question) -> str:
    """One question on one line, for the prompt block and ``/memory pending``.

    >>> render_question_line(Question(2, "pinned", "USER.md", "- A <!-- pin -->\\n", "- B <!-- pin -->\\n", "x"))
    '2. USER.md: change a pinned line? `- A <!-- pin -->` -> `- B <!-- pin -->`'
    """
    removed, added = q.change
    now = " / ".join(f"`{_shown(line, 100)}`" for line in removed) or "(nothing)"
    new = " / ".join(f"`{_shown(line, 100)}`" for line in added) or "(the line goes)"
    ask = f" {_shown(q.question, 120)}" if q.question else ""
    return f"{q.number}. {q.path}: {TITLES.get(q.kind, 'is this right?')}{ask} {now} -> {new}"


def add_questions(book: PendingBook, asks: Sequence[Question]) -> tuple[PendingBook, list[Question]]:
    """``book`` with ``asks`` numbered and appended; an ask whose edit is already open gets
    that question back instead of a second copy. Returns the book and each ask as numbered."""
    questions = list(book.questions)
    next_number = book.next_number
    numbered = []
    for ask in asks:
        same = next((q for q in questions if q.same_edit(ask)), None)
        if same is None:
            same = replace(ask, number=next_number)
            next_number += 1
            questions.append(same)
        numbered.append(same)
    return PendingBook(tuple(questions), next_number), numbered


def remove_question(book: PendingBook, number: int) -> PendingBook:
    """``book`` without question ``number`` (its number is not given out again)."""
    return PendingBook(tuple(q for q in book.questions if q.number != number), book.next_number)


def read_pending(workspace: Workspace) -> PendingBook:
    """The open questions of a workspace (none when the file is absent); never writes."""
    text = read_pending_text(workspace)
    return parse_pending(text) if text else PendingBook()


def read_pending_text(workspace: Workspace) -> str:
    """The text of ``memory/PENDING.md`` (``""`` when absent); a link is refused."""
    path = workspace.path(PENDING)
    if path.is_symlink():
        raise WorkspaceError(f"{PENDING}: is a symlink; nanomem keeps this file itself and never "
                             "reads through a link. Replace the link with a file")
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise WorkspaceError(f"{PENDING}: cannot be read ({exc.strerror}); check its "
                             "permissions") from exc


_LINES_MEMO: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {}


def read_question_lines(workspace: Workspace) -> tuple[str, ...]:
    """One line per open question (:func:`render_question_line`), for the prompt block; read
    again only when the file's stat signature changed (or it is racily clean, as
    :mod:`nanomem.store.filecache` has it). A malformed or unreadable file gives
    no lines and one warning naming the line (the prompt block is never blocked by it)."""
    path = workspace.path(PENDING)
    began = time.time_ns()
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ()
    except OSError as exc:
        log.warning("%s: cannot be read (%s); its questions are left out of the prompt block",
                    PENDING, exc.strerror)
        return ()
    key, signature = str(path), (st.st_ino, st.st_size, st.st_mtime_ns)
    found = _LINES_MEMO.get(key)
    if found is not None and found[0] == signature:
        return found[1]
    try:
        lines = tuple(render_question_line(q) for q in read_pending(workspace).questions)
    except WorkspaceError as exc:
        log.warning("%s; its questions are left out of the prompt block", exc)
        lines = ()
    if began - st.st_mtime_ns > RACY_NS:  # else racily clean: read it again next time
        _LINES_MEMO[key] = (signature, lines)
    return lines


def write_pending(workspace: Workspace, book: PendingBook) -> None:
    """Write ``book`` atomically (the writers that version it use the write journal instead)."""
    atomic_write(workspace.path(PENDING), render_pending(book).encode("utf-8"))


def _load(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise WorkspaceError(f"{where}: the comment is not valid JSON ({exc.msg} at column "
                             f"{exc.colno}); {FIX}") from exc


def _describe(error: Any) -> str:
    kind = error.validator
    if kind == "required":
        return sanitize_line(str(error.message))
    if kind == "additionalProperties":
        return "it has a field nanomem does not know"
    if kind == "enum":
        return "must be one of " + ", ".join(map(str, error.validator_value))
    return f"fails the '{kind}' rule"


def _comment(tag: str, record: dict[str, Any]) -> str:
    """One-line comment: the texts stay readable (and a forget's line scrub finds them in old
    versions), while ``-->`` and the characters :meth:`str.splitlines` breaks at are escaped.

    >>> _comment("x", {"t": "a --> b\u2028c"})
    '<!-- x {"t": "a --\\\\u003e b\\\\u2028c"} -->'
    """
    body = json.dumps(record, ensure_ascii=False).replace("-->", "--\\u003e")
    for ch in "\x85\u2028\u2029":
        body = body.replace(ch, f"\\u{ord(ch):04x}")
    return f"<!-- {tag} {body} -->"


def _shown(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = sanitize_line(" ".join(text.split())).replace("`", "'")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
