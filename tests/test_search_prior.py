"""Search priors (nanomem.search.prior): how much a turn says, and the kind of answer asked for."""

from __future__ import annotations

import pytest

from nanomem.memory import Memory
from nanomem.search import prior
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)


def test_search_ranks_the_sentence_above_a_two_word_turn_sharing_its_word(mem: Memory) -> None:
    answer = "the news is that the brewery offered me the head brewer job, starting in April"
    say(mem, [answer], key="a", day=1)
    say(mem, ["good news?"], key="b", day=8)  # newer, shorter: BM25 alone puts it first

    texts = [h.text for h in mem.search("what was the news?", k=2)]

    assert texts == [answer, "good news?"]


def test_search_keeps_a_short_memory_file_line_first(mem: Memory) -> None:
    mem.workspace.user.write_text("# User\n\n- Likes tea\n", "utf-8")
    say(mem, ["we drank so much tea at the cafe by the station on the way home last night"])

    hits = mem.search("tea", k=2)

    assert [h.source for h in hits] == ["file", "archive"]


def test_search_prefers_the_turn_with_a_day_for_a_when_question(mem: Memory) -> None:
    dated = "we fixed the garden hose together, Sam and me, on Wednesday"
    say(mem, [dated], key="a", day=1)
    plain = "we fixed the garden hose together, Sam and me, at long last"
    say(mem, [plain], key="b", day=8)  # newer: the recency prior alone puts it first

    assert [h.text for h in mem.search("when did we fix the garden hose?", k=2)] == [dated, plain]
    assert [h.text for h in mem.search("what did we fix in the garden?", k=2)] == [plain, dated]


def test_search_prefers_the_turn_with_a_number_for_a_how_many_question(mem: Memory) -> None:
    counted = "she planted tulips along the fence, forty of them, all red"
    say(mem, [counted], key="a", day=1)
    say(mem, ["she planted tulips along the fence, all of them red ones"], key="b", day=8)

    assert mem.search("how many tulips did she plant?", k=2)[0].text == counted


def test_search_prefers_the_turn_with_a_number_for_a_how_heavy_question(mem: Memory) -> None:
    weighed = "the vet put the cat on the scale again, he's down to 5.9"
    say(mem, [weighed], key="a", day=1)
    say(mem, ["the vet put the cat on the scale again, he hated every second"], key="b", day=8)

    assert mem.search("how heavy was the cat at the vet?", k=2)[0].text == weighed
    assert mem.search("what did the cat weigh at the vet?", k=2)[0].text == weighed


@pytest.mark.parametrize(("query", "text", "expected"), [
    ("When did she fall?", "I tripped over the hose on Wednesday", prior.ANSWER_BOOST),
    ("On what date did he start?", "I start on the 2nd of March", prior.ANSWER_BOOST),
    ("许妍是哪天搬家的？", "上周六搬的，叫了个搬家公司", prior.ANSWER_BOOST),
    ("How long did the race take?", "I finished in 2:04:37", prior.ANSWER_BOOST),
    ("李青的店第一天收入多少？", "第一天卖了三千二", prior.ANSWER_BOOST),
    ("How heavy is the cat now?", "she's down to 5.7", prior.ANSWER_BOOST),
    ("How tall was the tree they cut down?", "about thirty feet, taller than the house",
     prior.ANSWER_BOOST),
    ("What did the suitcase weigh at the airport?", "22.4, just under the limit", prior.ANSWER_BOOST),
    ("What did the new tyres cost him?", "£90 for the pair", prior.ANSWER_BOOST),
    ("团子现在多重？", "一点五公斤了", prior.ANSWER_BOOST),
    ("What is the name of her cat?", "and at midnight our tabby Mungo climbed the tree",
     prior.ANSWER_BOOST),
    ("Who fixed the puncture for her?", "my neighbour Gordon fixed it on the pavement",
     prior.ANSWER_BOOST),
    ("Which song did his mother sing?", 'she did "I Wanna Dance with Somebody" twice',
     prior.ANSWER_BOOST),
    ("修车铺新来的师傅姓什么？", "新来的师傅姓廖，四川人", prior.ANSWER_BOOST),  # a family name (stop 34)
    ("修车铺新来的师傅姓什么？", "新来的师傅是四川人，手艺不错", 1.0),
    ("What is the name of her cat?", "Mungo climbed the tree", 1.0),  # a first word: no sign
    ("What is the name of her cat?", "so I said OK. I think I'll get one", 1.0),
    ("What is the name of her cat?", "our tabby climbed the tree at midnight", 1.0),
    ("How heavy is the cat now?", "she's down to a svelte little loaf", 1.0),
    ("How did the cat get so heavy?", "she has four meals a day", 1.0),
    ("When did she fall?", "I tripped over the hose", 1.0),
    ("What breed is the dog?", "he is a greyhound, seven years old", 1.0),
])
def test_prior_answer_boost_when_the_text_holds_what_the_question_asks(
        query: str, text: str, expected: float) -> None:
    assert prior.plan_answer_prior(prior.plan_answer_cue(query), text) == expected


