"""What :meth:`Memory.status` reports, as records: :func:`read_status` gathers them.

``nanomem status --json`` is ``to_json(read_status(...))``; DESIGN §8 fixes at least ``cursor``,
``dream_cursor``, ``pending``, ``git_dir``, ``head`` and ``provider``. Reading status never
writes: without a repository ``git_dir`` and ``head`` are ``None`` and nothing is created, and
an unreadable repository is logged and reported the same way. The API key is never included.

The repository part comes from the status stamp the last commit wrote
(:mod:`nanomem.versions.statusstamp`) while HEAD is still that commit, so ``nanomem status``
(:func:`read_workspace_status`) never loads dulwich then; otherwise dulwich reads it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from nanomem.config import Config
from nanomem.dream import audit
from nanomem.engines.notes import read_provider_notes
from nanomem.errors import GitStoreError, WorkspaceError
from nanomem.store.history import History
from nanomem.store.memfiles import read_ceiling, read_memory_files, render_over_ceiling
from nanomem.store.moved import plan_summary, read_moved_text
from nanomem.store.pending import read_pending
from nanomem.store.workspace import Workspace
from nanomem.versions import location
from nanomem.versions.statusstamp import read_head, read_stamp, read_stamped_status
from nanomem.vocab import MEMORY_FILES, NEAR_FULL, PENDING

if TYPE_CHECKING:
    from nanomem.versions.gitstore import GitStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileStatus:
    """One memory file: its length in characters, its cap, whether it exists, and why it is
    not read when the symlink policy refuses it (``refused``, else None); its size in bytes and
    its read ceiling, the bytes search and the prompt block read of it
    (:func:`nanomem.store.memfiles.read_ceiling`)."""

    chars: int
    cap: int
    exists: bool
    refused: str | None = None
    bytes: int = 0
    ceiling: int = 0
    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("over_ceiling",)

    @property
    def over_ceiling(self) -> bool:
        return bool(self.ceiling) and self.bytes > self.ceiling


@dataclass(frozen=True)
class LastDream:
    """The newest ``dream:`` commit and the cursor its ``Dream-Cursor:`` trailer names."""

    sha: str
    time: str
    subject: str
    dream_cursor: int | None


@dataclass(frozen=True)
class JobState:
    """A background Dream (:meth:`Memory.start_dream`): when it started (ISO 8601), whether it
    is done, and once done its ``status`` and ``commit``, or the ``error`` text."""

    started_at: str
    done: bool
    status: str | None = None
    commit: str | None = None
    error: str | None = None


MOVED_SHOWN = 10  # the newest moved lines `nanomem status` shows; `/memory moved` lists all


@dataclass(frozen=True)
class MemoryHealth:
    """Whether memory stays useful: files over 90 % of their cap (``near_cap``), the facts that
    Dream skipped for a full file (and the time of the first, from the audit's ledger lines),
    the lines moved out to ``memory/MOVED.md`` (``moved_out`` of them since ``moved_since``, the
    newest :data:`MOVED_SHOWN` as ``text (from FILE, DAY)``), and the newest recall self-test
    (``recall_found`` of ``recall_checked`` facts came back from search; None before the first),
    and for each file over its read ceiling the sentence that says so (``over_ceiling``)."""

    near_cap: tuple[str, ...] = ()
    skipped_for_cap: int = 0
    skipped_since: str | None = None
    moved_out: int = 0
    moved_since: str | None = None
    moved_newest: tuple[str, ...] = ()
    recall_checked: int | None = None
    recall_found: int | None = None
    recall_time: str | None = None
    recall_failures: tuple[str, ...] = ()
    over_ceiling: tuple[str, ...] = ()


def read_health(workspace: Workspace, files: Mapping[str, FileStatus]) -> MemoryHealth:
    """:class:`MemoryHealth` from the file sizes and the newest lines of the audit."""
    found = audit.plan_memory_health(audit.read_audit_tail(workspace.audit))
    recall = found["recall_health"] or {}
    near = tuple(rel for rel, size in files.items() if size.cap and size.chars > NEAR_FULL * size.cap)
    moved = plan_summary(read_moved_text(workspace), newest=MOVED_SHOWN)
    return MemoryHealth(
        near_cap=near,
        skipped_for_cap=found["skipped_for_cap"]["count"],
        skipped_since=found["skipped_for_cap"]["since"],
        moved_out=moved.count,
        moved_since=moved.since,
        moved_newest=tuple(f"{m.text.strip().lstrip('-*+').strip()} (from {m.source}, {m.day})"
                           for m in moved.newest),
        recall_checked=recall.get("checked"),
        recall_found=recall.get("found"),
        recall_time=recall.get("time"),
        recall_failures=tuple(str(f) for f in recall.get("failures") or ()),
        over_ceiling=tuple(render_over_ceiling(rel, size.bytes, size.cap)
                           for rel, size in files.items() if size.over_ceiling),
    )


@dataclass(frozen=True)
class MemoryStatus:
    """Cursors, pending entries, repository, provider, file sizes and open questions of one
    workspace.

    ``uncommitted`` lists memory files with hand edits not yet versioned (the next Dream,
    restore or ``watch`` commits them as ``manual:``); ``provider_notes`` are the endpoint
    fallbacks remembered in ``memory/.provider_notes.json``.
    """

    workspace: str
    cursor: int
    dream_cursor: int
    pending: int
    git_dir: str | None
    head: str | None
    provider: str
    model: str | None
    base_url: str | None
    files: Mapping[str, FileStatus]
    uncommitted: tuple[str, ...]
    last_dream: LastDream | None
    background_dream: JobState | None
    provider_notes: Mapping[str, Any]
    health: MemoryHealth = field(default_factory=lambda: MemoryHealth())
    questions: int = 0  # open questions in memory/PENDING.md
    questions_problem: str | None = None  # why memory/PENDING.md cannot be read (the fix)


def read_status(
    workspace: Workspace,
    config: Config,
    history: History,
    store: Callable[[], GitStore] | None,
    job: JobState | None = None,
) -> MemoryStatus:
    """Gather the status. ``store`` opens the repository; it is None when there is none (and
    none is created). It is not called while the status stamp matches HEAD."""
    refused: dict[str, str] = {}
    data = read_memory_files(workspace, refused=refused)
    files = {}
    for rel in MEMORY_FILES:
        chars = len(data[rel].decode("utf-8", "replace")) if rel in data else 0
        cap = config.cap_for(rel)
        files[rel] = FileStatus(chars, cap, rel in data, refused.get(rel),
                                len(data.get(rel, b"")), read_ceiling(cap))
    questions, problem = _count_questions(workspace)
    git_dir = head = None
    last = None
    uncommitted: tuple[str, ...] = ()
    stamped = None if store is None else read_stamped_status(locate_git_dir(workspace.root),
                                                             {**data, **_pending_bytes(workspace)})
    if stamped is not None:
        git_dir, head, uncommitted = str(locate_git_dir(workspace.root)), stamped.head, stamped.uncommitted
        mark = stamped.last_dream
        if mark is not None:
            last = LastDream(mark.sha, mark.time, mark.subject, stamped.dream_cursor)
    elif store is not None:
        try:
            repo = store()
            git_dir, head = str(repo.git_dir), repo.head()
            uncommitted = tuple(repo.dirty_files())
            latest = repo.latest("dream")
            if latest is not None:
                last = LastDream(latest.sha, latest.time, latest.subject, repo.last_dream_cursor())
        except GitStoreError as exc:
            log.warning("status: memory repository unreadable: %s", exc)
    return MemoryStatus(
        workspace=str(workspace.root),
        cursor=history.last_cursor(),
        dream_cursor=history.read_dream_cursor(),
        pending=history.pending_count(),
        git_dir=git_dir,
        head=head,
        provider=config.provider,
        model=config.model,
        base_url=config.base_url,
        files=files,
        uncommitted=uncommitted,
        last_dream=last,
        background_dream=job,
        provider_notes=read_provider_notes(workspace),
        health=read_health(workspace, files),
        questions=questions,
        questions_problem=problem,
    )


def locate_git_dir(root: Path) -> Path:
    """The workspace's git dir (:mod:`nanomem.versions.location`); dulwich is loaded only to
    look into a root ``.git`` whose ``.gitignore`` lacks the memory whitelist."""

    def head_entries(path: Path) -> set[str] | None:
        from nanomem.versions.gitstore import head_entries as entries

        return entries(path)

    return location.locate_git_dir(Path(root), head_entries=head_entries)[0]


def read_workspace_status(root: Path, config: Config) -> MemoryStatus:
    """:meth:`Memory.status` without the facade, for ``nanomem status``: the same records,
    with dulwich loaded only when the status stamp does not match HEAD."""
    workspace = Workspace(Path(root))
    git_dir = locate_git_dir(workspace.root)
    has_repo = git_dir.is_dir()
    opened: list[GitStore] = []

    def store() -> GitStore:
        if not opened:
            from nanomem.versions.gitstore import GitStore

            opened.append(GitStore.open(workspace, config))
        return opened[0]

    def dream_cursor_from_git() -> int | None:  # as Memory's: only when .dream_cursor is unusable
        if not has_repo:
            return None
        stamp = read_stamp(git_dir)
        if stamp is not None and read_head(git_dir) == stamp.head:
            return stamp.dream_cursor
        return store().last_dream_cursor()

    history = History(workspace, config, dream_cursor_fallback=dream_cursor_from_git)
    try:
        return read_status(workspace, config, history, store if has_repo else None)
    finally:
        for repo in opened:
            repo.close()


def _pending_bytes(workspace: Workspace) -> dict[str, bytes]:
    """``{"memory/PENDING.md": bytes}`` when it is a plain file (it is versioned too)."""
    path = workspace.path(PENDING)
    try:
        return {} if path.is_symlink() else {PENDING: path.read_bytes()}
    except (FileNotFoundError, IsADirectoryError):
        return {}


def _count_questions(workspace: Workspace) -> tuple[int, str | None]:
    """How many questions are open, and why the file cannot be read (None when it can)."""
    try:
        return len(read_pending(workspace).questions), None
    except WorkspaceError as exc:
        return 0, str(exc)
