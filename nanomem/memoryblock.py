"""The memory block of :meth:`Memory.context <nanomem.memory.Memory.context>`: its inputs, read
from the workspace and kept between turns, rendered by :mod:`nanomem.text.context`.

The inputs are the memory files (reused while their stat signature is unchanged,
:mod:`nanomem.store.filecache`), the history entries Dream has not processed yet with when their
words were said (:mod:`nanomem.store.saidtimes`), the open questions of ``memory/PENDING.md``
and, for a query, the turns search recalls for it::

    block = MemoryBlock(ws, config, history)
    text = block.render(800, query="when is the dentist?", search=search)

Without a query ``search`` is never called, so the facade does not open the index.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from nanomem.config import Config
from nanomem.errors import NanomemError
from nanomem.search.rank import Hit
from nanomem.search.recall import plan_recall, plan_recall_k
from nanomem.store.filecache import MemoryFileCache
from nanomem.store.history import History
from nanomem.store.pending import read_question_lines
from nanomem.store.saidtimes import SaidTimes
from nanomem.store.workspace import MEMORY_FILES, Workspace, template_lines
from nanomem.text.context import PendingEntry, render_context, render_context_memo

log = logging.getLogger(__name__)

# search(query, k) -> hits, uncollapsed (a copied line keeps its own place in the block)
Recall = Callable[[str, int], Sequence[Hit]]


class MemoryBlock:
    """The memory block of one workspace; its caches live as long as the facade."""

    def __init__(self, workspace: Workspace, config: Config, history: History) -> None:
        self.workspace = workspace
        self.config = config
        self.history = history
        self._said = SaidTimes(workspace.archive_dir)
        self._files = MemoryFileCache(workspace, {rel: config.cap_for(rel) for rel in MEMORY_FILES})

    def read_files(self) -> dict[str, str]:
        """Text of each existing memory file, keyed by relative path, in prompt order, up to its
        read ceiling (:func:`nanomem.store.memfiles.read_ceiling`; a file over it is warned of
        once). A file the symlink policy refuses is left out with a warning: it never reaches a
        prompt."""
        refused: dict[str, str] = {}
        files = self._files.read(refused)  # unchanged files are not read again
        for reason in refused.values():
            log.warning("%s; it is left out of the memory block", reason)
        return {rel: data.decode("utf-8", errors="replace") for rel, data in files.items()}

    def render(self, budget_tokens: int, query: str | None, search: Recall) -> str:
        """The block within ``budget_tokens``; with a ``query``, what ``search`` recalls for it
        too (a search that fails is logged and the block goes on without recalled turns)."""
        caps = {rel: self.config.cap_for(rel) for rel in MEMORY_FILES}
        files = self.read_files()
        dream_cursor = self.history.read_dream_cursor()
        entries = self.history.read_since(dream_cursor)
        said = self._said.read(entries)  # when their words were said, where the archive knows
        pending = [PendingEntry(said.get(e.cursor, e.timestamp), e.content)
                   for e in reversed(entries)]
        skip = template_lines()  # cached: they ship with the package
        questions = read_question_lines(self.workspace)  # memo by stat; a bad file is warned of
        if query is None or not query.strip():
            return render_context_memo(files, caps, budget_tokens, pending=pending, skip=skip,
                                       questions=questions)
        hits: Sequence[Hit]
        try:
            hits = search(query, plan_recall_k(budget_tokens))
        except NanomemError as exc:
            log.warning("context: recall skipped: %s", exc)
            hits = []
        relevance, recalled = plan_recall(hits, query, dream_cursor=dream_cursor)
        return render_context(files, caps, budget_tokens, relevance=relevance, pending=pending,
                              recalled=recalled, skip=skip, questions=questions)
