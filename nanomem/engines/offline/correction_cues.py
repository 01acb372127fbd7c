"""The cues that a sentence corrects what was said before (pure, English and Chinese; split out of
``extract.py``).

A correction says so in words: a strong cue on its own ("no longer", "instead", 改成, 不再), a
verb of change with its new value ("pushed the launch to 9 October"), a weak cue ("actually",
"now", 其实) or an admitted mistake ("I misread it", 记错了) in a sentence decisive anyway.
:func:`has_correction_cue` is the test :func:`nanomem.engines.offline.extract.classify_sentence`
applies; :func:`tells_of_change` is the wider one behind
:func:`nanomem.engines.offline.extract.announces_change` (a change whose value comes next).

>>> has_correction_cue("I moved to Lisbon.", decisive=False, named=True, near_term=False, starting=False)
True
>>> tells_of_change("The office reissued my badge."), tells_of_change("I like my badge.")
(True, False)
"""

from __future__ import annotations

import re

from nanomem.engines.offline.relayed import is_news_report
from nanomem.engines.offline.shapes import denied_value, is_retraction
from nanomem.vocab import any_of

__all__ = ["has_correction_cue", "tells_of_change"]

_CORRECTION_STRONG = any_of(
    r"\bcorrection\b", r"\bno longer\b", r"\bnot anymore\b", r"\banymore\b", r"\bnot\b[^.!?,]{1,30}\bany more\b",
    r"\b(?:I|we)(?:'ve| have)? moved\b(?! (?:the|our|my|his|her|their|its|it|them|a|an|this|that|some|all)\b)",
    r"\binstead\b", r"\bchanged? (?:it )?to\b", r"\bswitch(?:ed)? to\b", r"\bnot\b[^.!?]{1,40}\bbut\b",
    r"\bI was wrong\b", r"\bchange of plans?\b", r"^\s*(?:update|correction)\b[^:：]{0,30}[:：]",
    # admitting a mistake, and "X is Y, not Z"
    r"\b(?:is|are|was|were|'s|'re)\b[^!?]{1,60},\s*not\s+(?:what\b|as\b|(?-i:[A-Z])|\d|[$€£¥])",
    r"更正", r"改成", r"改为", r"搬到", r"搬去", r"搬家", r"不再", r"换成",
    r"(?:提高|提升|增加|降低|降|减少|调整|推迟|延期|延到|提前|改|放慢|加快|缩短|延长|放宽|收紧|挪|移|迁)(?:到|为|成|至)",
    r"改(?:去|在|用|订|签|约)",
    r"换(?:到|去|用)", r"不是[^，。！？]{1,12}而是",
    r"不是(?:[^，。！？\s了]{0,4}\d[^，。！？\s了]{0,6})了",  # round 11: "一个月2800 不是3200了": no longer that value
    r"涨(?:到|为|至|成)", r"改期", r"以后[^，。！？]{0,10}?(?:都|全)?交给",
    r"以后(?:就|都|一直)(?:在|去|到)[^，。！？\s]{2,8}",  # round 17: "从今以后" a lasting new place ("以后就在岳阳")
    # a changed person: "we replaced Ada with Bo", "the new accountant is Lena Ruiz"
    r"\breplaced (?-i:[A-Z])\w+(?: (?-i:[A-Z])\w+)? with (?-i:[A-Z])",
    r"\bbeen calling (?:\w+ ){0,2}(?-i:[A-Z])\w+\b[^.!?]{0,60}\b(?:it|he|she)(?:'s|’s| is) (?-i:[A-Z])",  # round 7
    r"\b(?:the|my|our|his|her|their) new (?:[a-z]+ ){1,2}(?:is|are|will be) (?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?(?-i:[A-Z])",
    # round 10: the same without its article in second-language English ("…, new team lead is Ola Berg"),
    # and a new one issued ("they've issued a new policy number PX-2210")
    r"(?:^|[,;:]\s*)new (?:[a-z]+ ){1,2}(?:is|are|will be) (?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?(?-i:[A-Z])",
    r"\b(?:issued|assigned|allocated)\b (?:(?:me|us|him|her|them) )?(?:with )?a new\b",
    # round 11: the old value in brackets ("WRAP MOVES TO 16 JULY (was 9 July)"), and "X not Y"
    # between two values without the comma of unpunctuated text ("goes to Cape Town not Durban")
    r"\(\s*(?:was|previously|formerly)\s+[^()]{1,30}\)",
    r"(?-i:\b(?!I\b)[A-Z][\w'’-]*|\b\d[\w:.]*)\s+not\s+(?-i:[A-Z][a-z]|\d)",
    # round 20: a thing moved, and where it is now ("they moved the choir practice, it's at St Anne's now")
    r"\b(?:moved|shifted|relocated) (?:the|our|my) [a-z]+\b[^.!?]{0,60}?\b(?:it|they)(?:'s|’s|'re|’re| is| are)\b[^.!?]{0,50}?\bnow\b",
    # round 5: a Chinese change told as done, "我们换快递了" (换 + what was changed + 了)
    r"换(?!成|到|去|用)[^，。！？了]{1,6}了",
)
# Round 5: someone changed the speaker's slot ("The harbourmaster moved me.", "they rebooked us"):
# announces a change whose value comes next.
_MOVED_ME = any_of(r"\b(?:moved|switched|rebooked|transferred|reassigned|bumped|upgraded|downgraded|relocated) (?:me|us)\b",
               # round 9: someone else moved ("They've moved Mum downstairs.", "moved Dad to ward 4")
               r"\b(?:moved|transferred|relocated|swapped) (?:him|her|them|mum|mom|dad|(?-i:[A-Z])[a-z]+|(?:my|our) (?:mum|mom|dad|mother|father|son|daughter|gran|nan))\b(?! (?:and|to the shops)\b)",
               r"\b(?:has|have|had|'s|’s) (?:moved|changed)\W*$",  # round 7: "Office has moved."
               r"搬完了")  # session 27: a move done ("搬完了！"): the new place follows
