"""Git's index of a ``.git`` memory repository, kept in step with each commit (dulwich).

nanomem commits straight into the object store; without this, ``git status`` in the workspace
would list every committed memory file as modified. A separate git dir (``.nanomem.git``) is
bare and has no index.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.index import index_entry_from_stat
from dulwich.objects import Blob

from nanomem.store.workspace import Workspace
from nanomem.vocab import VERSIONED_FILES

if TYPE_CHECKING:
    from dulwich.repo import Repo

log = logging.getLogger(__name__)

FILE_MODE = 0o100644


def update_index(repo: Repo, workspace: Workspace, git_dir: Path,
                 files: Mapping[str, bytes]) -> None:
    """Keep ``git status`` clean for the files just committed; a damaged index is logged."""
    try:
        index = repo.open_index()
        for rel in VERSIONED_FILES:
            key = rel.encode()
            path = workspace.path(rel)
            if rel in files:
                st = os.stat(path)
                blob_id = Blob.from_string(files[rel]).id
                index[key] = index_entry_from_stat(st, blob_id, FILE_MODE)
            elif key in index:
                del index[key]
        index.write()
    except (OSError, AssertionError, ValueError) as exc:  # dulwich asserts on a bad header
        log.warning("%s/index: not updated (%s); `git status` may list memory files; to "
                    "rebuild it: rm %s/index && git reset -q", git_dir, exc, git_dir)
