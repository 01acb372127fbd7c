"""Session 34 (corrections across dev): a bare topic said first ("Gran's anniversary.", "oh, the
choir.") heads the correction that follows it in the same message, so that the correction names
what it corrects; a topic in capitals is a value (the old one) and heads nothing. Every sentence
here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.dream import find_corrected
from nanomem.engines.offline.engine import extract_dated_facts


def _kept(*messages: str) -> list[tuple[str, str]]:
    return [(mark, text) for mark, text, _ in extract_dated_facts((m, None) for m in messages)]


@pytest.mark.parametrize("message", [
    "Gran's anniversary. I had that wrong. 4 October.",
    "oh, the choir. the Tuesday rehearsal got cancelled for good, we sing on Fridays now.",
])
def test_a_bare_topic_heads_the_correction_after_it(message: str) -> None:
    topic = message.split(".")[0]
    corrections = [text for mark, text in _kept(message) if mark == "correction"]
    assert corrections and corrections[0].startswith(topic)


def test_the_correction_headed_by_its_topic_finds_the_line_of_that_topic() -> None:
    line = "- Gran's anniversary 9 October."
    files = {"USER.md": f"## Facts\n- I walk the dog at 7 every morning.\n{line}\n"}
    correction = next(text for mark, text in _kept("Gran's anniversary. I had that wrong. 4 October.") if mark == "correction")
    assert find_corrected(correction, files) == ("USER.md", line)


def test_a_topic_in_capitals_is_the_old_value_and_heads_nothing() -> None:
    # a guard: the old value named as the topic must not be written back into the corrected line
    kept = _kept("About the Larchmere. We're staying at the Beacon Inn instead, same nights.")
    assert kept and not any(text.startswith("About the Larchmere") for _, text in kept)
