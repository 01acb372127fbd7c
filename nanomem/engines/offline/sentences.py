"""Where a sentence ends and whether it holds a name (pure, English and Chinese).

:func:`split_sentences` cuts text into sentences, never after ``Dr.``, ``e.g.`` or an initial;
:func:`has_name` tells a capitalised name inside a sentence from a word that only opens it.
The offline consolidator's rules (``extract.py``) judge the sentences one by one.

>>> split_sentences("Ask Dr. Osei, e.g. by mail. Room 4 is free!Ok")
['Ask Dr. Osei, e.g. by mail.', 'Room 4 is free!Ok']
"""

from __future__ import annotations

import re

from nanomem.vocab import HAN_CHAR

__all__ = ["has_name", "pauses_as_commas", "split_sentences", "without_heading"]

# Session 25: in chat an emoji followed by a space ends a sentence as a full stop does ("腳軟晒😂 山狗隊係…").
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])(?![。！？])|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+|\n+")
# Words after which a period does not end the sentence: "Dr. Lee", "e.g. tea", "J. Smith".
_ABBREVIATION = re.compile(
    r"(?:\b(?:dr|mr|mrs|ms|prof|st|vs|jr|sr|mt|ft|approx|dept|fig|etc|e\.g|i\.e)|(?<![\w.])(?-i:[A-Z]))\.$", re.IGNORECASE)
# Round 20: an ellipsis before a lower-case word is a pause inside the sentence, as a comma is
_ELLIPSIS = re.compile(r"(?:\.\.\.|…)$")
_PAUSE = re.compile(r"(?:\.\.\.|…)\s+(?=[a-z])")
# Round 20: a short label in brackets heading a message as a group notice does ("【说明】", "【通知】")
_HEADING = re.compile(r"^\s*【[^】]{1,6}】\s*")
_NUMBER_LABEL = re.compile(r"\b(?:no|nr)\.$", re.IGNORECASE)  # "No. 48": a period that ends a sentence unless a number follows
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][A-Za-z]*[a-z][A-Za-z]*(?:-\w+)?")
_NOT_NAMES = frozenset(
    "I I'm I've I'll I'd OK Ok Hi Hello Hey Thanks Mr Mrs Ms Dr "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
)


def split_sentences(text: str) -> list[str]:
    """Split English and Chinese text into stripped sentences (pure). A period after a common
    abbreviation (Dr., Mr., Mrs., Ms., Prof., St., e.g., i.e., etc., vs., No.) or a single
    initial does not end a sentence.

    >>> split_sentences("I use v2.5 now. 我喜欢茶。好吗？ok")
    ['I use v2.5 now.', '我喜欢茶。', '好吗？', 'ok']
    >>> split_sentences("My GP is Dr. A. Moreau. She is great.")
    ['My GP is Dr. A. Moreau.', 'She is great.']
    """
    sentences: list[str] = []
    for part in _BOUNDARY.split(text):
        part = part.strip() if part else ""
        if not part:
            continue
        last = sentences[-1] if sentences else ""
        paused = _ELLIPSIS.search(last) is not None and part[:1].islower()  # round 20: "well... hello there"
        if last and (paused or _ABBREVIATION.search(last) or (_NUMBER_LABEL.search(last) and part[:1].isdigit())):
            sentences[-1] = f"{last} {part}"
        else:
            sentences.append(part)
    return sentences


def pauses_as_commas(sentence: str) -> str:
    """``sentence`` with each ellipsis before a lower-case word written as a comma, the pause it
    is, for the rules to judge (round 20; the speaker's own text is what is kept).

    >>> pauses_as_commas("if you need me... call after supper... the mornings I'm out")
    "if you need me, call after supper, the mornings I'm out"
    """
    return _PAUSE.sub(", ", sentence)


def without_heading(sentence: str) -> str:
    """``sentence`` without a short bracketed label that heads it ("【说明】以后…"), which hides
    the opening words the rules look for (round 20; the speaker's own text is what is kept).

    >>> without_heading("【说明】以后给我报天气。"), without_heading("我在【家】")
    ('以后给我报天气。', '我在【家】')
    """
    return _HEADING.sub("", sentence, count=1)


_HAN_NAMED = re.compile(r"《[^》]+》|(?<![A-Za-z])[A-Z]{2,}[A-Za-z]*(?![A-Za-z])|(?<![A-Za-z])[A-Z][a-z]+[A-Z]\w*")


def has_name(sentence: str) -> bool:
    """Whether a sentence holds a capitalised name that does not open it or a clause (pure).

    >>> has_name("Our wiki runs on Confluence."), has_name("Sounds good. I agree.")
    (True, False)
    >>> has_name("我上个月考过JLPT一级。"), has_name("她在读《边城》。"), has_name("今天下雨了。")
    (True, True, False)
    """
    if HAN_CHAR.search(sentence) and _HAN_NAMED.search(sentence):
        return True  # round 8: a title in 《》 or a Latin name ("考过CATTI二级") in a Chinese sentence
    for found in _CAPITALISED.finditer(sentence):
        before = sentence[:found.start()].rstrip()
        opening = not before or before[-1] in ".!?:;\"“("
        if opening and before.endswith(".") and _ABBREVIATION.search(before):
            opening = False  # "Dr. Osei": the name follows a title, not a sentence break
        if not opening and found.group(0) not in _NOT_NAMES:
            return True
    return False
