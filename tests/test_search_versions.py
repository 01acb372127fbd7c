"""A changed fact's other version (stop 34, nanomem.search.versions): when a question asks for a
value that changed, the best hit's version neighbour (a turn of another day that shares its words
beyond the question's, at least three, said by the same speaker, one of the two reporting a change)
is pulled up beside it; a question that asks for no changed value, and a turn of the seed's own
day, are left as they were."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from nanomem.memory import Memory
from nanomem.search import versions
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)

OLD = "Saturday the 14th of June, Corrigan's boathouse. Bring a warm coat"
CHANGE = "The regatta dinner got moved, it's Friday the 13th of June now, still Corrigan's boathouse"
TALK = ["the regatta dinner tickets sold out on Monday", "the regatta dinner menu was set last week",
        "at the regatta dinner in May my cousin won a medal", "the regatta dinner speeches went on till midnight"]


def _replay(mem: Memory) -> None:
    say(mem, ["the club finally fixed the scale, repainted the old shed and picked a date for the "
                    "regatta dinner, did you hear?", OLD], key="a", day=1)
    for day, text in enumerate(TALK, start=2):
        say(mem, [text, "ha, sounds like it"], key=f"t{day}", day=day)
    say(mem, ["Any news?", CHANGE], key="c", day=7)


def _first(mem: Memory, query: str, k: int) -> list[str]:
    return [h.text for h in mem.search(query, k=10)[:k]]


def test_versions_a_change_question_brings_the_other_version_beside_the_change(mem: Memory) -> None:
    _replay(mem)
    first = _first(mem, "When is the regatta dinner now?", 3)
    assert CHANGE in first and OLD in first


def test_versions_a_question_without_a_change_word_is_left_as_it_is() -> None:
    relevance = {1: 10.0, 2: 1.0}
    with closing(sqlite3.connect(":memory:")) as db:  # no table: a change-free question reads none
        assert versions.read_versions(db, relevance, "When is the regatta dinner?") == relevance


def _plan(turns: dict[int, tuple[str, str, str]], relevance: dict[int, float]) -> dict[int, float]:
    return versions.plan_versions(relevance, turns, "where is the kiln now?")


OTHER_DAY = ("d0", "Ines", "the kiln sits in Hollis barn, firing each Tuesday at dawn")


def test_versions_plan_pulls_the_other_version_of_another_day() -> None:
    turns = {1: ("d1", "Ines", "the kiln moved out of Hollis barn, firing Tuesday at noon"), 2: OTHER_DAY,
             3: ("d1", "Ines", "Hollis barn firing on Tuesday at dawn, then glazing"), 4: ("d2", "Ines", "lunch")}
    out = _plan(turns, {1: 10.0, 2: 1.0, 3: 3.0, 4: 2.0})
    assert out == {1: 10.0, 2: 10.0 * versions.PULL, 3: 3.0, 4: 2.0}  # 3 is of the seed's own day


def test_versions_plan_needs_the_same_speaker() -> None:
    turns = {1: ("d1", "Ines", "the kiln moved out of Hollis barn, firing Tuesday at noon"),
             2: ("d0", "Rafe", OTHER_DAY[2])}
    assert _plan(turns, {1: 10.0, 2: 1.0}) == {1: 10.0, 2: 1.0}


def test_versions_plan_needs_one_of_the_two_to_report_a_change() -> None:
    turns = {1: ("d1", "Ines", "the kiln in Hollis barn fired well on Tuesday at dawn"), 2: OTHER_DAY}
    assert _plan(turns, {1: 10.0, 2: 1.0}) == {1: 10.0, 2: 1.0}


def test_versions_plan_needs_three_shared_words_beyond_the_question() -> None:
    seed = ("d1", "Ines", "the kiln moved out of Hollis barn")
    two = {1: seed, 2: ("d0", "Ines", "the kiln is cold now, Hollis barn")}  # kiln and now are asked
    three = {1: seed, 2: ("d0", "Ines", "the kiln is cold now, Hollis barn moved")}
    assert _plan(two, {1: 10.0, 2: 1.0}) == {1: 10.0, 2: 1.0}
    assert _plan(three, {1: 10.0, 2: 1.0}) == {1: 10.0, 2: 10.0 * versions.PULL}
