"""Session 30 (round-16 study): a daydream, a condition on the speaker and what they would do,
is no fact; a condition addressed to the agent or one of health still is. Every sentence here is
new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.hypothetical import is_daydream


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