# Admitting a mistake ("I'd misread it", "I got the dates wrong", 记错了): a correction when the
# sentence is decisive anyway.
_ADMISSION = any_of(
    r"\bI(?:'d| had)? (?:misread|misspoke|mistyped|misremembered)\b", r"\bmy (?:mistake|bad)\b",
    r"\bI (?:got|had) (?:it|that|this|the \w+(?: \w+)?) wrong\b", r"\bscratch that\b",
    # session 30: the mistake named as one ("I made a mistake last time", "we made an error on the form")
    r"\b(?:I|we)(?:['’]ve| have)? made (?:a|an|one|a little|a small|a big) (?:mistake|error|slip)\b", r"\bI was mistaken\b",
    r"^\W*(?:misread|misspoke|mistyped|misremembered|miscounted|misheard|got (?:it|that) wrong)\b",  # round 7
    r"^\W*(?:the |my |our )?(?:\w+ ){1,2}(?:was|were|is|are) wrong\W*$", r"\bwhat am I saying\b", r"\bturns out\b",
    r"记错了", r"说错了", r"搞错了",
    r"\b(?:I|we) (?:told|gave) you (?:it |that |this )?(?:wrong|the wrong)\b",  # round 20: "I told you wrong about …"
    # session 27: a mix-up or a slip of the hand ("he says I had it mixed up", "I fat-fingered my asset
    # tag, the last two digits are the other way round")
    r"\b(?:had|got|have) (?:it|them|that|those|these|the \w+(?: \w+)?) (?:mixed|muddled) up\b", r"\bmix-?up\b",
    r"\bfat[- ]?finger(?:ed)?\b", r"\btransposed\b", r"\b(?:the )?(?:other|wrong) way (?:round|around)\b",
)
# A verb of change followed by "to"/"until" ("raised the budget to 5,750"): a correction when
# the sentence also carries a value (number, identifier, name) or another decisive signal.
_CORRECTION_CHANGE = any_of(
    r"\b(?:changed|raised|lowered|increased|decreased|reduced|cut|bumped|moved|pushed|postponed|"
    r"rescheduled|updated|extended|shortened|switched|upgraded|downgraded|renamed|relocated|"
    r"put (?:\w+ ){0,3}(?:up|down)|went (?:up|down)|rose|fell|jumped|dropped|climbed|hiked|"
    # round 5 study: the other forms of the same verbs ("agreed to lower the mark to 58")
    r"(?:to|will|'ll|going to) (?:change|raise|lower|increase|decrease|reduce|cut|move|push|postpone|"
    r"reschedule|extend|shorten|switch|upgrade|downgrade|rename|relocate|bump))\b"
    r"[^.!?]{0,60}?\b(?:to|until)\b",
    r"\b(?:moved|relocated)\b[^.!?]{0,40}?\binto\b",  # round 11: "the archive moved into the library"
)
# Round 11: the same verbs in the present ("WRAP MOVES TO 16 JULY", "we're moving base to X"): a
# correction only when the sentence is not near-term ("the recce moves to Monday this week")
_CORRECTION_CHANGE_NOW = any_of(
    r"\b(?:moves|moving|changes|changing|shifts|shifting|pushes|pushing)\b[^.!?]{0,60}?\b(?:to|until|into)\b")
