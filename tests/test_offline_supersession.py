"""Session 24 (round-12 study): slot supersession by name, Traditional Chinese read as
Simplified, chat fixes (a starred fix, a denial then the value), a rate's unit, a Chinese
statement of who is the speaker's. Every sentence here is new: none is copied from a conversation."""

from __future__ import annotations

from nanomem.engines.offline.chatfix import recent_lines, starred_fix
from nanomem.engines.offline.dream import corrected_text
from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.reslot import implied_correction
from nanomem.engines.offline.slots import trim_correction
from nanomem.engines.offline.supersede import named_values
from nanomem.text.hant import fold_hant, restore_hant


def test_a_name_in_a_slot_frame_names_its_slot() -> None:
    assert [(k, v) for k, v, _, _ in named_values("Our landlord is Priya Nair.")] == [("@name:landlord", "priya nair")]
    assert [(k, v) for k, v, _, _ in named_values("Tomasz Wrona is my accountant now.")] == [
        ("@name:accountant", "tomasz wrona")]
    assert named_values("Priya came round with cake.") == []  # a name outside a frame sets no slot


def test_a_new_name_in_the_same_frame_replaces_the_line_without_a_cue() -> None:
    files = {"USER.md": "- My accountant is Helen Ng, she does the VAT\n- My dentist is Raj Patel"}
    assert implied_correction("Tomasz Wrona is my accountant now.", files) == (
        "USER.md", "- My accountant is Helen Ng, she does the VAT")


def test_a_name_in_another_slot_replaces_nothing() -> None:
    files = {"USER.md": "- My accountant is Helen Ng"}
    assert implied_correction("My dentist is Raj Patel.", files) is None
    assert implied_correction("Helen Ng is my accountant.", files) is None  # the same value: nothing new


def test_a_chinese_place_of_the_same_kind_replaces_the_line() -> None:
    files = {"USER.md": "- 儿子在育才小学读三年级"}
    assert implied_correction("儿子转到实验小学了，离家近。", files) == ("USER.md", "- 儿子在育才小学读三年级")
    assert implied_correction("儿子周末去人民医院打针。", files) is None  # a hospital is not the school


def test_the_clause_about_the_old_holder_goes() -> None:
    trimmed = trim_correction("Helen retired, so Tomasz Wrona is my accountant now.", "- Helen Ng is my accountant")
    assert "Helen" not in trimmed and "Tomasz Wrona is my accountant now." in trimmed


def test_a_clause_with_an_identifier_of_its_own_outlives_a_new_holder() -> None:
    line = "- The boiler is a Vaillant, the serial is VB-2231, and the plumber is a chap called Dev Shah."
    new = corrected_text("We've got a new plumber now, Gary Holt.", line)
    assert "Gary Holt" in new and "VB-2231" in new and "Dev Shah" not in new


def test_traditional_chinese_is_judged_as_simplified_and_kept_as_written() -> None:
    assert fold_hant("預約時間記錯了") == "预约时间记错了"
    assert restore_hant("时间记错了", fold_hant("預約時間記錯了"), "預約時間記錯了") == "時間記錯了"
    assert extract_facts(["下週二的復診改到週四上午十點。"]) == [("correction", "下週二的復診改到週四上午十點。")]
    assert extract_facts(["我對芒果過敏。"]) == [("permanent", "我對芒果過敏。")]


def test_a_starred_fix_corrects_the_token_it_resembles() -> None:
    assert extract_facts(["the gate code at the allotment is 4417", "*4471 oops"]) == [
        ("durable", "the gate code at the allotment is 4417"), ("correction", "the gate code at the allotment is 4471")]
    assert starred_fix("*4471", ["my cat is called Biscuit"]) is None  # nothing it resembles
    assert starred_fix("4471", ["the gate code is 4417"]) is None  # no star, no fix
    lines = recent_lines({"USER.md": "# User\n- the gate code is 4417 <!-- said -->\n"}, [])
    assert starred_fix("*4471 sorry", lines) == "the gate code is 4471"


def test_a_denial_then_a_bare_value_is_one_correction() -> None:
    assert extract_facts(["No, is not Tuesday, I mixed it up with the yoga. Is Friday."]) == [
        ("correction", "No, is not Tuesday, I mixed it up with the yoga. Is Friday.")]


def test_a_rate_per_unit_sets_its_slot_anew() -> None:
    files = {"USER.md": "- tutoring is 20 an hour for the twins"}
    assert implied_correction("22.50 an hour from March for the twins", files) == (
        "USER.md", "- tutoring is 20 an hour for the twins")


def test_a_chinese_statement_of_who_is_the_speakers_is_kept() -> None:
    assert extract_facts(["我妹雅婷在高雄念書，很少回家"]) == [("durable", "我妹雅婷在高雄念書，很少回家")]
    assert extract_facts(["我住板桥，上班要转两次车"]) == [("durable", "我住板桥，上班要转两次车")]
    assert extract_facts(["我好累啊"]) == []
