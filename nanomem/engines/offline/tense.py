"""Whether a sentence only tells of the past: the narrative test of the offline consolidator
(pure, English and Chinese). Moved out of :mod:`nanomem.engines.offline.extract` (stop 20, round 8)
so that module stays under the size ceiling; the rules are as they were.
"""

from __future__ import annotations

import re

from nanomem.vocab import HAN_CHAR

_I = re.IGNORECASE
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"

# The past: a regular -ed form, the irregular past forms (a closed class of English verbs; the
# common ones), or a time adverbial of the past ("yesterday", "last week", "ago", "back in 2009")
# whatever the verb (round 5: "stole", "sent" were missing, and a list is never complete).
_PAST_EN = re.compile(
    r"\b(?:was|were|got|had|did|saw|went|came|took|made|ate|broke|lost|found|bought|sold|met|"
    r"ran|fell|left|told|forgot|spent|woke|slept|sent|lent|bent|built|burnt|dealt|felt|kept|meant|"
    r"slid|spilt|stole|drove|rode|wrote|spoke|chose|froze|shook|threw|flew|grew|knew|drew|blew|"
    r"began|sang|rang|swam|drank|sank|stank|stung|swung|hung|caught|taught|brought|thought|fought|"
    r"sought|wore|tore|swore|hid|dug|stuck|struck|sat|stood|paid|said|heard|"
    # round 19: "won a side of beef at the bingo" (not "won't"), and other common irregular forms
    r"won(?!['’]t)|shot|led|fed|fled|bled|spun|shone|sprang|wept|crept|swept|knelt|"
    r"held|gave|forgave|became|overslept|\w{3,}ed|yesterday|ago|last (?:night|week|month|year|"
    r"summer|winter|spring|autumn|weekend|time|" + _WEEKDAY + r")|back in \d{4})\b", _I)
_AHEAD_EN = re.compile(
    r"\b(?:will|shall|going to|gonna|need to|have to|has to|must|should|remind|tomorrow|tonight|"
    r"next(?! door| to)|until|till|by|due|deadline|later|plan(?:s|ned)? to|am|is|are|from now on|going forward)\b|'ll\b|'m\b|'re\b|"
    r"\b(?:it|that|there|he|she|what|who)'s\b|\d", _I)
# round 19: "next door" is a place, not ahead (above); 过 of a potential complement (忙不过来,
# 看得过来) or the conjunction 不过 tells no past (informative.py shares it)
PAST_GUO_ZH = r"(?<![不得])过(?!敏)|(?<=得)过(?![来去敏])"
_PAST_ZH = re.compile(r"了|" + PAST_GUO_ZH + r"|昨天|刚才")
# session 27: a present state (现在住…, 目前在…) and "from now on" (以后挪到…) are no past, like "is" and "will"
# round 18: the speaker's own daily habit (我天天, 我每天) says how things stand, not what happened
STANDING_ZH = r"我(?:们)?(?:天天|每天)"
_AHEAD_ZH = re.compile(r"要|会(?!议|计|员|场)|得|需要|明天|后天|今晚|待会|一会|稍后|下周|提醒|记得|别忘|截止|之前|\d"
                       r"|(?<![到至])现在|目前|如今|以后|今后|" + STANDING_ZH)

def is_narrative(sentence: str) -> bool:
    """Whether a sentence only tells of something that already happened (pure): a past-tense
    verb and nothing that points ahead. Such a sentence is not a reminder even when it says
    "today"; it stays decisive only through other signals (a number, a decision, ...).

    >>> is_narrative("The printer jammed twice today."), is_narrative("I booked a table for tonight.")
    (True, False)
    >>> is_narrative("The call is scheduled for today.")
    False
    >>> is_narrative("今天电梯坏了，只好走楼梯。"), is_narrative("今天要交报告了。")
    (True, False)
    """
    if HAN_CHAR.search(sentence):
        return bool(_PAST_ZH.search(sentence)) and not _AHEAD_ZH.search(sentence)
    return bool(_PAST_EN.search(sentence)) and not _AHEAD_EN.search(sentence)
