"""Round-5 study: the general mechanisms behind the misses of the round-5 held-out set (terse
notes, corrections without "actually", health and units without the old trigger words, past
years, typed passwords). Every sentence here is new; none is taken from a benchmark
conversation (docs/quality.md, "Round 5 (now dev)")."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanomem.engines.offline.routing import route_fact
from nanomem.engines.offline.engine import OfflineEngine, extract_facts
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import classify_sentence, fact_part, is_narrative
from nanomem.engines.offline.shapes import is_note_fragment, is_retraction, is_year_anecdote
from tests.dream_fixtures import Setup, make_setup

USER = "# User\n\n## Facts\n"
MEMORY = "# Memory\n\n## Facts\n"


@pytest.mark.parametrize("sentence", [
    "Pippin, border collie, four.",
    "Dr Okafor, at the Harbour Lane clinic.",
    "Keira, in Dundee.",
    "Fenwick Marine, for the sails.",
])
def test_classify_sentence_keeps_a_verbless_note_about_a_name(sentence: str) -> None:
    assert is_note_fragment(sentence)
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "Thanks, Ravi.", "Right, kettle's on.", "Tuesday, probably.", "Ravi, he left early.", "Great, thanks!",
])
def test_classify_sentence_drops_a_comma_sentence_that_is_no_note(sentence: str) -> None:
    assert not is_note_fragment(sentence)
    assert classify_sentence(sentence) is None


def test_extract_facts_reads_a_greeting_and_a_bare_full_name_as_a_self_introduction() -> None:
    facts = extract_facts(["Evening. Rhona Calloway. I keep bees at Crail."])
    assert facts[0] == ("permanent", "Evening. Rhona Calloway.")
    assert route_fact("Evening. Rhona Calloway.") == "USER.md"
    assert all(mark != "permanent" for mark, _ in extract_facts(["Hello. Good Friday."]))


@pytest.mark.parametrize("sentence", [
    "Allergic to shellfish.",
    "Takes metformin with breakfast.",
    "On atenolol since the spring.",
    "I'm hard of hearing on the right side.",
    "Deaf in one ear since the war games.",
    "Colour-blind, so no red and green charts.",
])
def test_classify_sentence_marks_a_terse_health_note_without_the_old_trigger_words(sentence: str) -> None:
    assert classify_sentence(sentence) == "permanent"


def test_classify_sentence_does_not_take_april_for_a_medicine() -> None:
    assert classify_sentence("We reopen the kiosk in April with the new menu.") != "permanent"


def test_classify_sentence_keeps_letters_and_a_long_number_as_an_identifier() -> None:
    assert classify_sentence("IMO 9074729.") == "durable"


@pytest.mark.parametrize("sentence", [
    "Give distances in kilometres.",
    "Please give meeting times in UTC.",
    "Round the prices to two decimal places, please.",
    "Show temperatures in fahrenheit, please.",
])
def test_is_style_request_knows_units_and_precision_asked_of_the_agent(sentence: str) -> None:
    assert is_style_request(sentence)
    assert classify_sentence(sentence) == "durable"
    assert route_fact(sentence) == "SOUL.md"


def test_is_style_request_knows_decimals_in_chinese_and_leaves_a_statement_about_units() -> None:
    assert is_style_request("以后报价都保留一位小数。")
    assert not is_style_request("The chandler sells rope in metres.")


def test_classify_sentence_keeps_a_standing_reminder_beyond_the_day() -> None:
    assert classify_sentence("Every time we plan a climb, remind me to pack the headtorch.") == "durable"
    assert classify_sentence("Remind me tomorrow to water the plants.") == "ephemeral"


def test_classify_sentence_keeps_a_request_to_keep_something_asked_as_a_question() -> None:
    assert classify_sentence("Could you call me Fitz from now on?") == "permanent"
    assert classify_sentence("Can you remember that I'm coeliac?") == "permanent"
    assert classify_sentence("Could you check the tide tables for Sunday?") is None


def test_extract_facts_keeps_who_the_person_is_before_a_question_tag() -> None:
    assert extract_facts(["I'm vegetarian, is that a problem for the set menu?"]) == [
        ("permanent", "I'm vegetarian")]
    assert extract_facts(["我是回族，附近清真的馆子你知道哪家好吗？"]) == [("permanent", "我是回族")]
    assert extract_facts(["If I'm vegan, what can I order there?"]) == []
    assert fact_part("如果我是学生，能打折吗？") == "如果我是学生，能打折吗？"


def test_classify_sentence_takes_what_to_call_the_person_in_chinese() -> None:
    assert classify_sentence("以后就叫我阿哲吧。") == "permanent"
    assert classify_sentence("房东叫我下周把钥匙还回去。") != "permanent"


def test_classify_sentence_keeps_a_name_at_a_role_s_place_in_chinese() -> None:
    assert classify_sentence("我们的蜂蜜都是从蜂农老杨那里拿的，品质很稳。") == "durable"


@pytest.mark.parametrize("sentence", [
    "Back in 2008 a seagull stole my chips on the pier.",
    "In 2016 the whole choir got stuck in a lift in Ghent.",
])
def test_classify_sentence_drops_an_anecdote_dated_only_by_a_past_year(sentence: str) -> None:
    assert classify_sentence(sentence) is None


def test_is_narrative_knows_irregular_pasts_and_past_time_adverbials() -> None:
    assert is_narrative("The courier sent the parcel to my old flat.")
    assert is_narrative("A fox stole a glove from the porch.")
    assert is_narrative("Two weeks ago the boiler in the hall cupboard gave up.")
    assert not is_narrative("The courier will send the parcel on Monday.")


def test_classify_sentence_keeps_a_past_year_with_a_lasting_result_or_another_number() -> None:
    assert classify_sentence("In 2015 we bought the cottage in Crail.") == "durable"
    assert classify_sentence("I was born in 1971.") == "permanent"
    assert not is_year_anecdote("In 2003 we rowed 14 miles.", True)


@pytest.mark.parametrize("text", [
    "Oops, I pasted my email password here by accident, it's Blu3Heron#7.",
    "My wifi password is [REDACTED:password], ignore that.",
    "邮箱密码是[REDACTED:password]，别记，我回头就改。",
])
def test_extract_facts_never_keeps_a_typed_password(text: str) -> None:
    assert extract_facts([text]) == []


def test_extract_facts_keeps_the_fact_beside_a_password_without_it() -> None:
    facts = extract_facts(["The vault PIN is 88X-31Q, and our office is in Leith Walk."])
    assert facts == [("durable", "our office is in Leith Walk.")]


def test_extract_facts_reads_a_retraction_as_the_announcement_of_a_correction() -> None:
    assert is_retraction("It isn't the Beta I said.")
    assert not is_retraction("It's not far from the quay.")
    assert extract_facts(["Checked the plate. It isn't the Beta I said. It's a Nanni N3.21 diesel."]) == [
        ("correction", "It's a Nanni N3.21 diesel.")]


def test_extract_facts_reads_being_moved_as_the_announcement_of_a_correction() -> None:
    assert extract_facts(["The marina moved me. I'm on pontoon F7 from Friday."]) == [
        ("correction", "I'm on pontoon F7 from Friday.")]


@pytest.mark.parametrize("sentence", [
    "The quote is £640 after all, they'd missed the scaffolding.",
    "Our new bass player is Tomasz.",
    "We're in a new office on Dock Street, same rent.",
    "I'm in bay 12 now, the old bay floods.",
    "It's the Corn Exchange this year, because the Guildhall is being rewired.",
    "我们换银行了，以后工资都打到招商银行。",
    "The club pays 300 a season, but no more free parking.",
])
def test_classify_sentence_reads_a_correction_without_actually(sentence: str) -> None:
    assert classify_sentence(sentence) == "correction"


def test_classify_sentence_does_not_read_after_all_that_as_a_correction() -> None:
    assert classify_sentence("After all that rain the path by my house is 2 inches deep in mud.") != "correction"
    assert classify_sentence("No more than 20 guests, please.") != "correction"


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


@pytest.mark.parametrize(
    ("old", "correction", "new"),
    [
        ("- The cat gets 2 tablets of heart medicine a day\n", "The vet put her up to 3 tablets now.",
         "- The vet put her up to 3 tablets now.\n"),
        ("- My mooring is C9 in the upper harbour\n", "I'm on E31 now, C9 is being resurfaced.",
         "- I'm on E31 now.\n"),
        ("- Choir practice is at the Corn Exchange on Tuesdays\n",
         "This term it's St Luke's Hall, because the Corn Exchange is being rewired.",
         "- This term it's St Luke's Hall.\n"),
        ("- 我们的快递是顺丰，每天下午来收。\n", "我们换快递了，以后都用京东物流。", "- 我们换快递了，以后都用京东物流。\n"),
        ("- My desk is D-14 on the third floor\n", "Post now goes to desk F-02, I've changed teams.",
         "- Post now goes to desk F-02, I've changed teams.\n"),
        ("- A bag of feed costs £11.90\n", "A bag of feed is £12.40 now, not £11.90.",
         "- A bag of feed is £12.40 now.\n"),
    ],
)
def test_offline_dream_correction_finds_a_dose_a_berth_a_venue_a_courier_and_a_place(
    setup: Setup, old: str, correction: str, new: str,
) -> None:
    setup.write("memory/MEMORY.md", MEMORY + old + "- Gym on Fridays\n")
    setup.store.commit_manual_if_dirty()
    setup.history.append(f"- [correction] {correction}")
    result = setup.dream(OfflineEngine())
    assert result.status == "committed" and result.refused == ()
    assert setup.read("memory/MEMORY.md") == MEMORY + new + "- Gym on Fridays\n"


def test_offline_dream_correction_finds_where_the_person_lives_by_a_new_street(setup: Setup) -> None:
    setup.write("USER.md", USER + "- My flat is on Mill Lane in Leith, up three flights\n")
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [correction] We're in a new flat on Bath Street, still in Leith.")
    result = setup.dream(OfflineEngine())
    assert result.status == "committed" and result.refused == ()
    assert "Mill Lane" not in setup.read("USER.md") + setup.read("memory/MEMORY.md")
    assert "- We're in a new flat on Bath Street, still in Leith.\n" in setup.read("USER.md")


@pytest.mark.parametrize("sentence", [
    "The board voted to raise the membership fee to 45 pounds.",
    "We're going to move the stand-up to 09:30 for the winter.",
    "教练说长跑配速加快到每公里6分钟。",
    "我改签了明早的航班，下午到。",
])
def test_classify_sentence_reads_every_form_of_a_verb_of_change_as_a_correction(sentence: str) -> None:
    assert classify_sentence(sentence) == "correction"


def test_offline_dream_chinese_correction_without_an_amount_leaves_a_line_about_an_amount(setup: Setup) -> None:
    setup.write("memory/MEMORY.md", MEMORY + "- 年会总预算是8000元，含场地和酒店。\n")
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [correction] 我改订了江景酒店。")
    result = setup.dream(OfflineEngine())
    assert result.status == "committed"
    assert "- 年会总预算是8000元，含场地和酒店。\n" in setup.read("memory/MEMORY.md")
    assert "江景酒店" in setup.read("USER.md") + setup.read("memory/MEMORY.md")
