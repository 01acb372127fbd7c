"""The person's answer to a pending question: ``/memory yes N`` or ``/memory no N``.

:func:`answer_question` is the one sequence both answers follow:

1. take the memory files' writer lock without waiting (held: :class:`DreamError`, nothing
   changed), repair what a killed writer left, redact the files, commit hand edits as
   ``manual:`` (``memory/PENDING.md`` included);
2. read ``memory/PENDING.md`` (malformed: :class:`WorkspaceError` naming the line);
3. for a yes, apply the question's exact edit to the file as it is now: its old text must
   occur exactly once, and the result passes the gates with the person's confirmation standing
   in for the pins and corrections gates (:func:`nanomem.dream.questions.check_answer`); a
   pinned line changes only this way;
4. write the file and ``PENDING.md`` without the question, and commit ``confirm:`` as one
   journaled unit with its ``"kind": "question"`` line of ``memory/dream-audit.jsonl``
   (appended once the commit is made, also by the recovery of a run killed after its journal:
   one audit line per ``confirm:`` commit).

An answer that cannot be applied (no such question, the text changed since, a gate refuses)
is a result with that status and a reason, and nothing is written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nanomem.config import Config
from nanomem.dream import audit
from nanomem.dream.questions import check_answer, render_question_audit
from nanomem.dream.recovery import recover_before_run
from nanomem.errors import DreamError
from nanomem.store.journal import WriteJournal
from nanomem.store.memfiles import (read_memory_file, redact_memory_files, refuse_over_ceiling,
                                    try_lock_memory)
from nanomem.store.pending import (Question, parse_pending, read_pending_text, remove_question,
                                   render_pending, render_question_line)
from nanomem.store.workspace import Workspace
from nanomem.text.units import count_overlapping
from nanomem.versions.journaled import commit_journaled
from nanomem.vocab import PENDING

log = logging.getLogger(__name__)

STATUSES = ("applied", "dropped", "not_found", "stale", "refused")


@dataclass(frozen=True)
class AnswerResult:
    """What an answer did: ``applied`` (yes), ``dropped`` (no), or nothing written:
    ``not_found`` (no open question ``number``), ``stale`` (the file changed since it was
    asked), ``refused`` (a gate refused the edit; ``reason`` says which)."""

    status: str
    number: int
    answer: str
    question: Question | None = None
    commit: str | None = None
    manual_commit: str | None = None
    reason: str | None = None
    files: tuple[str, ...] = ()
    open_questions: int = 0


def answer_question(workspace: Workspace, number: int, *, yes: bool, config: Config,
                    history: Any, store: Any, clock: Callable[[], datetime]) -> AnswerResult:
    """Apply (``yes``) or drop question ``number`` of ``memory/PENDING.md`` (module doc)."""
    answer = "yes" if yes else "no"
    lock = try_lock_memory(workspace)
    if lock is None:
        raise DreamError("a Dream or a restore is writing the memory files; answer when it has "
                         "finished (`/memory` shows its result)")
    try:
        refuse_over_ceiling(workspace, config.cap_for, "the answer")  # before any write
        recover_before_run(workspace, history, store)
        redact_memory_files(workspace)
        manual = store.commit_manual_if_dirty()
        manual_sha = manual.sha if manual is not None else None
        text = read_pending_text(workspace)
        book = parse_pending(text)
        question = book.get(number)
        left = len(book.questions)
        if question is None:
            return AnswerResult("not_found", number, answer, manual_commit=manual_sha,
                                reason=f"no open question {number} in {PENDING}", open_questions=left)
        rest = remove_question(book, number)
        after = {PENDING: render_pending(rest).encode("utf-8")}
        before: dict[str, bytes | None] = {PENDING: text.encode("utf-8")}
        if yes:
            problem, changed = _apply(workspace, question, config)
            if changed is None:
                status = "stale" if problem and problem.startswith("stale") else "refused"
                return AnswerResult(status, number, answer, question, manual_commit=manual_sha,
                                    reason=problem, open_questions=left)
            before[question.path], after[question.path] = changed
        subject, body = _message(question, yes)
        line = render_question_audit(question, event=answer, time=clock(), commit=None)
        if config.audit_max_bytes is not None:  # the journal appends the line with its commit
            audit.rotate_audit(workspace.audit, len(line.encode("utf-8")) + 40,
                               config.audit_max_bytes, config.audit_keep)
        info = commit_journaled(store, WriteJournal("confirm", store.head(), subject, body,
                                                    before=before, after=after, audit=line))
        sha = info.sha if info is not None else None
        files = tuple(rel for rel in (question.path, PENDING) if rel in after)
        return AnswerResult("applied" if yes else "dropped", number, answer, question, sha,
                            manual_sha, files=files, open_questions=len(rest.questions))
    finally:
        lock.release()


def _apply(workspace: Workspace, q: Question,
           config: Config) -> tuple[str | None, tuple[bytes | None, bytes] | None]:
    """``(None, (old bytes, new bytes))`` of the question's file after its edit, or
    ``(reason, None)`` when it cannot be applied to the file as it is now."""
    data = read_memory_file(workspace, q.path)
    current = audit.decode(data) if data is not None else ""
    found = count_overlapping(current, q.old_text)
    if found != 1:
        return (f"stale: {q.path} no longer holds the text question {q.number} would change "
                f"exactly once (found {found} times); nothing changed. Edit the file by hand, or "
                f"drop the question with `/memory no {q.number}`"), None
    new = current.replace(q.old_text, q.new_text, 1)
    reason = check_answer(q.path, current, new, config)
    if reason is not None:
        return f"{reason}; nothing changed", None
    return None, (data, audit.encode(new))


def _message(q: Question, yes: bool) -> tuple[str, str]:
    """The ``confirm:`` commit's subject and body."""
    if yes:
        subject = f"confirm: yes to question {q.number}: {q.path}"
        done = f"The person confirmed question {q.number} (/memory yes {q.number}); applied:"
    else:
        subject = f"confirm: no to question {q.number}: dropped"
        done = f"The person declined question {q.number} (/memory no {q.number}); dropped:"
    return subject, "\n".join([done, f"  {render_question_line(q)}", f"Why it was asked: {q.reason}"])
