"""The memory files inside git trees: reading them out of a tree, building a tree with them.

A tree of the memory repository holds ``SOUL.md``, ``USER.md`` and a ``memory/`` subtree with
``MEMORY.md`` and ``PENDING.md``; any other entry (made by real git) is kept as it is. These
functions take an object store and ids, and return ids or bytes::

    tree = build_tree(store, None, {"USER.md": b"- likes tea\\n"})
    tree_files(store, tree)                     # {'USER.md': b'- likes tea\\n'}

An object the repository refers to but does not hold raises :class:`MissingObjectError`;
:class:`~nanomem.versions.gitstore.GitStore` reports it as a damaged repository.
"""

from __future__ import annotations

import stat
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from dulwich.objects import Blob, Commit, ShaFile, Tree

from nanomem.errors import GitStoreError
from nanomem.store.workspace import VERSIONED_FILES
from nanomem.versions.gitindex import FILE_MODE

if TYPE_CHECKING:
    from dulwich.object_store import BaseObjectStore
    from dulwich.objects import ObjectID

_Object = TypeVar("_Object", Blob, Commit, Tree)


class MissingObjectError(GitStoreError):
    """An object the repository refers to is not in its object store (a damaged repository).
    Only this lookup failure means damage: any other ``KeyError`` is a bug and propagates."""


def oid(sha: bytes) -> ObjectID:
    """``sha`` (40 hex digits as bytes) as the object id type dulwich's annotations ask for."""
    return cast("ObjectID", sha)


def get_object(store: BaseObjectStore, sha: bytes) -> ShaFile:
    """The object ``sha`` of ``store``; a missing one is a :class:`MissingObjectError`, one
    whose bytes do not inflate (a damaged loose object or pack) a :class:`GitStoreError`
    naming its file."""
    try:
        return store[oid(sha)]
    except KeyError:
        raise MissingObjectError(
            f"object {sha.decode('ascii', 'replace')[:7]} is missing") from None
    except zlib.error as exc:
        hex_id = sha.decode("ascii", "replace")
        objects = Path(getattr(store, "path", "objects"))
        loose = objects / hex_id[:2] / hex_id[2:]
        where = loose if loose.is_file() else objects / "pack"
        raise GitStoreError(
            f"{where}: object {hex_id[:7]} is damaged (zlib: {exc}); check the repository with "
            f"`git --git-dir={objects.parent} fsck` and restore the object from a backup or a clone"
        ) from exc


def read_object(store: BaseObjectStore, sha: bytes, kind: type[_Object]) -> _Object:
    """The object ``sha``, checked to be a ``kind``; another kind means a damaged repository."""
    obj = get_object(store, sha)
    if not isinstance(obj, kind):
        raise GitStoreError(
            f"object {sha.decode('ascii', 'replace')[:7]} is a {obj.type_name.decode()}, not a "
            f"{kind.__name__.lower()}: the repository is damaged; check it with git fsck"
        )
    return obj


def tree_blobs(store: BaseObjectStore, tree_id: bytes, *,
               refuse_links: bool = False) -> dict[str, bytes]:
    """Blob id of each memory file in a tree. A symlink entry (made by real git) counts as
    absent, or is refused with ``refuse_links``: its blob is a link path, never content."""
    blobs: dict[str, bytes] = {}
    for rel in VERSIONED_FILES:
        try:
            mode, sha = _lookup(store, tree_id, rel)
        except KeyError:
            continue
        if stat.S_ISLNK(mode) and refuse_links:
            raise GitStoreError(
                f"{rel}: stored as a symlink in tree {tree_id.decode()[:7]}; nanomem never "
                "writes a link path into a file. Restore this file by hand with git"
            )
        if stat.S_ISREG(mode):
            blobs[rel] = sha
    return blobs


def tree_files(store: BaseObjectStore, tree_id: bytes | None, *,
               refuse_links: bool = False) -> dict[str, bytes]:
    """Bytes of each memory file in a tree (absent files left out; no tree, no files)."""
    if tree_id is None:
        return {}
    blobs = tree_blobs(store, tree_id, refuse_links=refuse_links)
    return {rel: read_object(store, blob, Blob).data for rel, blob in blobs.items()}


def build_tree(store: BaseObjectStore, base_tree: bytes | None,
               files: Mapping[str, bytes]) -> bytes:
    """The id of ``base_tree`` with its memory entries replaced by ``files`` (a memory file
    not in ``files`` is removed; other entries are kept); every new object is added."""
    root = Tree() if base_tree is None else _copy_tree(read_object(store, base_tree, Tree))
    mem_entry = root[b"memory"] if b"memory" in root else None
    memory = (
        _copy_tree(read_object(store, mem_entry[1], Tree))
        if mem_entry and stat.S_ISDIR(mem_entry[0])
        else Tree()
    )
    for rel in VERSIONED_FILES:
        parent, name = (memory, rel.split("/")[1]) if "/" in rel else (root, rel)
        key = name.encode()
        if rel in files:
            blob = Blob.from_string(files[rel])
            store.add_object(blob)
            parent[key] = (FILE_MODE, blob.id)
        elif key in parent:
            del parent[key]
    if len(memory):
        store.add_object(memory)
        root[b"memory"] = (stat.S_IFDIR, memory.id)
    elif b"memory" in root:
        del root[b"memory"]
    store.add_object(root)
    return root.id


def _copy_tree(tree: Tree) -> Tree:
    copy = Tree()
    for entry in tree.items():
        copy[entry.path] = (entry.mode, entry.sha)
    return copy


def _lookup(store: BaseObjectStore, tree_id: bytes, rel: str) -> tuple[int, bytes]:
    """(mode, sha) of ``rel`` inside a tree; KeyError when absent."""
    current = tree_id
    mode = stat.S_IFDIR
    for part in rel.split("/"):
        if not stat.S_ISDIR(mode):
            raise KeyError(rel)
        tree = read_object(store, current, Tree)
        mode, current = tree[part.encode()]
    return mode, current
