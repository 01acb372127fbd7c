"""Vernacular English pronouns read as standard ones, for the rules only (pure; round-19 study).

The offline engine's English rules find a request by *you* ("when you remind me …") and a
person's own world by *my* ("my mother", "my boat"). Across Newfoundland, Irish, Scottish,
northern English, Australian and much casual written English, the same words are spelled the
way they are said: *ya* / *ye* / *youse* for *you* ("when ya tells me prices"), *yer* for
*your*, and *me* for *my* before a relative or *own* ("named her after me mother", "me own
boat"). :func:`standard_pronouns` gives a sentence with those in their standard forms; the
caller judges that form only when the speaker's own sentence gave no mark, and keeps the
speaker's own sentence.

Caribbean English Creole (Trinidad, Tobago, Guyana, Barbados, Jamaica in part) writes *ah* for
*I* before a verb ("ah does sell doubles", "ah buying from …"), *ah from* / *ah on* for *I'm
from* / *I'm on* (the copula left out: "ah on the night shift now") and *meh* for *my* before a relative or *own* ("meh sister") (round-20 study).

*ya* stays where it is *yeah* (a clause of its own: "ya, sounds good", "ya."), and *me* stays
before anything but a relative or *own* ("give me prices", "tell me the tide").

>>> standard_pronouns("When ya reminds me of things, do them all on a Sunday.")
'When you reminds me of things, do them all on a Sunday.'
>>> standard_pronouns("Named her after me mother, ya know. Ya, that is her.")
'Named her after my mother, you know. Ya, that is her.'
>>> standard_pronouns("Give me the tide times for yer wharf.")
'Give me the tide times for your wharf.'
>>> standard_pronouns("Ah from Arima, ah does drive a maxi. Call meh brother, he busy.")
"I'm from Arima, I does drive a maxi. Call my brother, he busy."
>>> standard_pronouns("Ah, that is true. Give meh the list.")
'Ah, that is true. Give meh the list.'
"""

from __future__ import annotations

import re

__all__ = ["standard_pronouns"]

_I = re.IGNORECASE
_RELATIVE = (r"(?:mother|mum|mam|mom|ma|mammy|mama|father|dad|da|daddy|pa|wife|missus|missis|husband|old man|"
             r"old woman|son|daughter|boy|girl|young fella|brother|sister|nan|nanny|gran|granny|grandmother|"
             r"grandfather|grandson|granddaughter|uncle|aunt|aunty|auntie|cousin|nephew|niece|kids|children|"
             r"family|own)")
_MY = re.compile(r"\bme(?:h)?(?=\s+" + _RELATIVE + r"\b)", _I)
_YOU = re.compile(r"\b(?:ya|ye|youse|yous)\b(?!\s*(?:[,.!?;:]|$))", _I)
# Caribbean creole: "ah" for "I" before a verb or a place it is from ("ah from Arima" is "I'm from")
_I_FROM = re.compile(r"\bah(?=\s+(?:from|on)\b)", _I)
_I_VERB = re.compile(r"\bah(?=\s+(?:does|doh|have|had|want|need|on|like|love|hate|prefer|keep|live|work|sell|buy|move|married|"
                     r"[a-z]+ing)\b)", _I)
_YOUR = re.compile(r"\byer\b", _I)


def _cased(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def standard_pronouns(sentence: str) -> str:
    """``sentence`` with its vernacular *you*, *your* and possessive *me* in standard form."""
    sentence = _MY.sub(lambda m: _cased("my", m.group()), sentence)
    sentence = _I_FROM.sub("I'm", sentence)
    sentence = _I_VERB.sub("I", sentence)
    sentence = _YOU.sub(lambda m: _cased("you", m.group()), sentence)
    return _YOUR.sub(lambda m: _cased("your", m.group()), sentence)
