"""The recall benchmark's data, matching rules and harness (benchmarks/recall/)."""

from __future__ import annotations

import asyncio
import doctest
import importlib
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from benchmarks.recall.data import (
    CATEGORIES,
    CONVERSATIONS_DIR,
    DataError,
    check_conversation,
    load_conversations,
    normalise,
    parse_conversation,
    read_conversation,
)
from nanomem.memory import Memory

from benchmarks.recall.replay import recall_config, replay
from benchmarks.recall.report import QuestionOutcome, ratio, render_targets, totals
from benchmarks.recall.run import main, score_conversation
from benchmarks.recall.scoring import RawBM25, holds_answer, pack, recall_at, tokens

ALL = load_conversations("all")
TINY_WINDOW = {"context_window": 1_200}  # a prompt budget of 80 tokens: the tiny script overflows


def tiny(**changes: object) -> dict:
    obj = {
        "id": "tiny", "split": "dev", "language": "en",
        "speakers": {"user": "Ada", "assistant": "Bo"},
        "sessions": [
            {"id": "s01", "date": "2026-03-02 19:00", "turns": [
                {"id": "s01-t01", "speaker": "Ada", "text": "I adopted a grey cat called Pixel on Saturday."},
                {"id": "s01-t02", "speaker": "Bo", "text": "Lovely, send photos."},
                {"id": "s01-t03", "speaker": "Ada", "text": "My book club meets at the Ivy Cafe now."},
                {"id": "s01-t04", "speaker": "Bo", "text": "Nice place."},
            ]},
            {"id": "s02", "date": "2026-03-20 09:30", "turns": [
                {"id": "s02-t01", "speaker": "Ada", "text": "We moved the book club to the library."},
                {"id": "s02-t02", "speaker": "Bo", "text": "Quieter, I bet."},
            ]},
        ],
        "questions": [
            {"id": "q01", "question": "What is Ada's cat called?", "answer": "Pixel",
             "evidence": ["s01-t01"], "category": "single-hop"},
            {"id": "q02", "question": "When did Ada adopt the cat?", "answer": "2026-02-28",
             "alternatives": ["28 February"], "evidence": ["s01-t01"], "category": "temporal",
             "derived": True, "derive": {"turn": "s01-t01", "days": -2}},
            {"id": "q03", "question": "Where does the book club meet now?", "answer": "library",
             "evidence": ["s02-t01", "s01-t03"], "category": "changed-fact"},
        ],
    }
    obj.update(changes)
    return obj


def test_recall_data_has_every_split_and_chinese():
    splits = {c.split for c in ALL}
    assert splits == {"dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5",
                      "heldout6", "heldout7", "heldout8", "heldout9", "heldout10",
                      "heldout11", "heldout12", "heldout13"}
    for split in splits:
        assert {c.language for c in ALL if c.split == split} >= {"en", "zh"}, split
    for conv in ALL:
        if conv.split in ("heldout2", "heldout3", "heldout4", "heldout5", "heldout6",
                          "heldout7", "heldout8", "heldout9", "heldout10", "heldout11",
                          "heldout12", "heldout13"):
            continue  # longer, checked below
        assert 8 <= len(conv.sessions) <= 15, conv.id
        assert 140 <= len(conv.turns) <= 300, conv.id
        assert 15 <= len(conv.questions) <= 30, conv.id
        assert len({t.speaker for t in conv.turns}) == 2, conv.id


def assert_long_split_questions(conv):
    """At least three derived dates; every category but chinese (English) or only chinese
    (Chinese, asked in Chinese); every multi-hop question cites two turns."""
    assert sum(q.derived for q in conv.questions) >= 3
    if conv.language == "zh":
        assert {q.category for q in conv.questions} == {"chinese"}
        assert all(re.search(r"[\u4e00-\u9fff]", q.question) for q in conv.questions)
    else:
        assert {q.category for q in conv.questions} == set(CATEGORIES) - {"chinese"}
    multi = [q for q in conv.questions if q.category == "multi-hop"]
    assert all(len(q.evidence) >= 2 for q in multi)


HELDOUT2 = [c for c in ALL if c.split == "heldout2"]


