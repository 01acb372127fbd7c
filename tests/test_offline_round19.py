"""Session 33 (round-19 study): a speaker of northwestern or Central Plains speech (额 or 俺 for 我,
嫑 for 别, 咧 for 了, 屋里 for 家里 …) is judged as Mandarin and what is kept is their own text;
a potential complement (忙不过来, 看得过来) and the conjunction 不过 tell no past. Every sentence
here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.engine import extract_dated_facts
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.tense import is_narrative


def _kept(*messages: str) -> list[tuple[str, str]]:
    return [(mark, text) for mark, text, _ in extract_dated_facts((m, None) for m in messages)]


# --- 额 and 俺 for 我: northwestern and Central Plains speech read as Mandarin ------------------------

@pytest.mark.parametrize("texts", [["额是富平庄里镇的"], ["你帮额看看"], ["俺家住东关"], ["嫑急"], ["夜黑下了一场雨"]])
def test_a_speaker_writes_northwestern_speech_by_a_word_mandarin_does_not_use_so(texts: list[str]) -> None:
    from nanomem.text.northwest import writes_northwest

    assert writes_northwest(texts)
    assert not writes_northwest(["余额不足，请充值", "额，让我想想", "这个名额给他", "营业额是三百万", "前额有点疼"])


def test_the_northwestern_fold_keeps_every_position_and_the_words_of_amount() -> None:
    from nanomem.text.northwest import fold_northwest

    text = "额屋里的存款余额不多咧，俺们后晌再谝，嫑咧嘴笑"
    folded = fold_northwest(text)
    assert len(folded) == len(text)
    assert folded == "我家里的存款余额不多了，我们下午再聊，别咧嘴笑"


@pytest.mark.parametrize("message", [
    "额是富平庄里镇的，叫任拴劳，在县上开出租。",
    "俺是菏泽曹县的，叫孔繁星。",
])
def test_who_a_northwestern_speaker_is_is_kept_in_their_words(message: str) -> None:
    assert _kept(message) == [("permanent", message)]


@pytest.mark.parametrize("message", [
    "额娃在西安交大读书，学材料的。",
    "俺闺女在济南读研究生。",
    "额们村的苹果园有三十亩，额管账。",
    "俺老伴在县医院当护士，管产科。",
])
def test_a_northwestern_speakers_own_world_is_kept_in_their_words(message: str) -> None:
    assert _kept(message) == [("durable", message)]
    # 额 is 的 for a speaker of Shanghainese (round 17), and that reading comes first
    assert _kept("阿拉囡囡辣复旦读书，学数学额。") == [("durable", "阿拉囡囡辣复旦读书，学数学额。")]


# --- a potential complement is no past -----------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "你跟我说路程的时候说公里，别说英里，我换算不过来。",
    "我家里两个孩子一个老人，我一个人照顾不过来。",
])
def test_a_potential_complement_tells_no_past(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"
    assert classify_sentence("那家店我去过一次，人挤人。") is None  # the experiential 过 still tells a story


# --- vernacular English pronouns: ya for you, me for my -------------------------------------------

@pytest.mark.parametrize("message", [
    "When ya sends me the tide times, put the low water first.",
    "The truck is the Ranger, bought her off me uncle.",
    "The cabin is the Rose Anne, me father built her.",
])
def test_a_request_or_fact_in_vernacular_pronouns_is_kept_in_the_speakers_words(message: str) -> None:
    assert _kept(message) == [("durable", message)]


def test_ya_for_yeah_and_me_before_anything_but_a_relative_stay() -> None:
    from nanomem.text.vernacular import standard_pronouns

    assert standard_pronouns("Ya, sounds grand.") == "Ya, sounds grand."
    assert standard_pronouns("Tell me prices in dollars, ya hear.") == "Tell me prices in dollars, you hear."
    assert standard_pronouns("Me own boat, me da built her.") == "My own boat, my da built her."


# --- a request chained on with "and" ---------------------------------------------------------------

@pytest.mark.parametrize("sentence", ["and always tell me the wind first, I gotta know if the kids gonna be cold"])
def test_a_request_opened_by_a_conjunction_is_a_preference(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


# --- "won", "shot", "led" tell the past; "next door" is a place, not ahead ---------------------------

@pytest.mark.parametrize("sentence", [
    "Gord won the meat raffle at the Legion.",
    "My nephew shot a moose up the country.",
    "The couple next door argued about the bins.",
])
def test_common_irregular_past_forms_tell_the_past(sentence: str) -> None:
    assert is_narrative(sentence)
    assert not is_narrative("The lads won't be in till noon.")  # "won't" is ahead, not "won"


# --- a text the person got, quoted or pasted, is set aside whole -------------------------------------

@pytest.mark.parametrize("message", [
    "Sending you this text I got: 'HMRC: You are owed a tax rebate of $312.40. Claim within 72hrs at hmrc-rebate.info'.",
    "1. look what came on my phone\n2. 'Texas Toll Pay: You have a balance of $7.25. Pay by 03/14 to skip a $45 fee: txtoll-due.top'",
    "【医保局】您的医保账户将于48小时内冻结，请点击 yb-jiedong.cc 完成认证。",
])
def test_a_notice_with_a_link_the_person_got_is_not_their_fact(message: str) -> None:
    assert _kept(message) == []
    assert _kept("Our shop site is kettleandcrumb.com, my sister runs it.") != []  # the person's own link
