"""The trade answer kind (stop 33, nanomem.search.prior): a question for what someone does for a
living prefers the text that says what someone is by trade, and the reply to the other speaker's
question of that kind."""

from __future__ import annotations

import pytest

from nanomem.memory import Memory
from nanomem.search import prior
from tests.search_fixtures import mem, say  # noqa: F401 (a fixture)


TRADE = "What does she do for a living?"


@pytest.mark.parametrize(("asks", "other"), [  # a question for a trade, and one like it that is not
    ("What does Marta's brother do for a living?", "What does Marta's brother do with the boat?"),
    ("What did the lodger do for work before the move?", "What did the lodger do with the key?"),
    ("What was Osei's line of work before he opened the cafe?", "What was on Osei's list?"),
    ("What is Priti's husband's job?", "What car does Ravi take to his jobs these days?"),
    ("What did the man who fixes the boats do before he retired?",
     "What did the vet say Ravi can do about the limp?"),
    ("What was her trade?", "What old tools of the trade did she find in the loft?"),
    ("How does Imke earn her living?", "How does Imke earn praise from her boss?"),  # stop 34
    ("What craft does the neighbour earn her money from?", "What did the neighbour spend her money on?"),
    ("What job does Tariq's cousin have?", "What jobs does Tariq have left on the house?"),
    ("What work did Ilse's husband do before he retired?", "What did Ilse's husband do about the work?"),
    ("小周的哥哥是做什么的？", "爷爷每天早上做什么？"),
    ("她表姐以前干什么工作？", "她表姐以前在哪儿工作？"),
])
def test_prior_a_question_for_a_trade_is_told_from_other_what_questions(asks: str, other: str) -> None:
    cue = prior.plan_answer_cue(TRADE)
    assert cue is not None
    assert prior.plan_answer_cue(asks) is cue
    assert prior.plan_answer_cue(other) is not cue


@pytest.mark.parametrize(("trade", "other"), [  # a text saying a trade, and one like it that does not
    ("oh he's a ferry engineer on the Orkney run", "oh he's got a boat on the Orkney run"),
    ("nineteen years as a tree surgeon, then his knees went", "nineteen years in that house"),
    ("I was an usher at the Lyceum for years", "I was at the Lyceum for years"),
    ("twenty years teaching the little ones their letters", "twenty years ago this spring"),  # stop 34
    ("oh she works at the council, in housing", "oh she works hard, in housing and at home"),
    ("他在市医院当药剂师，天天倒班", "医生说要做个小手术，下个月"),  # 做 … 手 inside a word is no trade
    ("她老公是快递员，早出晚归的", "当时我是学生会的"),
    ("我表姐做秘书好多年了", "我表姐做饭好多年了"),
])
def test_prior_a_text_saying_what_someone_is_holds_a_trade(trade: str, other: str) -> None:
    cue = prior.plan_answer_cue(TRADE)
    assert prior.plan_answer_prior(cue, trade) == prior.ANSWER_BOOST
    assert prior.plan_answer_prior(cue, other) == 1.0


@pytest.mark.parametrize(("trade", "other", "query"), [
    ("Marta's brother is lovely, he's a ferry engineer on the Orkney run",
     "Marta's brother is lovely, he's got a little boat on the Orkney run",
     "What does Marta's brother do for a living?"),
    ("小周的哥哥人挺好的，在市医院当药剂师", "小周的哥哥人挺好的，在市医院旁边开了家面馆",
     "小周的哥哥是做什么的？"),
])
def test_search_prefers_the_turn_saying_the_trade(mem: Memory, trade: str, other: str, query: str) -> None:
    say(mem, [trade], key="a", day=1)
    say(mem, [other], key="b", day=8)  # newer: the recency prior alone puts it first

    assert [h.text for h in mem.search(query, k=2)] == [trade, other]


def test_search_prefers_the_reply_to_a_question_for_a_trade(mem: Memory) -> None:
    say(mem, ["my lodger Osei moved in on Sunday", "what does he do for work?",
              "night shifts mostly, down at the container port"], key="a", day=1)
    say(mem, ["my lodger Osei moved in on Sunday", "does he cook much?",
              "night shifts mostly, so he eats at the port"], key="b", day=8)
    say(mem, ["the cat slept on the warm windowsill", "soup for lunch again", "the train was late",
              "I fixed the squeaky gate"], key="c", day=4)  # other talk: the topic's words are rare

    texts = [h.text for h in mem.search("What does Osei do for a living?", k=6)]

    assert texts.index("night shifts mostly, down at the container port") < texts.index(
        "night shifts mostly, so he eats at the port")
