"""Northern colloquial Chinese (Tianjin, Beijing) read as standard Mandarin, for the rules only
(pure; round-18 study).

The offline engine's Chinese rules are written in standard Mandarin (这, 那, 什么, 别, 以后,
明天). A person who writes the speech of Tianjin or Beijing says the same things with other
words: 介 for 这 (介礼拜, 介是), 奈 for 那 (奈个路口), 嘛 for 什么 (有嘛事儿, 为嘛), 甭 for 别
(你甭管), 往后 for 以后, 明儿 / 今儿 / 昨儿 for 明天 / 今天 / 昨天, 倍儿 for 非常; so a request
(往后有嘛事儿头天晚上说) or a day (明儿上午复查) goes unread. :func:`fold_northern` maps those
words to standard ones of the same length (嘛 to 啥, the colloquial 什么 of one character), so a
text keeps every position and :func:`nanomem.text.hant.restore_hant` reads the speaker's own
words back at the same place (what is kept is the speaker's text).

Only the texts of a speaker who writes so are folded (the caller asks :func:`writes_northern`
of all the speaker's messages at hand): some message holds a word standard Mandarin does not use
that way: 介 before 个 / 是 / 礼拜 / 么 / 玩意, 奈 before 个 / 些 / 么 / 会, 为嘛, 嘛 before 事 /
都 / 玩意, 倍儿, 甭. The words with another standard sense are folded only where that sense
cannot be meant: 介 not in 介绍, 介意, 中介, 简介, 媒介 and the like; 奈 not in 无奈, 奈何; 嘛 only
inside a clause (the particle 嘛 ends one: 好嘛, 是嘛。).

>>> writes_northern(["介礼拜忙", "你甭管"]), writes_northern(["给你介绍一下", "好嘛，就这样"])
(True, False)
>>> fold_northern("往后有嘛事儿你甭客气，明儿再说")
'以后有啥事儿你别客气，明天再说'
>>> fold_northern("介个中介倍儿靠谱，奈会儿无奈")
'这个中介非常靠谱，那会儿无奈'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nanomem.vocab import HAN_CLASS, any_word

__all__ = ["fold_northern", "writes_northern"]

_MARKER = re.compile(r"(?<![中简媒评推引])介(?=[个是礼么玩])|(?<!无)奈(?=[个些么会])|为嘛|嘛(?=事|都|玩意)|倍儿|甭")
# word -> standard word of the same length
_WORDS = {"往后": "以后", "明儿": "明天", "今儿": "今天", "昨儿": "昨天", "倍儿": "非常", "甭": "别"}
_WORD = any_word(_WORDS)
_THIS = re.compile(r"(?<![中简媒评推引])介(?![绍意入质词于])")  # 介 for 这, not 介绍, 中介
_THAT = re.compile(r"(?<!无)奈(?!何)")  # 奈 for 那, not 无奈
_WHAT = re.compile(f"嘛(?={HAN_CLASS})")  # 嘛 for 什么 inside a clause; the particle ends one


def writes_northern(texts: Iterable[str]) -> bool:
    """Whether some text of ``texts`` holds a word of Tianjin or Beijing speech that standard
    Mandarin does not use that way."""
    return any(_MARKER.search(text) for text in texts)


def fold_northern(text: str) -> str:
    """``text`` with its northern colloquial words in their standard forms (same length)."""
    text = _WORD.sub(lambda m: _WORDS[m.group()], text)
    text = _THIS.sub("这", text)
    text = _THAT.sub("那", text)
    return _WHAT.sub("啥", text)
