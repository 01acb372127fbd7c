"""Round-6 study: the general mechanisms behind the junk of the round-6 held-out set (a past
occasion told with its numbers, the aftermath of a story with "never … since", a deduction with
"must") and behind two of its retention misses (a verbless note of form, a role named with a
title). Every sentence here is new; none is taken from a benchmark conversation (docs/quality.md,
"Round 6 (now dev)")."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import classify_sentence, is_narrative
from nanomem.engines.offline.shapes import is_occasion_anecdote, without_numbers


@pytest.mark.parametrize("sentence", [
    "Once waited three hours at the Holyhead port for the 14:10 sailing.",
    "Once drove the 44-tonner over the Horseshoe Pass in 2 hours.",
    "One time we queued 90 minutes outside the B&Q at Cwmbran.",
    "Years ago I lost my wallet on the 73 bus.",
    "Back then we slept six to a tent on the M4 services lawn.",
])
def test_classify_sentence_drops_a_past_occasion_whatever_its_numbers(sentence: str) -> None:
    assert is_occasion_anecdote(sentence, is_narrative(without_numbers(sentence)))
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize(("sentence", "mark"), [
    ("Once a month I see the consultant at 9.", "durable"),
    ("Once you're past junction 23, ring the yard on 01633 400 118.", "durable"),
    ("Once I bought a van for 4,000 from a farmer in Usk.", "durable"),  # a purchase lasts
    ("I drive the 44-tonner on the A465 every Tuesday.", "durable"),
])
def test_classify_sentence_keeps_what_is_no_single_past_occasion(sentence: str, mark: str) -> None:
    assert classify_sentence(sentence) == mark


@pytest.mark.parametrize("sentence", [
    "Custard has never tasted right to me since that school trip.",
    "The old van has never started first time since the flood.",
    "Trains have never felt the same after that night.",
])
def test_classify_sentence_drops_the_aftermath_of_a_story_told_with_never_in_the_perfect(sentence: str) -> None:
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize("sentence", [
    "The neighbours must be very tired of the drums by now.",
    "The postman must be so fed up with our gate.",
    "Someone must have borrowed the ladder.",
])
def test_classify_sentence_drops_a_deduction_with_must(sentence: str) -> None:
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize("sentence", [
    "I never eat shellfish.",
    "Our lodger has never paid the gas bill late.",
    "Never book me in before 9.",
    "Visitors must sign in at the gatehouse.",
    "Hi-vis must be worn on every site.",
    "I must avoid grapefruit with my tablets.",
])
def test_classify_sentence_still_keeps_rules_with_never_and_must(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "Two lines max per reply.",
    "Weights in tonnes.",
    "Distances in kilometres.",
    "Then 12-hour times.",
])
def test_is_style_request_takes_a_short_verbless_note_of_form(sentence: str) -> None:
    assert is_style_request(sentence)
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "For the brochure: write the blurb in French and Dutch, most of our guests come from there.",
    "Redo the seating chart for Saturday, same layout as the last one.",
    "Bags of gravel, all in tonnes, from the quarry at Llanelli.",
    "Our yard sells sand in tonnes.",
])
def test_is_style_request_leaves_a_longer_sentence_without_a_request(sentence: str) -> None:
    assert not is_style_request(sentence)


@pytest.mark.parametrize("sentence", ["Vet is Mrs Pryce.", "Optician's Dr Haddad, on Bridge Street.",
                                      "The new landlord is Mr Teague."])
def test_classify_sentence_keeps_a_role_named_with_a_title(sentence: str) -> None:
    assert classify_sentence(sentence) in {"durable", "correction"}


@pytest.mark.parametrize("sentence", ["Biscuit is my beagle, he's seven.", "And there's Marek, our lodger.",
                                      "Then there's Ffion, a cocker spaniel, and she sheds everywhere."])
def test_classify_sentence_keeps_a_name_introduced_as_the_speakers(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"
