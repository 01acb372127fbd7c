"""Corrections: reading [correction] facts and pairing them with the permanent facts they correct."""

from __future__ import annotations

import pytest

from nanomem.dream.gates.corrections import correction_facts, matches


@pytest.mark.parametrize(
    ("line", "correction", "expected"),
    [
        ("- Lives in Lisbon <!-- permanent -->", "actually I moved from Lisbon to Porto", True),
        ("- Lives in Lisbon <!-- permanent -->", "i no longer live in lisbon", True),
        ("- Contract KX-7731 <!-- permanent -->", "the contract number is KX-7713, not KX-7731", True),
        ("- Allergic to peanuts <!-- permanent -->", "not allergic to peanuts after all", True),
        ("- Allergic to peanuts <!-- permanent -->", "the meeting moved to Friday", False),
        ("- Lives in Lisbon <!-- permanent -->", "Actually the deadline is later", False),
        ("- 我住在北京 <!-- permanent -->", "我现在住在上海，不在北京了", True),
        ("- 我住在北京 <!-- permanent -->", "会议改到周五", False),
    ],
)
def test_matches_pairs_corrections_with_the_fact_they_correct(
    line: str, correction: str, expected: bool
) -> None:
    assert matches(line, correction) is expected


def test_correction_facts_reads_only_correction_marks() -> None:
    batch = "- [durable] a\n  - [correction] b is c\n- [CORRECTION] d\n- [permanent] e"
    assert correction_facts(batch) == ["b is c", "d"]


@pytest.mark.parametrize(
    ("line", "correction"),
    [
        ("- I live in Graz. <!-- permanent -->", "Actually, I moved to Linz."),
        ("- The user lives in Oslo <!-- permanent -->", "We relocated to Bergen in May."),
        ("- My name is Ana <!-- permanent -->", "Please call me Annie from now on."),
        ("- I work at Acme <!-- permanent -->", "I now work for Globex."),
        ("- I'm vegetarian <!-- permanent -->", "Actually I'm vegan these days."),
        ("- Allergic to cats <!-- permanent -->", "Correction: I am not allergic to anything."),
        ("- 我住在北京 <!-- permanent -->", "我们已经搬到深圳了"),
    ],
)
def test_matches_accepts_a_correction_on_the_same_topic_of_the_person(line: str, correction: str) -> None:
    assert matches(line, correction) is True


@pytest.mark.parametrize(
    ("line", "correction"),
    [
        ("- I live in Graz <!-- permanent -->", "We moved the server to Frankfurt."),
        ("- I live in Graz <!-- permanent -->", "Ana moved to Berlin."),
        ("- I live in Graz <!-- permanent -->", "The office moved to Braga."),
        ("- I live in Graz <!-- permanent -->", "I'm allergic to cats now."),
        ("- My name is Ana <!-- permanent -->", "The project is called Falcon now."),
        ("- I work at Acme <!-- permanent -->", "I'm working from a cafe today."),
        ("- I'm allergic to cats <!-- permanent -->", "My son is allergic to eggs."),
        ("- I'm allergic to cats <!-- permanent -->", "Actually I'm vegan now."),
        ("- 我住在北京 <!-- permanent -->", "公司搬到了深圳"),
    ],
)
def test_matches_refuses_a_correction_on_another_topic_or_person(line: str, correction: str) -> None:
    assert matches(line, correction) is False


def test_corrections_docstring_examples_hold() -> None:
    import doctest

    import nanomem.dream.gates.corrections

    result = doctest.testmod(nanomem.dream.gates.corrections)
    assert result.attempted >= 5 and result.failed == 0
