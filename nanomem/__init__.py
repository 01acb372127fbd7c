"""nanomem: file-based long-term memory for LLM agents, versioned with git.

>>> from nanomem import Memory  # doctest: +SKIP
>>> mem = Memory("~/agent-workspace")  # doctest: +SKIP
>>> mem.history.append("User prefers metric units.")  # doctest: +SKIP
1
>>> mem.handle_command("/memory")  # doctest: +SKIP
'**Memory status** ...'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nanomem.config import Config, load_config
from nanomem.errors import (
    CommandError,
    ConfigError,
    DreamError,
    GitStoreError,
    HistoryError,
    NanomemError,
    ProviderError,
    ShaError,
    WorkspaceError,
)

if TYPE_CHECKING:
    from nanomem.consolidate.run import ConsolidationResult
    from nanomem.text.context import render_context
    from nanomem.versions.commits import CommitInfo, RestoreResult
    from nanomem.dream.run import DreamResult
    from nanomem.store.historyfile import HistoryEntry
    from nanomem.memory import DreamJob, Memory, RememberResult
    from nanomem.consolidate.turn import TurnResult

# Imported on first use, so that `import nanomem.store.history` (the hot path) never loads dulwich.
_LAZY = {
    "CommitInfo": "nanomem.versions.commits",
    "ConsolidationResult": "nanomem.consolidate.run",
    "DreamJob": "nanomem.memory",
    "DreamResult": "nanomem.dream.run",
    "HistoryEntry": "nanomem.store.historyfile",
    "Memory": "nanomem.memory",
    "RememberResult": "nanomem.memory",
    "RestoreResult": "nanomem.versions.commits",
    "TurnResult": "nanomem.consolidate.turn",
    "render_context": "nanomem.text.context",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'nanomem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "CommandError",
    "CommitInfo",
    "Config",
    "ConfigError",
    "ConsolidationResult",
    "DreamError",
    "DreamJob",
    "DreamResult",
    "GitStoreError",
    "HistoryEntry",
    "HistoryError",
    "Memory",
    "NanomemError",
    "ProviderError",
    "RememberResult",
    "RestoreResult",
    "ShaError",
    "TurnResult",
    "WorkspaceError",
    "load_config",
    "render_context",
]
