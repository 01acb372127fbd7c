"""A journaled write and commit of the memory files, and its recovery (issue 11, items 1, 5).

:func:`commit_journaled` is how Dream and restore change the memory files: write the journal
(:mod:`nanomem.store.journal`), write the files by compare-and-swap, commit exactly the
journaled bytes on top of HEAD (never whatever is on disk by then), clear the journal. A
failure before the commit puts the files back; a hand edit saved meanwhile raises
:class:`~nanomem.errors.EditConflictError` and is kept.

:func:`recover_journal` is run first by the next writer (holding the dream lock) when a journal
is left over from a killed run:

* HEAD is the journaled commit (killed after committing): the journal is cleared;
* HEAD is still the journal's base and no journaled file was edited by hand since: the write
  is completed and committed as the run would have (``dream:``/``restore:``, never
  ``manual:``), so the batch is not run again;
* otherwise (a file edited by hand since, or HEAD moved on): the files that hold the journaled
  bytes get their old bytes back, hand edits stay, and the journal is cleared; a Dream then
  runs its batch again on the new content.
"""

from __future__ import annotations

import logging
from typing import Any

from nanomem.errors import EditConflictError, GitStoreError
from nanomem.store.journal import (
    WriteJournal,
    append_journal_audit,
    apply_journal,
    clear_journal,
    read_file_states,
    read_journal,
    roll_back_journal,
    write_journal,
)

log = logging.getLogger(__name__)


def commit_journaled(store: Any, journal: WriteJournal) -> Any:
    """Write and commit ``journal`` as one unit; the ``CommitInfo`` (None if git saw no
    change). Raises :class:`EditConflictError` (nothing written, the edit kept) or the write's
    or commit's error after putting the files back."""
    ws = store.workspace
    write_journal(ws, journal)
    try:
        apply_journal(ws, journal)
        info = _commit(store, journal)
        append_journal_audit(ws, journal, info.sha if info is not None else None)
    except EditConflictError:
        clear_journal(ws)
        raise
    except (GitStoreError, OSError):
        roll_back_journal(ws, journal)
        clear_journal(ws)
        raise
    clear_journal(ws)
    return info


def _commit(store: Any, journal: WriteJournal) -> Any:
    return store.commit(journal.subject, journal.body, dict(journal.trailers) or None,
                        changes=journal.after)


def recover_journal(store: Any) -> str | None:
    """Complete or roll back a journal left by a killed run (module doc); what was done
    (``committed``, ``completed``, ``rolled_back``), or None when there was no journal."""
    ws = store.workspace
    journal = read_journal(ws)
    if journal is None:
        return None
    head = store.head()
    if head is not None and head != journal.base:
        info = store.show(head)
        if (info.subject == journal.subject and dict(info.trailers) == dict(journal.trailers)
                and info.parents[:1] == ((journal.base,) if journal.base else ())):
            append_journal_audit(ws, journal, info.sha)
            clear_journal(ws)
            log.info("the interrupted %s write was committed (%s); journal cleared",
                     journal.kind, info.short)
            return "committed"
    states = read_file_states(ws, journal)
    edited = sorted(rel for rel, state in states.items() if state == "edited")
    if head == journal.base and not edited:
        apply_journal(ws, journal)
        info = _commit(store, journal)
        append_journal_audit(ws, journal, info.sha if info is not None else None)
        clear_journal(ws)
        log.warning("completed the %s write that a killed run left half done: %s", journal.kind,
                    info.short if info is not None else "nothing to commit")
        return "completed"
    back = roll_back_journal(ws, journal)
    clear_journal(ws)
    why = (f"{', '.join(edited)} edited by hand since (kept)" if edited
           else "the repository moved on since")
    log.warning("rolled back the %s write that a killed run left half done (%s); files put "
                "back: %s", journal.kind, why, ", ".join(back) or "none")
    return "rolled_back"
