"""Forget and recall: the verbatim archive and the derived index lose the fact; search still works."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.forget_fixtures import FACT, OTHER, byte_hits, close_opened, memory, plant


@pytest.fixture(autouse=True)
def _close_memories():
    yield
    close_opened()


def test_forget_removes_the_fact_from_the_archive_and_the_index_and_search_rebuilds(
    workspace: Path,
) -> None:
    plant(workspace)
    mem = memory(workspace)
    mem.archive.append_messages(
        [{"role": "user", "content": f"Met {FACT} at the market.", "timestamp": "2026-03-02T10:00:00"},
         {"role": "user", "content": f"{OTHER} in the morning.", "timestamp": "2026-03-02T10:01:00"}],
        session_key="cli", start=10)
    assert mem.search("Zanzibar") and (workspace / "memory" / "index.sqlite3").exists()

    receipt = mem.forget(FACT)

    assert receipt.status == "forgotten" and receipt.counts["archive"] >= 2
    assert byte_hits(workspace) == []
    texts = [record.text for record in mem.archive.iter_records()]
    assert f"{OTHER} in the morning." in texts and not any("quokka" in t.lower() for t in texts)
    assert mem.search("Zanzibar") == []
    assert mem.search("green tea")
    assert byte_hits(workspace) == []  # the rebuilt index holds nothing of it either
