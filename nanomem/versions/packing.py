"""Keep the memory repository packed (issue 15): after a commit, when the loose objects pass
:data:`LOOSE_LIMIT`, they are written into a new pack with deltas and deleted; when the
repository has :data:`MAX_PACKS` packs, every object goes into one pack instead and the old
packs are deleted, as ``git gc`` would. Deltas are computed in Python (dulwich), so a batch of
about a thousand objects takes around a second; merging every pack costs more, and happens
once per about 2,000 Dream commits.

The count is estimated as git's ``gc --auto`` does: the loose objects in one fan-out folder
(``objects/17``) times 256, so the check after each commit costs one ``listdir``. A repack
reads every object into memory; the memory repository holds three small files, so that is a
few megabytes at most. A repack that fails leaves the repository as it was (the new pack is
complete before anything is deleted) and is logged; the commit itself has succeeded.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from dulwich.pack import pack_objects_to_data
from dulwich.repo import Repo

log = logging.getLogger(__name__)

LOOSE_LIMIT = 1024  # estimated loose objects that trigger a repack (git's gc.auto is 6700)
MAX_PACKS = 8  # more packs than this are merged into one at the next repack
DELTA_WINDOW = 10  # objects compared for a delta base (git's default pack.window)
_SAMPLE = "17"  # the fan-out folder git samples


def estimate_loose(git_dir: Path) -> int:
    """The number of loose objects, estimated from one fan-out folder (git's method)."""
    try:
        names = os.listdir(git_dir / "objects" / _SAMPLE)
    except OSError:
        return 0
    return 256 * sum(1 for n in names if len(n) == 38)


def repack_if_loose(repo: Repo, git_dir: Path, limit: int | None = None) -> int:
    """Pack the loose objects when the estimate reaches ``limit`` (default
    :data:`LOOSE_LIMIT`), and merge every pack into one when there are more than
    :data:`MAX_PACKS`; how many objects were packed (0: none)."""
    if estimate_loose(git_dir) < (LOOSE_LIMIT if limit is None else limit):
        return 0
    try:
        store: Any = repo.object_store
        return repack(repo, everything=len(store.packs) >= MAX_PACKS)
    except (OSError, ValueError, KeyError) as exc:
        log.warning("%s: repacking the memory repository failed (%s); it stays loose until "
                    "the next commit retries", git_dir, exc)
        return 0


def repack(repo: Repo, *, everything: bool = True) -> int:
    """Write the loose objects (and with ``everything`` the packed ones too) into one
    delta-compressed pack, then delete them where they were; the number of objects packed."""
    store: Any = repo.object_store
    loose = list(store._iter_loose_objects())
    old_packs = list(store.packs) if everything else []
    objects = [store[sha] for sha in loose]
    seen = set(loose)
    for pack in old_packs:
        for obj in pack.iterobjects():
            if obj.id not in seen:
                seen.add(obj.id)
                objects.append(obj)
    if not objects:
        return 0
    count, records = pack_objects_to_data([(o, None) for o in objects], deltify=True,
                                          delta_window_size=DELTA_WINDOW)
    written = store.add_pack_data(count, records)
    for sha in loose:
        store.delete_loose_object(sha)
    for pack in old_packs:
        if written is None or pack.name() != written.name():
            store._remove_pack(pack)
    store._update_pack_cache()
    log.info("repacked the memory repository: %d objects", count)
    return count
