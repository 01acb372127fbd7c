"""Value kinds that set a slot whatever the sentence's words (pure; round-14 study, session 26).

:mod:`nanomem.engines.offline.reslot` lets a plain fact replace the line that holds the same slot
with another value, for kinds it can compare. Round 14 showed three kinds it could not see, each
a *type* of value, not a phrase:

- an **amount in any currency**: every currency sign Unicode knows (``₦``, ``₹``, ``₩``, ``₱``,
  ``₺`` … beside ``£ $ € ¥``) and the common written codes (``RM``, ``S$``, ``HK$``, ``USD``,
  ``SGD``, ``NGN`` …) before a number: "₦42,500 now" sets the slot "₦38,000" held;
- a **phone number**: three or four groups of digits ("0803 552 1190", "+44 7700 900318",
  "020-7946-0958"), compared by their digits: a new number for the same use replaces the old one;
- an **English place by its name**: a capitalised name before a place word ("the Bosworth room",
  "Eko Hotel", "Kestrel Hall"); two are the same slot when their place words agree, as in
  :mod:`nanomem.engines.offline.supersede`'s Chinese ``@place``.

>>> [(k, v) for k, v, _, _ in kind_values("The same lace is ₦42,500 now, call 0906 441 2785")]
[('₦', '42500'), ('@phone', '09064412785')]
>>> [(k, v) for k, v, _, _ in kind_values("Put us in the Bosworth room from now on")]
[('@place:room', 'bosworth')]
>>> list(kind_values("The Room was booked by Ada"))
[]
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator

from nanomem.vocab import COMMON_WORDS, MONTHS, WEEKDAYS

# The written currency codes most often put before a number (the signs: :func:`currency_signs`)
_CODES = r"RM|Rs\.?|S\$|HK\$|NT\$|A\$|C\$|NZ\$|R\$|USD|EUR|GBP|SGD|MYR|NGN|INR|CNY|RMB|JPY|HKD|AUD|CAD|NZD|CHF|ZAR|KES|PHP|THB|IDR"
_PHONE = re.compile(r"(?<![\w+])(?:\+\d{1,3}[ -]?)?\(?\d{2,5}\)?(?:[ -]\d{3,4}){2,3}(?![\d-])")
_PLACE_WORDS = (
    "room|hall|suite|hotel|inn|lodge|centre|center|clinic|surgery|hospital|school|college|academy|"
    "library|church|chapel|studio|gym|office|building|house|court|tower|arena|stadium|theatre|theater|"
    "park|market|station|wharf|quay|marina|mill|barn|farm|pub|cafe|café|restaurant|bar|club|gallery")
_PLACE = re.compile(
    r"(?<![\w'’-])(?P<name>(?-i:[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*(?:\s+[A-Z][a-z]+){0,2}))\s+"
    r"(?P<word>(?i:" + _PLACE_WORDS + r"))\b")
_NOT_PLACE_NAMES = frozenset(w.casefold() for w in (*WEEKDAYS, *MONTHS)) | COMMON_WORDS | frozenset(
    "the a an my our your this that new old main same other next last first big small".split())


@functools.cache
def currency_signs() -> str:
    """Every currency sign Unicode knows (category Sc), found once, when first asked for (a scan
    of the first two planes: about 10 ms, kept off ``import nanomem.memory``)."""
    return "".join(chr(c) for c in range(0x20000) if unicodedata.category(chr(c)) == "Sc")


@functools.cache
def _amount() -> re.Pattern[str]:
    """A currency sign or a written code before a number."""
    return re.compile(
        r"(?<![A-Za-z])(?P<sign>[" + re.escape(currency_signs()) + r"]|(?-i:" + _CODES + r"))\s?"
        r"(?P<n>\d+(?:,\d{3})*(?:\.\d+)?)(?!\d)")


# The words that only name a kind of value, not what it belongs to: two texts that share no other
# word speak of two things ("my husband's number" and "the plumber's number")
_KIND_WORDS = frozenset("number phone mobile cell line call ring text whatsapp contact price cost fee charge amount".split())


def kind_words(kind: str) -> frozenset[str]:
    """The words that name ``kind`` itself (a place word, "number", "price"), never its topic."""
    return _KIND_WORDS | {kind.partition(":")[2], kind.casefold().rstrip("$")}  # "room"; "eur", "rm"


def kind_values(text: str) -> Iterator[tuple[str, str, int, int]]:
    """``(kind, value, start, end)`` for each amount (its sign the kind), phone number
    (``@phone``) and English place name (``@place:<place word>``) in ``text``."""
    for m in _amount().finditer(text):
        yield m.group("sign").rstrip("."), m.group("n").replace(",", ""), m.start(), m.end()
    for m in _PHONE.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 9 <= len(digits) <= 15:
            yield "@phone", digits, m.start(), m.end()
    for m in _PLACE.finditer(text):
        words = m.group("name").split()
        while words and words[0].casefold() in _NOT_PLACE_NAMES:
            words = words[1:]
        if words and m.start() > 0:  # a name that opens the sentence may be any capitalised word
            yield "@place:" + m.group("word").casefold(), " ".join(words).casefold(), m.start(), m.end()


def is_sign(kind: str) -> bool:
    """Whether a slot kind of :mod:`reslot` is a currency (compared only beside a shared word)."""
    return bool(kind) and not kind.startswith("@") and (kind in currency_signs() or bool(re.fullmatch(_CODES, kind)))
