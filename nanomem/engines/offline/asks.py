"""Standing requests of the agent told loosely (pure; round-9 study).

All three round-9 blind conversations asked *when* to be reminded ("the day before, not the
morning of", "two days ahead for anything", 放在前一天晚上告诉我), and each was lost: read as a
one-off reminder (``remind me`` is near-term) or not read at all. Two shapes, neither a phrase
of one conversation:

- **a lead time for reminders** (:func:`is_reminder_rule`): a sentence about reminding that gives
  a time *relative to the thing reminded of* (the day before, two days ahead, the night before, in
  advance; 前一天, 提前两天, 头一天) and names no one-off thing to remind of. It is a rule for every
  reminder, a request of the agent (``SOUL.md``), not a reminder that expires;
- **a discourse opener** (:func:`without_opener`): "Oh and", "Another thing,", "Also,", "By the
  way," before a request; the request is judged without it.

>>> is_reminder_rule("Reminders: three days ahead for anything, not on the day.")
True
>>> is_reminder_rule("remind me the day before the dentist to take the forms")
False
>>> is_reminder_rule("有事提醒我的话，提前两天说。"), is_reminder_rule("明天提醒我交电费。")
(True, False)
>>> without_opener("Oh and one more thing, when you list jobs, put the price first.")
'when you list jobs, put the price first.'
"""

from __future__ import annotations

import re

from nanomem.vocab import any_of

__all__ = ["LEAD_TIME_REMINDER", "is_reminder_rule", "without_opener"]

_I = re.IGNORECASE
# round 18: and the Spanish of a speaker who mixes it with English (recordatorios, recuérdame, avísame)
_REMIND = re.compile(r"\bremind(?:ers?|ing)?\b|\bheads[- ]up\b|\bnudge\b|提醒|\brecordatorios?\b|\brecuérdame\b|\bavísame\b", _I)
_AMOUNT = r"(?:\d+|a|an|one|two|three|four|five|six|seven|a few|a couple of|couple of)"
# A time relative to the thing reminded of, where nothing follows that names that thing.
_LEAD = re.compile(
    r"\b(?:(?:the|a) (?:day|night|evening|morning|afternoon|week|weekend) (?:before|ahead|prior|earlier)"
    r"|the (?:morning|day|evening) of"
    r"|" + _AMOUNT + r" (?:days?|hours?|weeks?|nights?) (?:before|ahead|in advance|beforehand|prior|earlier|out)"
    r"|in advance|ahead of time|beforehand)\b"
    r"(?=\s*(?:$|[,.;:!—–-]|\bnot\b|\bfor (?:any|every|all|each|everything|anything)|\bplease\b|\bif\b|\bthanks?\b|\bor\b"
    r"|\bde (?:cada|todo|todas?|todos)\b))",  # round 18: "de cada" is "for each"
    _I)
_LEAD_ZH = re.compile(r"前一天|前一晚|头一天|提前[一两二三四五六七八九十\d几]*(?:天|个?小时|周|个?星期)|当天(?:早上|上午)")
_ONE_OFF_ZH = re.compile(r"明天|今天|今晚|后天|下周|周[一二三四五六日天]|\d+月|\d+号|交|缴|买|带|打电话")
# Session 26: a reminder set by its lead time before each event, not by a day (wider than
# :func:`is_reminder_rule`, which needs the lead time to end the request) ("remind me two
# working days before", "the previous evening for each fitting", 提前一天提醒我): how to remind, standing.
LEAD_TIME_REMINDER = any_of(
    r"\bremind (?:me|us)\b[^.!?]{0,40}?(?:\b(?:days?|hours?|weeks?|evenings?|nights?|minutes?) (?:before|ahead|in advance)\b"
    r"|\b(?:before|beforehand|ahead|in advance)(?=\s*(?:[,.;!?]|$))|\bthe (?:previous|preceding) "
    r"(?:day|evening|night|morning|week)\b|\bfor (?:each|every|all)\b)",
    r"提前[^。！？，]{0,6}提醒|提醒[^。！？]{0,8}提前|前一[天晚]提醒")
_OPENER = re.compile(
    r"^\W*(?:(?:oh|ah|and|also|plus|so|ok(?:ay)?|right|anyway|oh and|and also|one (?:more|other) thing|another thing|"
    r"last thing|before I forget|while I['’]m (?:thinking|at it|here)|by the way|btw|while I remember)\b[\s,:;—–-]*)+", _I)


def is_reminder_rule(sentence: str) -> bool:
    """Whether a sentence sets how far ahead to remind, for every reminder (see the module doc)."""
    if not _REMIND.search(sentence) or sentence.rstrip().endswith(("?", "？")):
        return False
    if re.search(r"[\u4e00-\u9fff]", sentence):
        return bool(_LEAD_ZH.search(sentence)) and not _ONE_OFF_ZH.search(sentence)
    return bool(_LEAD.search(sentence))


def without_opener(sentence: str) -> str:
    """``sentence`` without the discourse opener before it ("Oh and …", "Another thing, …")."""
    rest = _OPENER.sub("", sentence, count=1)
    return rest if len(rest.split()) >= 3 else sentence
