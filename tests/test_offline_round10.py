"""Round-10 study: general mechanisms behind misses of the round-10 set (voice-dictated and
second-language English): a named subject put in a new place corrects the line that holds that
subject in another place; a request after a dictated "when you answer me" clause with no comma.
Every sentence here is new; none is taken from a benchmark conversation (docs/quality.md,
"Round 10 study")."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.slots import same_slot
from tests.dream_fixtures import Setup
from tests.test_offline_round7 import MEMORY, USER, dream_message, memory_text, seed, setup  # noqa: F401 (a fixture)


def test_a_named_subject_moved_corrects_the_line_with_the_old_place(setup: Setup) -> None:
    seed(setup, user=USER + "- My cousin Rhys lives in Cardiff, works as a plumber.\n")
    dream_message(setup, "Actually, Rhys moved to Swansea.")
    text = memory_text(setup)
    assert "Swansea" in text and "Cardiff" not in text and "plumber" in text


def test_a_named_subject_based_anew_is_the_same_slot() -> None:
    assert same_slot("Oh, Mirela is based in Graz now.", "- Mirela from accounts sits in Vienna")
    assert not same_slot("Mirela moved to Graz.", "- Tobias lives in Vienna")  # another subject
    assert not same_slot("Mirela moved to Graz.", "- Mirela likes hiking")  # no place to replace


@pytest.mark.parametrize("sentence", [
    "when you answer me keep it to three lines max because I read it on the bus",
    "whenever you reply to me use bullet points the kids read it too",
])
def test_a_request_after_a_dictated_when_clause_is_a_style_request(sentence: str) -> None:
    assert is_style_request(sentence)
    assert not is_style_request("when you answer me the kettle is usually on")  # no request after it


def test_two_shared_names_and_another_date_are_the_same_slot(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- the Hartwell farm job for Mr Penrose is booked, we begin the 4th May\n"
                                "- my van MOT is on the 9th June\n")
    dream_message(setup, "Jo says Penrose and the Hartwell people want us on the 11th May now")
    memory = setup.read("memory/MEMORY.md")
    assert "11th May" in memory and "4th May" not in memory and "9th June" in memory
    assert not same_slot("Jo says Penrose wants the 11th May", "- Penrose's birthday is the 4th May")  # one name


@pytest.mark.parametrize("sentence", [
    "Kasia go to Leeds office from May, new team lead is Ola Berg.",
    "New site manager is Dev Patel.",
    "the council have issued a new permit number PK-3301",
])
def test_a_new_one_named_or_issued_without_an_article_is_a_correction(sentence: str) -> None:
    assert classify_sentence(sentence) == "correction"
    assert classify_sentence("I bought a new shift rota app today.") != "correction"  # nothing named anew


def test_from_now_on_is_never_near_term() -> None:
    assert classify_sentence("the gym sent a new door code today, 4471, use it from now on") != "ephemeral"
    assert classify_sentence("the gym door code is 4471 today") == "ephemeral"


def test_a_correction_with_a_new_issued_number_replaces_the_old_one(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- my parking permit number is PK-1180 and the council checks it\n")
    dream_message(setup, "the council have issued a new permit number PK-3301 so use that one from now on")
    memory = setup.read("memory/MEMORY.md")
    assert "PK-3301" in memory and "PK-1180" not in memory
