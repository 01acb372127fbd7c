"""Session 34 (round-20 study): corrections that do not name the old value (the subject of a
Chinese verb of change with another number or place, a thing traded in or told wrong, a count
written as a word, a thing moved and where it is now), phrases cut by ellipses, Caribbean English
Creole pronouns, a 【】 label heading a message, a Chinese relative without 我, a quoted prize
text, "this whole week", and an ephemeral line's place that is no standing slot. Every sentence
here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.dream import find_corrected
from nanomem.engines.offline.engine import extract_dated_facts


def _kept(*messages: str) -> list[tuple[str, str]]:
    return [(mark, text) for mark, text, _ in extract_dated_facts((m, None) for m in messages)]


# --- the subject of a Chinese verb of change names the slot -------------------------------------

_CHOIR = "- 我在小区合唱团当团长，团员一年交80块团费，负责排练和演出。"
_RIDES = "- 我们车队每周搞一次活动，一般都去南山那边骑，路好走。"
_SHOW = "- 七月初有个书法展览，在西湖边上，我报了两幅字。"
_SHIFT = "- 我跟小王轮班 他上白班 我上夜班 六点钟换班"


@pytest.mark.parametrize(("correction", "line"), [
    ("今年场地涨价了，团费改成一个人100块，下个月起收。", _CHOIR),
    ("那边修路了。以后车队活动改到北湖去。", _RIDES),
    ("展览的地方我记错了，那个展览是在东湖，不是我说的那里。", _SHOW),
])
def test_a_chinese_correction_replaces_the_line_that_holds_the_subject_of_its_change(correction: str, line: str) -> None:
    files = {"USER.md": f"## Facts\n- 我喜欢喝茶，每天早上一杯。\n{line}\n{_SHIFT}\n"}
    assert find_corrected(correction, files) == ("USER.md", line)


def test_the_subject_alone_without_a_new_number_or_place_chooses_no_line() -> None:
    files = {"USER.md": f"## Facts\n{_SHIFT}\n{_CHOIR}\n"}
    assert find_corrected("换班改到七点了，晚上人多。", files) is None  # no value of a kind the line holds
    assert find_corrected("团费改成一个人100块。", files) == ("USER.md", _CHOIR)


def test_a_correction_that_trades_in_a_named_thing_replaces_the_line_that_names_the_old_one() -> None:
    line = "- my van's a white Vauxhall Combo..."
    files = {"USER.md": f"## Facts\n- I like my tea strong\n{line}\n"}
    assert _kept("traded in the old van at the dealer in Leek Monday... picked up a Transit...")[0][0] == "correction"
    assert find_corrected("traded in the old van at the dealer in Leek Monday... picked up a Transit...", files) == ("USER.md", line)


# --- a count written as a word is a number of what it counts ------------------------------------

def test_a_count_written_as_a_word_sets_the_count_of_the_same_thing_anew() -> None:
    from nanomem.engines.offline.reslot import implied_correction

    line = "- We run thirty-two hives on the moor, mostly Buckfast."
    files = {"MEMORY.md": f"## Facts\n- The honey shed is by the gate.\n{line}\n"}
    assert implied_correction("After the winter losses we're down to twenty-five hives.", files) == ("MEMORY.md", line)
    assert implied_correction("We keep twenty-five hens as well.", files) is None  # another thing counted


# --- an ellipsis before a lower-case word is a pause, not a sentence end --------------------------

def test_phrases_cut_by_ellipses_are_judged_as_one_sentence_and_kept_in_the_speakers_words() -> None:
    message = "when you send me the weather... give it in Fahrenheit... them Celsius numbers mean nothing to me"
    assert _kept(message) == [("durable", message)]
    message = "I run the feed store... out on Route 9 past Gilley's... been at it since 1988"
    assert [text for _, text in _kept(message)] == [message]


def test_an_admitted_wrong_telling_is_a_correction() -> None:
    assert _kept("Marlene says I told you wrong about the dog's name... it's Rusty...")[0][0] == "correction"
    assert _kept("I gave you the wrong street for the shop, it's on Carver Street.")[0][0] == "correction"


# --- Caribbean English Creole pronouns: ah for I, meh for my -------------------------------------

@pytest.mark.parametrize(("message", "mark"), [
    ("Ah from Point Fortin, ah move to Chaguanas after school.", "permanent"),
    ("Put meh brother Ravi, he does live in Arima.", "durable"),
])
def test_a_creole_speakers_own_world_is_kept_in_their_words(message: str, mark: str) -> None:
    assert _kept(message) == [(mark, message)]


def test_ah_before_a_verb_and_meh_before_a_relative_are_read_as_i_and_my_and_nothing_else() -> None:
    from nanomem.text.vernacular import standard_pronouns

    assert standard_pronouns("Ah does sell roti. Ah, that is true. Give meh the list.") == (
        "I does sell roti. Ah, that is true. Give meh the list.")


def test_a_thing_moved_and_where_it_is_now_is_a_correction_of_where_it_was() -> None:
    message = "they went and moved the quilting bee... it's at the Rowan Hill grange hall now... the old room flooded"
    assert _kept(message) == [("correction", message)]
    line = "- Tuesdays I go to the quilting bee at the Dry Fork grange hall"
    files = {"USER.md": f"## Facts\n- I keep bees too\n{line}\n"}
    assert find_corrected(message, files) == ("USER.md", line)


def test_an_admitted_wrong_telling_of_a_things_name_replaces_the_line_naming_it_and_keeps_its_other_clauses() -> None:
    from nanomem.engines.offline.dream import corrected_text

    correction = "Wanda says I told you wrong about the foal's name... it's going to be Juniper..."
    line = "- my niece Carla's got a mare at Pine Ridge... due in June... they'll name the foal Biscuit"
    files = {"USER.md": f"## Facts\n- I keep two mules\n{line}\n"}
    assert find_corrected(correction, files) == ("USER.md", line)
    written = corrected_text(correction, line)
    assert "Juniper" in written and "Biscuit" not in written and "Pine Ridge" in written


def test_a_creole_present_state_after_a_change_is_a_correction() -> None:
    message = "Boss change meh shift, ah on the night crew now, the day crew too full"
    assert _kept(message) == [("correction", message)]


def test_where_a_moment_happened_is_no_standing_slot_for_a_plain_fact() -> None:
    from nanomem.engines.offline.reslot import implied_correction

    fact = "我女儿在仁济医院当护士，每个月回来一趟。"
    files = {"MEMORY.md": "## Facts\n- 今天在同仁医院排队看眼睛，前面还有十几个人。 <!-- ephemeral 2031-03-02 -->\n"}
    assert implied_correction(fact, files) is None
    files = {"MEMORY.md": "## Facts\n- 我女儿在同仁医院当护士，每个月回来一趟。\n"}  # a standing line is a slot
    assert implied_correction(fact, files) is not None


def test_a_quoted_prize_text_with_a_link_is_not_the_persons_fact() -> None:
    message = ('My cousin forward me this, is true?\n\n"You have been selected for a R5,000 voucher in the Digicel '
               'Summer Promo. Click http://digi-promo.win/v to claim today."')
    assert all("Digicel" not in text for _, text in _kept(message))


def test_this_whole_week_is_near_term() -> None:
    message = "The car in the shop since Monday, so this whole week is the bus for me and the cooler"
    assert _kept(message)[0][0] == "ephemeral"


def test_a_bracketed_label_heading_a_message_hides_no_standing_request() -> None:
    message = "【交代】以后给我报菜价，顺便把猪肉价钱也报一下，涨了跌了买法不一样。"
    assert [mark for mark, _ in _kept(message)] == ["durable"] and _kept(message)[0][1] == message
    assert _kept("【顺丰速运】您的快件已放入3号柜，取件码5521，请及时取件。") == []  # a sender's tag stays a notice


@pytest.mark.parametrize("message", ["外孙在南开中学读高二，数学最好。", "【老伴】老伴在街道办当会计，明年退休。"])
def test_a_chinese_relative_named_without_wo_is_the_speakers_and_kept_in_their_words(message: str) -> None:
    assert _kept(message) == [("durable", message)]
