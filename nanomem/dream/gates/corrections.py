"""Corrections: which ``[correction]`` of a batch is about which permanent fact (pure).

A line marked ``<!-- permanent -->`` changes only when the batch holds a matching
``- [correction] …`` fact. :func:`correction_facts` reads those facts from a batch,
:func:`matches` pairs one with a permanent line, and :func:`topics_of` names the topics of the
person a text speaks of (the person-topic rule of :func:`matches`).
:func:`nanomem.dream.gates.checks.check_corrections` enforces the rule; the offline Dream
(:mod:`nanomem.engines.offline.dream`) uses the same functions to choose the line a correction replaces.

>>> facts = correction_facts("- [durable] likes tea\\n- [correction] Actually, I moved to Lisbon.")
>>> facts, matches("- I live in Porto <!-- permanent -->", facts[0])
(['Actually, I moved to Lisbon.'], True)
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.text.units import (
    CHUNK,
    LINE_PREFIX,
    PIECE_SPLIT,
    WORD,
    is_checked_chunk,
    normal_chunk,
    prepare,
    sentence_starts,
)
from nanomem.vocab import CJK_CHAR, CJK_WIDE_CLASS, COMMON_WORDS, MARK, STOP_WORDS

_CORRECTION = re.compile(r"^\s*-\s*\[correction\]\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_CJK_RUN = re.compile(CJK_WIDE_CLASS + "{2,}")

# The topic rule of matches(): (pattern for either side, extra pattern for the correction).
_PERSON_START = r"^(?:(?:the )?user(?:'s)? |I |I'm |I am |we |we're |we are )?(?:now |currently |still |also )?"
_TOPICS: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "residence": (
        re.compile(
            _PERSON_START + r"(?:lives?|living|resides?|residing|based)\b"
            r"|\b(?:I|we)(?:'m|'re| am| are)?(?: now| currently| still)? (?:live|living|reside|residing|based)\b"
            r"|\bmy (?:new )?(?:home|address)\b|我(?:们)?(?:现在)?住|我家在"
            r"|(?:^|[\s，,。！!])(?:现在|目前|如今)住(?!院)", re.I),  # session 27: the subject left out ("现在住芙蓉四")
        re.compile(
            r"\b(?:I|we)(?:'ve| have)?(?: just| recently| finally| now| also)? (?:moved|relocated)\b"
            r"(?! (?:the|our|my|his|her|their|its|it|them|a|an|this|that|these|those|some|all)\b)"
            r"|我(?:们)?(?:已经|上周|刚|刚刚)?(?:搬|搬家)(?:到|去|了)?", re.I),
    ),
    "name": (
        re.compile(r"\bmy name\b|\bcall me\b|\bI(?:'m| am) called\b|" + _PERSON_START
                   + r"(?:name|named|called)\b|我叫|我的名字|叫我", re.I),
        re.compile(r"\bmy (?:new |real |full )?name\b", re.I),
    ),
    "job": (
        re.compile(_PERSON_START + r"works? (?:at|for|as)\b|\bI(?:'m| am)?(?: now)? work(?:ing)? (?:at|for|as)\b"
                   r"|\bmy (?:job|employer|role|position)\b|我(?:现在)?在\S{1,12}(?:工作|上班)|我的工作", re.I),
        re.compile(r"\bI (?:joined|quit|left)\b|换工作|跳槽|入职", re.I),
    ),
    "allergy": (
        re.compile(_PERSON_START + r"allergic\b|\bI(?:'m| am)\b[^.!?]{0,20}\ballergic\b"
                   r"|\bmy allerg\w*\b|我[^，。,.]{0,10}过敏", re.I),
        None,
    ),
    "diet": (
        re.compile(_PERSON_START + r"(?:vegetarian|vegan|pescatarian)\b"
                   r"|\bI(?:'m| am)\b[^.!?]{0,20}\b(?:vegetarian|vegan|pescatarian)\b"
                   r"|\bmy diet\b|我[^，。,.]{0,10}(?:吃素|素食)", re.I),
        re.compile(r"\bI (?:now )?(?:eat|drink) (?:meat|fish|dairy)\b", re.I),
    ),
    # round 7: a medicine the person takes ("GP has me on amlodipine", "New pill is losartan"):
    # a drug by the stem of its name, or the word for one
    "medication": (
        re.compile(r"\b(?!april\b)\w{2,}(?:farin|formin|pril|olol|statin|prazole|sartan|dipine|cillin|mycin|cycline|"
                   r"oxetine|azepam|profen|codone|triptan|thyroxine|xaban|gatran)\b"
                   r"|\b(?:my |new |the )?(?:pills?|medication|meds|prescription)\b", re.I),
        None,
    ),
}


def correction_facts(batch_text: str) -> list[str]:
    """The text of every ``- [correction] …`` line of the batch.

    >>> correction_facts("- [durable] x\\n- [correction] moved to Porto")
    ['moved to Porto']
    """
    return [match.group(1) for match in _CORRECTION.finditer(batch_text)]


def matches(permanent_line: str, correction: str) -> bool:
    """Whether a correction is about a permanent line.

    They match when they share a distinctive token (a number, an identifier, an e-mail or
    URL, or a capitalised name) or at least two content words (stop words dropped, a final
    ``s`` ignored; for Chinese/Japanese/Korean, two shared character pairs), or when both
    speak of the same topic of the person (:func:`topics_of`: where they live, their name,
    job, allergies, diet or medication), so "I live in Porto" is corrected by "I moved to Lisbon".

    >>> matches("- I live in Porto <!-- permanent -->", "Actually, I moved to Lisbon.")
    True
    >>> matches("- I live in Porto <!-- permanent -->", "We moved the server to Oslo.")
    False

    >>> matches("- Lives in Lisbon <!-- permanent -->", "actually I moved from Lisbon to Porto")
    True
    >>> matches("- Allergic to peanuts <!-- permanent -->", "the meeting moved to Friday")
    False
    """
    line = MARK.sub(" ", permanent_line)
    body = LINE_PREFIX.sub("", line)
    mine, theirs = _match_units(body), _match_units(correction)
    # A name capitalised on one side may be written in lower case on the other.
    if mine[0] & (theirs[0] | theirs[2]) or theirs[0] & mine[2]:
        return True
    if len(mine[1] & theirs[1]) >= 2:
        return True
    return bool(topics_of(body, correction=False) & topics_of(correction, correction=True))


def topics_of(text: str, *, correction: bool) -> set[str]:
    """The topics of the PERSON a text speaks of (pure): ``residence``, ``name``, ``job``,
    ``allergy``, ``diet``, ``medication`` (a medicine named by its stem, or a pill). Each pattern is anchored on the person (first person, or a subjectless or
    "the user" memory line), so "the office moved" or "Ana lives in Rome" has no topic.
    A ``correction`` may also use a verb of change ("I moved", "我搬到").

    >>> sorted(topics_of("Lives in Lisbon", correction=False)), topics_of("I moved to Porto", correction=True)
    (['residence'], {'residence'})
    >>> topics_of("We moved the server to Frankfurt", correction=True)
    set()
    """
    text = unicodedata.normalize("NFKC", text).replace("’", "'").strip()
    return {
        topic
        for topic, (line_rule, correction_rule) in _TOPICS.items()
        if line_rule.search(text) or (correction and correction_rule and correction_rule.search(text))
    }


def _match_units(text: str) -> tuple[set[str], set[str], set[str]]:
    """(distinctive tokens, content words, all words) of a text, for :func:`matches`."""
    prepared = prepare(text)
    starts = sentence_starts(prepared)
    distinctive: set[str] = set()
    content: set[str] = set()
    words: set[str] = set()
    for match in CHUNK.finditer(prepared):
        chunk = match.group(0)
        if is_checked_chunk(chunk):
            distinctive.add(normal_chunk(chunk))
            distinctive.update(p for p in PIECE_SPLIT.split(normal_chunk(chunk)) if p)
            continue
        for word in WORD.finditer(chunk):
            original = word.group(0)
            folded = original.casefold()
            if CJK_CHAR.fullmatch(original):
                continue
            words.add(folded)
            if (
                original[:1].isupper()
                and (match.start() + word.start()) not in starts
                and folded not in COMMON_WORDS
            ):
                distinctive.add(folded)
            if len(folded) >= 3 and folded not in STOP_WORDS:
                content.add(folded[:-1] if folded.endswith("s") and len(folded) > 3 else folded)
    for run in _CJK_RUN.findall(unicodedata.normalize("NFKC", text)):
        content.update(run[i : i + 2] for i in range(len(run) - 1))
    return distinctive, content, words
