"""The search index: coverage, incremental updates, self-healing, secrets, CJK and ranking."""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.memory import Memory
from nanomem.search import terms
from nanomem.search.index import SearchIndex
from nanomem.store.archive import Archive
from nanomem.store.history import History
from nanomem.store.workspace import Workspace


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def _say(mem: Memory, texts: list[str], *, day: int = 8, key: str = "cli", start: int = 0,
         role: str = "user", name: str | None = None) -> None:
    messages = []
    for i, text in enumerate(texts):
        message: dict[str, object] = {"role": role, "content": text,
                                      "timestamp": f"2026-05-{day:02d}T09:{i % 60:02d}:00"}
        if name:
            message["name"] = name
        messages.append(message)
    mem.archive.append_messages(messages, session_key=key, start=start, chunk=f"{key}{start}{day}")


@pytest.fixture
def mem(workspace: Path) -> Memory:
    memory = Memory(workspace, clock=_clock)
    yield memory
    memory.close()


def test_search_finds_archive_history_and_file_lines(mem: Memory) -> None:
    _say(mem, ["We went to a pottery class on Saturday.", "The weather was grey."])
    mem.history.append("- [durable] Ana takes pottery classes.", session_key="cli")
    mem.workspace.user.write_text("# User\n\n## Facts\n- Loves pottery and tea.\n", "utf-8")

    hits = mem.search("pottery")

    assert {h.source for h in hits} == {"file", "history", "archive"}
    by_source = {h.source: h for h in reversed(hits)}  # the best hit of each source
    assert by_source["file"].path == "USER.md" and by_source["file"].line == 4
    assert by_source["history"].cursor == 1
    assert by_source["archive"].timestamp == "2026-05-08 09:00"
    assert by_source["archive"].role == "user" and by_source["archive"].session_key == "cli"


def test_search_ranks_a_memory_file_line_and_a_pinned_line_first(mem: Memory) -> None:
    # Three turns apart: neighbours share relevance (nanomem.search.window), lone turns do not.
    _say(mem, ["my cat is called Miso", "a", "b", "c", "the cat Miso sleeps"])
    mem.workspace.user.write_text("# User\n- Cat: Miso <!-- pin -->\n", "utf-8")
    mem.workspace.memory_md.write_text("# Memory\n- Miso the cat needs a vet visit\n", "utf-8")

    hits = mem.search("Miso cat")

    assert hits[0].pinned and hits[0].path == "USER.md"
    assert hits[1].source == "file"


def test_search_prefers_the_newer_of_two_equal_turns(mem: Memory) -> None:
    _say(mem, ["I work at the bakery on Elm Street", *(f"small talk {i}" for i in range(8))],
         day=1, start=0, key="a")
    _say(mem, ["I work at the bakery on Elm Street", *(f"small talk {i}" for i in range(8))],
         day=8, start=0, key="b")

    hits = [h for h in mem.search("bakery", sources=["archive"]) if "bakery" in h.text]

    assert [h.timestamp[:10] for h in hits] == ["2026-05-08", "2026-05-01"]
    assert hits[0].score > hits[1].score


def test_search_matches_two_character_chinese_words(mem: Memory) -> None:
    _say(mem, ["我下周去北京出差。", "周末我们去爬山了。", "我的猫叫小米"])

    assert mem.search("北京")[0].text == "我下周去北京出差。"
    assert mem.search("爬山")[0].text == "周末我们去爬山了。"
    assert mem.search("猫")[0].text == "我的猫叫小米"
    assert mem.search("上海") == []


def test_search_filters_by_date_and_source(mem: Memory) -> None:
    _say(mem, ["Trip planning for Lisbon"], day=1, start=0)
    _say(mem, ["Booked the Lisbon hotel"], day=8, start=1)
    mem.history.append("- [durable] Lisbon trip in June")

    since = mem.search("Lisbon", since="2026-05-05", sources=["archive"])
    until = mem.search("Lisbon", until="2026-05-01")
    history_only = mem.search("Lisbon", sources=["history"])

    assert [h.text for h in since] == ["Booked the Lisbon hotel"]
    assert [h.text for h in until] == ["Trip planning for Lisbon"]
    assert [h.source for h in history_only] == ["history"]


def test_search_rejects_bad_arguments_with_a_clear_error(mem: Memory) -> None:
    with pytest.raises(ValueError, match="k >= 1"):
        mem.search("x", k=0)
    with pytest.raises(ValueError, match="unknown search source 'notes'"):
        mem.search("x", sources=["notes"])
    with pytest.raises(ValueError, match="'May 1' is not a date"):
        mem.search("x", since="May 1")


def test_search_of_only_punctuation_returns_nothing(mem: Memory) -> None:
    _say(mem, ["hello there"])

    assert mem.search("?!...") == []


def test_search_never_indexes_template_text_or_headings(mem: Memory) -> None:
    assert mem.search("Dream keeps this file") == []
    assert mem.search("Facts") == []


def test_index_update_reads_only_what_is_new(mem: Memory) -> None:
    _say(mem, [f"note number {i}" for i in range(20)])
    first = mem.index.update()
    second = mem.index.update()
    _say(mem, ["one more note"], start=100)
    mem.history.append("a history line")
    third = mem.index.update()

    assert (first.archive, first.rebuilt) == (20, True)
    assert (second.archive, second.history, second.files) == (0, 0, 0)
    assert (third.archive, third.history) == (1, 1)


