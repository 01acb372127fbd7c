"""Whether a sentence asks rather than states, when it has no question mark (pure; session 27).

The consolidator drops a question (it asks for an answer; it is no fact about the person), but it
knew a question only by its ``?``. Chat often leaves the mark off: "how far is a 2 hour walk
roughly", "what must I print", "哈哈 你那房子定了没", "复查得空腹吗". :func:`asks_without_mark` tells
such a sentence by its make-up, not by its words: an English question word with a verb of the
closed class after it (is, do, can, must, 's …) or a measure (how far, what time), an auxiliary
opening the sentence before its subject (is it, do I, can we), or a Chinese question particle
closing it (吗, 了没). A request ("could you keep it short"), a "please" and a request to keep
something are judged by the caller before this, as they are for a marked question.

>>> asks_without_mark("how far is a 2 hour walk roughly"), asks_without_mark("what I need is a bigger van")
(True, False)
>>> asks_without_mark("when I was little we lived in Rome"), asks_without_mark("what time does the pool open")
(False, True)
>>> asks_without_mark("哈哈 你那房子定了没"), asks_without_mark("我还没定")
(True, False)
>>> asks_without_mark("问你一句 粽子跟青团到底啥区别")  # round 17: asked as a question at the opening
True

In Chinese the particle asks only in the clause it closes; what comes before it may state a fact
(voice input runs statements and a question together): :func:`statement_before_asking`.

>>> statement_before_asking("我有哮喘 一直用沙丁胺醇 那边药店能买到吗")
'我有哮喘 一直用沙丁胺醇'
"""

from __future__ import annotations

import re

from nanomem.vocab import HAN_CHAR

__all__ = ["asks_without_mark", "statement_before_asking"]

_OPENER = r"^\W*(?:(?:and|also|so|oh|ok|okay|but|um|uh|right|hey|hmm|haha|quick question)\W+)*"
_AUX = r"(?:is|are|was|were|am|do|does|did|can|could|should|would|will|shall|must|has|have|had|may|might)"
_WH = re.compile(
    _OPENER + r"(?:how|what|where|which|who|whose|why|when)(?:['’]s\b|\s+(?:(?!(?:i|you|u|we|they|he|she|it|this|that|there)\b)\w+\s+)?"
    + _AUX + r"\b"
    r"|\s+(?:time|far|long|much|many|often|big|old|day|size|kind|sort)\b)", re.IGNORECASE)
# an auxiliary before its subject ("is it", "do I", "can we"); "do it in a table" is an imperative
_INVERTED = re.compile(
    _OPENER + r"(?:(?:is|are|was|were|can|could|should|would|will|shall|have|has|am)\s+(?:i|you|u|we|they|he|she|it|there|that|this)"
    r"|(?:do|does|did)\s+(?:i|you|u|we|they|he|she))\b", re.IGNORECASE)
_ZH_PARTICLE = re.compile(r"(?:吗|嗎|了没|了沒)[\s\W]*$")
# Round 17: a question announced as one at the opening ("问你一句 …", "想问一下 …", "请问 …"), whatever follows
_ZH_ASKING = re.compile(r"^\W*(?:(?:对了|还有|哦|那个)[，,\s]*)?(?:问(?:你|您|侬)?一(?:句|下)|想问(?:你|您)?(?:一下|下)?|请问|问个(?:问题|事))")


def asks_without_mark(sentence: str) -> bool:
    """Whether ``sentence``, with no question mark, is put as a question (see the module docstring)."""
    if HAN_CHAR.search(sentence):
        return bool(_ZH_PARTICLE.search(sentence) or _ZH_ASKING.search(sentence))
    return bool(_WH.search(sentence) or _INVERTED.search(sentence))


_ZH_CLAUSE_END = re.compile(r"[，,；;]\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff\d])")


def statement_before_asking(sentence: str) -> str | None:
    """For a Chinese sentence that :func:`asks_without_mark`, the clauses before the one that
    asks, or None (an English question asks from its first word)."""
    if not HAN_CHAR.search(sentence) or not asks_without_mark(sentence):
        return None
    ends = list(_ZH_CLAUSE_END.finditer(sentence))
    if not ends:
        return None
    lead = sentence[:ends[-1].start()].strip()
    return lead if lead and not asks_without_mark(lead) else None
