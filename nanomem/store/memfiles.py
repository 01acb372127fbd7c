"""Reading and writing the memory files as bytes, with the symlink policy of DESIGN §5.

A memory file that is a symlink is versioned by its **content** when the link leads inside the
workspace, and refused with a :class:`~nanomem.errors.GitStoreError` when it leads outside.
Nothing here ever writes a link's path into a file: writes go through an inside link to its
target (the link stays a link), atomically, and every link is checked before anything is
written::

    files = read_memory_files(ws)             # {"SOUL.md": b"...", "USER.md": b"...", ...}
    write_memory_files(ws, files, ["USER.md"])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import logging

from nanomem.errors import GitStoreError
from nanomem.store.fsutil import atomic_write
from nanomem.text.redact import find_secrets, redact
from nanomem.store.workspace import MEMORY_FILES, Workspace

log = logging.getLogger(__name__)


def read_memory_files(workspace: Workspace) -> dict[str, bytes]:
    """Bytes of each existing memory file, keyed by relative path, in ``MEMORY_FILES`` order.

    >>> read_memory_files(Workspace(Path("/nonexistent")))
    {}
    """
    root = workspace.root.resolve()
    files: dict[str, bytes] = {}
    for rel in MEMORY_FILES:
        path = workspace.path(rel)
        if not path.exists() and not path.is_symlink():
            continue
        real = resolve_inside(rel, path, root)
        if not real.exists():
            raise GitStoreError(
                f"{rel}: is a symlink to {real}, which does not exist; "
                "restore the target or replace the link with a file"
            )
        if not real.is_file():
            raise GitStoreError(
                f"{rel}: is not a regular file; replace it with a markdown file"
            )
        files[rel] = real.read_bytes()
    return files


def redact_memory_files(workspace: Workspace, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """Redact secrets a person typed into a memory file, on disk, before they reach git.

    Returns ``files`` with each affected file's redacted bytes; those files are rewritten
    atomically (through inside links) and a warning names the file, the lines and the kinds.
    Non-UTF-8 bytes elsewhere in the file are kept as they were.

    >>> redact_memory_files(Workspace(Path("/nonexistent")), {"USER.md": b"- likes tea"})
    {'USER.md': b'- likes tea'}
    """
    out = dict(files)
    changed = []
    for rel, data in files.items():
        text = data.decode("utf-8", "surrogateescape")
        found = find_secrets(text)
        if not found:
            continue
        lines = sorted({text.count("\n", 0, match.start) + 1 for match in found})
        kinds = sorted({match.kind for match in found})
        out[rel] = redact(text).text.encode("utf-8", "surrogateescape")
        changed.append(rel)
        log.warning(
            "%s line %s: redacted %s before committing; the memory files are sent to the model "
            "and versioned in git, so keep credentials elsewhere",
            rel, ", ".join(map(str, lines)), ", ".join(kinds),
        )
    if changed:
        write_memory_files(workspace, out, changed)
    return out


def write_memory_files(
    workspace: Workspace, wanted: Mapping[str, bytes], changed: Iterable[str]
) -> None:
    """Give each file in ``changed`` the bytes in ``wanted``, or remove it when absent there."""
    root = workspace.root.resolve()
    targets: dict[str, Path] = {}
    for rel in changed:  # check every link before writing anything
        path = workspace.path(rel)
        targets[rel] = resolve_inside(rel, path, root) if path.is_symlink() else path
    for rel, target in targets.items():
        if rel in wanted:
            atomic_write(target, wanted[rel])
        else:
            workspace.path(rel).unlink(missing_ok=True)


def resolve_inside(rel: str, path: Path, root: Path) -> Path:
    """The real path of ``path``; raises when it lies outside the (resolved) workspace root."""
    real = path.resolve()
    if real != root and root not in real.parents:
        raise GitStoreError(
            f"{rel}: is a symlink to {real}, outside the workspace {root}; nanomem "
            "versions only files inside it. Replace the link with a copy of the file"
        )
    return real
