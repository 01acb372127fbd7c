"""The entropy rule: long random-looking tokens are secrets even without a known prefix (pure).

Borrowed from detect-secrets' high-entropy-string plugins, made stricter on word-like text
because nanomem redacts prose, not config files. A token is a maximal run of the base64/URL-safe
alphabet ``[A-Za-z0-9+/_-]`` (``=`` padding allowed at the end), stripped of leading and
trailing ``/``, ``_`` and ``-``. It is redacted as ``random-token`` when all of:

- it is at least :data:`MIN_LENGTH` (24) characters long;
- it mixes upper case, lower case and digits (prose, kebab-case names, dates, numbers,
  lower-case hex such as git shas and UUIDs never do);
- its Shannon entropy (bits per character) is at least :func:`threshold` of its length,
  ``min(4.3, log2(n) - 0.7)``: 3.88 at 24 characters, 4.3 from 40 on. A random base62 token
  of 24 characters reaches it in about 98 % of cases, of 40 in over 99.9 %;
- it does not read like words: it is word-like when 60 % or more of it is made of word-like
  runs (``[A-Z]?[a-z]{3,}`` or ``[A-Z]{4,}``), or 40 % or more with at least 30 % vowels
  among its letters (English is near 40 %, random base62 near 19 %), so identifiers such as
  ``getUserAccountById2Fast``, ``HTTPServer2ConnectionPool`` or ``en_US-UTF8-Locale2026Data``
  stay.

Measured (seeded, 20,000 each): a random base62 token passes in 93 % of cases at 24 and 32
characters, 97.5 % at 40, 99.5 % at 64; of 20,000 identifiers made of 3–6 English words and a
number (CamelCase, ``snake_case``, ``kebab-case``), under 0.1 % are taken for a token (`benchmarks/redact.py`).

A separate hex rule (:func:`find_hex_tokens`) covers long hex tokens: a run of 32 or more hex
digits of one case, with at least one letter and one digit and entropy of at least 3.0. A run
of exactly 40 lower-case hex digits is a git object id (nanomem prints them, people paste them
into ``/dream-restore``) and is left alone; every other length, 64 included, is redacted as
``hex-token``.

>>> [text for text in find_random_tokens("key x9Yq2WvR7tLp4KzM8nB3cD6fAb1 for getUserAccountById2Fast")]
['x9Yq2WvR7tLp4KzM8nB3cD6fAb1']
>>> find_hex_tokens("commit 0123456789abcdef0123456789abcdef01234567 is fine")
[]
"""

from __future__ import annotations

import math
import re
from collections import Counter

MIN_LENGTH = 24
MAX_THRESHOLD = 4.3
HEX_MIN_LENGTH = 32
HEX_MIN_ENTROPY = 3.0
GIT_SHA_LENGTH = 40
WORDY_SHARE = 0.4  # word-like runs, with VOWEL_SHARE vowels among the letters
WORDY_ALONE = 0.6  # word-like runs, whatever the vowels
VOWEL_SHARE = 0.3

_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-=])[A-Za-z0-9+/_\-]{%d,}=*(?![A-Za-z0-9+/_\-=])" % MIN_LENGTH)
_HEX = re.compile(r"(?<![A-Za-z0-9_\-])(?:[0-9a-f]{%d,}|[0-9A-F]{%d,})(?![A-Za-z0-9_\-])"
                  % (HEX_MIN_LENGTH, HEX_MIN_LENGTH))
_WORDY = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
_EDGE = "/_-"


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text`` (0.0 for an empty text).

    >>> shannon_entropy("aaaa"), shannon_entropy("abcd")
    (0.0, 2.0)
    """
    if not text:
        return 0.0
    n = len(text)
    return sum(c / n * math.log2(n / c) for c in Counter(text).values())


def threshold(length: int) -> float:
    """The entropy a token of ``length`` characters must reach to count as random.

    >>> round(threshold(24), 2), threshold(64)
    (3.88, 4.3)
    """
    return min(MAX_THRESHOLD, math.log2(max(length, 2)) - 0.7)


def wordy_share(token: str) -> float:
    """Share of ``token`` made of word-like runs (``getUser`` -> ``User`` and ``get``)."""
    return sum(len(m) for m in _WORDY.findall(token)) / max(len(token), 1)


def vowel_share(token: str) -> float:
    """Share of vowels among the letters of ``token`` (0.0 without letters)."""
    letters = [c for c in token if c.isalpha()]
    return sum(c in "aeiouAEIOU" for c in letters) / max(len(letters), 1)


def reads_like_words(token: str) -> bool:
    """True for identifiers made of words (``getUserAccountById2Fast``), see the module doc."""
    wordy = wordy_share(token)
    return wordy >= WORDY_ALONE or (wordy >= WORDY_SHARE and vowel_share(token) >= VOWEL_SHARE)


def looks_random(token: str) -> bool:
    """True when ``token`` passes every condition of the entropy rule (see the module doc)."""
    core = token.rstrip("=")
    return (
        len(core) >= MIN_LENGTH
        and any(c.isupper() for c in core)
        and any(c.islower() for c in core)
        and any(c.isdigit() for c in core)
        and shannon_entropy(core) >= threshold(len(core))
        and not reads_like_words(core)
    )


def find_random_tokens(text: str) -> list[str]:
    """The tokens of ``text`` that the entropy rule redacts, in text order."""
    return [text[start:end] for start, end in random_token_spans(text)]


def random_token_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each token the entropy rule redacts."""
    spans = []
    for match in _RUN.finditer(text):
        start, end = match.span()
        while start < end and text[start] in _EDGE:
            start += 1
        while end > start and text[end - 1] in _EDGE:
            end -= 1
        if looks_random(text[start:end]):
            spans.append((start, end))
    return spans


def find_hex_tokens(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each long hex token (see the module doc; git shas are not)."""
    spans = []
    for match in _HEX.finditer(text):
        token = match.group(0)
        if len(token) == GIT_SHA_LENGTH and token.islower():
            continue  # a git object id
        if token.isdigit() or not any(c.isdigit() for c in token):
            continue
        if shannon_entropy(token) < HEX_MIN_ENTROPY:
            continue
        spans.append(match.span())
    return spans
