"""What the facade does to the memory repository outside Dream: read a commit, commit hand
edits, restore, and answer a pending question (``/memory yes|no N``).

:class:`~nanomem.memory.Memory` keeps one thin method for each of these and delegates here, so
the facade stays wiring. Every writer takes the memory files' lock without waiting and raises
:class:`~nanomem.errors.DreamError` while a Dream, a restore or an answer holds it, and
:class:`~nanomem.errors.OversizedFileError` (nothing written) when a memory file is over its
read ceiling, since the hand edits are scanned and committed first. Reading never
writes: without a memory repository nothing is created (a sha is then unknown).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from nanomem.dream.answer import AnswerResult, answer_question
from nanomem.dream.recovery import recover_before_run
from nanomem.errors import DreamError, ShaError
from nanomem.forget.receipt import find_moved
from nanomem.store.memfiles import (read_memory_files, redact_memory_files, refuse_over_ceiling,
                                    try_lock_memory)
from nanomem.store.moved import plan_returned, read_moved_text, write_moved_text
from nanomem.store.pending import Question, read_pending
from nanomem.versions.commits import CommitInfo, RestoreResult

log = logging.getLogger(__name__)

BUSY_RESTORE = ("a Dream is running in this workspace; restore when it has finished "
                "(`/memory` shows its result)")
BUSY_EDITS = ("a Dream or a restore is writing the memory files; commit the hand edits when it "
              "has finished")


def read_commit(mem: Any, sha: str | None) -> CommitInfo | None:
    """:meth:`Memory.log`: the commit ``sha``, or the latest ``dream:`` commit (None before the
    first); an old sha a forget rewrote leads to its new commit (``moved_from``)."""
    if not mem.has_repository():
        if sha is None:
            return None
        raise no_repository_sha(sha)
    if sha is None:
        return mem.store.latest("dream")
    try:
        return mem.store.show(sha)
    except ShaError as exc:
        moved = _moved(mem, sha, exc)
        return dataclasses.replace(mem.store.show(moved.new), moved_from=moved.old)


def commit_hand_edits(mem: Any) -> CommitInfo | None:
    """:meth:`Memory.commit_hand_edits`: the ``manual:`` commit, or None when clean."""
    lock = _hold(mem, BUSY_EDITS)
    try:
        refuse_over_ceiling(mem.workspace, mem.config.cap_for, "the hand-edit commit")
        if mem.has_repository():
            recover_before_run(mem.workspace, mem.history, mem.store)
        redact_memory_files(mem.workspace)
        return mem.store.commit_manual_if_dirty()
    finally:
        lock.release()


def restore_files(mem: Any, sha: str | None) -> RestoreResult:
    """:meth:`Memory.restore`: the files (``memory/PENDING.md`` included) back to before
    ``sha``, as a ``restore:`` commit; then each line of ``memory/MOVED.md`` that the restore
    brought back into its file leaves ``MOVED.md`` (after the commit: a crash between the two
    leaves the line in both places, never in neither)."""
    if not mem.has_repository():  # nothing was ever versioned: nothing to restore
        if sha is None:
            return RestoreResult("nothing_to_do", None, ())
        raise no_repository_sha(sha)
    lock = _hold(mem, BUSY_RESTORE)
    try:
        refuse_over_ceiling(mem.workspace, mem.config.cap_for, "restore")  # before any write
        recover_before_run(mem.workspace, mem.history, mem.store)
        if sha is None:
            latest = mem.store.latest("dream")
            if latest is None:
                return RestoreResult("nothing_to_do", None, ())
            sha = latest.sha
        redact_memory_files(mem.workspace)  # hand edits are committed first, redacted
        try:
            result = mem.store.restore(sha)
        except ShaError as exc:
            moved = _moved(mem, sha, exc)
            result = dataclasses.replace(mem.store.restore(moved.new), moved_from=moved.old)
        _drop_returned_moved(mem)
        return result
    finally:
        lock.release()


def _drop_returned_moved(mem: Any) -> None:
    """Take out of ``memory/MOVED.md`` each line that is again in its file (the caller holds
    the memory files' lock)."""
    text = read_moved_text(mem.workspace)
    if not text:
        return
    files = read_memory_files(mem.workspace, refused={})
    new, returned = plan_returned(text, {rel: data.decode("utf-8", "replace")
                                         for rel, data in files.items()})
    if returned:
        write_moved_text(mem.workspace, new)
        log.info("restore brought %d moved line(s) back into their files; memory/MOVED.md no "
                 "longer lists them", len(returned))


def read_questions(mem: Any) -> tuple[Question, ...]:
    """:meth:`Memory.pending_questions`: the open questions, oldest first; never writes."""
    return read_pending(mem.workspace).questions


def answer(mem: Any, number: int, *, yes: bool) -> AnswerResult:
    """:meth:`Memory.answer`: a yes applies question ``number``, a no drops it (``confirm:``)."""
    return answer_question(mem.workspace, number, yes=yes, config=mem.config,
                           history=mem.history, store=mem.store, clock=mem.clock)


def no_repository_sha(sha: str) -> ShaError:
    return ShaError(
        f"unknown sha {sha!r}: this workspace has no memory repository yet; it is created by "
        "`nanomem init` or the first Dream"
    )


def _moved(mem: Any, sha: str, exc: ShaError) -> Any:
    """The commit an old sha became in a forget, or ``exc`` again when none did."""
    moved = None if exc.candidates else find_moved(mem.workspace, sha)
    if moved is None:
        raise exc
    return moved


def _hold(mem: Any, busy: str) -> Any:
    """The memory-file lock, or ``DreamError(busy)`` while another writer holds it."""
    lock = try_lock_memory(mem.workspace)
    if lock is None:
        raise DreamError(busy)
    return lock
