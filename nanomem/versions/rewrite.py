"""Rewriting the memory history without a text: every commit, every ref, then prune (dulwich).

A forget rewrites every commit whose tree or message holds the text, and every commit after it
(their parents changed). Authors, committers, dates, time zones and trailers are kept; blobs and
messages lose their matching lines (the caller's ``scrub_blob`` and ``scrub_message`` decide).
A commit left changing nothing stays, so the sha map is one to one and every ``Dream-Cursor:``
trailer keeps its meaning. Signatures are dropped (they no longer sign the content).

The steps, each safe to kill::

    plan = plan_rewrite(repo, scrub_blob, scrub_message)          # objects in memory only
    write_plan(repo, plan); stage_refs(repo, plan)                # new objects, refs/nanomem-forget/*
    switch_refs(repo, plan)                                       # each ref: compare-and-swap
    prune(repo)                                                   # reflogs, staged refs, repack

Before :func:`switch_refs` the old history is whole (the new objects are unreachable extras);
after it the new one is. :func:`prune` packs what the refs reach and deletes every other object,
loose or packed, so the old blobs are gone from the object store.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from dulwich.errors import NotGitRepository
from dulwich.index import index_entry_from_stat
from dulwich.objects import Blob, Commit, ShaFile, Tag, Tree
from dulwich.repo import Repo

from nanomem.errors import GitStoreError

if TYPE_CHECKING:
    from dulwich.objects import ObjectID
    from dulwich.refs import Ref

log = logging.getLogger(__name__)

STAGING_PREFIX = b"refs/nanomem-forget/"
GITLINK_MODE = 0o160000
_HEAD = b"HEAD"
_MESSAGE_FILES = ("COMMIT_EDITMSG", "MERGE_MSG", "SQUASH_MSG", "TAG_EDITMSG", "ORIG_HEAD",
                  "FETCH_HEAD")

ScrubBlob = Callable[[str, bytes], "bytes | None"]   # (path, data) -> new data, None: unchanged
ScrubMessage = Callable[[str], "str | None"]


@dataclass
class RewritePlan:
    """What a rewrite changes: new objects (not yet stored), the commit map and the refs."""

    sha_map: dict[str, str] = field(default_factory=dict)        # old commit -> new commit
    refs: dict[str, tuple[str, str]] = field(default_factory=dict)  # ref -> (old, new)
    blob_map: dict[bytes, bytes] = field(default_factory=dict)   # old blob -> new blob
    objects: dict[bytes, ShaFile] = field(default_factory=dict)  # new id -> object
    blobs: int = 0
    messages: int = 0
    where: list[str] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return bool(self.refs)


def open_repo(git_dir: Path) -> Repo:
    """The repository at ``git_dir`` (bare ``.nanomem.git`` or a workspace's ``.git``)."""
    try:
        return Repo(str(git_dir))
    except (NotGitRepository, OSError) as exc:
        raise GitStoreError(f"{git_dir}: not a readable git repository ({exc})") from exc


def plan_rewrite(repo: Repo, scrub_blob: ScrubBlob, scrub_message: ScrubMessage) -> RewritePlan:
    """Every ref's history without the text, computed in memory (nothing is written)."""
    plan = RewritePlan()
    store = repo.object_store
    trees: dict[bytes, bytes] = {}

    def new_blob(path: str, sha: bytes) -> bytes:
        if sha in plan.blob_map:
            return plan.blob_map[sha]
        data = store[cast("ObjectID", sha)].as_raw_string()
        changed = scrub_blob(path, data)
        if changed is None or changed == data:
            plan.blob_map[sha] = sha
            return sha
        blob = Blob.from_string(changed)
        plan.objects[blob.id] = blob
        plan.blob_map[sha] = blob.id
        plan.blobs += 1
        return blob.id

    def new_tree(sha: bytes, prefix: str) -> bytes:
        if sha in trees:  # the same tree scrubs the same way wherever it sits
            return trees[sha]
        tree = cast(Tree, store[cast("ObjectID", sha)])
        copy, changed = Tree(), False
        for entry in tree.items():
            name = entry.path.decode("utf-8", "surrogateescape")
            child: bytes = entry.sha
            if stat.S_ISDIR(entry.mode):
                child = new_tree(entry.sha, f"{prefix}{name}/")
            elif stat.S_ISREG(entry.mode) or stat.S_ISLNK(entry.mode):
                child = new_blob(prefix + name, entry.sha)
            changed |= child != entry.sha
            copy.add(entry.path, entry.mode, cast("ObjectID", child))
        result = sha
        if changed:
            plan.objects[copy.id] = copy
            result = copy.id
        trees[sha] = result
        return result

    commits: dict[bytes, bytes] = {}
    for commit in _commits_parents_first(repo):
        tree = new_tree(commit.tree, "")
        parents = [commits.get(p, p) for p in commit.parents]
        text = commit.message.decode("utf-8", "surrogateescape")
        message = scrub_message(text)
        if tree == commit.tree and parents == commit.parents and message in (None, text):
            commits[commit.id] = commit.id
            continue
        copy = cast(Commit, commit.copy())
        copy.tree = cast("ObjectID", tree)
        copy.parents = cast("list[ObjectID]", parents)
        if message not in (None, text):
            copy.message = cast(str, message).encode("utf-8", "surrogateescape")
            plan.messages += 1
            plan.where.append(f"commit {commit.id.decode()[:7]} message")
        copy.gpgsig = None
        plan.objects[copy.id] = copy
        commits[commit.id] = copy.id
        plan.sha_map[commit.id.decode("ascii")] = copy.id.decode("ascii")
    for name, value in _ref_values(repo).items():
        new = _new_ref_target(repo, plan, commits, value, scrub_message)
        if new != value:
            plan.refs[name.decode("utf-8", "surrogateescape")] = (value.decode(), new.decode())
    return plan


def _new_ref_target(repo: Repo, plan: RewritePlan, commits: dict[bytes, bytes], value: bytes,
                    scrub_message: ScrubMessage) -> bytes:
    obj = repo.object_store[cast("ObjectID", value)]
    if isinstance(obj, Commit):
        return commits.get(value, value)
    if isinstance(obj, Tag):
        target = _new_ref_target(repo, plan, commits, obj.object[1], scrub_message)
        text = obj.message.decode("utf-8", "surrogateescape") if obj.message else ""
        message = scrub_message(text) if text else None
        if target == obj.object[1] and message in (None, text):
            return value
        tag = cast(Tag, obj.copy())
        tag.object = (obj.object[0], cast("ObjectID", target))
        if message not in (None, text):
            tag.message = cast(str, message).encode("utf-8", "surrogateescape")
        tag.signature = None  # no longer signs the content
        plan.objects[tag.id] = tag
        return tag.id
    return value


def _ref_values(repo: Repo) -> dict[bytes, bytes]:
    """Every ref that points at an object (a symbolic HEAD is left out: its branch is in)."""
    refs = repo.refs
    symbolic = set(refs.get_symrefs())
    values: dict[bytes, bytes] = {}
    for name in sorted(refs.allkeys()):
        if name in symbolic or name.startswith(STAGING_PREFIX):
            continue
        try:
            value = refs[name]
        except KeyError:
            continue
        if value in repo.object_store:
            values[name] = value
    return values


def _commits_parents_first(repo: Repo) -> Iterator[Commit]:
    """Every commit reachable from any ref, each after all of its parents."""
    store = repo.object_store
    tips: list[bytes] = []
    for value in _ref_values(repo).values():
        obj = store[cast("ObjectID", value)]
        while isinstance(obj, Tag):
            obj = store[obj.object[1]]
        if isinstance(obj, Commit):
            tips.append(obj.id)
    done: set[bytes] = set()
    for tip in tips:
        stack: list[tuple[bytes, bool]] = [(tip, False)]
        while stack:
            sha, expanded = stack.pop()
            if sha in done:
                continue
            commit = cast(Commit, store[cast("ObjectID", sha)])
            if expanded:
                done.add(sha)
                yield commit
                continue
            stack.append((sha, True))
            stack.extend((p, False) for p in commit.parents if p not in done)


def write_plan(repo: Repo, plan: RewritePlan) -> None:
    """Store the plan's new objects (unreachable until :func:`switch_refs`)."""
    store = repo.object_store
    missing = [(obj, None) for sha, obj in plan.objects.items()
               if cast("ObjectID", sha) not in store]
    if missing:
        store.add_objects(missing)


def stage_refs(repo: Repo, plan: RewritePlan) -> None:
    """Point ``refs/nanomem-forget/<ref>`` at each new value, so a crash keeps the new objects
    findable and a person can see what the switch would do."""
    for name, (_, new) in plan.refs.items():
        staged = STAGING_PREFIX + name.removeprefix("refs/").encode("utf-8", "surrogateescape")
        repo.refs[cast("Ref", staged)] = cast("ObjectID", new.encode("ascii"))


def switch_refs(repo: Repo, plan: RewritePlan) -> list[str]:
    """Move each ref from its old value to its new one (compare-and-swap, one atomic rename
    each); return the refs that had already moved (a rerun) or moved elsewhere meanwhile."""
    skipped: list[str] = []
    for name, (old, new) in plan.refs.items():
        ref = cast("Ref", name.encode("utf-8", "surrogateescape"))
        ok = repo.refs.set_if_equals(ref, cast("ObjectID", old.encode()),
                                     cast("ObjectID", new.encode()))
        if not ok:
            skipped.append(name)
    return skipped


def refresh_index(repo: Repo, work_tree: Path | None, plan: RewritePlan) -> None:
    """Point a work tree's index entries at the new blobs, so ``git status`` stays clean."""
    if work_tree is None or not plan.blob_map:
        return
    index_path = Path(repo.controldir()) / "index"
    if not index_path.exists():
        return
    try:
        index = repo.open_index()
    except (OSError, AssertionError, ValueError) as exc:  # dulwich asserts on a bad header
        log.warning("%s: not updated (%s); `git status` may list memory files; to rebuild it: "
                    "rm %s && git reset -q", index_path, exc, index_path)
        return  # the index is git's cache of the work tree: the rewrite stands without it
    changed = False
    for path, entry in list(index.items()):
        sha = getattr(entry, "sha", None)
        new = plan.blob_map.get(sha) if sha is not None else None
        if new is None or new == sha:
            continue
        full = work_tree / path.decode("utf-8", "surrogateescape")
        try:
            index[path] = index_entry_from_stat(os.stat(full), new, getattr(entry, "mode"))
        except FileNotFoundError:
            del index[path]
        changed = True
    if changed:
        index.write()


def prune(repo: Repo) -> int:
    """Drop the staged refs, expire every reflog and leave only objects the refs reach, in one
    new pack (old packs and loose objects deleted). Returns how many objects were dropped."""
    refs = repo.refs
    for name in list(refs.allkeys()):
        if name.startswith(STAGING_PREFIX):
            refs.remove_if_equals(name, None)
    git_dir = Path(repo.controldir())
    shutil.rmtree(git_dir / "logs", ignore_errors=True)
    for leftover in _MESSAGE_FILES:
        (git_dir / leftover).unlink(missing_ok=True)
    store = repo.object_store
    reachable = reachable_objects(repo)
    unreachable = {sha for sha in store if sha not in reachable}
    store.repack(exclude=cast("set[bytes]", unreachable))
    for sha in unreachable:  # repack deletes loose ones it saw; catch any left
        if store.contains_loose(sha):
            store.delete_loose_object(sha)
    for stale in ("commit-graph", "multi-pack-index"):
        (git_dir / "objects" / "info" / stale).unlink(missing_ok=True)
        (git_dir / "objects" / "pack" / stale).unlink(missing_ok=True)
    (git_dir / "objects" / "info" / "packs").unlink(missing_ok=True)
    return len(unreachable)


def reachable_objects(repo: Repo) -> set[bytes]:
    """Ids of every object reachable from any ref (HEAD included)."""
    store = repo.object_store
    pending = list(_ref_values(repo).values())
    try:
        pending.append(repo.refs[cast("Ref", _HEAD)])
    except KeyError:
        pass
    seen: set[bytes] = set()
    while pending:
        sha = pending.pop()
        if sha in seen or cast("ObjectID", sha) not in store:
            continue
        seen.add(sha)
        obj: Any = store[cast("ObjectID", sha)]
        if isinstance(obj, Commit):
            pending.append(obj.tree)
            pending.extend(obj.parents)
        elif isinstance(obj, Tree):
            pending.extend(entry.sha for entry in obj.items() if entry.mode != GITLINK_MODE)
        elif isinstance(obj, Tag):
            pending.append(obj.object[1])
    return seen


def iter_objects(repo: Repo) -> Iterator[tuple[str, str, bytes]]:
    """``(sha, type, decompressed bytes)`` of every object in the store, loose and packed,
    reachable or not (what ``git cat-file --batch-all-objects --batch`` shows)."""
    store = repo.object_store
    for sha in sorted(set(store)):
        type_num, data = store.get_raw(sha)
        yield sha.decode("ascii"), _TYPE_NAMES.get(type_num, str(type_num)), data


def has_staged_refs(repo: Repo) -> bool:
    return any(name.startswith(STAGING_PREFIX) for name in repo.refs.allkeys())


_TYPE_NAMES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}
