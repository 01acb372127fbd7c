"""The memory repository: every change to the memory files is a real git commit (dulwich).

Its public methods are where dulwich errors become :class:`~nanomem.errors.GitStoreError`
(``versions/`` is the only package that imports dulwich). It tracks exactly ``SOUL.md``,
``USER.md``, ``memory/MEMORY.md`` and the questions ``memory/PENDING.md``; cursors and the
audit are never tracked (the dream cursor lives in the ``Dream-Cursor:`` trailer of each
``dream:`` commit).

Where the git dir lives (``.nanomem.git`` or ``.git``, DESIGN §5) is decided by
:mod:`nanomem.versions.location`; the outer repository is never touched.

Commits are built from the tracked files only (blob, tree and commit objects written straight
into the object store, trees by :mod:`nanomem.versions.trees`), so their cost follows the
memory files, never the workspace::

    store = GitStore.open(ws, cfg)              # finds or creates, makes the ``init:`` commit
    info = store.commit("dream: 2 facts", body, {"Dream-Cursor": 42, "Batch": "30-42"})
    store.show(info.sha[:7]).files              # ['USER.md']
    store.restore(info.sha[:7]).status          # 'restored'
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from dulwich.errors import (ChecksumMismatch, NotGitRepository, ObjectFormatException,
                            PackedRefsException, RefFormatError)
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo

if TYPE_CHECKING:
    from dulwich.refs import Ref

from nanomem.versions import location as gitdir
from nanomem.versions.ancestry import AncestryCache
from nanomem.config import Config
from nanomem.versions.packing import repack_if_loose
from nanomem.versions.commits import (
    CommitInfo,
    RestoreResult,
    render_file_diff,
    render_message,
    summarize_files,
)
from nanomem.errors import GitStoreError, UnusableFileError
from nanomem.store.fsutil import FileLock, atomic_write
from nanomem.versions.location import SEPARATE_GIT_DIR, merge_whitelist
from nanomem.store.journal import WriteJournal
from nanomem.store.memfiles import read_versioned_files
from nanomem.versions.gitindex import update_index
from nanomem.versions.journaled import commit_journaled
from nanomem.versions.lookup import (first_parent_chain, header_info, last_dream_cursor,
                                     newest_first, newest_of_kind, parents_of, read_commit,
                                     resolve_prefix)
from nanomem.versions.statusstamp import write_commit_stamp
from nanomem.versions.trees import (MissingObjectError, build_tree, read_object, tree_blobs,
                                    tree_files)
from nanomem.store.workspace import VERSIONED_FILES, Workspace

__all__ = ["SEPARATE_GIT_DIR", "CommitInfo", "GitStore", "RestoreResult", "locate_git_dir"]

log = logging.getLogger(__name__)

ANCESTRY_CACHE = "nanomem-ancestry"


_T = TypeVar("_T")


def _translated(method: Callable[..., _T]) -> Callable[..., _T]:
    """Turn dulwich and OS failures inside ``method`` into one :class:`GitStoreError`."""

    @functools.wraps(method)
    def wrapper(self: "GitStore", *args: Any, **kwargs: Any) -> _T:
        try:
            return method(self, *args, **kwargs)
        except GitStoreError as exc:
            if not isinstance(exc, MissingObjectError):
                raise
            raise GitStoreError(
                f"{self.git_dir}: {method.__name__} failed ({exc}); "
                f"check the repository with `git --git-dir={self.git_dir} fsck`"
            ) from exc
        except (PackedRefsException, RefFormatError) as exc:  # a damaged packed-refs or ref
            raise UnusableFileError(f"{self.git_dir}/packed-refs or a ref file: {exc}; repair "
                                    "or remove that line (or file) and retry") from exc
        except (OSError, ObjectFormatException, ChecksumMismatch) as exc:
            raise GitStoreError(
                f"{self.git_dir}: {method.__name__} failed ({type(exc).__name__}: {exc}); "
                f"check the repository with `git --git-dir={self.git_dir} fsck`"
            ) from exc

    return wrapper


def locate_git_dir(root: Path) -> tuple[Path, bool]:
    """``(git_dir, separate)`` of the workspace at ``root``; see :mod:`nanomem.versions.location`."""
    return gitdir.locate_git_dir(Path(root), head_entries=head_entries)


def head_entries(root: Path) -> set[str] | None:
    """Top-level names of HEAD's tree in ``root/.git`` (None without commits)."""
    try:
        repo = Repo(str(root))
    except NotGitRepository:
        return set()
    try:
        head = _head_of(repo)
        if head is None:
            return None
        commit = read_object(repo.object_store, head.encode(), Commit)
        tree = read_object(repo.object_store, commit.tree, Tree)
        return {entry.path.decode("utf-8", "replace") for entry in tree.items()}
    finally:
        repo.close()