@pytest.mark.parametrize("conv", HELDOUT2, ids=[c.id for c in HELDOUT2])
def test_recall_heldout2_is_long_two_speaker_talk_over_months(conv):
    assert 15 <= len(conv.sessions) <= 20
    assert 400 <= len(conv.turns) <= 600
    for speaker in conv.speakers.values():
        assert 190 <= sum(t.speaker == speaker for t in conv.turns) <= 300, speaker
    assert (conv.sessions[-1].start - conv.sessions[0].start).days >= 90
    assert 20 <= len(conv.questions) <= 30
    assert_long_split_questions(conv)


def test_recall_heldout2_has_two_english_and_one_chinese_conversation():
    assert sorted(c.language for c in HELDOUT2) == ["en", "en", "zh"]
    assert load_conversations("heldout2") == HELDOUT2


HELDOUT3 = [c for c in ALL if c.split == "heldout3"]
HELDOUT4 = [c for c in ALL if c.split == "heldout4"]


@pytest.mark.parametrize("conv", HELDOUT3 + HELDOUT4, ids=[c.id for c in HELDOUT3 + HELDOUT4])
def test_recall_heldout3_and_heldout4_are_long_two_speaker_talk_over_months(conv):
    assert 14 <= len(conv.sessions) <= 18
    assert len(conv.turns) >= 330
    for speaker in conv.speakers.values():
        assert 0.4 * len(conv.turns) <= sum(t.speaker == speaker for t in conv.turns), speaker
    assert 90 <= (conv.sessions[-1].start - conv.sessions[0].start).days <= 245
    assert len(conv.questions) == 25
    assert_long_split_questions(conv)
    changed = [q for q in conv.questions if q.category == "changed-fact"]
    assert all(len(q.evidence) >= 2 for q in changed)


def test_recall_heldout3_has_two_english_and_one_chinese_conversation():
    assert sorted(c.language for c in HELDOUT3) == ["en", "en", "zh"]
    assert load_conversations("heldout3") == HELDOUT3


def test_recall_heldout4_has_one_english_and_one_chinese_conversation():
    assert sorted(c.language for c in HELDOUT4) == ["en", "zh"]
    assert load_conversations("heldout4") == HELDOUT4


# (split, year, sessions, days from first to last session, turns, questions)
RECENT_SHAPES = [
    ("heldout5", 2027, (12, 16), (60, 123), (350, 450), (22, 28)),
    ("heldout6", 2028, (12, 14), (60, 184), (400, 450), (24, 28)),
    ("heldout7", 2029, (12, 14), (60, 184), (400, 450), (24, 28)),
    ("heldout8", 2030, (12, 14), (60, 184), (380, 450), (24, 28)),
    ("heldout9", 2031, (12, 15), (60, 184), (380, 450), (24, 30)),
    ("heldout10", 2032, (12, 15), (60, 184), (380, 450), (24, 30)),
    ("heldout11", 2033, (12, 15), (60, 184), (380, 450), (24, 30)),
    ("heldout12", 2034, (12, 15), (60, 184), (380, 450), (24, 30)),
    ("heldout13", 2035, (12, 15), (60, 184), (380, 450), (24, 30)),
]
RECENT = [(shape, c) for shape in RECENT_SHAPES for c in ALL if c.split == shape[0]]


@pytest.mark.parametrize("shape, conv", RECENT, ids=[f"{s[0]}-{c.id}" for s, c in RECENT])
def test_recall_recent_split_is_long_two_speaker_talk_over_months_of_its_year(shape, conv):
    _, year, sessions, days, turns, questions = shape
    assert sessions[0] <= len(conv.sessions) <= sessions[1]
    assert turns[0] <= len(conv.turns) <= turns[1]
    for speaker in conv.speakers.values():
        assert 0.4 * len(conv.turns) <= sum(t.speaker == speaker for t in conv.turns), speaker
    assert days[0] <= (conv.sessions[-1].start - conv.sessions[0].start).days <= days[1]
    assert all(s.start.year == year for s in conv.sessions)
    assert [s.start for s in conv.sessions] == sorted(s.start for s in conv.sessions)
    assert questions[0] <= len(conv.questions) <= questions[1]
    assert_long_split_questions(conv)
    changed = [q for q in conv.questions if q.category == "changed-fact"]
    assert all(len(q.evidence) >= 2 for q in changed)
    assert sum(len(q.evidence) >= 2 for q in conv.questions) >= 6  # changed facts and hops
    # answers said by either speaker: some evidence turns are the second speaker's
    speakers = {conv.turn(e).speaker for q in conv.questions for e in q.evidence}
    assert speakers == set(conv.speakers.values())


