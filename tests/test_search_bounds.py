"""Search in a big index (common terms) and the dates of history hits."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.config import Config
from nanomem.memory import Memory
from nanomem.search import index


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


@pytest.fixture
def mem(workspace: Path) -> Memory:
    memory = Memory(workspace, clock=_clock)
    yield memory
    memory.close()


def _one_turn_sessions(mem: Memory, texts: list[str]) -> None:
    for i, text in enumerate(texts):  # one session each: no windows
        mem.archive.append_messages(
            [{"role": "user", "content": text, "timestamp": f"2026-05-08T09:{i:02d}:00"}],
            session_key=f"s{i}", start=0, chunk=f"c{i}")


def test_search_of_only_common_words_ranks_the_newest_matches(
        mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "COMMON_FLOOR", 4)
    monkeypatch.setattr(index, "COMMON_RECENT", 3)
    # "tea" is in every turn; the oldest turn says it most, which BM25 alone would rank first
    _one_turn_sessions(mem, ["tea tea tea tea", *(f"tea and biscuit {i}" for i in range(9))])

    hits = mem.search("tea", sources=["archive"])

    assert [h.text for h in hits] == [f"tea and biscuit {i}" for i in (8, 7, 6)]


def test_search_keeps_a_rare_word_when_the_others_are_common(
        mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "COMMON_FLOOR", 4)
    monkeypatch.setattr(index, "COMMON_RECENT", 3)
    _one_turn_sessions(mem, ["tea with the harbour pilot", *(f"tea and biscuit {i}" for i in range(9))])

    assert [h.text for h in mem.search("tea pilot")] == ["tea with the harbour pilot"]


def test_search_leaves_out_an_irregular_form_as_common_as_a_stop_word(
        mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "COMMON_FLOOR", 4)
    _one_turn_sessions(mem, ["the pilot caught the early tide", "we caught a cold", *(
        f"caught the bus {i}" for i in range(8))])

    assert [h.text for h in mem.search("When did the pilot catch it?")] == [
        "the pilot caught the early tide"]
    monkeypatch.setattr(index, "COMMON_FLOOR", 1000)  # a rare form is searched
    assert len(mem.search("When did the pilot catch it?", k=20)) == 10


def test_history_hit_is_dated_when_its_chunk_was_said(mem: Memory) -> None:
    messages = [{"role": "user", "content": text, "timestamp": f"2026-04-02T18:{i:02d}:00"}
                for i, text in enumerate(["I adopted a beagle called Biscuit", "he is lovely"])]
    mem.archive.append_messages(messages, session_key="cli", start=0, chunk="fp1")
    mem.history.append_many(["- [durable] Adopted a beagle called Biscuit"], session_key="cli",
                            chunk="fp1/2")
    mem.history.append_many(["- [durable] Has a beagle named Biscuit"], session_key="cli")

    hits = {h.text: h for h in mem.search("beagle Biscuit", sources=["history"])}

    assert hits["- [durable] Adopted a beagle called Biscuit"].timestamp == "2026-04-02 18:01"
    # no chunk in the archive: the time it was archived, as before
    assert hits["- [durable] Has a beagle named Biscuit"].timestamp == "2026-05-09 10:00"


def test_consolidated_history_hit_carries_the_said_at_time(workspace: Path) -> None:
    config = dataclasses.replace(Config(), context_window=1_400, max_completion_tokens=1_024,
                                 safety_buffer=96)
    memory = Memory(workspace, config=config, clock=_clock)
    try:
        for day in range(1, 7):  # said in March, consolidated (archived) in May
            said = datetime(2026, 3, day, 9, 0)
            turn = [{"role": "user", "content": f"I've decided: the brewery job {day} starts on "
                     f"Monday, and I will cycle there every day. {'More words. ' * 20}",
                     "timestamp": said.isoformat()},
                    {"role": "assistant", "content": "Congratulations!", "timestamp": said.isoformat()}]
            asyncio.run(memory.arecord_turn("cli", turn, now=said))
        history = memory.search("brewery job", sources=["history"])
    finally:
        memory.close()

    assert history and all(h.timestamp.startswith("2026-03-") for h in history)