def test_index_reindexes_a_memory_file_when_it_changes(mem: Memory) -> None:
    mem.workspace.user.write_text("# User\n- Lives in Porto\n", "utf-8")
    assert [h.text for h in mem.search("Porto")] == ["- Lives in Porto"]

    mem.workspace.user.write_text("# User\n- Lives in Braga\n", "utf-8")

    assert mem.search("Porto") == []
    assert [h.text for h in mem.search("Braga")] == ["- Lives in Braga"]


def test_an_open_index_notices_its_file_was_deleted_by_another_process(mem: Memory) -> None:
    _say(mem, ["the blue kayak is in the garage"])
    assert mem.search("kayak")  # the connection stays open
    segment = mem.archive.segments()[0]
    segment.write_bytes(b"")  # what a forget does: rewrite the archive, delete the index
    for path in mem.workspace.memory_dir.glob("index.sqlite3*"):
        path.unlink()

    assert mem.search("kayak") == []


def test_index_is_rebuilt_after_it_is_deleted(mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    _say(mem, ["the blue kayak is in the garage"])
    assert mem.search("kayak")
    mem.close()

    mem.workspace.index.unlink()

    assert [h.text for h in Memory(mem.workspace.root).search("kayak")] == [
        "the blue kayak is in the garage"]


@pytest.mark.parametrize("damage", [b"this is not a database at all" * 100, b""])
def test_index_is_rebuilt_with_a_warning_when_corrupt(
    mem: Memory, caplog: pytest.LogCaptureFixture, damage: bytes
) -> None:
    _say(mem, ["the blue kayak is in the garage"])
    assert mem.search("kayak")
    mem.close()
    for suffix in ("-wal", "-shm"):
        Path(str(mem.workspace.index) + suffix).unlink(missing_ok=True)
    data = mem.workspace.index.read_bytes()
    mem.workspace.index.write_bytes(data[:100] + damage + data[100 + len(damage):] if damage
                                    else b"\0" * len(data))

    with caplog.at_level(logging.WARNING):
        hits = Memory(mem.workspace.root).search("kayak")

    assert [h.text for h in hits] == ["the blue kayak is in the garage"]
    assert "rebuilding it from the files" in caplog.text


def test_index_with_another_schema_version_is_rebuilt(mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    _say(mem, ["the blue kayak is in the garage"])
    mem.search("kayak")
    mem.close()
    with sqlite3.connect(mem.workspace.index) as db:
        db.execute("PRAGMA user_version=99")
    db.close()

    with caplog.at_level(logging.WARNING):
        hits = Memory(mem.workspace.root).search("kayak")

    assert len(hits) == 1 and "schema version 99" in caplog.text


def test_index_notices_a_rewritten_archive_segment(mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    _say(mem, ["alpha one", "bravo two", "charlie three"])
    assert mem.search("bravo")
    segment = mem.archive.segments()[0]
    lines = segment.read_bytes().split(b"\n")
    segment.write_bytes(b"\n".join(line for line in lines if b"bravo" not in line))

    with caplog.at_level(logging.WARNING):
        assert mem.search("bravo") == []
    # "alpha one" comes along as the turn next to it (nanomem.search.window); "bravo two" is gone
    assert [h.text for h in mem.search("charlie")] == ["charlie three", "alpha one"]
    assert "was rewritten" in caplog.text


def test_secrets_never_reach_the_archive_or_the_index(mem: Memory) -> None:
    secret = "sk-proj-Abc123def456ghi789jkl012"
    _say(mem, [f"my openai key is {secret} keep it"])
    mem.history.append(f"- [durable] key {secret}")
    mem.workspace.user.write_text(f"# User\n- token {secret}\n", "utf-8")

    hits = mem.search("key token openai")
    mem.close()

    assert hits and all(secret not in h.text for h in hits)
    for path in [*mem.archive.segments(), *mem.workspace.memory_dir.glob("index.sqlite3*")]:
        assert secret.encode() not in path.read_bytes(), path


def test_search_works_when_the_workspace_cannot_be_written(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ws = Workspace(workspace)
    Archive(ws, clock=_clock).append_messages(
        [{"role": "user", "content": "read only kayak", "timestamp": "2026-05-08T10:00:00"}],
        session_key="cli", start=0, chunk="c")
    index = SearchIndex(ws, history=History(ws), archive=Archive(ws),
                        path=workspace / "no-such-dir" / "index.sqlite3")

    with caplog.at_level(logging.WARNING):
        hits = index.search("kayak")
    index.close()

    assert [h.text for h in hits] == ["read only kayak"]
    assert "in-memory index" in caplog.text
    assert not (workspace / "no-such-dir").exists()


def test_plan_terms_drops_stop_words_unless_nothing_else_is_left() -> None:
    assert terms.plan_terms("What did she say about the trip?") == ['"trip"']
    assert terms.plan_terms("the") == ['"the"']
    assert terms.plan_terms('a "quoted" word') == ['"quoted"', '"word"']


def test_search_index_closes_its_connection_when_dropped_without_close(workspace: Path) -> None:
    import gc
    import weakref

    memory = Memory(workspace)
    memory.history.append("- [durable] The boat is moored at pier 9.")
    assert memory.search("boat")
    db = memory.index._db
    assert db is not None
    index_ref = weakref.ref(memory.index)
    del memory
    gc.collect()
    assert index_ref() is None
    with pytest.raises(sqlite3.ProgrammingError):  # closed: Python 3.13 would warn otherwise
        db.execute("SELECT 1")
