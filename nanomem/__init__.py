"""nanomem: file-based long-term memory for LLM agents, versioned with git.

>>> from nanomem import Memory  # doctest: +SKIP
>>> mem = Memory("~/agent-workspace")  # doctest: +SKIP
>>> mem.history.append("User prefers metric units.")  # doctest: +SKIP
1
"""

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
    ToolError,
    WorkspaceError,
)

__version__ = "0.1.0"

__all__ = [
    "CommandError",
    "Config",
    "ConfigError",
    "DreamError",
    "GitStoreError",
    "HistoryError",
    "NanomemError",
    "ProviderError",
    "ShaError",
    "ToolError",
    "WorkspaceError",
    "load_config",
]
