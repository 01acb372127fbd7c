"""Lock files a killed git writer left behind in the memory repository (issue 11, item 9).

dulwich (like git) writes a ref, the index or a loose object by creating ``<file>.lock`` with
``O_EXCL``, writing it and renaming it over ``<file>``. A ``kill -9`` between the two leaves
the ``.lock`` behind and every later write of that file fails with ``FileLocked``. nanomem's
own writers of the repository (Dream, restore, ``manual:`` commits, forget) all hold the
memory files' writer lock (``memory/.dream.lock``) and the store lock (``nanomem.lock`` in the
git dir, an ``flock`` that dies with its holder); a caller holding both knows that no nanomem
writer is alive, so a ``.lock`` still there was left by a dead one and is removed, with a
warning naming it::

    with FileLock(git_dir / STORE_LOCK):
        removed = remove_stale_git_locks(git_dir)   # ["refs/heads/main.lock"]

``nanomem.lock`` itself is never removed: it is an ``flock`` file, not an exclusive-create one.
"""

from __future__ import annotations

import logging
from pathlib import Path

from nanomem.store.fsutil import FileLock

log = logging.getLogger(__name__)

STORE_LOCK = "nanomem.lock"
# Where dulwich's GitFile leaves ``.lock`` files: HEAD, index, packed-refs, config; refs; objects.
_PATTERNS = ("*.lock", "refs/**/*.lock", "objects/??/*.lock", "objects/pack/*.lock")


def remove_stale_git_locks(git_dir: Path) -> list[str]:
    """Remove the ``.lock`` files left in ``git_dir`` by killed writers; their paths relative to
    ``git_dir``, sorted. The caller holds the dream lock and the store lock (module doc)."""
    removed: list[str] = []
    for pattern in _PATTERNS:
        for path in git_dir.glob(pattern):
            if path.name == STORE_LOCK or not path.is_file() or path.is_symlink():
                continue
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                log.warning("%s: a lock file left by a killed git writer could not be removed "
                            "(%s); remove it by hand", path, exc.strerror)
                continue
            rel = path.relative_to(git_dir).as_posix()
            removed.append(rel)
            log.warning("%s: removed %s, a lock file left by a git writer that was killed "
                        "(no nanomem writer holds the repository)", git_dir, rel)
    return sorted(set(removed))


def clear_stale_git_locks(git_dir: Path) -> list[str]:
    """Take the store lock and remove stale ``.lock`` files; the caller holds the dream lock."""
    if not git_dir.is_dir():
        return []
    with FileLock(git_dir / STORE_LOCK):
        return remove_stale_git_locks(git_dir)
