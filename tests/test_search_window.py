"""Search in conversation: session windows (nanomem.search.window), stems and clitics."""

from __future__ import annotations

from nanomem.memory import Memory
from nanomem.search import terms, window
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)

WEDDING = ["Kofi's brother is getting married this summer, did I tell you?",
           "no! where?",
           "in Kumasi in August, so we're flying out to Ghana for ten days."]


def test_search_finds_the_answer_next_to_the_turn_that_matches(mem: Memory) -> None:
    say(mem, WEDDING)
    say(mem, ["my brother is fine", "the summer was hot"], key="other")

    texts = [h.text for h in mem.search("where is Kofi's brother's wedding?", k=5)]

    assert texts[0] == WEDDING[0]
    assert WEDDING[2] in texts  # it shares no word with the question, only a window


def test_search_window_stays_within_one_session(mem: Memory) -> None:
    say(mem, ["the pottery class was great"], key="a")
    say(mem, ["unrelated chatter about nothing"], key="b")

    assert [h.text for h in mem.search("pottery")] == ["the pottery class was great"]


def test_search_ranks_a_matching_turn_above_its_neighbours(mem: Memory) -> None:
    say(mem, ["hello", "we adopted a beagle", "how lovely"])

    hits = mem.search("beagle")

    assert hits[0].text == "we adopted a beagle"
    assert {h.text for h in hits[1:]} == {"hello", "how lovely"}
    assert all(h.score < hits[0].score for h in hits[1:])


def test_search_window_keeps_to_the_date_filter(mem: Memory) -> None:
    mem.archive.append_messages(
        [{"role": "user", "content": "before the trip", "timestamp": "2026-04-30T09:00:00"},
         {"role": "user", "content": "the Lisbon trip", "timestamp": "2026-05-01T09:00:00"},
         {"role": "user", "content": "after the trip", "timestamp": "2026-05-02T09:00:00"}],
        session_key="cli", start=0, chunk="c")

    hits = mem.search("Lisbon", since="2026-05-01", until="2026-05-01")

    assert [h.text for h in hits] == ["the Lisbon trip"]


def test_search_window_is_off_when_archive_is_not_searched(mem: Memory) -> None:
    say(mem, WEDDING)
    mem.history.append("- [durable] Kofi's brother is getting married", session_key="cli")

    assert [h.source for h in mem.search("brother married", sources=["history"])] == ["history"]


def test_search_matches_an_inflected_word_by_its_stem(mem: Memory) -> None:
    say(mem, ["we painted a sunrise last week", "the weather was grey"], key="a")

    assert mem.search("painting")[0].text == "we painted a sunrise last week"
    assert mem.search("sunrises")[0].text == "we painted a sunrise last week"


def test_search_still_matches_chinese_inside_a_window(mem: Memory) -> None:
    say(mem, ["你周末干什么了？", "我们去爬山了。", "真好"])

    texts = [h.text for h in mem.search("爬山")]

    assert texts[0] == "我们去爬山了。" and set(texts[1:]) == {"你周末干什么了？", "真好"}


def test_plan_terms_drops_the_fragments_of_english_clitics() -> None:
    assert terms.plan_terms("Where is Kofi's brother's wedding? I'd say it's far") == [
        '"kofi"', '"brother"', '"wedding"', '"far"']


def test_plan_window_leans_forward_from_a_question_to_its_reply() -> None:
    # The turn after a match (a reply) takes more of its relevance than the turn before it.
    smoothed = window.plan_window({2: 1.0}, {1: ("s", 1), 2: ("s", 2), 3: ("s", 3)})

    assert smoothed[3] > smoothed[1] > 0

