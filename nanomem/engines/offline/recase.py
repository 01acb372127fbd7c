"""Names for a speaker who writes in lower case (pure; round-9 study).

Many of the consolidator's rules find a name by its capital letter ("foreman is Shonagh
Beattie", a bare name opening a message). A speaker who texts in lower case ("foreman is shonagh
beattie") writes no capital at all, so none of those rules can fire, and a terse lower-case
speaker kept 6 of 14 facts on the round-9 blind set. The chat's other side already knows the
names: the agent's replies capitalise them when they echo them ("Shonagh Beattie is the
foreman.").

:func:`name_casing` learns, from the agent's replies in the same chunk, which words are names: a
word the replies capitalise where no sentence begins. :func:`recased` gives a message written
wholly in lower case those capitals, so the rules judge it as if the speaker had typed them; the
fact kept is still the speaker's own text (:func:`restore`), so every word written is theirs, and
the agent's words are never a fact: they only tell which of the speaker's words are names.

>>> casing = name_casing(["Noted: Shonagh Beattie is the foreman on Pinkston Wharf."])
>>> recased("foreman is shonagh beattie. sharp", casing)
'foreman is Shonagh Beattie. sharp'
>>> restore("foreman is Shonagh Beattie.")
'foreman is shonagh beattie.'
>>> recased("Foreman is shonagh beattie.", casing)  # a speaker who capitalises: nothing to learn
'Foreman is shonagh beattie.'

A speaker who types in capitals (session 27) defeats the same rules the other way round: every
word looks alike, and a rule that reads "In 1974 we …" as a story does not read "IN 1974 WE …".
:func:`writes_capitals` tells such a message and :func:`lowered` gives its words in lower case
(identifiers with a digit stay as typed), so it is judged like a lower-case message; the fact
kept goes back to capitals (:func:`shouted`), the speaker's own letters.

>>> lowered("IN 1974 WE HAD A BLIZZARD, FLIGHT AC 1402")
'in 1974 we had a blizzard, flight ac 1402'
>>> writes_capitals("IN 1974 WE HAD A BLIZZARD"), writes_capitals("FYI: ETA 5PM"), writes_capitals("In 1974 WE HAD")
(True, False, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from nanomem.vocab import COMMON_WORDS

__all__ = ["lowered", "name_casing", "recased", "restore", "shouted", "writes_capitals"]

_WORD = re.compile(r"(?<![\w'’-])([A-Za-z][a-z]+)(?![\w'’-])")
_CAPITALISED = re.compile(r"(?<![\w'’-])[A-Z][a-z]")
_OPENS = re.compile(r"(?:^|[.!?:;\"“(]\s*|\n\s*)$")  # a capital after these opens a sentence, names nothing
_FULL_NAME = re.compile(r"(?:^|(?<=[.!?]\s))([A-Z][a-z]+) ([a-z]{3,})(?=[.!?]|$)", re.M)
_NOT_NAMES = COMMON_WORDS | frozenset("got noted sure sorry thanks thank okay yes aye right".split())


def name_casing(replies: Iterable[str]) -> dict[str, str]:
    """``{lower-case word: capitalised word}`` for the words the replies capitalise inside a
    sentence (a name, a month, a weekday), never for one that only opens a sentence."""
    casing: dict[str, str] = {}
    for reply in replies:
        for found in _WORD.finditer(reply):
            word = found.group(1)
            if not word[0].isupper() or word.casefold() in _NOT_NAMES or len(word) < 3:
                continue
            after = reply[found.end():]
            if _OPENS.search(reply[:found.start()]) and not re.match(r" [A-Z][a-z]+ [a-z]", after):
                continue  # "Shonagh Beattie is …": a capital that opens a sentence names only before a name
            casing.setdefault(word.casefold(), word)
    return casing


def writes_lower_case(text: str) -> bool:
    """Whether a message holds letters but no capitalised word (identifiers in capitals, like
    ``SK19 WRT``, do not count: they are typed as they are printed)."""
    return bool(re.search(r"[a-z]{3}", text)) and not _CAPITALISED.search(text)


def writes_capitals(text: str) -> bool:
    """Whether a message is typed in capitals: no lower-case letter and at least four words of
    two or more capitals (so "FYI: ETA 5PM" or a code in capitals is no such message)."""
    return not re.search(r"[a-z]", text) and len(re.findall(r"(?<![\w'’])[A-Z]{2,}(?![\w])", text)) >= 4


def lowered(text: str) -> str:
    """A message typed in capitals with its words in lower case; a word with a digit (an
    identifier, "3RD") is kept as typed."""
    return re.sub(r"(?<![\w'’-])[A-Z][A-Z'’]*(?![\w-])", lambda m: m.group(0).lower(), text)


def shouted(fact: str) -> str:
    """A fact judged on :func:`lowered` text, back in the speaker's capitals (every letter of
    the message was a capital)."""
    return fact.upper()


def recased(text: str, casing: Mapping[str, str]) -> str:
    """``text`` with the names of ``casing`` capitalised, when the speaker writes in lower case."""
    if not casing or not writes_lower_case(text):
        return text
    text = _WORD.sub(lambda m: casing.get(m.group(1), m.group(1)), text)
    # a name and one more word, alone as a sentence, is a full name ("lachlan tandoh.")
    return _FULL_NAME.sub(lambda m: f"{m.group(1)} {m.group(2).capitalize()}", text)


def restore(fact: str) -> str:
    """A fact judged on a recased message, back in the speaker's own letters (the message had
    no capitalised word, so every one in the fact is one that :func:`recased` gave it)."""
    return _WORD.sub(lambda m: m.group(1).lower(), fact)
