"""The one-time move of the legacy prose archive ``memory/HISTORY.md`` into ``history.jsonl``.

Parsing and numbering are pure (:mod:`nanomem.store.legacy`); this is the I/O, run by
:meth:`nanomem.store.history.History.migrate_legacy` under the history lock. The byte-identical
backup ``HISTORY.md.bak`` (``.bak.2`` …) is written first, then both cursors and the entries, and
only then does the original go: a kill at any step re-runs safely or is finished by the next run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from nanomem.errors import HistoryError
from nanomem.store.fsutil import atomic_write, fsync_dir
from nanomem.store.historyfile import render_line
from nanomem.store.legacy import MigrationResult, backup_path, plan_migration

logger = logging.getLogger(__name__)


def migrate_locked(legacy: Path, main: Path, *, base: Callable[[], int], now: str,
                   write_cursors: Callable[[int], None]) -> MigrationResult:
    """Move ``legacy`` into ``main`` (an empty or missing ``history.jsonl``); the caller holds
    the history lock. ``base()``: the cursor the entries are numbered above; ``write_cursors``
    sets the dream and write cursors to the last migrated entry."""
    if not legacy.is_file():
        return MigrationResult("nothing_to_do", reason="no memory/HISTORY.md")
    try:
        original = legacy.read_bytes()
    except OSError as exc:
        raise HistoryError(f"{legacy}: cannot read ({exc.strerror})") from exc
    if main.exists() and main.stat().st_size > 0:
        if find_backup(legacy, original):  # a migration killed before its last step
            legacy.unlink()
            fsync_dir(legacy.parent)
            return MigrationResult("migrated", reason="finished an interrupted migration")
        logger.info("memory/HISTORY.md left alone: history.jsonl already has entries")
        return MigrationResult("skipped", reason="history.jsonl is not empty")
    entries = plan_migration(original.decode("utf-8", errors="replace"), base=base(), now=now)
    backup = find_backup(legacy, original)
    if backup is None:
        backup = backup_path(legacy)
        atomic_write(backup, original)
    if entries:
        write_cursors(entries[-1].cursor)
        atomic_write(main, b"".join(render_line(e) for e in entries))
    legacy.unlink()
    fsync_dir(legacy.parent)
    logger.info("migrated %d entries from HISTORY.md (kept as %s)", len(entries), backup.name)
    first, last = (entries[0].cursor, entries[-1].cursor) if entries else (None, None)
    return MigrationResult("migrated", len(entries), first, last, backup=backup)


def find_backup(legacy: Path, original: bytes) -> Path | None:
    """A ``HISTORY.md.bak*`` beside ``legacy`` that holds exactly ``original``, if any."""
    for candidate in sorted(legacy.parent.glob(legacy.name + ".bak*")):
        try:
            if candidate.read_bytes() == original:
                return candidate
        except OSError:
            continue
    return None
