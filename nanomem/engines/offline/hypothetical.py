"""Whether a sentence only imagines what the speaker would do (pure; round-16 study, session 30).

A daydream is told as a condition on the speaker and what would follow it: "if i won the lottery
would it be daft to pack in the rope access", "if I go home for good, I will open a carinderia",
要是我中了彩票 我就天天住这种. It tells no state of the person (no home, job or plan that holds),
so the consolidator keeps nothing of it. Round 16 kept three such sentences as facts in three
conversations, one of them also holding a trip that should have expired.

:func:`is_daydream` tells one by its make-up, not by its words: a conditional whose subject is the
speaker (if I/we, 要是/如果/假如 我) followed by a consequence in a modal (would, will, 'd, could,
might; 就 in Chinese). A condition that addresses the agent is a standing request, not a daydream
("if I ask you about medicine, remember this", 如果帮我叫外卖记住呀), so a sentence with a second
person or a request to remember or remind is never one; the caller also keeps a condition of
health ("if I eat peanuts I will swell up").

>>> is_daydream("if i won the lottery would it be daft to pack in the rope access")
True
>>> is_daydream("If I'm about to do something stupid, say so.")
False
>>> is_daydream("if I ever ask you for a first aid sheet, I will need the dose on it")
False
>>> is_daydream("要是我中了彩票 我就天天住这种"), is_daydream("如果我下周还咳 你就提醒我去医院")
(True, False)

A dream had asleep imagines too (round-17 study: "last night dream i flying the A350 myself …"
was kept as a fact, and nothing read a dream told): :func:`tells_a_dream` finds the telling ("I
dreamt", "had the weirdest dream", "in my dream", "last night dream", 梦到, 梦见, 做了个梦), not
an aspiration ("I've always dreamed of owning a boat", "my dream is to …", 梦想).

>>> tells_a_dream("Had the oddest dream, the ferry was made of cheese."), tells_a_dream("I dreamed of owning a boat")
(True, False)
>>> tells_a_dream("昨晚梦见我在长江上开船"), tells_a_dream("我的梦想是开个面馆")
(True, False)
"""

from __future__ import annotations

import re

__all__ = ["is_daydream", "tells_a_dream"]

_MODAL = r"(?:would|will|could|might|['’]d|['’]ll)"
_EN = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|so|but|or)\s+)if (?:i|we)\b[^.!?]{1,80}?"
    r"(?:\b(?:i|we|it|that|there)\s*" + _MODAL + r"|\b(?:would|could|might)\b)", re.IGNORECASE)
_ZH = re.compile(r"(?:要是|如果|假如|假设)(?:我|我们|咱们)[^。！？]{1,30}?(?:我|我们|咱们)?就")
# the agent addressed: a standing request, not a daydream
_TO_AGENT = re.compile(r"\b(?:you|u|your|ur|ya|remind|remember|tell me|let me know)\b|你|您|帮我|提醒|记住|记得|告诉我",
                       re.IGNORECASE)


def is_daydream(sentence: str) -> bool:
    """Whether ``sentence`` imagines what the speaker would do under a condition on themselves,
    without addressing the agent (see the module docstring)."""
    return bool(_EN.search(sentence) or _ZH.search(sentence)) and not _TO_AGENT.search(sentence)


_ASPIRATION = r"(?!\s+(?:of|about)\s+(?:being|owning|having|becoming|opening|running|living|moving|retiring|doing|getting)\b)"
_DREAM_EN = re.compile(
    r"\b(?:i|we)\s+(?:dreamt|dreamed|dreamt that|dreamed that)\b" + _ASPIRATION
    + r"|(?:^|\b(?:i|we)\s+|[,;]\s*)(?:had|have|had such|have had)\s+(?:a|an|the|this|another|such a|one of those)\s+"
    r"(?:[a-z]+\s+){0,2}dreams?\b"
    r"|\bin (?:my|the|a|last night['’]s) dream\b|\blast night (?:i\s+)?dream(?:t|ed)?\b|\bdream (?:i|we) (?:was|were|\w+ing)\b",
    re.IGNORECASE)
_DREAM_ZH = re.compile(r"梦到|梦见|做梦|做了(?:个|一个|一场)?[^，。！？\s]{0,4}梦")


def tells_a_dream(sentence: str) -> bool:
    """Whether ``sentence`` tells a dream had asleep (see the module docstring)."""
    return bool(_DREAM_EN.search(sentence) or _DREAM_ZH.search(sentence))
