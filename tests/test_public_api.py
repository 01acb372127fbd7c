"""The curated public API: a sorted ``__all__`` that is exactly what the package exports."""

from __future__ import annotations

import types

import pytest

import nanomem


def _exported_names() -> set[str]:
    """Public names bound in the package namespace, lazy ones loaded, submodules left out."""
    for name in nanomem.__all__:
        getattr(nanomem, name)
    return {
        name
        for name, value in vars(nanomem).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }


def test_public_api_all_is_sorted_and_unique() -> None:
    assert nanomem.__all__ == sorted(set(nanomem.__all__))


def test_public_api_all_is_exactly_the_public_names_of_the_package() -> None:
    assert _exported_names() == set(nanomem.__all__)


def test_public_api_every_name_imports_from_the_package() -> None:
    namespace: dict[str, object] = {}
    exec("from nanomem import *", namespace)  # noqa: S102 - what `import *` users get

    missing = [name for name in nanomem.__all__ if name not in namespace]

    assert missing == []


def test_public_api_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'gitstore'"):
        nanomem.gitstore  # noqa: B018 - internal modules are not part of the API


def test_public_api_offers_memory_its_results_and_the_chat_model_protocol() -> None:
    from nanomem import ChatModel, ChatResponse, CommitInfo, DreamResult, Memory, RestoreResult  # noqa: F401

    assert {"Memory", "DreamResult", "CommitInfo", "RestoreResult", "HistoryEntry",
            "ConsolidationResult", "ChatModel", "ChatRequest", "ChatResponse", "ToolCall",
            "Usage"} <= set(nanomem.__all__)
    assert nanomem.__version__.count(".") == 2


@pytest.mark.slow
def test_public_api_hot_path_import_does_not_load_git() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nanomem, nanomem.store.history, nanomem.consolidate.run, "
        "nanomem.store.sessions; "
        "print(sorted(m for m in sys.modules if m.startswith(('dulwich', 'nanomem.versions.gitstore'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
