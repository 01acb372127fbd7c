"""Round-8 study: mechanisms, not phrases, behind the misses of the round-8 held-out set: a plain
fact that sets a slot already in memory anew is a correction whatever its words (reslot); facts
and requests told without a subject (a label and its value, a naming, a note on the agent's
output, an instruction behind "when you …", a bare name opening a message); quoted or pasted
material is not a statement about the person. Every sentence here is new; none is taken from a
benchmark conversation (docs/quality.md, "Round 8 (now dev)")."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.routing import route_fact
from nanomem.engines.offline.engine import OfflineEngine, extract_facts
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.reslot import implied_correction
from tests.dream_fixtures import Setup
from tests.test_offline_round7 import MEMORY, USER, dream_message, memory_text, seed, setup  # noqa: F401 (a fixture)


# --- corrections by slot, with no cue phrase -------------------------------------------------

def test_a_plain_fact_with_a_new_amount_for_the_same_thing_replaces_the_line(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- The hire van deposit is £180.\n- Keys are with Moira.\n")
    assert classify_sentence("The contract arrived and the hire van deposit on it is £240.") == "durable"
    dream_message(setup, "The contract arrived and the hire van deposit on it is £240.")
    memory = setup.read("memory/MEMORY.md")
    assert "240" in memory and "180" not in memory and "Moira" in memory


def test_a_new_date_for_a_named_event_replaces_the_line(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- Booked a stall at Ambleside fair, 12 June.\n")
    dream_message(setup, "Ambleside fair's 19 June.")
    memory = setup.read("memory/MEMORY.md")
    assert "19 June" in memory and "12 June" not in memory


def test_a_denied_weekday_with_the_new_one_replaces_the_line(setup: Setup) -> None:
    seed(setup, user=USER + "- The quilting circle meets on the second Tuesday of the month.\n")
    dream_message(setup, "Silly me, the quilting circle isn't the second Tuesday, it's the last Friday.")
    text = memory_text(setup)
    assert "last Friday" in text and "meets on the second Tuesday" not in text


def test_the_same_unit_after_a_number_names_the_slot() -> None:
    line = "- Weekly order 30 loaves, mostly sourdough."
    assert implied_correction("Make that 45 loaves.", {"memory/MEMORY.md": line}) == ("memory/MEMORY.md", line)
    zh = "- 论文篇幅大约6万字，导师说够了。"
    assert implied_correction("学校给了正式要求，是8万字。", {"USER.md": zh}) == ("USER.md", zh)


def test_chinese_date_denied_in_passing_is_the_old_value() -> None:
    line = "- 答辩日期是6月10日。"
    assert implied_correction("通知下来了，答辩日期是6月17日，不是之前说的6月10日。", {"USER.md": line}) == ("USER.md", line)


@pytest.mark.parametrize("fact, line", [
    ("The deposit for the village hall is £180 as well.", "- The hire van deposit is £180."),  # same value: an addition
    ("Tom drove over on Wednesday and stayed till late to talk about joining the choir.",
     "- The choir rehearses on Monday evenings."),  # the weekday is far from the shared word
    ("She has lived there since 1968 and I phone her every Sunday.", "- My husband took the plot on in 1979."),
    ("Bought 12 eggs and a loaf.", "- The hire van deposit is £180."),  # nothing in common
])
def test_a_fact_that_does_not_reset_the_slot_corrects_nothing(fact: str, line: str) -> None:
    assert implied_correction(fact, {"USER.md": line}) is None


def test_a_pinned_or_permanent_line_is_never_reset_by_a_plain_fact() -> None:
    pinned = "- The hire van deposit is £180. <!-- pin -->"
    permanent = "- The hire van deposit is £180. <!-- permanent -->"
    fact = "The hire van deposit is £240 on the form."
    assert implied_correction(fact, {"USER.md": pinned}) is None
    assert implied_correction(fact, {"USER.md": permanent}) is None


def test_a_fact_already_in_memory_sets_nothing_anew(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- The hire van deposit is £240.\n- The hire van deposit was £180 last year.\n")
    setup.history.append("- [durable] The hire van deposit is £240.")
    assert setup.dream(OfflineEngine()).status == "no_changes"
    memory = setup.read("memory/MEMORY.md")
    assert "£240" in memory and "£180 last year" in memory


# --- facts and requests without a subject -----------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "Locker code: 4471.",
    "Physio for the knee: Nadia Brett, Kendal clinic.",
    "Trailer plate: KX21 PLM.",
    "Old mare's called Pippin.",
])
def test_a_label_and_its_value_or_a_naming_is_a_fact(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "Funny story: yesterday a heron took a koi from the pond.",
    "Ignore: Qz7!mm4",
])
def test_a_clause_or_a_typed_secret_after_a_colon_is_no_label_note(sentence: str) -> None:
    assert classify_sentence(sentence) is None


def test_a_bare_name_opening_a_message_is_the_speakers_name() -> None:
    assert extract_facts(["Mina Dorsey. Dog walker, Leeds. Need help with the rota."])[0] == (
        "permanent", "Mina Dorsey. Dog walker, Leeds.")


@pytest.mark.parametrize("sentence", [
    "Summaries brief.",
    "Totals in euros always.",
    "Reminders the evening before.",
    "Lists: date first, place after.",
    "No email longer than five lines, please.",
    "When you draft a letter for me, sign it Jo.",
    "If you ever quote a delivery time, give the latest one first.",
    "When you remind me about bills, put the amount at the top.",
    "列清单的时候，请把日期放在前面。",
    "回复我尽量用短句。",
    "提醒我交房租请提前三天。",
])
def test_a_note_on_the_agents_output_is_a_style_request(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"
    assert is_style_request(sentence)
    assert route_fact(sentence) == "SOUL.md"


@pytest.mark.parametrize("sentence", [
    "If you see Tom, he owes me a fiver.",
    "When you're in town, the shop is on Mill Street.",
    "Dates are fine.",
])
def test_a_condition_or_note_that_instructs_nothing_is_no_style_request(sentence: str) -> None:
    assert not is_style_request(sentence)


# --- quoted and pasted material, sums, one day's story ----------------------------------------

@pytest.mark.parametrize("sentence", [
    "Fwd from the garage: 'MOT special this month only, book now!'",
    "Forwarded: \"Flash sale on saddles, 40% off until Sunday\"",
    "Been humming 'a whiter shade of pale, we skipped the light fandango' since Monday.",
    "帮我把这句话译成日文：'下周的会议改到周三了'。",
    "Can you convert 12 stone to kilos?",
    "Queued behind a horsebox on the B5285 yesterday.",
])
def test_quoted_or_pasted_material_a_sum_or_a_days_story_is_no_fact(sentence: str) -> None:
    assert classify_sentence(sentence) is None


def test_reported_speech_is_still_judged_with_its_quotation() -> None:
    assert classify_sentence("My brother said 'the reunion is on 4 May at the Swan'.") is not None


# --- a bare amount after an announcement, a length after a request, names in Chinese ---------

def test_a_bare_amount_after_an_announcement_corrects_the_same_unit(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- Standing order 30 loaves a week, mostly sourdough.\n- Flour from Gilchrist's.\n")
    assert extract_facts(["Scratch that on the bread. 45 loaves. The café wants more."]) == [
        ("correction", "Scratch that on the bread. 45 loaves.")]
    dream_message(setup, "Scratch that on the bread. 45 loaves. The café wants more.")
    memory = setup.read("memory/MEMORY.md")
    assert "45 loaves" in memory and "30 loaves" not in memory and "Gilchrist" in memory


def test_a_length_after_a_style_request_joins_it() -> None:
    assert extract_facts(["Replies brief. Ten words if it fits."]) == [
        ("durable", "Replies brief. Ten words if it fits.")]
    assert extract_facts(["Replies brief. Ten dogs if it fits."]) == [("durable", "Replies brief.")]


@pytest.mark.parametrize("sentence", [
    "还好我去年考过IELTS，分数也够。",
    "上周读完了《长安的荔枝》，挺好看的。",
])
def test_a_latin_name_or_a_title_in_a_chinese_sentence_is_a_value(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


def test_a_title_denied_in_chinese_is_the_old_value_of_its_slot() -> None:
    line = "- 剧本暂名《山那边》，导演还没定。"
    fact = "制片人跟我说了：片名定的是《远山》，不是《山那边》。"
    assert implied_correction(fact, {"USER.md": line}) == ("USER.md", line)


@pytest.mark.parametrize("fact, line", [
    ("Mum had the scan last Tuesday, all clear.", "- mum fell in the garden on Wednesday"),  # two past events
    ("The optician signed him off on Tuesday.", "- I'll take him on Thursdays, my brother does Mondays"),  # a pronoun
])
def test_a_past_event_or_a_shared_pronoun_sets_no_slot(fact: str, line: str) -> None:
    assert implied_correction(fact, {"USER.md": line}) is None
