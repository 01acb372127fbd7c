"""Session 32 (round-18 study): a speaker of Tianjin speech is judged as Mandarin (介, 奈, 嘛, 甭,
往后, 明儿 … read as 这, 那, 啥, 别, 以后, 明天) and what is kept is their own text; a length counted
in sentences and the idioms of plain speech are answer-style words; a text pasted to ask whether
it is genuine is someone else's; Chinese medicine names are health by their stems; the speaker's
own daily habit is no past story. Every sentence here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.engine import extract_dated_facts, extract_facts
from nanomem.engines.offline.extract import classify_sentence


def _kept(*messages: str) -> list[tuple[str, str]]:
    return [(mark, text) for mark, text, _ in extract_dated_facts((m, None) for m in messages)]


# --- Tianjin speech read as Mandarin ---------------------------------------------------------------

@pytest.mark.parametrize("texts", [["介礼拜忙不过来", "你甭管了"], ["奈个菜市场挪地方了"], ["为嘛不早说"]])
def test_a_speaker_writes_tianjin_speech_by_a_word_mandarin_does_not_use_so(texts: list[str]) -> None:
    from nanomem.text.northern import writes_northern

    assert writes_northern(texts)
    assert not writes_northern(["给你介绍一下我的同事", "好嘛，就这么定了", "无奈只好走回去", "中介费太贵"])


def test_the_northern_fold_keeps_every_position() -> None:
    from nanomem.text.northern import fold_northern

    text = "往后介种事儿甭问我，奈会儿我倍儿忙，明儿再说嘛"
    folded = fold_northern(text)
    assert len(folded) == len(text)
    assert folded == "以后这种事儿别问我，那会儿我非常忙，明天再说嘛"  # the particle 嘛 ends a clause


@pytest.mark.parametrize("message", [
    "往后有嘛事儿你都提前两天跟我说一声，当天说来不及。",
    "往后回我甭超过三行，手机屏幕小。",
    "往后写钱数甭写大写，看着费劲。",
])
def test_a_tianjin_request_is_kept_in_the_speakers_words(message: str) -> None:
    assert _kept(message) == [("durable", message)]


def test_a_day_in_tianjin_speech_is_near_term_when_the_speaker_writes_so() -> None:
    # 明儿 is 明天 only for a speaker who shows Tianjin speech somewhere in the messages at hand
    assert _kept("介礼拜甭找我", "明儿下午三点去牙科拔牙。") == [("ephemeral", "明儿下午三点去牙科拔牙。")]


# --- a length in sentences and plain speech are answer-style words ----------------------------------

@pytest.mark.parametrize("sentence", ["别给我发长篇大论，一两句说清楚就行。", "说人话，别咬文嚼字。", "别跟我文绉绉的。"])
def test_a_length_in_sentences_and_plain_speech_are_style(sentence: str) -> None:
    assert is_style_request(sentence)
    assert not is_style_request("问你一句，明天下雨吗") and not is_style_request("这首诗只有两句。")


# --- a text pasted to ask whether it is genuine is someone else's -----------------------------------

@pytest.mark.parametrize("message", [
    "Legit or scam? Got this by text an hour ago:\n\nRoyal Mail: your parcel is waiting, pay the £2.99 fee at "
    "royalmail-fee.info by 6pm.",
    "Is this for real? My neighbour forwarded it:\n\nCouncil Tax: you are owed a rebate of £214. Claim within 48 hours "
    "at ctax-rebate.uk/claim",
    "我闺女转来一条短信，问是不是真的：\n\n【社保局】您的社保卡将于12月31日停用，请登录 sb-renew.cn 重新认证。",
    "真的假的？\n\n【快递】您的包裹地址有误，请在3月8日前点击 kd-fix.cn 修改",
])
def test_a_text_pasted_to_ask_whether_it_is_genuine_keeps_nothing(message: str) -> None:
    assert extract_facts([message]) == []
    # a paste under a plain lead is still judged line by line, and a question with no paste is no paste
    assert ("durable", "12 Rose Lane, Leeds LS6 2AB") in extract_facts(["Here is my new address:\n\n12 Rose Lane, Leeds LS6 2AB"])
    from nanomem.engines.offline.mail import asks_if_genuine

    assert not asks_if_genuine("Is this real, a fox in the kitchen at noon?")


# --- Chinese medicine names by their stems ----------------------------------------------------------

@pytest.mark.parametrize("sentence", ["氨氯地平，早晚各一片。", "缬沙坦一天一片，饭后吃。", "阿托伐他汀，睡前一粒。"])
def test_a_chinese_medicine_name_is_health(sentence: str) -> None:
    assert classify_sentence(sentence) == "permanent"
    assert classify_sentence("地平线上出现了一艘船。") is None  # a word that only looks like a stem


# --- the speaker's own daily habit is no past story -------------------------------------------------

def test_the_speakers_daily_habit_lasts_though_told_with_le() -> None:
    habit = "我天天下午去公园打太极，在东门的亭子里，风雨无阻，练了好些年了。"
    assert _kept(habit) == [("durable", habit)]
    assert _kept("我表姐换了个新手机，天天在群里晒照片了。") == []  # someone else's habit is still their news


# --- the time words of a speaker who mixes Spanish with English -------------------------------------

@pytest.mark.parametrize("sentence", [
    "Esta semana trabajo desde la casa de mi hermana in Tampa.",
    "Hoy I'm driving my cousin's Corolla, mine is at the shop.",
    "El plumber viene mañana a las 9 for the leak.",
    "Ando con muletas hasta que me quiten el yeso, so no stairs.",
])
def test_a_spanish_near_term_word_makes_a_sentence_of_the_moment(sentence: str) -> None:
    assert classify_sentence(sentence) == "ephemeral"
    assert classify_sentence("I teach spin at the Y por la mañana, Mondays.") == "durable"  # "por la mañana": in the morning


@pytest.mark.parametrize("sentence", [
    "Recordatorios: avísame three days before de cada cita, please.",
    "recuérdame the evening before de todo, not the same day.",
])
def test_a_lead_time_for_reminders_in_spanish_is_a_reminder_rule(sentence: str) -> None:
    from nanomem.engines.offline.asks import is_reminder_rule

    assert is_reminder_rule(sentence)
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "Todos los jueves voy al choir practice at St Mary's.",
    "Los sábados bailo salsa en un club in Coral Way.",
    "cada domingo hago paella para la familia entera",
])
def test_a_spanish_weekday_as_a_plural_or_with_cada_recurs(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"