@pytest.mark.parametrize("split", [shape[0] for shape in RECENT_SHAPES])
def test_recall_recent_split_has_one_english_and_one_chinese_conversation(split):
    convs = [c for c in ALL if c.split == split]
    assert sorted(c.language for c in convs) == ["en", "zh"]
    assert load_conversations(split) == convs


def test_recall_long_split_answers_are_in_evidence_or_derived_by_offset():
    for conv in HELDOUT2 + HELDOUT3 + HELDOUT4 + [c for _, c in RECENT]:
        for q in conv.questions:
            assert all(conv.has_turn(e) for e in q.evidence), (conv.id, q.id)
            if q.derived:
                said = conv.turn(q.derive_turn).at.date()
                assert q.derive_turn in q.evidence, (conv.id, q.id)
                assert str(said + timedelta(days=q.derive_days)) == q.answer, (conv.id, q.id)
            else:
                texts = [normalise(conv.turn(e).text) for e in q.evidence]
                assert any(normalise(a) in t for a in q.answers for t in texts), (conv.id, q.id)


@pytest.mark.parametrize("conv", ALL, ids=[c.id for c in ALL])
def test_recall_data_validates(conv):
    assert check_conversation(conv) == []
    assert {q.category for q in conv.questions} <= set(CATEGORIES)


def test_recall_data_covers_every_category():
    assert {q.category for c in ALL for q in c.questions} == set(CATEGORIES)
    assert any(q.derived for c in ALL for q in c.questions)


def test_recall_check_reports_missing_evidence_and_absent_answer():
    bad = tiny()
    bad["questions"][0]["evidence"] = ["s09-t01"]
    bad["questions"][2]["answer"] = "the pub"
    problems = check_conversation(parse_conversation(bad, source="tiny.json"))
    assert any("q01" in p and "s09-t01" in p for p in problems)
    assert any("q03" in p and "the pub" in p for p in problems)


def test_recall_check_reports_wrong_derived_date():
    bad = tiny()
    bad["questions"][1]["derive"]["days"] = -3
    problems = check_conversation(parse_conversation(bad, source="tiny.json"))
    assert problems == ["tiny.json q02: 2026-03-02 -3 days is 2026-02-27, not 2026-02-28"]


def test_recall_read_names_file_when_speaker_unknown(tmp_path):
    bad = tiny()
    bad["sessions"][0]["turns"][0]["speaker"] = "Eve"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.json session s01 turn s01-t01: speaker 'Eve'"):
        read_conversation(path)


def test_recall_holds_answer_normalises_case_width_and_space():
    assert holds_answer("Maya said:  THE   Soft Hours\nplayed", ["the soft hours"])
    assert holds_answer("周宁的狗叫可乐", ["可乐"])
    assert holds_answer("Ｐｉｘｅｌ the cat", ["pixel"])
    assert not holds_answer("a corgi called Cola", ["beagle", "Biscuit"])
    assert not holds_answer("anything", [""])


def test_recall_holds_derived_answer_only_with_every_evidence_turn():
    turns = ["I adopted a grey cat called Pixel on Saturday.", "Lovely, send photos."]
    block = "[2026-03-02] Ada: I adopted a grey cat called Pixel on Saturday."
    assert holds_answer(block, ["2026-02-28"], derived_from=turns[:1])
    assert not holds_answer(block, ["2026-02-28"], derived_from=turns)
    assert not holds_answer(block, ["2026-02-28"])


def test_recall_at_counts_share_of_evidence_in_first_k_hits():
    long_turn = "x" * 80 + " and then the tail that a search snippet may cut off"
    hits = ["unrelated", "prefix: " + "X" * 80 + " ...", "the cat sat on the mat"]
    evidence = [long_turn, "The cat sat on the mat"]
    assert recall_at(hits, evidence, 1) == 0.0
    assert recall_at(hits, evidence, 2) == 0.5
    assert recall_at(hits, evidence, 3) == 1.0
    assert recall_at(["the cat"], ["the cat sat on the mat"], 5) == 0.0