_CORRECTION_WEAK = any_of(
    r"\bactually\b", r"其实", r"不对", r"错了", r"现在",
    r"\b(?:I|we|you|they|he|she|it)(?:'re|'m|'s|’re|’m|’s| are| am| is)?\s+now\b", r"\b(?:is|are)\s+now\b",
    r"\bnow\s*[.!]?\s*$", r"(?:\b(?:is|are|am)|'re|'m|'s|’re|’m|’s)\s+[^,.;!?]{1,30}?\s+now\s*[,;]",
    # round 5: "the fee is £425 after all", "no more damp", "we're in a new flat", and the old
    # value out of service ("B14 is being dredged")
    r"\bafter all\b(?!\s+(?:that|the|this|those|these|my|our|his|her|their|its|of|we|I|you|he|she|they|it)\b)", r",\s*(?:but\s+|and\s+)?no more\b(?! than)",
    r"(?:\b(?:is|are|am)|'re|'m|'s|’re|’m)\s+(?:now\s+)?(?:in|at|on|into)\s+(?:a|an|our|my|the)\s+new\b",

    r"\b(?:reissued|re-issued|replaced|renewed|swapped)\b", r"变动|变更",
    # a replacement: "BA 117 was cancelled", "they rebooked me", "the new job is KS-4471"
    r"\b(?:cancell?ed|called off|rebooked|replaced|reassigned)\b", r"(?:^\W*|\bthe |\bmy |\bour )new \w+ (?:is|are)\b",
    r"\btraded (?:in|off|away|out)\b",  # round 20: a trade-in ("traded off the old truck … got a Tundra")
    r"取消了", r"新的\S{0,6}是",
)
# Round 5: the old value out of service ("B14 is being dredged", "仓库正在装修"): the sentence
# that says so names the new value beside it, a correction.
_OUT_OF_SERVICE = any_of(r"\b(?:is|are)\s+(?:being|getting)\s+(?:\w+ed|\w+en|rebuilt|redone|dug|built)\b",
                      r"正在(?:装修|维修|整修|翻新|施工)")

def has_correction_cue(sentence: str, *, decisive: bool, named: bool, near_term: bool, starting: bool) -> bool:
    """Whether a sentence reads as a correction, given what the other rules found in it: whether
    it is ``decisive``, holds a name (``named``), is ``near_term``, or starts a lasting change
    from a point in time (``starting``: "from next week …").

    >>> has_correction_cue("Actually it's 40.", decisive=True, named=False, near_term=False, starting=False)
    True
    >>> has_correction_cue("Actually it's 40.", decisive=False, named=False, near_term=False, starting=False)
    False
    """
    return bool(
        _CORRECTION_STRONG.search(sentence)
        or ((decisive or named) and (_CORRECTION_CHANGE.search(sentence) or _OUT_OF_SERVICE.search(sentence)
                                     or (_CORRECTION_CHANGE_NOW.search(sentence) and not near_term)))
        or (decisive and (_CORRECTION_WEAK.search(sentence) or _ADMISSION.search(sentence) or starting
                          or denied_value(sentence)))  # round 9: "…, the 31.20 was last year's rate"
    )


def tells_of_change(sentence: str) -> bool:
    """Whether a sentence tells that something changed, with or without the new value: a
    correction cue, someone who moved the speaker ("they rebooked us"), a retraction or a report
    that news came.

    >>> tells_of_change("They rebooked us."), tells_of_change("Inspector rang.")
    (True, True)
    """
    return bool(_CORRECTION_STRONG.search(sentence) or _CORRECTION_WEAK.search(sentence)
                or _ADMISSION.search(sentence) or _MOVED_ME.search(sentence) or is_retraction(sentence)
                or is_news_report(sentence))  # round 9: "inspector rang.": the news comes next
