"""A one-off task asked of the agent (pure; split out of ``extract.py``).

A sentence that asks the agent for a piece of work done in the conversation ("Draft a reply to
them", "Convert 3 chains to metres", 帮我排一下训练) is over once done: it is not a fact about the
person. :func:`is_task_request` tells it; ``SUM`` (a sum or a conversion of a given quantity) is
also what keeps a question about units from reading as a request about the agent's answers.

>>> is_task_request("Draft a polite no to the caterers."), is_task_request("Always draft replies in Welsh.")
(True, False)
"""

from __future__ import annotations

import re

from nanomem.vocab import any_of

__all__ = ["SUM", "is_task_request"]

_I = re.IGNORECASE


# A one-off task for the agent, done in the conversation and over then: an imperative opening
# with a verb of making ("Draft a reply to them", "Make next week's rota", "帮我排一下训练").
_TASK = any_of(
    r"^\W*(?:(?:ok(?:ay)?|so|now|and|right|great|then|please|also)[\s,]+)*(?:please\s+)?"
    r"(?:(?:could|can|would|will) you (?:please )?)?(?:draft|write up|make|create|prepare|plan|list|summari[sz]e|translate|compose|calculate|"
    r"work out|figure out|compare|look up|put together|draw up|come up with|sketch|outline)\b",
    # round 7: a sum or a conversion of a given quantity ("Convert 3.2 chains to metres")
    r"^\W*(?:(?:ok(?:ay)?|so|now|and|right|quick(?:ly)?|please)[\s,]+)*(?:please\s+)?"
    r"(?:(?:could|can|would|will) you (?:please )?)?(?:convert|add up|tot up|total up|tally|multiply|divide|round|estimate|work out)\b[^.!?]{0,30}\d",
    r"^\W*(?:(?:好的?|那|嗯|对了)[，,]?)?(?:请)?(?:帮我|帮忙|给我)(?:把[^，,。]{1,12}?)?(?!记|提醒|留意|盯|备注)"
    r"(?:排|列|写|做|算|查|找|翻译|译成|整理|规划|安排|起草|拟|想|出|准备|总结|对比|比较|弄|搞)",
    # round 11: a how-to asked once ("你教教我那个菜咋做", "teach me how to fold it")
    r"^\W*(?:(?:好的?|那|嗯|对了)[，,\s]*)?(?:你|请你?)?(?:教教我|教我|告诉我)[^，,。！？]{0,16}?(?:咋|怎么|如何)",
    r"^\W*(?:(?:ok(?:ay)?|so|now|and|please)[\s,]+)*(?:(?:could|can|would|will) you (?:please )?)?(?:teach|show) me how\b",
    # session 27: help asked with a piece of work ("can you help me write a card for …", no "?")
    r"^\W*(?:(?:ok(?:ay)?|so|now|and|please)[\s,]+)*(?:(?:could|can|would|will) you (?:please )?)?help (?:me|us) (?:to )?"
    r"(?:write|draft|make|plan|pick|choose|word|fill in|sort out|work out|figure out)\b",
)
SUM = re.compile(r"^\W*(?:(?:could|can|would|will) you (?:please )?)?(?:convert|work out|add up|tot up|total up)\b"
                  r"[^.!?]{0,30}\d", _I)
# What makes a request last or ask to be kept: "always", "from now on", "remember", 以后, 记住.
_STANDING = any_of(
    r"\b(?:always|never|every|each time|whenever|from now on|in future|going forward|by default|"
    r"remember|remind|keep in mind|note)\b", r"以后|每次|每当|一律|都|记|提醒",
    # session 26: a rule for a kind of thing ("make that the rule for all summaries")
    r"\b(?:the|a|my|house) rule\b|\bas a rule\b|\bfor (?:all|any) (?:future )?[a-z]+s\b")


def is_task_request(sentence: str) -> bool:
    """Whether a sentence asks the agent for a one-off piece of work, done in the conversation
    ("Draft a note to the caterers: 40 plates.", "帮我算一下油费。"): an imperative opening with a
    verb of making, and nothing that makes it last or asks to keep it ("always", "remember",
    以后, 记). It says what to do now, not what is true of the person; a style request ("Lay it
    out as a table") is a preference, judged before this.

    >>> is_task_request("Put together a packing list for the weekend."), is_task_request("帮我整理一下报销单。")
    (True, True)
    >>> is_task_request("Always draft replies in Dutch."), is_task_request("帮我记一下车位号B-17。")
    (False, False)
    >>> is_task_request("Make sure the invoice says 30 days.")
    False
    """
    return bool(_TASK.search(sentence)) and not _STANDING.search(sentence) and not re.search(
        r"^\W*make (?:sure|certain)\b", sentence, _I)