def test_recall_bm25_ranks_matching_turn_first_and_packs_budget():
    conv = parse_conversation(tiny(), source="tiny.json")
    bm25 = RawBM25(conv.turns)
    assert bm25.ranked("What is the cat called?")[0] == (
        "[2026-03-02] Ada: I adopted a grey cat called Pixel on Saturday."
    )
    block = bm25.block("book club", 60)
    assert block == "[2026-03-20] Ada: We moved the book club to the library."
    assert len(bm25.block("book club", 200)) <= 200
    assert pack(["abc", "defgh", "ij"], 6) == "abc\nij"
    assert "可乐" in tokens("狗叫可乐")


def test_recall_totals_skip_na_and_ratio_needs_both():
    rows = [
        QuestionOutcome("c", "dev", "q1", "temporal", {"ctx(2000,q)": 1.0, "bm25@2000": 0.0}),
        QuestionOutcome("c", "dev", "q2", "temporal", {"ctx(2000,q)": 1.0, "bm25@2000": 1.0}),
        QuestionOutcome("c", "dev", "q3", "temporal", {"ctx(2000,q)": None, "bm25@2000": 1.0}),
    ]
    t = totals(rows)
    assert t == {"ctx(2000,q)": 1.0, "bm25@2000": pytest.approx(2 / 3)}
    assert ratio(t) == pytest.approx(1.5)
    assert ratio({"ctx(2000,q)": None, "bm25@2000": 0.5}) is None
    assert "= 1.50 (target >= 1.3, met)" in render_targets(rows)


def test_recall_harness_scores_tiny_conversation_end_to_end(tmp_path):
    conv = parse_conversation(tiny(), source="tiny.json")
    root = tmp_path / "ws"
    replayed, rows = asyncio.run(score_conversation(conv, root, overrides=TINY_WINDOW))
    assert (replayed.turns, replayed.via) == (6, "record_turn")
    assert replayed.archived > 0
    assert replayed.dreams.get("committed", 0) >= 1
    assert [r.question for r in rows] == ["q01", "q02", "q03"]
    questions = {q.id: q for q in conv.questions}
    with Memory(root, config=recall_config(root, TINY_WINDOW)) as memory:
        plain = {b: memory.context(b) for b in (1000, 2000)}
        asked = {q.id: {b: len(memory.context(b, query=q.question)) for b in (1000, 2000)}
                 for q in conv.questions}  # BM25 gets the characters of the block it faces
    for row in rows:
        assert row.chars == asked[row.question]
        # the whole tiny conversation fits in that many characters, so raw BM25 holds it all
        assert row.metrics["bm25@1000"] == row.metrics["bm25@2000"] == 1.0
        q = questions[row.question]
        derived = [conv.turn(e).text for e in q.evidence] if q.derived else ()
        assert row.metrics["ctx(2000)"] == float(
            holds_answer(plain[2000], q.answers, derived_from=derived)
        )
    assert replayed.session.parent == root / "sessions"
    session = replayed.session.read_text(encoding="utf-8")
    assert '"name": "Ada"' in session and '"timestamp": "2026-03-20T09:30:00"' in session


def test_recall_replay_without_record_turn_writes_session_and_archives(tmp_path):
    conv = parse_conversation(tiny(), source="tiny.json")
    replayed = asyncio.run(replay(conv, tmp_path / "ws", overrides=TINY_WINDOW,
                                  use_record_turn=False))
    assert replayed.via == "session file"
    assert replayed.archived > 0 and replayed.consolidations.get("archived", 0) >= 1
    lines = replayed.session.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 6  # the metadata line, then every turn
    assert json.loads(lines[1])["content"] == conv.turns[0].text


@pytest.mark.parametrize("name", ["data", "scoring", "report"])
def test_recall_docstring_examples_hold(name):
    module = importlib.import_module(f"benchmarks.recall.{name}")
    assert doctest.testmod(module).failed == 0


def test_recall_main_rejects_unknown_conversation(capsys):
    assert main(["--conversation", "no-such-id"]) == 2
    assert "no conversation matches" in capsys.readouterr().err


def test_recall_files_live_under_split_folders():
    for conv in ALL:
        assert Path(conv.source).parent == CONVERSATIONS_DIR / conv.split
