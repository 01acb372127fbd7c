"""Session 26 (round-14 study): noise classes that are junk whatever their phrasing (a masked
value, a secret typed by mistake, an apology for the moment, the news passed on), and slots set
by the *type* of a value (any currency, a phone number, an English place by its name, a Chinese
old value given up). Every sentence here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.dream import corrected_text
from nanomem.engines.offline.reslot import implied_correction
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.slots import drop_old_value, old_value
from nanomem.engines.offline.tasks import is_task_request
from nanomem.engines.offline.tense import is_narrative
from nanomem.text.clauses import clauses
from nanomem.text.filler import nonfact_reason
from tests.dream_fixtures import Setup
from tests.test_offline_round7 import MEMORY, dream_message, memory_text, seed, setup  # noqa: F401 (a fixture)


# --- noise whatever the phrasing ------------------------------------------------------------

@pytest.mark.parametrize("sentence, reason", [
    ("Quote our file number LW-XXXXX on it until the office sends the real one.", "template-placeholder"),
    ("Invoice line: Item: ___, Qty: ___, Total: €___.", "template-placeholder"),
    ("Start it with Dear [patient name] and keep it to one page.", "template-placeholder"),
    ("收件人那里先空着写【收件人姓名】就行。", "template-placeholder"),
    ("901374 oops, that's the one-time code from the building society, ignore it.", "secret-placeholder"),
    ("刚才那串是支付宝的验证码，发错了，你别记。", "secret-placeholder"),
    ("Sorry, my head's full of cotton wool this afternoon.", "filler"),
    ("Excuse the typos tonight, the baby has been up since five.", "filler"),
    ("不好意思这么晚了还在问你问题。", "filler"),
    ("The radio says the ring road will be gridlocked all week.", "filler"),
    ("刚才电视上讲油价又要涨了，大家都在排队加油。", "filler"),
])
def test_a_noise_class_is_junk_whatever_its_words(sentence: str, reason: str) -> None:
    assert nonfact_reason(sentence) == reason


def test_what_the_noise_classes_leave_alone() -> None:
    assert nonfact_reason("Excuse my spelling tonight, I'm on my phone.") == "filler"
    for sentence in ("My locker code is 5561, keep it handy.",          # a secret with no slip
                     "Sorry, I meant the 14:30 train, not the 15:10.",   # an apology that corrects
                     "The XXL fleece is for Ravi, order ref KP-2231.",   # capitals, not a mask
                     "Big news: we're expecting twins in April."):       # the person's news
        assert nonfact_reason(sentence) is None


def test_a_masked_clause_goes_and_the_rest_of_the_sentence_stays(setup: Setup) -> None:
    dream_message(setup, "For the school trip form, put the allergy box as [details here], and my backup contact is Priyanka Bhatt.")
    text = memory_text(setup)
    assert "Priyanka Bhatt" in text and "[details here]" not in text


# --- slots by the type of a value -----------------------------------------------------------

@pytest.mark.parametrize("line, fact", [
    ("- The printer charges ₹1,200 for a box of flyers.", "The printer has gone up, a box of flyers is ₹1,450 now."),
    ("- The stall fee at the night market is RM 85.", "Pak Ali says the stall fee at the night market is RM 95 this year."),
    ("- Bookings go through my number 0712 334 5567 for now.", "For bookings give out 0798 120 4436 please."),
    ("- Choir rehearsal is Thursdays 19:00 in the Linden hall.", "Still Thursdays at 19:00 but the Maple hall from now on."),
])
def test_a_new_value_of_the_same_type_resets_the_slot(line: str, fact: str) -> None:
    assert implied_correction(fact, {"memory/MEMORY.md": MEMORY + line + "\n"}) == ("memory/MEMORY.md", line)


def test_a_value_of_the_type_for_another_thing_resets_nothing() -> None:
    line = "- The printer charges ₹1,200 for a box of flyers."
    assert implied_correction("A box of flyers is ₹1,450 at the printer now.", {"M": line}) == ("M", line)
    for line, fact in [
    ("- Hemming is ₹300 a garment.", "Write a price list: hemming ₹300, zips ₹150, taking in ₹500."),  # repeats the value
    ("- The sewing fee is ₹900 each, cloth not included.", "The cloth from Rahim is ₹2,000 for four metres."),  # another thing
    ("- My husband's number is 0712 334 5567.", "The plumber's number is 0798 120 4436."),  # no shared word
    ]:
        assert implied_correction(fact, {"memory/MEMORY.md": MEMORY + line + "\n"}) is None


def test_a_new_price_in_any_currency_replaces_the_line(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- Mama Ngozi sells the ankara at ₦9,000.\n- The shop opens at 8.\n")
    dream_message(setup, "Mama Ngozi's ankara is ₦10,500 these days.")
    memory = setup.read("memory/MEMORY.md")
    assert "10,500" in memory and "9,000" not in memory and "opens at 8" in memory


def test_a_chinese_old_value_given_up_is_named_and_dropped() -> None:
    said = "诊所上个月搬去 Bukit Indah 的新店了，Skudai 那间关门了。"
    assert old_value(said) == "Skudai"
    assert "Skudai" not in drop_old_value(said) and "Bukit Indah" in drop_old_value(said)


def test_a_cell_of_a_pasted_row_is_a_clause_and_from_now_on_points_ahead() -> None:
    assert clauses("Yoga | Mondays 18:30 | Studio 2") == ["Yoga", "Mondays 18:30", "Studio 2"]
    assert not is_narrative("Keep Fridays free from now on, the gym closed that slot.")


def test_a_chinese_line_keeps_its_clause_with_a_latin_word_through_a_correction() -> None:
    written = corrected_text("我们仓库上个月已经搬去 Kulai 了，Senai 那边退租了。", "我在宏达贸易做 sales manager，仓库在 Senai。")
    assert "Kulai" in written and "宏达贸易做 sales manager" in written and "Senai" not in written


@pytest.mark.parametrize("sentence", [
    "Remind me two working days before any court date, never on the day.",
    "Remind me the previous night for the bin collections.",
    "Remind me an hour in advance for calls with Lagos.",
])
def test_a_reminder_set_by_its_lead_time_is_a_standing_rule(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"
    assert classify_sentence("Remind me before Friday to renew the parking permit.") == "ephemeral"  # a day: once


def test_a_task_made_the_rule_for_a_kind_of_thing_lasts() -> None:
    assert not is_task_request("Draft that as the house rule for all invoices: net 14 days.")
    assert is_task_request("Draft an invoice for the Mensah job: net 14 days.")
