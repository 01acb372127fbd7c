"""Secret detection and redaction (pure).

Every text bound for ``history.jsonl``, the markdown files or git passes through
:func:`redact` first (DESIGN §7). A secret that is never written cannot leak from git history.

>>> r = redact("call with key sk-proj-Abc123def456ghi789jkl012 please")
>>> r.text
'call with key [REDACTED:openai-key] please'
>>> dict(r.counts)
{'openai-key': 1}

Kinds (:data:`KINDS`): provider formats (``openai-key``, ``anthropic-key``, ``stripe-key``,
``slack-webhook``, ``sendgrid-key``, ``huggingface-token``, ``google-oauth-secret``,
``google-oauth-token``, ``gitlab-token``, ``npm-token``, ``pypi-token``, ``telegram-token``,
``azure-key``, ``aws-key``, ``github-token``, ``slack-token``, ``google-key``), ``jwt``,
``private-key``, ``bearer-token``, ``password`` (assignments, ``PGPASSWORD=``-style environment
variables, URL credentials, "my password is …", "Log in: …", "pw: …", 密码是 … in prose, a
token shaped like a typed password with no word before it or built from a word inside a
sentence, "use Summer2024! for the wifi", and a word with digits near a
credential word or a slip: "Marmalade1952, wrong box"), ``card-number`` (Luhn-checked), and
two rules without a prefix
(:mod:`nanomem.text.entropy`): ``hex-token`` and ``random-token``. The table of formats is
:mod:`nanomem.text.secretpatterns`; ``docs/history.md`` (*Redaction*) explains each with an
example.

For assignments (``password=…``, ``api_key: …``) and headers (``Authorization: Bearer …``)
only the value is replaced, so the text still says what was there:
``password=[REDACTED:password]``. Ordinary prose and identifiers such as ``KX-7731`` are left
alone: provider keys must carry their provider's prefix, enough length and at least one digit;
40-character lower-case hex (git object ids) is never redacted.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from nanomem.text.entropy import (
    HEX_MIN_LENGTH,
    MAX_THRESHOLD,
    MIN_LENGTH,
    find_hex_tokens,
    random_token_spans,
    shannon_entropy,
)
from nanomem.text import secretpatterns
from nanomem.text.secretpatterns import fold_case

KINDS: tuple[str, ...] = (
    "private-key",
    "anthropic-key",
    "openai-key",
    "stripe-key",
    "slack-webhook",
    "sendgrid-key",
    "huggingface-token",
    "google-oauth-secret",
    "google-oauth-token",
    "gitlab-token",
    "npm-token",
    "pypi-token",
    "telegram-token",
    "azure-key",
    "aws-key",
    "github-token",
    "slack-token",
    "google-key",
    "jwt",
    "bearer-token",
    "password",
    "card-number",
    "hex-token",
    "random-token",
)
# A placeholder :func:`redact` writes; only these kinds: "[REDACTED:sk-live-…]" hides nothing.
PLACEHOLDER = re.compile(r"\[REDACTED:(?:" + "|".join(map(re.escape, KINDS)) + r")\]")


@dataclass(frozen=True)
class SecretMatch:
    """One secret found in a text: its kind and the span that is replaced."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Redaction:
    """The redacted text and how many secrets of each kind were replaced."""

    text: str
    counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def total(self) -> int:
        """Number of secrets replaced."""
        return sum(self.counts.values())


def find_secrets(text: str, *, prefilter: bool = True) -> list[SecretMatch]:
    """Every secret in ``text``, in text order, without overlaps.

    With ``prefilter`` (the default) a rule whose needles
    (:class:`nanomem.text.secretpatterns.Rule`) are absent from ``text``, or whose match needs
    a longer run without whitespace than ``text`` has, is not run: it could match nothing, so the result is the same as the full
    scan (``prefilter=False``), only faster on ordinary prose.

    A ``[REDACTED:…]`` placeholder already in ``text`` is opaque, so that redacting twice
    changes nothing (``redact(redact(x).text) == redact(x)``): no match overlaps it, the word
    in it ("password") is no cue, and a cue does not reach a token across it (the secret it
    replaced was shorter, or longer, than the placeholder: distances changed).

    >>> [m.kind for m in find_secrets("AKIAIOSFODNN7EXAMPLE and KX-7731")]
    ['aws-key']
    >>> find_secrets("Sowa$45 and [REDACTED:password]; api_key:[REDACTED:password]")
    []
    """
    # kept in text order, without overlaps; the placeholders go in first, kind "", to be skipped
    found = [SecretMatch("", *m.span()) for m in PLACEHOLDER.finditer(text)] if "[REDACTED:" in text else []
    starts = [m.start for m in found]
    opaque = _Opaque([(m.start, m.end) for m in found])
    may = _Prefilter(text).may_match if prefilter else (lambda needles, folded, run: True)

    def add(kind: str, start: int, end: int) -> None:
        # only the neighbours can overlap: O(log n) per match, not O(n) (many matches in one
        # text made this quadratic)
        i = bisect.bisect_left(starts, start)
        if start >= end or (i > 0 and found[i - 1].end > start) or (i < len(found) and found[i].start < end):
            return
        starts.insert(i, start)
        found.insert(i, SecretMatch(kind, start, end))

    for rule in secretpatterns.RULES:  # compiled on first use
        if not may(rule.needles, rule.folded, rule.min_run):
            continue
        cues = None
        if rule.near is not None:
            if not may(rule.near_needles, True, 0):
                continue
            cues = _Cues(text, rule.near, rule.near_chars, opaque)
            if not cues.spans:
                continue
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            if cues is not None and not cues.near(start, end):
                continue
            if rule.must_look_random and shannon_entropy(text[start:end]) < MAX_THRESHOLD:
                continue
            if rule.check is not None and not rule.check(text[start:end]):
                continue
            add(rule.kind, start, end)
    if may((), False, HEX_MIN_LENGTH):
        for start, end in find_hex_tokens(text):
            add("hex-token", start, end)
    if may((), False, MIN_LENGTH):
        for start, end in random_token_spans(text):
            add("random-token", start, end)
    return [match for match in found if match.kind] if opaque.spans else found


