"""Chinese search (nanomem.search.terms, docs, index): speaker names, question words, single
characters."""

from __future__ import annotations

import contextlib
import logging
import sqlite3

import pytest

from nanomem.memory import Memory
from nanomem.search import terms
from nanomem.search.docs import render_fts_row
from tests.search_fixtures import fixed_clock, mem  # noqa: F401 (a fixture)


def say_as(mem: Memory, turns: list[tuple[str, str]], *, key: str = "cli", day: int = 8) -> None:
    """Archive ``(speaker name, text)`` turns as one chunk, user and assistant in turn."""
    mem.archive.append_messages(
        [{"role": "user" if i % 2 == 0 else "assistant", "name": name, "content": text,
          "timestamp": f"2026-05-{day:02d}T09:{i:02d}:00"} for i, (name, text) in enumerate(turns)],
        session_key=key, start=0, chunk=f"{key}{day}")


def test_fts_row_indexes_a_chinese_speaker_name_as_pairs() -> None:
    assert render_fts_row("archive", False, "好", "孟晓棠")[3] == "孟晓 晓棠 棠"
    assert render_fts_row("archive", False, "ok", "Ana Li")[3] == "ana li"


def test_search_finds_the_turns_of_a_chinese_speaker_by_name(mem: Memory) -> None:
    say_as(mem, [("孟晓棠", "今天去游泳了")], key="a")
    say_as(mem, [("小满", "游泳好啊")], key="b")  # another session: no window between them

    texts = [h.text for h in mem.search("晓棠", k=5)]

    assert texts == ["今天去游泳了"]


def test_search_ranks_a_chinese_speakers_answer_above_her_self_introduction(mem: Memory) -> None:
    # The question names the speaker; only the introduction says her name in its text. With the
    # name in the speaker column the name matches all her turns and weighs little.
    say_as(mem, [("孟晓棠", "我叫孟晓棠，在成都做室内设计")], key="a", day=1)
    say_as(mem, [("孟晓棠", "我的猫叫年糕，是一只三花")], key="b", day=2)
    say_as(mem, [("孟晓棠", "今天加班到很晚"), ("孟晓棠", "周末想去爬山")], key="c", day=3)

    hits = mem.search("晓棠的猫叫啥", k=2)

    assert hits[0].text == "我的猫叫年糕，是一只三花"


def test_plan_terms_cuts_chinese_question_words_and_particles() -> None:
    assert terms.plan_terms("晓棠的路考是几号？") == ['"晓棠"', '"路考"', '"号"*']
    assert terms.plan_terms("她在哪里工作") == ['"她在"', '"工作"']
    assert terms.plan_terms("是什么") == ['"是什"', '"什么"']  # nothing left: the run as it is


def test_search_is_not_led_by_a_question_asked_back(mem: Memory) -> None:
    say_as(mem, [("A", "六周以后是哪天啊？是哪天？"), ("B", "我也不知道是哪天")], key="a", day=1)
    say_as(mem, [("A", "笔试九十八分，过了")], key="b", day=2)
    for day, text in enumerate(("今天加班到很晚", "周末想去爬山", "晚饭吃了火锅", "猫又把杯子打翻了",
                                "下雨了，没带伞", "新买的椅子很舒服"), start=3):
        say_as(mem, [("A", text)], key=f"c{day}", day=day)  # ordinary turns: ordinary weights

    hits = mem.search("驾照笔试是哪天考的？", k=1)

    assert hits[0].text == "笔试九十八分，过了"


def test_plan_cjk_chars_gives_the_characters_left_after_the_cut() -> None:
    assert terms.plan_cjk_chars("考试过了吗？") == ['"考"', '"试"', '"过"']
    assert terms.plan_cjk_chars("When?") == []


def test_search_finds_a_chinese_turn_sharing_only_single_characters(mem: Memory) -> None:
    evidence = "前天考的，一把过！"  # no character pair in common with the question
    say_as(mem, [("A", evidence)], key="a")
    say_as(mem, [("B", "天气不错，出去走走")], key="b")

    hits = mem.search("考试过了吗？", k=5)

    assert [h.text for h in hits] == [evidence]


def test_index_of_schema_6_is_rebuilt_with_chinese_names_and_characters(
        mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    say_as(mem, [("孟晓棠", "前天考的，一把过！")])
    mem.search("考试")
    mem.close()
    with contextlib.closing(sqlite3.connect(mem.workspace.index)) as db:
        db.execute("PRAGMA user_version=6")
        db.commit()

    with caplog.at_level(logging.WARNING):
        again = Memory(mem.workspace.root, clock=fixed_clock)
        by_name, by_chars = again.search("晓棠"), again.search("考试过了吗？")
        again.close()

    assert [h.text for h in by_name] == [h.text for h in by_chars] == ["前天考的，一把过！"]
    assert "schema version 6, expected 7" in caplog.text
