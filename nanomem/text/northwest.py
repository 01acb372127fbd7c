"""Northwestern and Central Plains colloquial Chinese (Shaanxi, Gansu, Shanxi, Henan, Shandong)
read as standard Mandarin, for the rules only (pure; round-19 study).

The offline engine's Chinese rules find a person's own statement by its first person (我, 我们,
我家) and a request by its negation (别, 不要). A speaker of Guanzhong or another northwestern
speech says 我 as 额 (额是临潼的 "I am from Lintong"), and a speaker from Henan, Shandong or the
northeast says it as 俺; 嫑 (a fusion of 不要) is 别, the particle 咧 is 了, 撒 is 啥 (为撒,
干撒), 屋里 is 家里, 夜黑 is 晚上, 后晌 / 前晌 are 下午 / 上午, 年时 is 去年, 那搭 / 这搭 are 那里 /
这里, 谝 is 聊, 咥 is 吃, 碎娃 is 小孩. Every such person's own facts go unread while the rules
look for 我. :func:`fold_northwest` maps those words to standard ones of the same length, so a
text keeps every position and :func:`nanomem.text.hant.restore_hant` reads the speaker's own
words back at the same place (what is kept is the speaker's text).

Only the texts of a speaker who writes so are folded (the caller asks :func:`writes_northwest`
of the speaker's messages at hand): some message holds a word standard Mandarin does not have
(俺, 嫑, 夜黑, 后晌, 谝, 咥, 那搭, 为撒) or 额 where it can only be the pronoun (额们, or 额
after a word that takes a person: 给额, 帮额, 叫额, 跟额; or 额 opening a clause before a
verb: 额是, 额在, 额不). In a text so judged, 额 is 我 wherever it is no part of a word of
amount or forehead (金额, 余额, 名额, 营业额, 额度, 额外, 额头, 前额 stay), and 咧 is 了 but not
in 咧嘴 or 大大咧咧. A Shanghainese 额 (的) is read by :mod:`nanomem.text.wu` first, and the caller
asks that module first.

>>> writes_northwest(["额是西岩村的", "嫑搬重的"]), writes_northwest(["余额不足", "额，让我想想"])
(True, False)
>>> fold_northwest("额屋里十二亩园子，叫额老权就行，嫑客气咧")
'我家里十二亩园子，叫我老权就行，别客气了'
>>> fold_northwest("额的余额不多，俺们夜黑再谝")
'我的余额不多，我们晚上再聊'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nanomem.vocab import HAN_CLASS, any_word

__all__ = ["fold_northwest", "writes_northwest"]

# 额 inside a word of amount, quota or forehead (金额, 营业额, 额度, 额头): never the pronoun
_AMOUNT_BEFORE = "金名余超限份总定差配数税面巨票业售易交量提免缺空满足全溢增减欠借贷保赔员学前烂匾横扁"
_AMOUNT_AFTER = "度外头定角骨叶手满数款尔济敏"
_I = re.compile(f"(?<![{_AMOUNT_BEFORE}])额(?![{_AMOUNT_AFTER}])(?={HAN_CLASS})")
# where 额 can only be the pronoun: 额们, after a word that takes a person, or before a verb
_TAKES_PERSON = "给帮叫跟让替和对问把带陪找喊"
_AFTER_I = "们是在要想得就不也还都把给跟屋娃老家爸妈爷婆媳闺"
_MARKER = re.compile(
    f"俺|嫑|夜黑|后晌|前晌|那搭|这搭|[谝咥]|为撒"
    f"|(?<![{_AMOUNT_BEFORE}])额(?=[{_AFTER_I}])|(?<=[{_TAKES_PERSON}])额(?![{_AMOUNT_AFTER}])")
# word -> standard word of the same length (longest first where one holds another)
_WORDS = {
    "夜黑": "晚上", "后晌": "下午", "前晌": "上午", "那搭": "那里", "这搭": "这里", "碎娃": "小孩",
    "屋里": "家里", "为撒": "为啥", "干撒": "干啥", "是撒": "是啥", "做撒": "做啥", "说撒": "说啥",
    "俺": "我", "嫑": "别", "谝": "聊", "咥": "吃",
}
_WORD = any_word(_WORDS)
_LAST_YEAR = re.compile(r"(?<![当那这每])年时(?!候|间|期|节|光|代)")  # 年时 for 去年, not 当年时候
_DONE = re.compile(r"(?<![大骂])咧(?![嘴开着咧])")  # the particle 咧 for 了, not 咧嘴, 大大咧咧


def writes_northwest(texts: Iterable[str]) -> bool:
    """Whether some text of ``texts`` holds a word of northwestern or Central Plains speech that
    standard Mandarin does not use that way."""
    return any(_MARKER.search(text) for text in texts)


def fold_northwest(text: str) -> str:
    """``text`` with its northwestern colloquial words in their standard forms (same length)."""
    text = _WORD.sub(lambda m: _WORDS[m.group()], text)
    text = _LAST_YEAR.sub("去年", text)
    text = _I.sub("我", text)
    return _DONE.sub("了", text)