def test_prior_a_question_for_a_family_name_is_its_own_kind_and_the_reply_to_it_is_asked() -> None:
    cue = prior.plan_answer_cue("修车铺新来的师傅姓什么？")
    assert cue is not None and cue is prior.plan_answer_cue("那个房东姓啥来着")
    assert cue is not prior.plan_answer_cue("修车铺新来的师傅叫什么名字？")
    assert prior.plan_asked_cue("对了，楼下那个老板姓什么？") is cue


def test_prior_who_asks_for_a_name_only_as_the_question_word() -> None:
    assert prior.plan_answer_cue("Who coaches Bea?") is not None
    assert prior.plan_answer_cue("And to whom did she lend it?") is not None
    assert prior.plan_answer_cue("What does the niece who lives in Leeds study?") is None


@pytest.mark.parametrize("query", [  # stop 34: a word before a hyphen is part of a compound noun
    "Where is the weigh-in held?", "Who set the cost-cutting plan?", "Which pub hosts the price-off night?"])
def test_prior_an_amount_word_inside_a_hyphenated_compound_asks_for_no_amount(query: str) -> None:
    assert prior.plan_answer_cue(query) is not prior.plan_answer_cue("How much did it cost?")
    assert prior.plan_answer_cue("What did she weigh at the weigh-in?") is prior.plan_answer_cue(
        "How much did it cost?")


def test_search_prefers_the_turn_with_a_name_for_a_what_is_it_called_question(
        mem: Memory) -> None:
    named = "and at midnight our new tabby Mungo climbed the tree and knocked it over"
    say(mem, [named], key="a", day=1)
    say(mem, ["and at midnight our new tabby kitten climbed the tree and knocked it over"],
        key="b", day=8)  # newer: the recency prior alone puts it first

    assert mem.search("what is the new tabby called?", k=2)[0].text == named


def test_prior_length_counts_content_words_and_half_the_cjk_characters() -> None:
    assert prior.plan_content_units("Oh? and the") == 1.0  # stop words do not count
    assert prior.plan_content_units("嗯？") == 0.5
    assert prior.plan_length_prior("许妍") == 1 / prior.LENGTH_FULL
    assert prior.plan_length_prior(" ".join(f"word{i}" for i in range(30))) == 1.0


def test_search_finds_a_short_reply_said_right_after_the_question(mem: Memory) -> None:
    say(mem, ["which typesetting tool did you write the thesis in?", "latex."], key="a", day=1)
    say(mem, ["the thesis kept me up all week at the library, so annoying, I nearly gave up on it"],
        key="b", day=1)  # shares a word with the question, and says more

    texts = [h.text for h in mem.search("what tool was the thesis written in?", k=3)]

    assert texts.index("latex.") < texts.index(
        "the thesis kept me up all week at the library, so annoying, I nearly gave up on it")


@pytest.mark.parametrize(("near", "replies"), [
    ("How much was the quote?", True), ("你呢？ ", True), ("Fine.", False), ("", False),
    ("is this the bookkeeping one", True),  # no mark: an auxiliary or a question word opens it (stop 32)
    ("great. any news on the van", True), ("So. What are you reading at the moment", True),
    ("I keep forgetting you were on boats", False), ("did you. Fine.", False)])
def test_prior_a_turn_replies_when_the_turn_before_asked(near: str, replies: bool) -> None:
    assert prior.plan_replies(near) is replies
    assert prior.plan_length(1.0, replies=replies) == (prior.REPLY_FLOOR if replies else 1 / 12)
