"""The curated public API: a sorted ``__all__`` whose every name imports."""

from __future__ import annotations

import pytest

import nanomem


def test_public_api_all_is_sorted_and_unique() -> None:
    assert nanomem.__all__ == sorted(set(nanomem.__all__))


def test_public_api_every_name_imports_from_the_package() -> None:
    namespace: dict[str, object] = {}
    exec("from nanomem import *", namespace)  # noqa: S102 - what `import *` users get

    missing = [name for name in nanomem.__all__ if name not in namespace]

    assert missing == []


def test_public_api_offers_memory_and_its_result_types() -> None:
    from nanomem import CommitInfo, DreamResult, Memory, RestoreResult  # noqa: F401

    assert {"Memory", "DreamResult", "CommitInfo", "RestoreResult", "HistoryEntry",
            "ConsolidationResult"} <= set(nanomem.__all__)
    assert nanomem.__version__.count(".") == 2


@pytest.mark.slow
def test_public_api_hot_path_import_does_not_load_git() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nanomem.store.history, nanomem.consolidate.run, nanomem.store.sessions; "
        "print(sorted(m for m in sys.modules if m.startswith(('dulwich', 'nanomem.versions.gitstore'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
