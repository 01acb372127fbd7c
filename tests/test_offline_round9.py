"""Round-9 study: general mechanisms behind the misses of the round-9 held-out set: names of a
speaker who writes in lower case (learnt from the agent's echo, never taken from it); corrections
told as news or relayed (a value put out of use by inability, a failed plan, age or a move away;
a short report that news came; the report's frame whose time word is not the fact's); how far
ahead to remind; requests behind a discourse opener; pasted machine notices. Every
sentence here is new; none is taken from a benchmark conversation (docs/quality.md, "Round 9
(now dev)")."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.asks import is_reminder_rule, without_opener
from nanomem.engines.offline.routing import route_fact
from nanomem.engines.offline.engine import extract_facts, render_archive_arguments
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.notices import is_machine_notice
from nanomem.engines.offline.relayed import is_news_report, superseded, without_report_frame
from nanomem.engines.offline.recase import name_casing, recased
from tests.dream_fixtures import Setup
from tests.test_offline_round7 import MEMORY, USER, dream_message, memory_text, seed, setup  # noqa: F401 (a fixture)


def _chat(*turns: str) -> list[dict[str, str]]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": text} for n, text in enumerate(turns)]


# --- a speaker who writes in lower case -----------------------------------------------------

def test_a_lower_case_name_echoed_by_the_agent_is_kept_verbatim() -> None:
    facts = render_archive_arguments(_chat(
        "morag finlay. bus driver out of the larbert depot.", "Thanks, Morag Finlay. Noted.",
        "supervisor is dougie wallace. decent sort", "Got it: your supervisor is Dougie Wallace."))["facts"]
    texts = [fact["text"] for fact in facts]
    assert "morag finlay. bus driver out of the larbert depot." in texts
    assert all(text == text.lower() for text in texts)  # the speaker's letters, not the agent's


def test_a_speaker_who_capitalises_is_judged_as_written() -> None:
    casing = name_casing(["Noted, Morag Finlay."])
    assert recased("Morag here, the depot moved.", casing) == "Morag here, the depot moved."
    assert recased("morag here", {}) == "morag here"


def test_a_capital_that_only_opens_the_agents_sentence_names_nothing() -> None:
    assert name_casing(["Sure. Depot noted. Tuesday works."]) == {}
    assert name_casing(["Sure, the depot on Tuesday."]) == {"tuesday": "Tuesday"}
    assert "dougie" in name_casing(["Dougie Wallace is your supervisor."])


def test_without_an_echo_a_lower_case_message_keeps_its_old_judgement() -> None:
    assert render_archive_arguments(_chat("morag finlay. bus driver."))["facts"] == []


# --- a value put out of use, a report of news, a report's frame -----------------------------

@pytest.mark.parametrize("sentence, old", [
    ("cant make 9 apr, sorry.", "9 apr"),
    ("Ashby Road fell through, the vendor pulled out.", "Ashby Road"),
    ("the 12.60 was last years fee", "12.60"),
    ("LX 318 got cancelled and they put me on LX 322.", "LX 318"),
    ("爸爸那趟G1908没买到票，他订了G1942。", "G1908"),
    ("团建不去大连了，定在旅顺。", "大连"),
])
def test_a_value_put_out_of_use_is_the_old_value(sentence: str, old: str) -> None:
    found = superseded(sentence)
    assert found is not None and found[0] == old


@pytest.mark.parametrize("sentence", [
    "My boss is off today.", "I can't do much about the noise.", "We cancelled the 3pm call.", "团建很开心。",
])
def test_a_sentence_that_retires_no_value_has_no_old_value(sentence: str) -> None:
    assert superseded(sentence) is None


def test_a_short_report_that_news_came_announces_the_correction() -> None:
    assert is_news_report("garage rang.") and is_news_report("News from the allotment committee.")
    assert not is_news_report("The garage rang about the 14th.")
    assert extract_facts(["garage rang. cant do 9 apr. 16 apr instead, after lunch"]) == [
        ("correction", "garage rang. cant do 9 apr. 16 apr instead, after lunch")]


def test_a_reports_time_word_does_not_make_the_news_short_lived() -> None:
    assert without_report_frame("李经理今天开会说，年会不在周五了，定在周六。") == "年会不在周五了，定在周六。"
    assert classify_sentence("李经理今天开会说，年会不去大连了，定在旅顺。") == "correction"
    assert classify_sentence("The landlord rang this morning, the rent is 910 from May.") != "ephemeral"


def test_a_relayed_date_change_replaces_the_line_without_the_old_date(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- boiler service at the flat tues 8 apr.\n- parking permit P-2231\n")
    dream_message(setup, "engineer rang. cant do 8 apr. thurs 10 apr instead, morning slot")
    memory = setup.read("memory/MEMORY.md")
    assert "10 apr" in memory and "8 apr" not in memory and "P-2231" in memory


def test_an_old_amount_called_last_years_is_replaced(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- swim pass 9.80 a session at the leisure centre.\n")
    dream_message(setup, "desk sorted my pass. its 10.40 a session, the 9.80 was last years price")
    memory = setup.read("memory/MEMORY.md")
    assert "10.40" in memory and "9.80" not in memory


def test_a_chinese_booking_not_got_is_replaced_by_the_new_one(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- 爸爸打算坐G1908，周五下午的。\n")
    dream_message(setup, "爸爸那趟G1908没买到票，他订了G1942，晚上七点到。")
    memory = setup.read("memory/MEMORY.md")
    assert "G1942" in memory and "G1908" not in memory


def test_a_correction_whose_old_value_no_line_holds_replaces_no_other_line(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- 院长是王海，人很好，开会喜欢拖堂。\n")
    dream_message(setup, "院长今天开会说，团建不去大连了，定在旅顺。")
    memory = setup.read("memory/MEMORY.md")
    assert "王海" in memory and "旅顺" in memory and "大连" not in memory


def test_a_cancelled_flight_keeps_the_new_one_and_its_sender(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- Flew out on the booking, Swiss LX 318 to Zurich.\n")
    dream_message(setup, "Swiss emailed: LX 318 got cancelled and they moved me to LX 322, an hour later.")
    text = memory_text(setup)
    assert "LX 322" in text and "LX 318" not in text and "Swiss emailed: they moved me" in text


# --- how far ahead to remind; a request behind a discourse opener ---------------------------

@pytest.mark.parametrize("sentence", [
    "remind me by 8pm the night before, not on the day",
    "Reminders, since you ask: three days ahead for anything, please.",
    "Any reminder, give it me a week in advance.",
    "要提醒我的事，提前三天说，别当天才讲。",
])
def test_a_lead_time_for_reminders_is_a_standing_request(sentence: str) -> None:
    assert is_style_request(sentence)
    assert classify_sentence(sentence) == "durable"
    assert route_fact(sentence) == "SOUL.md"


@pytest.mark.parametrize("sentence", [
    "remind me the day before the dentist to take the forms",
    "Remind me tomorrow to ring the plumber.",
    "明天提醒我交电费。",
])
def test_a_one_off_reminder_is_no_lead_time_rule(sentence: str) -> None:
    assert not is_reminder_rule(sentence)


@pytest.mark.parametrize("sentence", [
    "Oh and when you total my takings, always show the pence.",
    "Another thing, when I ask you about a new product, just say if it won't sell.",
    "Also, if you list my jobs, put the price first.",
])
def test_a_request_behind_a_discourse_opener_or_my_question_is_a_style_request(sentence: str) -> None:
    assert is_style_request(sentence)
    assert without_opener("Oh and one more thing, when you list jobs, put the price first.").startswith("when you")


@pytest.mark.parametrize("sentence", [
    "no smileys in anything, ever.", "write everything in lower case, please.", "No capital letters, they shout.",
])
def test_letter_case_and_smileys_are_form_words(sentence: str) -> None:
    assert is_style_request(sentence)


# --- a pasted notice; a stopgap until something comes; health; Chinese namings --------------

@pytest.mark.parametrize("sentence", [
    "【京东物流】您的快递已放入丰巢柜，取件码770315，请及时取件。",
    "Your DPD parcel is ready for collection at the Post Office, code 558120.",
    "[Boots] Your prescription is ready to collect. Collection code 4417.",
    "Your verification code is 903117. Do not share it with anyone.",
])
def test_a_pasted_machine_notice_is_no_fact(sentence: str) -> None:
    assert is_machine_notice(sentence)
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize("sentence", [
    "My locker code at the gym is 4471.",
    "I told the courier your code is 5512, hope that's ok.",
    "Our alarm code is 9021, the panel is by the back door.",
])
def test_the_persons_own_codes_are_no_notice(sentence: str) -> None:
    assert not is_machine_notice(sentence)


def test_a_stopgap_until_something_comes_is_short_lived() -> None:
    assert classify_sentence("The shower's broken, so we're using the gym showers till the plumber comes.") == "ephemeral"
    assert classify_sentence("We're on the spare van until the new one arrives, reg KT21 PLX.") == "ephemeral"


def test_anaphylaxis_and_an_adrenaline_pen_are_health() -> None:
    assert classify_sentence("bee sting = anaphylaxis for me.") == "permanent"
    assert classify_sentence("EpiPen in the glovebox, always.") == "permanent"


@pytest.mark.parametrize("sentence", [
    "我们诊所叫康宁口腔，在黄浦区。", "我家猫叫团子，三岁了。", "我爸住在烟台，每年冬天来上海。",
])
def test_a_chinese_naming_or_a_relatives_home_led_by_my_is_kept(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


# --- corrections spread over sentences; terse role and place notes --------------------------

def test_a_correction_that_points_back_joins_the_sentence_it_points_to() -> None:
    assert extract_facts(["Sorted out the lesson fees at last. Put them up to £32.50 from June. Nobody moaned."]) == [
        ("correction", "Sorted out the lesson fees at last. Put them up to £32.50 from June.")]


def test_a_pointing_back_correction_replaces_the_line_of_the_same_sum(setup: Setup) -> None:
    seed(setup, user=USER + "- A one-hour lesson is £28.00, less than the studio down the road charges.\n")
    dream_message(setup, "Made my mind up about the lessons. I've put them up to £32.50 from June.")
    text = memory_text(setup)
    assert "£32.50" in text and "£28.00" not in text


def test_someone_moved_announces_the_new_value_in_the_next_sentence(setup: Setup) -> None:
    seed(setup, user=USER + "- Grandad's on ward 9 at the infirmary, by the nurses' station.\n")
    dream_message(setup, "Update from the infirmary. They've moved Grandad upstairs. Ward 14 now, with a view of the park.")
    text = memory_text(setup)
    assert "Ward 14" in text and "ward 9" not in text


def test_a_reading_after_a_colon_lasts_and_resets_the_old_reading(setup: Setup) -> None:
    assert classify_sentence("今天给团子称了一下：6公斤。") == "durable"
    assert classify_sentence("Weighed the pup today: 9 kg.") == "durable"
    seed(setup, memory=MEMORY + "- 上个月在宠物店称了5公斤。\n")
    dream_message(setup, "今天给团子称了一下：6公斤。")
    memory = setup.read("memory/MEMORY.md")
    assert "6公斤" in memory and "5公斤" not in memory


@pytest.mark.parametrize("sentence", [
    "Physio is Aoife Brennan.", "landlord's Piotr Nowak, decent sort.",
    "On the night shift at Ferrybank Depot.", "Based at the Quayside Yard most weeks.",
])
def test_a_terse_role_or_place_named_is_kept(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", ["On the whole, fine.", "In the end, it worked.", "Lunch is at noon."])
def test_a_phrase_that_names_no_role_or_place_is_no_note(sentence: str) -> None:
    assert classify_sentence(sentence) is None


def test_a_pointing_back_correction_does_not_join_small_talk() -> None:
    assert extract_facts(["Thanks for that. Put them up to £30.00 from May."]) == [
        ("correction", "Put them up to £30.00 from May.")]


def test_a_count_for_tomorrow_after_a_colon_stays_short_lived() -> None:
    assert classify_sentence("Headcount for tomorrow: 12 people.") == "ephemeral"
    assert classify_sentence("明天的人数：12人。") == "ephemeral"
