"""Payment card numbers (pure): the shape :mod:`nanomem.text.secretpatterns` matches, and the
check a match must pass to be redacted as ``card-number``.

A card number is 14 to 16 digits, written whole or in the groups cards print (4-4-4-4, Amex
4-6-5, Diners 4-6-4) with one kind of separator (space or dash), starting with a known issuer's
prefix (Visa 4, Mastercard 51-55 and 2221-2720, Discover 6011, 644-649 and 65, JCB 3528-3589 and
UnionPay 62 at 16 digits, Amex 34/37 at 15, Diners 300-305/36/38 at 14), and ending in a valid
Luhn check digit. The rarer 13- and 17-to-19-digit numbers are left out: a 19-digit random seed
with a Visa prefix and a valid check digit is likelier than such a card. Phone numbers (a leading
0, 1, 7, 8 or 9, or under 14 digits), order numbers of other lengths and ISBNs (978…) never
match; a random 16-digit number with a Visa or Mastercard prefix passes one time in ten.

>>> card_number("4111 1111 1111 1111"), card_number("4111 1111 1111 1112")
(True, False)
>>> card_number("3782-822463-10005"), card_number("41 11 11 11 11 11 11 11")
(True, False)
"""

from __future__ import annotations

import re

# Linear: each repetition takes exactly one digit; no digit, letter or joiner around it.
CARD_NUMBER = (r"(?<![0-9A-Za-z_\-.,/+])[2-6][0-9]{3}(?:[ \-]?[0-9]){10,12}"
               r"(?![0-9A-Za-z_\-/]|[.,][0-9])")

_GROUPINGS = ((4, 6, 5), (4, 6, 4))  # Amex, Diners; the others print 4-4-4-4
# (prefixes as (low, high) over the first n digits, lengths)
_ISSUERS: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (4, 4, (16,)),
    (51, 55, (16,)),
    (2221, 2720, (16,)),
    (34, 34, (15,)),
    (37, 37, (15,)),
    (6011, 6011, (16,)),
    (644, 649, (16,)),
    (65, 65, (16,)),
    (3528, 3589, (16,)),
    (300, 305, (14,)),
    (36, 36, (14,)),
    (38, 38, (14,)),
    (62, 62, (16,)),
)


def luhn_valid(digits: str) -> bool:
    """Whether the last digit of ``digits`` is its Luhn check digit.

    >>> luhn_valid("79927398713"), luhn_valid("79927398710")
    (True, False)
    """
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _grouped_like_a_card(text: str) -> bool:
    groups = [len(g) for g in re.split(r"[ \-]", text)]
    if len(groups) == 1:
        return True
    if len(set(re.findall(r"[ \-]", text))) != 1:
        return False
    if tuple(groups) in _GROUPINGS:
        return True
    return all(g == 4 for g in groups)


def _known_issuer(digits: str) -> bool:
    for low, high, lengths in _ISSUERS:
        prefix = int(digits[: len(str(low))])
        if low <= prefix <= high and len(digits) in lengths:
            return True
    return False


def card_number(text: str) -> bool:
    """Whether a match of :data:`CARD_NUMBER` is a card number (see the module doc)."""
    digits = re.sub(r"[ \-]", "", text)
    return _grouped_like_a_card(text) and _known_issuer(digits) and luhn_valid(digits)
