"""Shanghainese (Wu) read as Mandarin, for the rules only (pure; round-17 study).

The offline engine's Chinese rules are written in Mandarin (我们, 在, 的, 不要, 喜欢, 明天). A
person who writes Shanghainese says the same things with other function words: 阿拉 for 我们 /
我的, 侬 for 你, 伊 for 他 / 她, 辣 for 在, 额 for 的, 勿 for 不, 覅 for 不要, 搿 for 这, 侪 for 都,
呒没 for 没有, 欢喜 for 喜欢, 明朝 for 明天, 屋里 for 家里, so the rules that read a person's
own statement (我们女儿在同济读研究生) or a request (以后别写星期几) never fire.
:func:`fold_wu` maps those words to their Mandarin forms, each word for one of the same
length, so a text keeps every position and :func:`nanomem.text.hant.restore_hant` reads the
speaker's own words back at the same place (what is kept is the speaker's text).

Only the texts of a speaker who writes Shanghainese are folded (the caller asks
:func:`writes_wu` of all the speaker's messages at hand, since a line such as
车子停辣小区后头额车库 shows it only by words that are Mandarin too): some message holds a word
no Mandarin text uses (侬, 阿拉 but not 阿拉伯 / 阿拉斯加, 覅, 搿, 侪, 呒没, 伊拉, a question ending
in 伐, 勿 for 不 but not in 请勿, 切勿, 勿忘). 阿拉 before a relative is 我的 (阿拉老婆: my wife), elsewhere 我们. Two of the words are
everyday Mandarin with another sense, so they are folded only where that sense cannot be meant:
辣 (spicy) not beside a word of taste (辣椒, 麻辣), 额 (amount, forehead) not in 金额, 额度 and
the like.

>>> writes_wu(["车子停辣车库", "以后侬覅写星期几 好伐"]), writes_wu(["我喜欢吃辣", "阿拉伯数字"])
(True, False)
>>> fold_wu("阿拉囡囡辣同济读研究生 学土木额")
'我的女儿在同济读研究生 学土木的'
>>> fold_wu("以后侬覅写星期几 好伐")
'以后你别写星期几 好吗'
>>> fold_wu("阿拉屋里吃麻辣烫 金额三百")
'我们家里吃麻辣烫 金额三百'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nanomem.vocab import any_word

__all__ = ["fold_wu", "writes_wu"]

_MARKER = re.compile(r"侬|阿拉(?![伯斯丁])|覅|搿|侪|呒没|伊拉|[好是要对行]伐(?=$|[\s，。！？,.!?])"
                     r"|(?<![请切务万])勿(?![忘扰念论])")  # 勿 for 不 (排勿上, 勿适意), not 请勿, 勿忘
# word -> Mandarin word of the same length (longest first where one holds another)
_WORDS = {
    "阿拉": "我们", "伊拉": "他们", "呒没": "没有", "欢喜": "喜欢", "囡囡": "女儿", "姆妈": "妈妈", "屋里": "家里",
    "今朝": "今天", "明朝": "明天", "昨日": "昨天", "辰光": "时候", "困觉": "睡觉", "哪能": "怎么", "交关": "非常",
    "侬": "你", "伊": "他", "覅": "别", "搿": "这", "侪": "都", "勿": "不", "呒": "没",
}
_RELATIVE = "老婆|老公|囡囡|女儿|儿子|姆妈|妈妈|阿爸|爸爸|爷爷|阿爷|娘娘|阿娘|外婆|外公|阿姐|阿哥|阿弟|阿妹|妹妹|外甥|侄子|孙子|孙女|老头子|老太婆"
_MY = re.compile(f"阿拉(?={_RELATIVE})")
_WORD = any_word(_WORDS)
_NOT_WORDS = re.compile(r"阿拉[伯斯丁]")
_AT = re.compile(r"(?<![麻香酸微甜好太很不])辣(?![椒酱味油条妹子的])")  # 辣 for 在, not spicy
_OF = re.compile(r"(?<![金名余超限份总定差配])额(?![度外头])")  # 额 for 的, not an amount
_QUESTION = re.compile(r"(?<=[好是要对行])伐(?=$|[\s，。！？,.!?])")


def writes_wu(texts: Iterable[str]) -> bool:
    """Whether some text of ``texts`` holds a word of Shanghainese that Mandarin never uses."""
    return any(_MARKER.search(text) for text in texts)


def fold_wu(text: str) -> str:
    """``text`` with its Shanghainese words in their Mandarin forms (same length)."""
    text = _MY.sub("我的", text)
    kept = {m.start() for m in _NOT_WORDS.finditer(text)}
    text = _WORD.sub(lambda m: m.group() if m.start() in kept else _WORDS[m.group()], text)
    text = _AT.sub("在", text)
    text = _OF.sub("的", text)
    return _QUESTION.sub("吗", text)
