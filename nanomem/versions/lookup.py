"""Finding commits in the memory repository (read-only, straight from the object store).

A commit by its sha prefix (4 to 40 hex digits, never a history walk), the newest commits
first, the first-parent line from HEAD (where the newest commit of a kind and the last
``Dream-Cursor:`` trailer are found), and a commit's parents read from its raw header for the
reachability cache (:mod:`nanomem.versions.ancestry`). :class:`~nanomem.versions.gitstore.GitStore`
calls these and turns dulwich failures into :class:`~nanomem.errors.GitStoreError`::

    full = resolve_prefix(repo.object_store, "3f2a", git_dir)
    newest_first(repo.object_store, head, limit=20)[0].subject      # 'dream: …'
"""

from __future__ import annotations

import heapq
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.objects import Commit

from nanomem.errors import ShaError
from nanomem.versions.commits import CommitInfo, commit_kind, parse_commit_header, split_message
from nanomem.versions.trees import MissingObjectError, get_object, oid

if TYPE_CHECKING:
    from dulwich.object_store import BaseObjectStore

__all__ = ["first_parent_chain", "header_info", "last_dream_cursor", "newest_first",
           "newest_of_kind", "parents_of", "read_commit", "resolve_prefix"]

log = logging.getLogger(__name__)

_HEX = re.compile(r"^[0-9a-f]{4,40}$")


def read_commit(store: BaseObjectStore, sha: str) -> Commit:
    """The commit object at the full ``sha``; :class:`ShaError` when it is another kind."""
    obj = get_object(store, sha.encode("ascii"))
    if not isinstance(obj, Commit):
        raise ShaError(f"{sha[:7]} is a {obj.type_name.decode()}, not a commit")
    return obj


def _subject_of(commit: Commit) -> str:
    """The first line of ``commit``'s message."""
    return commit.message.decode("utf-8", "replace").split("\n", 1)[0]


def resolve_prefix(store: BaseObjectStore, prefix: str, git_dir: Path) -> str:
    """Full sha of the commit whose sha starts with ``prefix`` (4-40 hex, any case).

    Scans the object store by prefix (loose dirs + pack index bisection); never walks history.
    Raises :class:`ShaError` for bad, unknown or ambiguous prefixes.
    """
    text = prefix.strip().lower()
    if not _HEX.match(text):
        raise ShaError(
            f"'{prefix}' is not a commit sha; give 4 to 40 hex digits "
            "(run `nanomem log` to list versions)"
        )
    found: list[str] = []
    for sha in store.iter_prefix(text.encode("ascii")):
        if get_object(store, sha).type_name == b"commit":
            found.append(sha.decode("ascii"))
    if not found:
        raise ShaError(
            f"no commit {text} in the memory history at {git_dir}; "
            "run `nanomem log` to list versions"
        )
    if len(found) > 1:
        found.sort()
        described = ", ".join(f"{s[:10]} ({_subject_of(read_commit(store, s))})" for s in found)
        raise ShaError(
            f"sha {text} is ambiguous: {described}; give more digits",
            candidates=tuple(found),
        )
    return found[0]


def newest_first(store: BaseObjectStore, head: str, limit: int) -> list[CommitInfo]:
    """The newest ``limit`` commits reachable from ``head`` (merges included), newest commit
    time first as `git log` does; reads only about ``limit`` commit objects, no trees."""
    first = read_commit(store, head)
    queue = [(-first.commit_time, 0, first)]
    seen = {first.id}
    found: list[CommitInfo] = []
    order = 1
    while queue and len(found) < limit:
        commit = heapq.heappop(queue)[2]
        found.append(header_info(commit))
        for parent_id in commit.parents:
            if parent_id not in seen:
                seen.add(parent_id)
                parent = read_commit(store, parent_id.decode("ascii"))
                heapq.heappush(queue, (-parent.commit_time, order, parent))
                order += 1
    return found


def first_parent_chain(store: BaseObjectStore, head: str | None) -> Iterator[Commit]:
    """``head`` and its first parents, newest first (nothing before the first commit)."""
    commit = None if head is None else read_commit(store, head)
    while commit is not None:
        yield commit
        commit = read_commit(store, commit.parents[0].decode()) if commit.parents else None


def newest_of_kind(chain: Iterable[Commit], kind: str | None) -> Commit | None:
    """The first commit in ``chain`` whose subject is of ``kind`` (any commit when None)."""
    for commit in chain:
        if kind is None or commit_kind(_subject_of(commit)) == kind:
            return commit
    return None


def last_dream_cursor(chain: Iterable[Commit]) -> int | None:
    """The ``Dream-Cursor:`` trailer of the first ``dream:`` commit in ``chain`` that has a
    readable one (a bad trailer is logged and passed over), or None."""
    for commit in chain:
        subject, _, trailers = split_message(commit.message.decode("utf-8", "replace"))
        if commit_kind(subject) == "dream" and "Dream-Cursor" in trailers:
            try:
                return int(trailers["Dream-Cursor"])
            except ValueError:
                log.warning("commit %s: bad Dream-Cursor trailer", commit.id.decode()[:7])
    return None


def parents_of(store: BaseObjectStore, raw: bytes) -> list[bytes]:
    """Parent ids of the commit ``raw`` (20 bytes), read from its raw header (no full parse)."""
    try:
        _, data = store.get_raw(oid(raw.hex().encode("ascii")))
    except KeyError:
        raise MissingObjectError(f"commit {raw.hex()[:7]} is missing") from None
    parents = []
    pos = data.index(b"\n") + 1  # after the tree line
    while data.startswith(b"parent ", pos):
        parents.append(bytes.fromhex(data[pos + 7 : pos + 47].decode("ascii")))
        pos += 48
    return parents


def header_info(commit: Commit) -> CommitInfo:
    """``commit`` as a :class:`CommitInfo` from its header alone: ``files`` and ``diff`` empty."""
    return parse_commit_header(commit.id.decode("ascii"), commit.message, commit.commit_time,
                               commit.commit_timezone, [p.decode("ascii") for p in commit.parents])