class _Cues:
    """The matches of a rule's ``near`` pattern, and whether a span has one on its line at most
    ``chars`` characters away, with no placeholder between (the nearest cue on each side
    decides: O(log n) per span). A cue inside a placeholder (``opaque``) is none."""

    def __init__(self, text: str, near: re.Pattern[str], chars: int, opaque: _Opaque) -> None:
        self.text = text
        self.chars = chars
        self.opaque = opaque
        self.spans = [m.span() for m in near.finditer(text) if not opaque.overlaps(*m.span())]
        self._starts = [s for s, _ in self.spans]

    def near(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._starts, end)  # cues from i on start at or after the span
        for cue_start, cue_end in self.spans[max(0, i - 1): i + 1]:
            lo, hi = (cue_end, start) if cue_start < start else (end, cue_start)
            if hi - lo <= self.chars and "\n" not in self.text[lo:hi] and not self.opaque.overlaps(lo, hi):
                return True
        return False


class _Opaque:
    """The placeholders of a text, sorted and apart: does a span overlap one? (O(log n))"""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self._starts = [s for s, _ in spans]

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._starts, end)  # placeholders before i start before ``end``
        return i > 0 and self.spans[i - 1][1] > start


class _Prefilter:
    """What a text cannot match: computed once per text, the folded copy only when needed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._folded: str | None = None
        self._longest: int | None = None

    def may_match(self, needles: tuple[str, ...], folded: bool, min_run: int) -> bool:
        if not needles:
            if self._longest is None:
                self._longest = max(map(len, self.text.split()), default=0)
            return self._longest >= min_run
        if folded and self._folded is None:
            self._folded = fold_case(self.text)
        hay = self._folded if folded and self._folded is not None else self.text
        return any(needle in hay for needle in needles)


def redact(text: str) -> Redaction:
    """Replace each secret in ``text`` by ``[REDACTED:<kind>]`` and count them per kind.

    The result is scanned again until no secret is left: a match that overlapped another in
    the first scan (the card number's digits run on from the password's year below) is found
    once its neighbour is a placeholder. Each scan replaces text outside the
    placeholders (they are opaque to :func:`find_secrets`), so the loop ends, and
    ``redact(redact(x).text).text == redact(x).text`` for every ``x``.

    >>> redact("password=hunter22 ok").text
    'password=[REDACTED:password] ok'
    >>> redact("Meet Ana about KX-7731 at 10:30.").counts
    mappingproxy({})
    >>> redact("pw: Falcon#2024 4111 1111 1111 1111").text
    'pw: [REDACTED:password] [REDACTED:card-number]'
    """
    matches = find_secrets(text)
    if not matches:
        return Redaction(text)
    counts: dict[str, int] = {}
    while matches:  # until nothing is left: redacting the result again changes nothing
        parts: list[str] = []
        position = 0
        for match in matches:
            parts.append(text[position : match.start])
            parts.append(f"[REDACTED:{match.kind}]")
            counts[match.kind] = counts.get(match.kind, 0) + 1
            position = match.end
        parts.append(text[position:])
        text = "".join(parts)
        matches = find_secrets(text)  # a secret an overlapping match hid ("Falcon#2024 4111 …")
    return Redaction(text, MappingProxyType(counts))


def redact_for_model(text: str) -> str:
    """Text of a memory file as it may be sent to a model: secrets redacted, and bytes that are
    not UTF-8 (kept as lone surrogates when files are decoded with ``surrogateescape``) shown
    as U+FFFD, so the request can always be encoded as JSON.

    >>> redact_for_model("caf" + chr(0xDCE9) + " key sk-proj-Abc123def456ghi789jkl012")
    'caf\ufffd key [REDACTED:openai-key]'
    """
    safe = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return redact(safe).text
