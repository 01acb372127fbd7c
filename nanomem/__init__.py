"""nanomem: file-based long-term memory for LLM agents, versioned with git.

The supported API is what this package exports (``__all__``): :class:`Memory`, its result
records, the error tree, the configuration, and :class:`ChatModel` with its records for a
custom engine. Every submodule (``nanomem.store``, ``nanomem.dream``, …) is internal and may
change without notice.

>>> from nanomem import Memory  # doctest: +SKIP
>>> mem = Memory("~/agent-workspace")  # doctest: +SKIP
>>> mem.history.append("User prefers metric units.")  # doctest: +SKIP
1
>>> mem.handle_command("/memory")  # doctest: +SKIP
'**Memory status** ...'
"""

import importlib as _importlib
import typing as _typing

from nanomem.config import Config, load_config
from nanomem.errors import (
    CommandError,
    ConfigError,
    DreamError,
    ForgetError,
    GitStoreError,
    HistoryError,
    NanomemError,
    ProviderError,
    ShaError,
    WorkspaceError,
)

if _typing.TYPE_CHECKING:
    from nanomem.consolidate.run import ConsolidationResult
    from nanomem.consolidate.turn import TurnResult
    from nanomem.dream.run import DreamResult
    from nanomem.engines.chat import ChatModel, ChatRequest, ChatResponse, ToolCall, Usage
    from nanomem.forget.receipt import ForgetReceipt
    from nanomem.consolidate.facts import RememberResult
    from nanomem.jobs import DreamJob
    from nanomem.memory import Memory
    from nanomem.records import to_json
    from nanomem.status import FileStatus, JobState, LastDream, MemoryStatus
    from nanomem.store.historyfile import HistoryEntry
    from nanomem.text.context import render_context
    from nanomem.versions.commits import CommitInfo, RestoreResult

# Imported on first use, so that `import nanomem.store.history` (the hot path) never loads dulwich.
_LAZY = {
    "ChatModel": "nanomem.engines.chat",
    "ChatRequest": "nanomem.engines.chat",
    "ChatResponse": "nanomem.engines.chat",
    "CommitInfo": "nanomem.versions.commits",
    "ConsolidationResult": "nanomem.consolidate.run",
    "DreamJob": "nanomem.jobs",
    "DreamResult": "nanomem.dream.run",
    "FileStatus": "nanomem.status",
    "ForgetReceipt": "nanomem.forget.receipt",
    "HistoryEntry": "nanomem.store.historyfile",
    "JobState": "nanomem.status",
    "LastDream": "nanomem.status",
    "Memory": "nanomem.memory",
    "MemoryStatus": "nanomem.status",
    "RememberResult": "nanomem.consolidate.facts",
    "RestoreResult": "nanomem.versions.commits",
    "ToolCall": "nanomem.engines.chat",
    "TurnResult": "nanomem.consolidate.turn",
    "Usage": "nanomem.engines.chat",
    "render_context": "nanomem.text.context",
    "to_json": "nanomem.records",
}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'nanomem' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "CommandError",
    "CommitInfo",
    "Config",
    "ConfigError",
    "ConsolidationResult",
    "DreamError",
    "DreamJob",
    "DreamResult",
    "FileStatus",
    "ForgetError",
    "ForgetReceipt",
    "GitStoreError",
    "HistoryEntry",
    "HistoryError",
    "JobState",
    "LastDream",
    "Memory",
    "MemoryStatus",
    "NanomemError",
    "ProviderError",
    "RememberResult",
    "RestoreResult",
    "ShaError",
    "ToolCall",
    "TurnResult",
    "Usage",
    "WorkspaceError",
    "load_config",
    "render_context",
    "to_json",
]