def _head_of(repo: Repo) -> str | None:
    raw = repo.refs.read_ref(_HEAD) or b""
    if raw.startswith(b"ref: ") and not re.fullmatch(rb"refs/(?!.*\.\.)[\w./-]+", raw[5:]):
        raise UnusableFileError(  # e.g. ``ref: ../../../etc/passwd``: never followed or written
            f"{repo.controldir()}/HEAD: points to {raw[5:65]!r}, not a branch of this "
            "repository; write `ref: refs/heads/main` into it and retry"
        )
    try:
        sha = repo.refs[_HEAD]
    except KeyError:
        return None
    text = sha.decode("ascii", "replace")
    if not re.fullmatch(r"[0-9a-f]{40}", text):
        raise GitStoreError(
            f"{repo.controldir()}: HEAD points to {text[:60]!r}, which is not a commit id; repair "
            f"the branch file (`git --git-dir={repo.controldir()} fsck` shows the damage)"
        )
    return text


class GitStore:
    """The memory repository of one workspace. Build it with :meth:`GitStore.open`."""

    def __init__(
        self,
        workspace: Workspace,
        repo: Repo,
        git_dir: Path,
        *,
        separate: bool,
        config: Config,
        clock: Callable[[], datetime],
    ) -> None:
        self.workspace = workspace
        self.repo = repo
        self.git_dir = git_dir
        self.separate = separate
        self.config = config
        self._clock = clock
        self._lock = FileLock(git_dir / "nanomem.lock")
        self._ancestry = AncestryCache(git_dir / ANCESTRY_CACHE)

    @classmethod
    def open(
        cls,
        workspace: Workspace | Path | str,
        config: Config | None = None,
        *,
        create: bool = True,
        clock: Callable[[], datetime] | None = None,
    ) -> "GitStore":
        """Find the memory repository of ``workspace`` or create it with an ``init:`` commit.

        >>> store = GitStore.open(Path("ws"))  # doctest: +SKIP
        >>> store.log(1)[0].subject            # doctest: +SKIP
        'init: memory repository'
        """
        ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
        config = config or Config()
        clock = clock or (lambda: datetime.now(timezone.utc).astimezone())
        git_dir, separate = locate_git_dir(ws.root)
        exists = git_dir.is_dir()
        if not exists and not create:
            raise GitStoreError(f"{ws.root}: no memory repository; run `nanomem init` to create one")
        if exists and not (git_dir / "HEAD").exists():  # else HEAD reads as "no commits"
            raise UnusableFileError(  # and an init: commit would start an orphan history
                f"{git_dir}/HEAD: missing; write `ref: refs/heads/main` into it (the branch "
                f"nanomem commits to; `git --git-dir={git_dir} branch` lists them) and retry"
            )
        try:
            if exists:
                repo = Repo(str(git_dir)) if separate else Repo(str(ws.root))
            elif separate:
                repo = Repo.init_bare(str(git_dir), mkdir=True, default_branch=b"main")
            else:
                repo = Repo.init(str(ws.root), default_branch=b"main")
        except (OSError, NotGitRepository, ValueError) as exc:
            raise GitStoreError(
                f"{git_dir}: cannot open or create the memory repository ({exc}); "
                "check permissions or move the broken directory away"
            ) from exc
        store = cls(ws, repo, git_dir, separate=separate, config=config, clock=clock)
        if not exists:
            store._prepare_ignores()
        if store.head() is None:
            store.init()
        return store

    def _prepare_ignores(self) -> None:
        if self.separate:
            # Hide the git dir from an enclosing repository without touching its .gitignore.
            atomic_write(self.git_dir / ".gitignore", "*\n")
        else:
            ignore = self.workspace.root / ".gitignore"
            old = ignore.read_text("utf-8") if ignore.is_file() else ""
            new = merge_whitelist(old)
            if new != old:
                atomic_write(ignore, new)

    def init(self) -> CommitInfo | None:
        """Make the ``init:`` commit of the memory files that exist; None if nothing to commit."""
        return self.commit("init: memory repository")

    def close(self) -> None:
        self.repo.close()

    def _head_commit(self) -> Commit | None:
        head = self.head()
        return None if head is None else self._commit(head)

    def _commit(self, sha: str) -> Commit:
        return read_commit(self.repo.object_store, sha)

    def head(self) -> str | None:
        """The full sha of HEAD, or None before the first commit."""
        return _head_of(self.repo)

    @_translated
    def dirty_files(self) -> list[str]:
        """Memory files whose bytes differ from HEAD (edited, created or deleted)."""
        head = self._head_commit()
        committed = tree_blobs(self.repo.object_store, head.tree) if head else {}
        current = {rel: Blob.from_string(data).id
                   for rel, data in read_versioned_files(self.workspace).items()}
        return sorted(rel for rel in VERSIONED_FILES if committed.get(rel) != current.get(rel))

    @_translated
    def commit(
        self, subject: str, body: str = "", trailers: Mapping[str, object] | None = None,
        *, record: bool = False, changes: Mapping[str, bytes | None] | None = None,
    ) -> CommitInfo | None:
        """Commit the memory files as they are on disk; None when nothing changed since HEAD.
        With ``changes``, commit HEAD's files with those bytes instead (None removes a file):
        exactly what a journaled write wrote, whatever an editor saved since.

        ``trailers`` become a git trailer block, e.g. ``{"Dream-Cursor": 42, "Batch": "30-42"}``.
        The git layer never rewrites a working-tree file: credentials typed into a memory file
        are redacted before versioning by :func:`nanomem.store.memfiles.redact_memory_files`.
        ``record=True`` commits even an unchanged tree: a record such as a ``forget:`` receipt.
        """
        message = render_message(subject, body, trailers)
        with self._lock:
            files = read_versioned_files(self.workspace) if changes is None else self._with(changes)
            sha = (self._commit_files(files, message, record=True) if record
                   else self._commit_files(files, message))
        return None if sha is None else self.show(sha)

    def _with(self, changes: Mapping[str, bytes | None]) -> dict[str, bytes]:
        head = self._head_commit()  # HEAD's memory files with ``changes`` (None removes one)
        files = {**(tree_files(self.repo.object_store, head.tree) if head else {}), **changes}
        return {rel: data for rel, data in files.items() if data is not None}

    @_translated
    def commit_manual_if_dirty(
        self, own: Callable[[str, bytes | None, bytes | None], bool] | None = None
    ) -> CommitInfo | None:
        """Commit hand edits of the memory files as ``manual: <files>``; None when clean.
        ``own(rel, committed, current)`` is True for a file the caller's own killed run wrote
        (a forget's scrub): no hand edit, so it is left for that run's commit."""
        dirty = self.dirty_files()
        if own is None or not dirty:
            return self.commit(f"manual: {summarize_files(dirty)}") if dirty else None
        head = self._head_commit()
        committed = tree_files(self.repo.object_store, head.tree) if head else {}
        current = read_versioned_files(self.workspace)
        edited = [rel for rel in dirty if not own(rel, committed.get(rel), current.get(rel))]
        return self.commit(f"manual: {summarize_files(edited)}",
                           changes={rel: current.get(rel) for rel in edited}) if edited else None

    def _commit_files(
        self, files: Mapping[str, bytes], message: str, *, record: bool = False
    ) -> str | None:
        store = self.repo.object_store
        head = self._head_commit()
        tree_id = build_tree(store, head.tree if head else None, files)
        if head is not None and tree_id == head.tree and not record:
            return None
        if head is None and not files:
            return None
        commit = Commit()
        commit.tree = tree_id
        commit.parents = [head.id] if head else []
        ident = f"{self.config.author_name} <{self.config.author_email}>".encode()
        commit.author = commit.committer = ident
        now = self._clock()
        offset = int((now.utcoffset() or timedelta(0)).total_seconds())
        commit.author_time = commit.commit_time = int(now.timestamp())
        commit.author_timezone = commit.commit_timezone = offset
        commit.message = message.encode("utf-8")
        store.add_object(commit)
        old = head.id if head else None
        if not self.repo.refs.set_if_equals(_HEAD, old, commit.id):
            raise GitStoreError(
                f"{self.git_dir}: HEAD moved while committing; retry the command"
            )
        self._ancestry.record(
            bytes.fromhex(old.decode()) if old else None, bytes.fromhex(commit.id.decode())
        )
        if not self.separate:
            update_index(self.repo, self.workspace, self.git_dir, files)
        write_commit_stamp(self.git_dir, header_info(commit), message, files,
                           walk=lambda: (self.latest("dream"), self.last_dream_cursor()))
        log.info("committed %s %s", commit.id.decode()[:7], message.splitlines()[0])
        repack_if_loose(self.repo, self.git_dir)
        return commit.id.decode("ascii")

    @_translated
    def resolve(self, prefix: str) -> str:
        """Full sha of the commit whose sha starts with ``prefix`` (4-40 hex, any case); never
        walks history. :class:`ShaError` for bad, unknown or ambiguous prefixes."""
        return resolve_prefix(self.repo.object_store, prefix, self.git_dir)

    @_translated
    def show(self, sha: str) -> CommitInfo:
        """The commit at ``sha`` (any unique prefix): files changed against the first parent."""
        full = self.resolve(sha)
        commit = self._commit(full)
        parent_tree = self._commit(commit.parents[0].decode()).tree if commit.parents else None
        store = self.repo.object_store
        old, new = tree_files(store, parent_tree), tree_files(store, commit.tree)
        files = tuple(rel for rel in VERSIONED_FILES if old.get(rel) != new.get(rel))
        diff = "".join(render_file_diff(rel, old.get(rel), new.get(rel)) for rel in files)
        return dataclasses.replace(header_info(commit), sha=full, files=files, diff=diff)

    @_translated
    def log(self, limit: int = 20) -> list[CommitInfo]:
        """The newest ``limit`` commits reachable from HEAD (merges included), newest first.

        A listing reads commit objects only: each entry has its subject, body, trailers, time
        and parents, and empty ``files`` and ``diff`` (:meth:`show` renders those for one)."""
        head = self.head()
        if head is None or limit <= 0:
            return []
        return newest_first(self.repo.object_store, head, limit)

    def _first_parent_chain(self) -> Iterator[Commit]:
        return first_parent_chain(self.repo.object_store, self.head())

    @_translated
    def latest(self, kind: str | None = "dream") -> CommitInfo | None:
        """The newest commit of ``kind`` on the first-parent line (any kind when None)."""
        commit = newest_of_kind(self._first_parent_chain(), kind)
        return None if commit is None else self.show(commit.id.decode("ascii"))

    @_translated
    def last_dream_cursor(self) -> int | None:
        """The ``Dream-Cursor:`` trailer of the newest ``dream:`` commit, or None."""
        return last_dream_cursor(self._first_parent_chain())

    @_translated
    def restore(self, sha: str) -> RestoreResult:
        """Put the memory files back as they were just before commit ``sha`` and commit
        ``restore:`` as one journaled write; hand edits first (``manual:``); the dream cursor
        stays. Status ``restored`` with the new commit, or ``already`` when nothing differs."""
        full = self.resolve(sha)
        target = self.show(full)
        if not target.parents:
            raise GitStoreError(
                f"{target.short} ({target.subject}) is the first commit of the memory history; "
                "there is no earlier state to restore"
            )
        if not target.files:
            raise GitStoreError(
                f"{target.short} ({target.subject}) changed no memory file; nothing to restore"
            )
        if not self._reachable(full):
            raise GitStoreError(
                f"{target.short} ({target.subject}) is not part of the current memory history "
                f"(not reachable from HEAD); run `nanomem log` to list versions"
            )
        manual = self.commit_manual_if_dirty()
        wanted = tree_files(self.repo.object_store, self._commit(target.parents[0]).tree,
                            refuse_links=True)
        current = read_versioned_files(self.workspace)
        changed = [rel for rel in VERSIONED_FILES if current.get(rel) != wanted.get(rel)]
        if not changed:
            return RestoreResult("already", full, (), None, manual)
        about = target.subject if len(target.subject) <= 60 else target.subject[:59] + "…"
        info = commit_journaled(self, WriteJournal(
            "restore", self.head(), f'restore: to {full[:7]} (before "{about}")',
            f"Restored {summarize_files(changed)} to their state before {full}.",
            before={rel: current.get(rel) for rel in changed},
            after={rel: wanted.get(rel) for rel in changed}))
        return RestoreResult("restored", full, tuple(changed), info, manual)

    def _reachable(self, sha: str) -> bool:
        """Whether ``sha`` is HEAD or an ancestor of it (through merges); cached on disk."""
        head = self.head()
        if head is None:
            return False
        return self._ancestry.contains(bytes.fromhex(head), bytes.fromhex(sha), self._parents_of)

    def _parents_of(self, raw: bytes) -> list[bytes]:
        return parents_of(self.repo.object_store, raw)


_HEAD = cast("Ref", b"HEAD")

