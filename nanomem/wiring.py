"""What a :class:`~nanomem.memory.Memory` is wired from, and the lifetime of each part.

:class:`MemoryParts` is the facade's base: it checks the workspace, loads the config, and holds
the parts every verb reaches for: the history, the archive and the memory block at once; the
engine, the memory repository and the search index on first use, each built under one lock so
that two threads never build two; :meth:`~MemoryParts.close` releases the repository and the
index, which reopen when next asked for. It renders nothing and runs no stage:
:class:`~nanomem.memory.Memory` adds the verbs.

>>> with Memory("ws") as mem:        # doctest: +SKIP
...     mem.has_repository()         # asking creates nothing
False
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from nanomem.config import Config, load_config
from nanomem.engines.chat import ChatModel
from nanomem.engines.embeddings import make_embedder
from nanomem.engines.registry import make_engine
from nanomem.errors import WorkspaceError
from nanomem.jobs import DreamSlot, local_now
from nanomem.memoryblock import MemoryBlock
from nanomem.search.index import SearchIndex
from nanomem.search.vectors import Embedder
from nanomem.store.archive import Archive
from nanomem.store.history import History
from nanomem.store.memfiles import redact_memory_files
from nanomem.store.workspace import Workspace
from nanomem.versions.gitstore import GitStore, locate_git_dir

_P = TypeVar("_P", bound="MemoryParts")


class MemoryParts:
    """The parts of one workspace's memory, built when first needed and released by ``close``
    (the arguments are those of :class:`~nanomem.memory.Memory`)."""

    def __init__(
        self,
        workspace: str | Path | Workspace,
        *,
        config: Config | None = None,
        engine: ChatModel | None = None,
        clock: Callable[[], datetime] | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        if not isinstance(workspace, Workspace):
            workspace = Workspace(Path(workspace))
        self.workspace = workspace
        if not self.workspace.root.is_dir():
            raise WorkspaceError(
                f"{self.workspace.root}: no such workspace directory; "
                f"run `nanomem init {self.workspace.root}` first"
            )
        self.config = config if config is not None else load_config(self.workspace.root)
        self.clock = clock or local_now
        self._engine = engine
        self._embedder = embedder
        self._store: GitStore | None = None
        self._dreams = DreamSlot()
        self._parts_lock = threading.Lock()
        self.history = History(
            self.workspace,
            self.config,
            clock=self.clock,
            dream_cursor_fallback=self._dream_cursor_from_git,
        )
        self.archive = Archive(self.workspace, clock=self.clock)
        self._index: SearchIndex | None = None
        self._block = MemoryBlock(self.workspace, self.config, self.history)

    @property
    def engine(self) -> ChatModel:
        """The model engine (offline unless an endpoint is configured)."""
        with self._parts_lock:
            if self._engine is None:
                self._engine = make_engine(self.config, self.workspace, clock=self.clock)
            return self._engine

    @property
    def store(self) -> GitStore:
        """The memory repository (:class:`~nanomem.versions.gitstore.GitStore`), created if missing."""
        with self._parts_lock:
            if self._store is None:
                if not self.has_repository():  # the init: commit versions the files as they are
                    redact_memory_files(self.workspace)
                self._store = GitStore.open(self.workspace, self.config, clock=self.clock)
            return self._store

    def has_repository(self) -> bool:
        """Whether the memory repository exists (without creating it)."""
        return self._store is not None or locate_git_dir(self.workspace.root)[0].is_dir()

    def _dream_cursor_from_git(self) -> int | None:
        if not self.has_repository():
            return None
        return self.store.last_dream_cursor()

    def close(self) -> None:
        """Release the repository and index handles."""
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._index is not None:
            self._index.close()
            self._index = None

    @property
    def index(self) -> SearchIndex:
        """The derived search index (``memory/index.sqlite3``), opened on first use."""
        with self._parts_lock:
            if self._index is None:
                embedder = (self._embedder or make_embedder(self.config)
                            if self.config.embeddings else None)
                self._index = SearchIndex(self.workspace, history=self.history, archive=self.archive,
                                          embedder=embedder, caps=self.config.file_caps)
            return self._index

    def _session_arg(self, session: str | Path | Any) -> Any:
        """A session as the hot path takes it: a path (``sessions/x.jsonl``, or a string with
        a slash or ending in ``.jsonl``), a key's file, or a loaded ``Session`` as it is."""
        if isinstance(session, Path):
            return session
        if isinstance(session, str):
            if "/" in session or "\\" in session or session.endswith(".jsonl"):
                return Path(session)
            return self.workspace.session_path(session)
        return session

    def __enter__(self: _P) -> _P:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
