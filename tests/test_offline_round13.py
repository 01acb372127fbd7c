"""Session 25 (round-13 study): an informative statement of the speaker's own is kept by its
make-up, not its phrasing; what it sets aside (the moment, the past, the agent, plans); and the
general rules added after reading round 13 (durations, diet words in a story, an activity of the
moment, a value put aside then repeated, an emoji that ends a sentence, Cantonese requests).
Every sentence here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.informative import is_informative_statement, is_of_the_moment, without_durations
from nanomem.engines.offline.sentences import split_sentences
from nanomem.text.hant import fold_hant


@pytest.mark.parametrize("sentence", [
    "my nan does the school run for us most days",
    "my brother drives a forklift for the council",
    "we keep two ferrets and a very old tortoise",
    "im thinking marine biology for uni",
    "我们小区楼下有个很大的菜市场挺方便",
])
def test_an_informative_statement_of_ones_own_is_kept(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "im so tired ngl",                                     # a feeling, nothing to keep
    "my neighbour is hoovering the stairs again",          # an activity of the moment
    "we went to the beach and got sunburnt",               # the past
    "you always cheer me up",                              # a remark to the agent
    "okay um how do you spell chrysanthemum for my card",  # a question without its mark
    "right i'll sort the rest out in a bit",               # a bare plan
    "my cousin's band is playing the town hall this week",  # true this week only
    "我妈在收拾厨房，叫我去楼下买酱油",                    # the moment's errand
    "the bin men must be on strike again round our way",  # a guess
])
def test_what_the_informative_test_sets_aside(sentence: str) -> None:
    assert not is_informative_statement(fold_hant(sentence), narrative=False)


def test_a_narrative_is_never_informative() -> None:
    assert not is_informative_statement("my dad fixed the gate with some wire", narrative=True)


def test_a_duration_measures_an_occasion_not_a_fact() -> None:
    assert without_durations("we queued outside for 35 mins") == "we queued outside  "
    assert classify_sentence("Water off since 3 hours in our building, the kettle was already full.") is None
    assert classify_sentence("The lift broke down today and we stood on the stairs for 25 minutes.") is None
    assert classify_sentence("Our shop opens for 9 hours a day in summer.") == "durable"  # a rate, not an occasion


def test_a_diet_word_in_a_story_names_a_food() -> None:
    assert classify_sentence("The canteen ran out of vegan burgers at lunch.") is None
    assert classify_sentence("I'm veggie, so no meat in the ideas please.") == "permanent"
    assert classify_sentence("My son had an allergic reaction to sesame.") == "permanent"  # a condition stays


def test_an_activity_of_the_moment_makes_no_name_a_fact() -> None:
    assert is_of_the_moment("My aunt is watching Strictly on full blast")
    assert classify_sentence("My aunt is watching Strictly on full blast, I can't hear myself.") is None
    assert classify_sentence("My aunt lives in Whitby with her two greyhounds.") is not None


def test_the_value_put_aside_then_repeated_is_not_a_fact() -> None:
    facts = extract_facts(["Small fix: my mentor is Dr. Okonjo, not Varga. Varga runs my cousin's lab on Hope Street."])
    assert [text for _, text in facts] == ["Small fix: my mentor is Dr. Okonjo, not Varga."]
    kept = extract_facts(["My mentor is Dr. Okonjo, not Varga. Varga is allergic to latex, by the way."])
    assert len(kept) == 2  # a condition is kept whatever it names


def test_an_emoji_and_a_space_end_a_chat_sentence() -> None:
    assert split_sentences("練完波好攰😴 我哋球隊逢星期三晚喺九龍灣練") == ["練完波好攰😴", "我哋球隊逢星期三晚喺九龍灣練"]
    assert split_sentences("ok 👍🏽") == ["ok 👍🏽"]


def test_a_cantonese_request_about_replies_is_a_preference() -> None:
    assert classify_sentence(fold_hant("覆我嘅時候唔該用bullet points，我喺地鐵睇")) == "durable"


def test_how_to_remind_said_as_a_condition_is_a_standing_rule() -> None:
    assert classify_sentence("If you remind me of a dentist visit, do it two days ahead.") == "durable"
    assert classify_sentence(fold_hant("提醒我開會嘅話要早半個鐘講")) == "durable"


def test_a_cantonese_work_place_without_a_subject_is_kept() -> None:
    assert classify_sentence(fold_hant("喺荃灣一間物流公司返工，負責排更")) == "durable"


def test_an_aside_in_the_progressive_is_no_activity_of_the_moment() -> None:
    assert not is_of_the_moment("Kit rang from Hull, she's staying over, and said the van is fixed")
    assert is_of_the_moment("my uncle is tiling the bathroom, what a racket")


def test_the_speaker_as_the_object_of_a_verb_is_not_a_statement_of_their_own() -> None:
    assert not is_informative_statement(fold_hant("隔離屋成日喺度裝修，吵到我瞓唔着"), narrative=False)
    assert is_informative_statement(fold_hant("我哋屋企養緊兩隻龜同一條魚"), narrative=False)


def test_a_habit_of_weekends_is_recurring_not_this_weekend() -> None:
    assert classify_sentence("The choir usually meets at weekends in the church hall.") == "durable"
    assert classify_sentence(fold_hant("我哋成日週末去西貢釣魚")) == "durable"
    assert classify_sentence("我们这个周末去爬山。") == "ephemeral"
