"""Round-11 study: general mechanisms behind misses of the round-11 set (messages written as
e-mails, pasted sheets and chats, Chinese voice input): an e-mail's frame is set aside, the old
value named in brackets, after a bare "not", in reported speech or by 不是X了, a kept clause never
holds the old value, voice pauses are clause boundaries, and the junk of those styles. Every
sentence here is new; none is taken from a benchmark conversation (docs/quality.md, "Round 11
study")."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.dream import find_corrected
from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.mail import message_body, subject_announces
from nanomem.engines.offline.relayed import superseded, without_report_frame
from nanomem.engines.offline.remainder import plan_corrected_line
from nanomem.engines.offline.reslot import implied_correction
from nanomem.engines.offline.shapes import denied_value, is_retraction, without_secret
from nanomem.engines.offline.slots import drop_old_value, old_value, same_slot
from nanomem.engines.offline.tasks import is_task_request
from nanomem.engines.offline.terse import is_pasted
from nanomem.text.clauses import split_clauses
from nanomem.text.filler import is_filler
from tests.dream_fixtures import Setup
from tests.test_offline_round7 import MEMORY, dream_message, memory_text, seed, setup  # noqa: F401 (a fixture)

LETTER = ("Subject: Re: Allotment\n\nDear all,\n\nThe water trough is fixed, the plot rent is 40 pounds a year.\n\n"
          "> Thanks, I'll note the trough.\n\nOn Tue, 3 Mar, Ruth Avery wrote:\n> See you at the AGM.\n\n"
          "Kind regards,\nWilf Baines\nPlot 14, Cresswell Lane\n\nSent from my iPhone")


def test_an_emails_quotes_headers_signature_and_footer_are_set_aside() -> None:
    parts = message_body(LETTER)
    assert parts.subject == "Re: Allotment"
    assert "plot rent is 40 pounds" in parts.body
    for gone in (">", "wrote:", "Wilf Baines", "Cresswell", "iPhone", "Subject"):
        assert gone not in parts.body
    kept = " ".join(text for _, text in extract_facts([LETTER]))
    assert "40 pounds" in kept and "Cresswell" not in kept and "AGM" not in kept


def test_a_forwarded_message_is_someone_elses_text() -> None:
    text = "Mum sent me this, is it true?\n\n---------- Forwarded message ----------\nWin a cruise worth $9,000 today!!"
    assert "cruise" not in message_body(text).body
    assert not any("cruise" in fact for _, fact in extract_facts([text]))
    assert message_body("Plain words, no frame: the shed key is 7.").body == "Plain words, no frame: the shed key is 7."


def test_a_subject_that_announces_a_change_makes_the_first_decisive_sentence_a_correction() -> None:
    body = "\n\nHello,\n\nThe quiz night is at the Red Lion on Elm Road."
    assert subject_announces("Re: New venue") and not subject_announces("Quiz night")
    assert extract_facts(["Subject: Change of venue" + body]) == [("correction", "The quiz night is at the Red Lion on Elm Road.")]
    assert extract_facts(["Subject: Quiz night" + body])[0][0] == "durable"


def test_a_denial_in_reported_speech_names_the_old_value() -> None:
    sentence = "The warden rang and told me the key is not at the lodge on Fenwick Row any more."
    assert is_retraction(sentence) and "Fenwick Row" in (denied_value(sentence) or "")
    assert drop_old_value(sentence + " It hangs in the clubhouse now.") == "It hangs in the clubhouse now."


def test_a_kept_clause_never_holds_the_old_date() -> None:
    written = plan_corrected_line("\"Your check-up has been moved to Friday, June 12, 2026.",
                                  "My dentist is Dr. Vance Ortiz on Hill Road, and she has me down for Monday, June 1.")
    assert "June 12" in written and "Hill Road" in written
    assert "June 1," not in written and not written.rstrip(".)").endswith("June 1")
    kept = plan_corrected_line("After the review we've raised the Birch Lane rent to £910, and Ola agreed.",
                               "Birch Lane rent is £870 a month, paid on the 2nd.")
    assert "paid on the 2nd" in kept and "870" not in kept  # the "2" of "2nd" is no old value


def test_a_new_hotel_replaces_the_guest_house_although_they_share_no_word(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- We are staying three nights at the Seaview Guest House in Largs.\n")
    dream_message(setup, "We are booked into the Marine Hotel instead, same nights.")
    memory = setup.read("memory/MEMORY.md")
    assert "Marine Hotel" in memory and "Seaview" not in memory


@pytest.mark.parametrize(("sentence", "old"), [
    ("Notice from the chair: the AGM MOVES TO 10 MAY (was 3 May) because of the bank holiday.", "3 May"),
    ("the school trip goes to Leith not Portobello, the coach is cheaper", "Portobello"),
])
def test_the_old_value_in_brackets_or_after_a_bare_not_makes_a_correction(sentence: str, old: str) -> None:
    assert classify_sentence(sentence) == "correction"
    assert old_value(sentence) == old and old not in drop_old_value(sentence)
    assert classify_sentence("the school trip goes to Leith, bring a packed lunch") != "correction"


def test_the_old_value_in_brackets_corrects_its_line(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- the AGM is 3 May.\n- the hall deposit is 60 pounds\n")
    dream_message(setup, "Notice from the chair: the AGM MOVES TO 10 MAY (was 3 May) because of the bank holiday.")
    memory = setup.read("memory/MEMORY.md")
    assert "10 MAY" in memory and "3 May" not in memory and "60 pounds" in memory


def test_an_old_name_must_be_held_whole() -> None:
    files = {"memory/MEMORY.md": "## Facts\n- it was gusty out at Mouille Point today\n"}
    assert find_corrected("the shoot goes to Green Bay not Glen Point, closer to base", files) is None


def test_verbs_of_change_in_the_present_and_a_starting_weekday() -> None:
    assert classify_sentence("Launch moves to 9 October, the printers are late.") == "correction"
    assert classify_sentence("the site visit moves to Monday this week, the road is shut") == "ephemeral"
    assert classify_sentence("Bakery: order is 60 rolls from Friday, the café opens") == "correction"
    assert classify_sentence("I work at the bakery from Monday to Friday.") != "correction"
    assert same_slot("Bakery: order is 60 from Friday", "- 48 a week, ordering from Hobbs Bakery")


def test_a_value_that_is_out_is_put_out_of_use() -> None:
    assert superseded("the Millbrook hall is out, they double-booked it")[0] == "Millbrook"
    assert superseded("the Millbrook hall is out of chairs") is None


def test_pasted_sheet_rows_are_material_not_facts() -> None:
    facts = extract_facts(["pasted from the rota:\n\nNAME\tROOM\tTIME\nAda Moss\t4B\t09:15\n\nlook ok?"])
    assert not any("\t" in text or "4B" in text for _, text in facts)


def test_voice_pauses_are_clause_boundaries_and_a_value_is_swapped_between_han_characters(setup: Setup) -> None:
    assert split_clauses("租在阳光小区 2栋 三楼 一个月2500")[0] == ["租在阳光小区", "2栋", "三楼", "一个月2500"]
    assert split_clauses("用 Figma 画图")[0] == ["用 Figma 画图"]  # a Latin word between spaces is no pause
    seed(setup, memory=MEMORY + "- 房子租好了 在阳光小区 2栋 三楼 一个月2500 住到六月\n")
    dream_message(setup, "女儿今天打电话 说房东同意了 一个月2300 不是2500了")
    memory = setup.read("memory/MEMORY.md")
    assert "2300" in memory and "2500" not in memory and "阳光小区" in memory and "2栋" in memory


def test_no_longer_that_value_and_the_spoken_report_frame() -> None:
    assert classify_sentence("房东说了 一个月2300 不是2500了") == "correction"
    assert old_value("房东说了 一个月2300 不是2500了") == "2500"
    assert without_report_frame("儿子今天给我打电话 说车修好了") == "车修好了"


def test_a_place_unit_of_a_building_sets_the_slot() -> None:
    files = {"M": "- 住在绿地小区 2栋 一楼 离超市很近"}
    assert implied_correction("物业说让我们换到8栋那套 三楼", files) == ("M", files["M"])
    assert implied_correction("买了8个苹果", {"M": "- 楼下有2个超市"}) is None


def test_two_identifiers_of_one_family_around_a_change_name_the_old_one() -> None:
    assert old_value("您的订单AB1234因故已变更为AB5678请留意") == "AB1234"
    assert old_value("Booking RT-220 has been changed to RT-245 by the agency.") == "RT-220"
    assert old_value("Ask Bob if KX-7731 changed to the new form.") is None


def test_a_pin_of_digits_alone_is_a_secret() -> None:
    assert without_secret("The app wanted my PIN, which is 7391, and then it froze") == "then it froze"
    assert without_secret("The gate code is 7391") is None
    assert without_secret("The PIN reader broke in 2024") is None  # a year is no PIN


@pytest.mark.parametrize("sentence", [
    "You're a star for sorting this out on a Sunday morning.",
    "You are a saint, putting up with me in March.",
])
def test_a_weekday_or_month_is_no_name_in_a_remark_to_the_agent(sentence: str) -> None:
    assert is_filler(sentence)
    assert not is_filler("You always ask about Marta on a Sunday.")


def test_a_story_opened_by_its_past_year_is_an_anecdote() -> None:
    assert classify_sentence("In 1994 a man brought a goat into my shop on Hill Street to be weighed.") is None
    assert classify_sentence("My Doris ran the stall from 1981 and I kept it on after her.") == "durable"


def test_a_how_to_and_a_forwarded_thing_are_no_facts() -> None:
    assert is_task_request("你教教我这个鱼汤怎么煮才白") and is_task_request("Can you teach me how to splice a rope?")
    assert not is_task_request("你以后都教我用英文说")
    assert is_pasted("我同事给我发了个链接 说是抽奖送手机")
    assert not is_pasted("我同事给我发了工资条")


def test_a_label_and_its_name_is_no_greeting() -> None:
    assert not is_filler("Landlord: Okafor") and classify_sentence("Landlord: Okafor") == "durable"
    assert is_filler("Mel: thanks!")


@pytest.mark.parametrize("sentence", [
    "and anything for the choir, write it in Welsh, they read it faster",
    "when you send the list back, send it back comma-separated so it pastes",
    "pls, when I ask for a plan, just bullet the steps.",
    "No links in your replies please.",
    "你跟我说话别那么客气 就这么说",
    "你别给我发那种链接 我不会点",
])
def test_styles_of_round_11_are_style_requests(sentence: str) -> None:
    assert is_style_request(sentence)


def test_a_form_asked_for_one_thing_after_a_colon_is_a_task() -> None:
    assert not is_style_request("title case for the guest list pls: ana li, bo chen, cy roe")
    assert is_style_request("title case for names pls")


def test_chronic_conditions_and_a_name_after_a_voice_pause_are_kept() -> None:
    assert classify_sentence("我爸有高血压 每天吃药") == "permanent"
    assert classify_sentence("我外孙乐乐 今年上三年级") == "durable"
    assert classify_sentence("我女儿上学了 挺好的") is None


def test_the_round_11_rules_keep_the_rest_of_a_memory(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- My physio is Dr. Lena Park at the Elm Clinic, and she has me booked for Tuesday, May 4.\n")
    dream_message(setup, "Subject: Letter from the clinic\n\nThey wrote: your session with Dr. Park has been rescheduled to Thursday, May 20.\n\n"
                         "Regards,\nJo\n\nSent from my iPad")
    text = memory_text(setup)
    assert "May 20" in text and "May 4" not in text and "iPad" not in text
