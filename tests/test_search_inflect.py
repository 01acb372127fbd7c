"""Irregular inflections (stop 34, nanomem.search.inflect): a question's verb in its base form also
finds the turn that tells it in the past ("did she catch" / "I caught"), a superlative its plain
adjective, an irregular plural its singular; a past form in a question, a light verb, and a
form indexed as a stop word are not expanded."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from nanomem.memory import Memory
from nanomem.search import inflect, wordnet
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)


@pytest.mark.parametrize(("word", "form"), [
    ("catch", "caught"), ("bring", "brought"), ("swim", "swam"), ("sell", "sold"),  # a verb's base
    ("heaviest", "heavy"), ("heavy", "heaviest"), ("biggest", "big"),  # an adjective, both ways
    ("teeth", "tooth"), ("mouse", "mice"),  # a noun, both ways
])
def test_inflect_a_word_is_also_searched_as_its_irregular_forms(word: str, form: str) -> None:
    assert form in inflect.plan_forms(word)


@pytest.mark.parametrize("word", [
    "bought", "wrote", "sold",  # a verb's past form names a past event: not searched as its base
    "go", "went", "got", "take", "took", "made", "give",  # light verbs
])
def test_inflect_past_forms_and_light_verbs_are_not_expanded(word: str) -> None:
    assert inflect.plan_forms(word) == []


def test_inflect_a_form_indexed_as_a_stop_word_is_left_out() -> None:
    # Porter stems "ate" as "at", a stop word that every other turn holds
    assert "ate" not in inflect.plan_forms("eat")


def test_inflect_query_terms_leave_out_stop_words_and_the_query_own_terms() -> None:
    assert inflect.plan_terms("Did the boy catch the mice or did the mouse catch him?") == [
        '"caught"']
    assert inflect.plan_terms("What did they do?") == []


@pytest.mark.parametrize(("older", "newer", "query"), [  # as many content words each
    ("I finally caught the ferret by the log pile", "the ferret keeps digging by the log pile",
     "Where did Priya catch the ferret?"),
    ("the blue suitcase is so heavy I can barely lift it", "the blue suitcase has a broken zip and strap",
     "Which was the heaviest suitcase?"),
    ("the vet took a tooth out of the old pony", "the vet looked at the old pony and its hooves",
     "Which teeth of the pony worried the vet?"),
])
def test_search_finds_the_turn_with_the_irregular_form(mem: Memory, older: str, newer: str,
                                                       query: str) -> None:
    say(mem, [older], key="a", day=1)
    say(mem, [newer], key="b", day=8)  # newer: the recency prior alone puts it first
    say(mem, ["soup for lunch again", "the train was late", "I fixed the squeaky gate"], key="c",
        day=4)  # other talk: the words of the topic are rare

    assert [h.text for h in mem.search(query, k=2)] == [older, newer]


def test_wordnet_build_inflections_keeps_the_forms_porter_does_not_reach(tmp_path: Path) -> None:
    (tmp_path / "noun.exc").write_text("teeth tooth\ncats cat\n")
    (tmp_path / "verb.exc").write_text("caught catch\nabided abide\nate eat\nflew fly\n")
    (tmp_path / "adj.exc").write_text("heaviest heavy\nheavier heavy\n")

    assert wordnet.build_inflections(tmp_path) == [
        wordnet.INFLECTIONS_NOTICE, "a\theavy\theavier heaviest", "n\ttooth\tteeth",
        "v\tcatch\tcaught", "v\tfly\tflew"]  # abided and cats: one stem; ate: stemmed as "at"


def test_inflect_shipped_list_is_what_the_builder_writes() -> None:
    lines = gzip.decompress((Path(inflect.__file__).parent / "data" / inflect.DATA).read_bytes())
    first, *rest = lines.decode("utf-8").splitlines()

    assert first == wordnet.INFLECTIONS_NOTICE
    assert rest == sorted(rest) and all(len(line.split("\t")) == 3 for line in rest)
    assert "v\tcatch\tcaught" in rest
