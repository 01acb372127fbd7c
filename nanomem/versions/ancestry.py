"""Which commits belong to the memory history: an ancestor set of HEAD, cached on disk.

Restore must refuse a commit that is not reachable from HEAD. Proving reachability means walking
the history, which costs ~50 µs per commit in pure Python (half a second at 10,000 commits).
:class:`AncestryCache` keeps the answer in one file inside the git dir, so the walk is paid once
per history, not once per restore:

* the file is a sequence of raw 20-byte commit ids; the **last** id is the head it describes,
  and the file holds every ancestor of that head (the head included);
* a commit made on top of the cached head appends its id (20 bytes, O(1));
* any other HEAD (a commit by real git, a reset) is handled by walking from HEAD until the walk
  meets the cached head; when it never does (history rewritten), the set is rebuilt from scratch.

A damaged or missing file is only a slower answer, never a wrong one. Walking needs a
``parents_of(raw_id) -> list[raw_id]`` callable, so this module does not know about dulwich::

    cache = AncestryCache(git_dir / "nanomem-ancestry")
    cache.contains(head, goal, parents_of)      # True / False
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from nanomem.store.fsutil import atomic_write

log = logging.getLogger(__name__)

ID_SIZE = 20
ParentsOf = Callable[[bytes], Iterable[bytes]]


class AncestryCache:
    """The ancestor set of one head, stored as raw ids in ``path`` (see module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def contains(self, head: bytes, goal: bytes, parents_of: ParentsOf) -> bool:
        """Whether ``goal`` is ``head`` or one of its ancestors (raw 20-byte ids)."""
        cached_head, cached = self._read()
        if cached_head == head:
            return goal in cached
        walked, met = walk_ancestors(head, parents_of, stop=cached, meet=cached_head)
        if met:
            reachable = walked | cached
        elif cached:  # the history was rewritten: the old set no longer applies
            reachable = walk_ancestors(head, parents_of)[0]
        else:
            reachable = walked
        self._write(head, reachable)
        return goal in reachable

    def record(self, parent: bytes | None, new: bytes) -> None:
        """Note that ``new`` was committed on top of ``parent``: append it if the file ends
        with ``parent``; a missing file is started at the first commit (``parent`` None)."""
        try:
            with open(self.path, "r+b") as handle:
                size = handle.seek(0, os.SEEK_END)
                if size < ID_SIZE or size % ID_SIZE:
                    return
                handle.seek(size - ID_SIZE)
                if handle.read(ID_SIZE) != parent:
                    return
                handle.write(new)
        except FileNotFoundError:
            if parent is None:
                self._write(new, {new})
        except OSError as exc:
            log.warning("%s: ancestry cache not updated (%s)", self.path, exc)

    def _read(self) -> tuple[bytes | None, set[bytes]]:
        try:
            data = self.path.read_bytes()
        except OSError:
            return None, set()
        if not data or len(data) % ID_SIZE:
            return None, set()
        ids = {data[i : i + ID_SIZE] for i in range(0, len(data), ID_SIZE)}
        return data[-ID_SIZE:], ids

    def _write(self, head: bytes, reachable: set[bytes]) -> None:
        body = b"".join(sorted(reachable - {head})) + head
        try:
            atomic_write(self.path, body)
        except OSError as exc:
            log.warning("%s: ancestry cache not written (%s)", self.path, exc)


def walk_ancestors(
    head: bytes,
    parents_of: ParentsOf,
    *,
    stop: set[bytes] | frozenset[bytes] = frozenset(),
    meet: bytes | None = None,
) -> tuple[set[bytes], bool]:
    """Ids reachable from ``head``, not descending into ``stop``; and whether ``meet`` was seen.

    >>> graph = {b"c": [b"b"], b"b": [b"a"], b"a": []}
    >>> sorted(walk_ancestors(b"c", graph.__getitem__)[0])
    [b'a', b'b', b'c']
    >>> walk_ancestors(b"c", graph.__getitem__, stop={b"b"}, meet=b"b")
    ({b'c'}, True)
    """
    seen: set[bytes] = set()
    met = False
    stack = [head]
    while stack:
        current = stack.pop()
        if current == meet:
            met = True
        if current in seen or current in stop:
            continue
        seen.add(current)
        stack.extend(parents_of(current))
    return seen, met
