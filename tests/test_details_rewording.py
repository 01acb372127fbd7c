"""The gate ``details`` compares a rewritten line's words by their stems, its values exactly
(session 23): a model that rewords a line ("loves hiking" -> "enjoys hikes") loses no fact; one
that drops a clause, or alters a value, is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanomem.dream.gates.details import find_dropped
from nanomem.text.stems import stem
from tests.dream_fixtures import Setup, make_setup

USER = "# User\n\n## Facts\n"
ANA = "- Ana lives in Porto, teaches piano to kids, loves hiking"


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


@pytest.mark.parametrize(
    "forms",
    [
        ("start", "starts", "started", "starting"),
        ("work", "works", "worked", "working"),
        ("move", "moves", "moved", "moving"),
        ("hike", "hikes", "hiked", "hiking"),
        ("run", "runs", "running", "ran"),
        ("teach", "teache", "teaching", "taught"),  # "teache": tokens() took the plural "s"
        ("study", "studies", "studie", "studied", "studying"),
        ("begin", "began", "begun", "beginning"),
        ("agree", "agreed", "agreeing"),
        ("child", "children"),
        ("wife", "wives", "wive"),
    ],
)
def test_stem_is_the_same_for_every_inflected_form(forms: tuple[str, ...]) -> None:
    assert len({stem(form) for form in forms}) == 1, {form: stem(form) for form in forms}


@pytest.mark.parametrize(
    ("one", "other"),
    [("bring", "brie"), ("need", "nee"), ("king", "kin"), ("marathon", "march"), ("kid", "child"),
     ("marketing", "mark"), ("2024", "2025"), ("kx-7731", "kx-7732"), ("job", "jog")],
)
def test_stem_keeps_different_words_and_values_apart(one: str, other: str) -> None:
    assert stem(one) != stem(other)


@pytest.mark.parametrize(
    "new",
    [
        "- Ana lives in Lisbon, teaching piano to kids, enjoys hikes",
        "- Ana lives in Lisbon; she taught piano to kids and loved hiking",
        "- Ana moved to Lisbon, teaches piano to kids, goes hiking",
    ],
)
def test_details_passes_a_line_whose_clauses_are_reworded(new: str) -> None:
    assert find_dropped(ANA + "\n", new + "\n") == []


@pytest.mark.parametrize(
    ("old", "new", "dropped"),
    [
        # a clause lost outright beside a reworded one
        (ANA, "- Ana lives in Lisbon, enjoys hikes", ["kid", "piano", "teache"]),
        # a look-alike word is not the same word: "organises" is not "organ"
        ("- Ana lives in Porto, plays the organ at church, loves hiking",
         "- Ana lives in Lisbon, organises church events, loves hiking", ["organ", "play"]),
        # a value must stay exactly as it was: a name is never stemmed
        ("- Ana lives in Porto, works in Hastings, loves hiking",
         "- Ana lives in Lisbon, working in Hasting, loves hiking", ["hastings"]),
        # a number altered: two clauses lost, the reason names the one farther from the new line
        ("- Ana lives in Porto, teaches piano to 12 kids, loves hiking",
         "- Ana lives in Lisbon, teaching piano to 14 kids, loves hiking", ["porto"]),
    ],
)
def test_details_still_refuses_a_lost_clause_or_an_altered_value(
    old: str, new: str, dropped: list[str],
) -> None:
    assert find_dropped(old + "\n", new + "\n") == [(old, dropped)]


@pytest.mark.parametrize(
    ("new", "refused"),
    [
        ("- Ana lives in Lisbon, teaching piano to kids, enjoys hikes", False),
        ("- Ana lives in Lisbon, enjoys hikes", True),
    ],
)
def test_model_edit_that_rewords_a_line_is_accepted_and_one_that_drops_a_clause_refused(
    setup: Setup, new: str, refused: bool,
) -> None:
    result = setup.dream_rewriting("USER.md", USER, ANA, "- [correction] Ana moved to Lisbon.", new)

    if refused:
        assert setup.read("USER.md") == USER + ANA + "\n"
        (refusal,) = result.refused
        assert refusal.reason.startswith("edit_file: details: this edit of USER.md drops 'kid', 'piano', 'teache'")
    else:
        assert result.refused == () and setup.read("USER.md") == USER + new + "\n"
        assert [e.state for e in result.ledger] == ["corrected"]
