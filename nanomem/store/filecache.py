"""The memory files as last read, reused while they have not changed (the prompt block's
file-reading part, issue 15).

:class:`MemoryFileCache` keeps each memory file's bytes with a signature: ``lstat`` of the
path and of its folder and ``stat`` of what it leads to (inode, size, ``mtime_ns``, mode). A
call with the same signature reuses the bytes, or the symlink policy's refusal, without
reading; any change reads the file again through
:func:`nanomem.store.memfiles.read_memory_file`, so the policy is applied as before. As git
does for its index, a file modified within :data:`RACY_NS` of being read is "racily clean"
(a second write in the same clock tick keeps size and mtime): its entry is not trusted, and the
next call reads it again.

With ``caps`` (each file's character cap) a file is read only up to its read ceiling
(:func:`nanomem.store.memfiles.read_memory_head`): the prompt block never holds more of a
file than that, and a file over it is warned of once.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass

from nanomem.errors import GitStoreError
from nanomem.store.memfiles import read_memory_file, read_memory_head
from nanomem.store.workspace import MEMORY_FILES, Workspace

RACY_NS = 20_000_000  # 20 ms: above the coarsest file-time tick Linux keeps (HZ=100)

_Sig = tuple[tuple[int, int, int, int] | None, ...]


@dataclass(frozen=True)
class _Entry:
    sig: _Sig
    data: bytes | None  # None: absent
    refused: str | None


def _stat(path: str, follow: bool) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)


class MemoryFileCache:
    """Reads the memory files of one workspace, reusing unchanged ones (not thread-safe)."""

    def __init__(self, workspace: Workspace, caps: Mapping[str, int] | None = None) -> None:
        self.workspace = workspace
        self.caps = dict(caps or {})
        self._entries: dict[str, _Entry] = {}

    def clear(self) -> None:
        self._entries.clear()

    def read(self, refused: dict[str, str]) -> dict[str, bytes]:
        """As :func:`nanomem.store.memfiles.read_memory_files` with ``refused``."""
        files: dict[str, bytes] = {}
        for rel in MEMORY_FILES:
            entry = self._entry(rel)
            if entry.refused is not None:
                refused[rel] = entry.refused
            elif entry.data is not None:
                files[rel] = entry.data
        return files

    def _entry(self, rel: str) -> _Entry:
        path = str(self.workspace.path(rel))
        sig = (_stat(path, False), _stat(os.path.dirname(path), False), _stat(path, True))
        known = self._entries.get(rel)
        if known is not None and known.sig == sig:
            return known
        began = time.time_ns()
        try:
            entry = _Entry(sig, self._read(rel), None)
        except GitStoreError as exc:
            entry = _Entry(sig, None, str(exc))
        newest = max((s[2] for s in sig if s is not None), default=0)
        if began - newest > RACY_NS:  # else racily clean: read it again next time
            self._entries[rel] = entry
        else:
            self._entries.pop(rel, None)
        return entry

    def _read(self, rel: str) -> bytes | None:
        if rel not in self.caps:
            return read_memory_file(self.workspace, rel)
        head = read_memory_head(self.workspace, rel, self.caps[rel])
        return None if head is None else head.data
