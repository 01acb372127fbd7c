"""nanomem: file-based long-term memory for LLM agents, versioned with git.

>>> from nanomem import Memory  # doctest: +SKIP
>>> mem = Memory("~/agent-workspace")  # doctest: +SKIP
>>> mem.history.append("User prefers metric units.")  # doctest: +SKIP
1
>>> mem.handle_command("/memory")  # doctest: +SKIP
'**Memory status** ...'
"""

from nanomem.config import Config, load_config
from nanomem.consolidator import ConsolidationResult
from nanomem.context import render_context
from nanomem.dream import DreamResult
from nanomem.errors import (
    CommandError,
    ConfigError,
    DreamError,
    GitStoreError,
    HistoryError,
    NanomemError,
    ProviderError,
    ShaError,
    ToolError,
    WorkspaceError,
)
from nanomem.gitstore import CommitInfo, RestoreResult
from nanomem.history import HistoryEntry
from nanomem.memory import DreamJob, Memory

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
    "RestoreResult",
    "ShaError",
    "ToolError",
    "WorkspaceError",
    "load_config",
    "render_context",
]
