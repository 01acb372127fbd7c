"""The memory-file boost as it reaches archived turns (session 26): a line copied word for word
from a turn folds into that turn with the line's boosted score, so the boost must not be so
large that a quoted chatty turn outranks the turn that answers the question."""

from __future__ import annotations

from nanomem.memory import Memory
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)


def test_a_quoted_chat_turn_does_not_outrank_the_turn_that_answers(mem: Memory) -> None:
    chatter = "so did you settle on a flat in the end?"
    answer = ("settled! a new build flat out past the ring road, eighty-nine square metres with "
              "two bedrooms and a balcony")
    say(mem, ["morning!", "morning, how was the viewing?", chatter, answer, "nice, congrats",
              "thanks, exhausted though"])
    say(mem, [f"filler line number {i} about the bus, the rain and the kettle" for i in range(20)],
        key="other", day=2)
    mem.workspace.memory_md.write_text(f"# Memory\n- {chatter}\n", "utf-8")

    hits = mem.search("what flat did they settle on in the end?", k=4)

    assert [h.source for h in hits[:2]] == ["archive", "archive"]  # the line folded into its turn
    assert [h.text for h in hits[:2]] == [answer, chatter]

