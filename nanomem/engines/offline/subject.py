"""The subject a verb of change names, as the slot a correction sets (pure; round-20 study).

A Chinese correction often gives only the thing changed and its new value: 会费改成一个人150块,
以后协会活动改到铜锣峡去, 那个比赛是在长寿湖. What stands right before the verb of change (改成, 改到,
换成, 调到, 涨到, 定在 …, and 是在 in a sentence already judged a correction) is the subject the
new value is for. A memory line that holds that subject speaks of the same slot, though the
correction shares too few of its words to pass the similarity threshold.

The subject is the run of Chinese characters before the verb, from after its last time word,
demonstrative or particle (以后, 现在, 今年, 那个, 这个, 把, 的, 就, 都 …), at most four characters
and at least two. A line holds it when it holds each two-character word of it, counted from its
end (协会活动: 协会 and 活动), so "我们协会每个月搞一次活动" holds 协会活动.

The subject alone says too little of what the new value replaces ("交班改到五点半" for a line that
also names a partner and a car), so :func:`sets_subject_anew` also asks for a value of a kind the
line holds another of: a number (150块 for 120块) or a place, a name ending in a place word (区,
路, 医院, 公园 … and the natural ones: 岛, 湖, 峡, 江, 河, 山, 水库 …: 铜锣峡 for 广阳岛).

In English the thing put aside is the object of a verb of replacement: "traded in the old van …
got a Transit", "replaced my phone", or the thing an admission says was told wrong ("I told you
wrong about the foal's name"); a line that names that thing and another name (a make, a model, a
person) is the slot, when the correction gives a name the line lacks (:func:`replaces_named_thing`).

>>> changed_subject("开会定了，会费改成一个人150块。"), changed_subject("以后协会活动改到铜锣峡去。")
('会费', '协会活动')
>>> changed_subject("六月份那个比赛是在长寿湖。"), changed_subject("我改成了")
('比赛', None)
>>> holds_subject("- 我们协会每个月搞一次活动，一般都去江边。", "协会活动")
True
>>> sets_subject_anew("以后协会活动改到铜锣峡去。", "- 我们协会每个月搞一次活动，都去广阳岛钓。")
True
>>> sets_subject_anew("交班改到五点半了", "- 我跟小陆对班 伊开日班 四点钟交班")
False
>>> replaces_named_thing("traded in the old van at the dealer... got a Transit", "- my van's a Vauxhall Combo")
True
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.text.hant import fold_hant
from nanomem.vocab import HAN_CLASS

__all__ = ["changed_subject", "holds_subject", "replaces_named_thing", "sets_subject_anew"]

_CHANGE_VERB = r"(?:改成|改为|改到|改在|改去|换成|换到|换去|调到|调成|调为|调整为|调整到|涨到|涨成|涨为|降到|降为|变成|定在|是在)"
_BEFORE_VERB = re.compile(r"(?P<run>" + HAN_CLASS + r"{2,12}?)" + _CHANGE_VERB)
# Words the subject never holds: time words, demonstratives, particles and adverbs before it
_NOT_SUBJECT = re.compile(
    r"^.*(?:以后|以前|之后|现在|目前|如今|今年|明年|下个月|下月|从此|那个|这个|那些|这些|那|这|把|将|被|的|就|都|也|还|又|已经|"
    r"全部|一律|统一|一起|再|我们|我|你|他|她|咱们|大家)")

_PLACE = re.compile(
    HAN_CLASS + r"{2,4}?(?:幼儿园|小学|中学|大学|学院|医院|诊所|酒店|宾馆|公园|广场|大厦|商场|中心|小区|花园|大道|"
    r"路|街|巷|区|县|镇|乡|村|市|站|机场|码头|体育馆|餐厅|饭店|水库|岛|湖|峡|江|河|山|湾|滩|坝|寺|庙|桥|港)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# the verbs and particles a place name follows: the name is what comes after the last of them
_PLACE_LEAD = re.compile(r"^.*[我你他她们的在到去从于住搬转改换调定是那这个就也还都又说了过和跟]")


def sets_subject_anew(correction: str, line: str) -> bool:
    """Whether ``correction`` names the subject of its change that ``line`` holds, with a new
    number or place where the line holds another (see the module doc)."""
    subject = changed_subject(correction)
    if subject is None or not holds_subject(line, subject):
        return False
    mine, theirs = fold_hant(unicodedata.normalize("NFKC", correction)), fold_hant(unicodedata.normalize("NFKC", line))
    return _anew(_NUMBER.findall(mine), _NUMBER.findall(theirs)) or _anew(_places(mine), _places(theirs))


def _places(text: str) -> list[str]:
    return [place for place in (_PLACE_LEAD.sub("", m.group(0)) for m in _PLACE.finditer(text)) if len(place) >= 2]


def _anew(new: list[str], old: list[str]) -> bool:
    return bool(set(new) - set(old)) and bool(set(old) - set(new))

_REPLACED_THING = re.compile(
    r"\b(?:traded (?:in|off|away|out)|replaced|swapped|sold)\s+(?:the|my|our|his|her|their)\s+(?:old\s+)?(?P<thing>[a-z]{3,})\b"
    # an admitted wrong telling names the thing told wrong ("I told you wrong about the horse's name")
    r"|\b(?:told|gave) you (?:wrong|the wrong \w+) (?:about|on|for) (?:the|my|our|his|her|their)\s+(?:[a-z]+(?:'s|’s)\s+)?(?P<told>[a-z]{3,})\b", re.I)
_NAME = re.compile(r"(?<![\w'’-])(?<!^)(?<![.!?]\s)[A-Z][a-z]+")


def replaces_named_thing(correction: str, line: str) -> bool:
    """Whether ``correction`` puts aside a thing ("traded in the old van", "told you wrong about
    the foal's name") that ``line`` names with a name the correction lacks, and gives a name of
    its own the line lacks."""
    found = _REPLACED_THING.search(correction)
    thing = found and (found.group("thing") or found.group("told"))
    if not thing or not re.search(r"\b" + re.escape(thing) + r"(?:s|'s|’s)?\b", line, re.I):
        return False
    return _anew(_NAME.findall(correction), _NAME.findall(line))


def changed_subject(text: str) -> str | None:
    """The subject of the first verb of change in ``text`` (see the module doc), or None."""
    text = fold_hant(unicodedata.normalize("NFKC", text))
    for found in _BEFORE_VERB.finditer(text):
        subject = _NOT_SUBJECT.sub("", found.group("run"))[-4:]
        if len(subject) >= 2:
            return subject
    return None


def holds_subject(line: str, subject: str) -> bool:
    """Whether ``line`` holds each two-character word of ``subject``, counted from its end."""
    plain = fold_hant(unicodedata.normalize("NFKC", line))
    words = [subject[max(0, end - 2):end] for end in range(len(subject), 1, -2)]
    return all(word in plain for word in words)
