"""Session 30 (round-16 study): a daydream, a condition on the speaker and what they would do,
is no fact (a condition addressed to the agent or one of health still is); a mistake named as one
announces a correction; a month of a year is a date value. Every sentence here is
new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.correction_cues import tells_of_change
from nanomem.engines.offline.hypothetical import is_daydream
from nanomem.engines.offline.slots import substitute_value, values_of


# --- a daydream is no fact ------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "so if we sold the house in Leith, we would move to Orkney and keep 40 sheep",
    "If I retired to Crete one day, I'd open a bakery by the harbour.",
    "honestly, if I got that Leeds job I will finally buy a 12 metre yacht",
    "要是我们明年中了大奖 我们就把老家的房子翻新成三层",
    "假如我有一百万 就在杭州买个带院子的房子",
])
def test_a_condition_on_the_speaker_and_what_would_follow_is_no_fact(sentence: str) -> None:
    assert is_daydream(sentence)
    assert classify_sentence(sentence) is None


def test_a_daydream_beside_a_fact_leaves_the_fact() -> None:
    message = "My sister Ilse lives in Graz. If I won the Euromillions I would buy her a vineyard."
    assert extract_facts([message]) == [("durable", "My sister Ilse lives in Graz.")]


@pytest.mark.parametrize("sentence", [
    "If I ask you for a packing list, leave out the 2 kg tripod.",  # addressed to the agent
    "if I ask you for a packing list, I will want the 2 kg tripod left out of it",
    "if I mention the clinic, remind me to bring the blue form",
    "如果我问报销的事 你就按2025年的标准回答",
    "When I retire in 2035 I will move back to Cork.",  # no condition: a plan with a date
])
def test_a_condition_for_the_agent_is_no_daydream(sentence: str) -> None:
    assert not is_daydream(sentence)
    assert classify_sentence(sentence) is not None


def test_a_condition_of_health_is_kept_although_it_reads_as_one() -> None:
    sentence = "If I eat sesame I will need my EpiPen within minutes."
    assert is_daydream(sentence)  # its make-up is a daydream's; the consolidator keeps health first
    assert classify_sentence(sentence) == "permanent"


# --- a mistake named as one announces the corrected value -----------------------------------------

def test_a_mistake_named_as_one_makes_the_next_statement_a_correction() -> None:
    message = "Sorry, I made a mistake yesterday. The lease on the unit runs until 14 October."
    assert extract_facts([message]) == [("correction", "The lease on the unit runs until 14 October.")]
    assert tells_of_change("We made an error on the booking form.")


# --- a month of a year is a date value ------------------------------------------------------------

@pytest.mark.parametrize("text, date", [
    ("The visa is valid until June 2031.", "6-2031"),
    ("residence card expires Sept, 2032", "9-2032"),
    ("签证到2031年6月", "6-2031"),
])
def test_a_month_of_a_year_is_a_date(text: str, date: str) -> None:
    assert values_of(text)["date"] == {date}


def test_a_new_month_of_the_year_replaces_the_old_one_in_its_line() -> None:
    line = "Passport expires July 2034, kept in the hall safe"
    assert substitute_value("My passport is valid until August 2034.", line) == (
        "Passport expires August 2034, kept in the hall safe")
    assert values_of("The visa is valid until 2 June 2031.")["date"] == {"6-2"}  # a day given: the day's date
