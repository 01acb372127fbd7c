"""What a writer of the memory files repairs first, before anything else (issue 11, §7).

Dream, restore and ``manual:`` commits call :func:`recover_before_run` while they hold the
memory files' writer lock (``memory/.dream.lock``). It repairs what a ``kill -9`` of an
earlier run can leave behind, in this order:

1. stale ``.lock`` files of a killed git writer (:mod:`nanomem.versions.stalelocks`), which
   would make every later commit fail with ``FileLocked``;
2. a write journal (:mod:`nanomem.versions.journaled`): a Dream or restore killed while
   writing the memory files is completed (committed as it would have been) or rolled back,
   so its files are never committed as a person's ``manual:`` edit and no batch is redone;
3. the dream cursor file: moved up to the ``Dream-Cursor:`` trailer of the newest ``dream:``
   commit when it lags behind it, and rewritten when it is missing, damaged or clamped, so a
   recovered value is warned about once, not by every later command.
"""

from __future__ import annotations

import logging
from typing import Any

from nanomem.store.cursors import read_cursor_file
from nanomem.store.workspace import Workspace
from nanomem.versions.journaled import recover_journal
from nanomem.versions.stalelocks import clear_stale_git_locks

log = logging.getLogger(__name__)


def recover_before_run(workspace: Workspace, history: Any, store: Any) -> None:
    """Repair what an interrupted run left (module doc); the caller holds the dream lock."""
    clear_stale_git_locks(store.git_dir)
    recover_journal(store)
    reconcile_dream_cursor(workspace, history, store)


def reconcile_dream_cursor(workspace: Workspace, history: Any, store: Any) -> None:
    """Make ``memory/.dream_cursor`` say what the dream cursor is.

    Moved up to the ``Dream-Cursor:`` trailer of the newest ``dream:`` commit when it lags
    behind it: a Dream killed between its commit and its cursor write must not make the next
    run redo (and re-apply) a batch that is already committed. Never moved down (restore does
    not rewind it; replay is explicit), nor above the write cursor: a trailer beyond every
    entry of history would hide new entries. A file that is missing (and recovered from the trailer),
    damaged or above history is rewritten with the value the reader recovered.
    """
    committed = store.last_dream_cursor()
    value, state = read_cursor_file(workspace.dream_cursor)
    current = history.read_dream_cursor()  # recovers a damaged file, clamps an outlier
    if committed is not None and committed > current:
        if committed > history.last_cursor():
            log.warning(
                "the newest dream: commit says Dream-Cursor: %d, above every cursor in history "
                "(%d); the dream cursor stays at %d", committed, history.last_cursor(), current,
            )
        else:
            log.warning(
                "dream cursor %d lags behind the committed Dream (Dream-Cursor: %d); a previous "
                "run stopped before advancing it; moving it to %d", current, committed, committed,
            )
            history.write_dream_cursor(committed)
            return
    if value == current or (state == "missing" and current != committed):
        return
    log.warning("%s: %s; rewrote it with the dream cursor %d", workspace.dream_cursor,
                "was missing" if state == "missing" else "was damaged" if state == "garbage"
                else f"held {value}", current)
    history.write_dream_cursor(current)
