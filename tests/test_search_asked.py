"""Search priors of stop 27 (nanomem.search.prior): a reply to a question that asks for the
same kind of answer as the query, and a turn that reports a change when the query asks for a
value as it is now or as it ended up (or, since stop 31, as it was at first)."""

from __future__ import annotations

import pytest

from nanomem.memory import Memory
from nanomem.search import prior
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)


@pytest.mark.parametrize(("talk", "asked", "answer", "other", "query"), [
    (["my sister's wedding got moved", "my sister's wedding got sorted"],
     ["oh no, to when?", "oh no, was it hard?"],
     "the 14th of June, at the same hotel",
     "the whole of Saturday, at the same shop",  # holds a day too, but answers "was it hard?"
     "When is her sister's wedding?"),
    # a price noun asks for an amount (stop 31)
    (["想收一支二手镜头", "想收一支二手镜头"], ["好呀，你心里什么价位？", "好呀，你想去哪家店看？"],
     "六千以内吧，要带发票的",
     "两家都想看看，要带发票的",  # holds an amount too, but answers "which shop?"
     "她收二手镜头打算花多少钱？"),
    # a question without its mark, as texting drops it (stop 32)
    (["the boiler service got moved", "the boiler service got done"],
     ["no way. when is it then", "no way. was it pricey"],
     "the 9th of September, first thing",
     "the whole of Sunday, first thing",  # holds a day too, but answers "was it pricey"
     "When is the boiler service?"),
])
def test_search_prefers_the_reply_to_a_question_of_the_asked_kind(
        mem: Memory, talk: list[str], asked: list[str], answer: str, other: str, query: str) -> None:
    say(mem, [talk[0], asked[0], answer], key="a", day=1)
    say(mem, [talk[1], asked[1], other], key="b", day=8)
    say(mem, ["the cat slept on the warm windowsill", "soup for lunch again", "the train was late",
              "I fixed the squeaky gate"], key="c", day=4)  # other talk: the topic's words are rare

    texts = [h.text for h in mem.search(query, k=6)]

    assert texts.index(answer) < texts.index(other)


@pytest.mark.parametrize(("changed", "planned", "asked", "plain"), [
    ("the cottage fell through, so we switched to a barn in Devon instead",
     "the cottage has a wood stove, a hot tub and a long view of the lake",
     "Where is the holiday cottage now?", "Where is the holiday cottage?"),
    # a question for the value as it was at first (stop 31)
    ("the hall flooded, so the quiz night moved to the library annex instead",
     "the quiz night hall has a long bar, a small stage and a car park",
     "Where was the quiz night originally held?", "Where is the quiz night held?"),
    ("场地那边漏水，读书会改到图书馆三楼办了", "读书会那个场地挺大的，有个小舞台，楼下还能停车",
     "读书会一开始的场地在哪里？", "读书会的场地在哪里？"),
])
def test_search_prefers_the_turn_reporting_a_change_for_a_changed_value_question(
        mem: Memory, changed: str, planned: str, asked: str, plain: str) -> None:
    say(mem, [changed], key="a", day=1)
    say(mem, [planned], key="b", day=8)  # newer: the recency prior alone puts it first

    assert [h.text for h in mem.search(asked, k=2)] == [changed, planned]
    assert [h.text for h in mem.search(plain, k=2)] == [planned, changed]


@pytest.mark.parametrize("query", ["那支镜头什么价位？", "这次考试的分数是？", "他的体重现在是？"])
def test_prior_chinese_amount_question_by_its_noun(query: str) -> None:
    assert prior.plan_answer_cue(query) is prior.plan_answer_cue("多少？")


@pytest.mark.parametrize(("near", "kind"), [
    ("Oh no. To when?", "time"),
    ("ok... when do you fly out then?", "time"),
    ("太棒了！什么时候考的？", "time"),
    ("考了多少分？", "amount"),
    ("nice. how much was it?", "amount"),
    ("ok! who's coming?", "name"),
    ("那你心里大概什么价位？", "amount"),  # a price noun asks for an amount (stop 31)
    ("嗯嗯，这次的分数呢？", "amount"),
    ("I asked when. Fine.", None),  # not a question at its end
    ("when you can. is it nice?", None),  # the last question asks for nothing
    ("", None),
    ("and?? how long did it take you", "amount"),  # no mark: a question word opens it (stop 32)
    ("NO. when", "time"),
    ("lovely. who did you go with", "name"),
    ("you were on boats", None),  # no mark and no question word: a statement
    ("which reminds me.", None),  # an end mark that is no question mark
])
def test_prior_asked_cue_reads_the_question_the_turn_before_ends_with(
        near: str, kind: str | None) -> None:
    cues = {"time": "When is it?", "amount": "How much is it?", "name": "Who is it?"}
    expected = prior.plan_answer_cue(cues[kind]) if kind else None
    assert prior.plan_asked_cue(near) is expected


@pytest.mark.parametrize(("query", "asks"), [
    ("Where does Dan work now?", True),
    ("Where did they end up going in May?", True),
    ("What is the job she most recently accepted?", True),
    ("In the end, how much is the mortgage?", True),
    ("晓棠现在周末下午在玩什么运动？", True),
    ("周宁暑假最后去哪里旅行?", True),
    ("Which island had they first chosen?", False),  # the old value is asked for
    ("What did the landlord originally ask for?", True),  # the value as it was at first (stop 31)
    ("At first, which flat did they want to rent?", True),
    ("Which café was it that they used to meet at?", True),
    ("On what date did they collect the keys to their new home?", False),
    ("晓棠本来想去哪儿度假？", True),
    ("读书会一开始定在哪里办？", True),
    ("他们最早看中的是哪套房子？", True),
])
def test_prior_asks_change_for_the_value_as_it_is_now_or_was_at_first(query: str, asks: bool) -> None:
    assert prior.plan_asks_change(query) is asks


@pytest.mark.parametrize(("text", "boost"), [
    ("there's a strike so we've switched it all to Porto instead", prior.ANSWER_BOOST),
    ("they've bumped it. it's now the 3rd of November", prior.ANSWER_BOOST),
    ("签证来不及办，我们改成去泰国了", prior.ANSWER_BOOST),
    ("我妹妹不在上海住了，下个月搬回老家", prior.ANSWER_BOOST),  # 不…了: no longer
    ("婚礼的日子定了，就在五一", prior.ANSWER_BOOST),  # 定了: settled
    ("Clara and I are going to Lisbon in May!", 1.0),
    ("我妹妹不喜欢上海，太吵。", 1.0),  # 不 without 了 reports no change
])
def test_prior_change_boost_when_the_text_reports_a_change(text: str, boost: float) -> None:
    assert prior.plan_change_prior(True, text) == boost
    assert prior.plan_change_prior(False, text) == 1.0


def test_prior_asked_boost_multiplies_a_reply_to_the_same_kind_of_question() -> None:
    cue = prior.plan_answer_cue("When is the wedding?")
    docs = {1: ("archive", 12.0, "in June"), 2: ("archive", 12.0, "in June")}
    scored = prior.plan_priors({1: 1.0, 2: 1.0}, docs, "When is the wedding?",
                               names={1: None, 2: None}, asked={1: cue, 2: None})
    assert scored == {1: prior.ANSWER_BOOST ** 2, 2: prior.ANSWER_BOOST}

