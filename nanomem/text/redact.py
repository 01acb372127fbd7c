"""Secret detection and redaction (pure).

Every text bound for ``history.jsonl``, the markdown files or git passes through
:func:`redact` first (DESIGN §7). A secret that is never written cannot leak from git history.

>>> r = redact("call with key sk-proj-Abc123def456ghi789jkl012 please")
>>> r.text
'call with key [REDACTED:openai-key] please'
>>> dict(r.counts)
{'openai-key': 1}

Kinds: ``openai-key``, ``anthropic-key``, ``aws-key``, ``github-token``, ``slack-token``,
``google-key``, ``bearer-token``, ``jwt``, ``private-key``, ``password``.

For assignments (``password=…``, ``api_key: …``) and headers (``Authorization: Bearer …``)
only the value is replaced, so the text still says what was there:
``password=[REDACTED:password]``. Ordinary prose and identifiers such as ``KX-7731`` are left
alone: provider keys must carry their provider's prefix, enough length and at least one digit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

KINDS: tuple[str, ...] = (
    "private-key",
    "anthropic-key",
    "openai-key",
    "aws-key",
    "github-token",
    "slack-token",
    "google-key",
    "jwt",
    "bearer-token",
    "password",
)

# A token must not continue a longer word: no letter, digit, '_' or '-' right before it.
_START = r"(?<![A-Za-z0-9_\-])"
_END = r"(?![A-Za-z0-9_\-])"
_HAS_DIGIT = r"(?=[A-Za-z_\-]*[0-9])"

_ASSIGNED_NAMES = (
    r"password|passwd|passphrase|pwd|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey"
    r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|aws_secret_access_key"
)

# (kind, pattern, group): ``group`` is the part that gets replaced (0 = whole match).
# Earlier patterns win when two matches overlap.
_PATTERNS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|[A-Za-z0-9+/=\s:\-,]*)"
        ),
        0,
    ),
    ("anthropic-key", re.compile(_START + r"sk-ant-" + _HAS_DIGIT + r"[A-Za-z0-9_\-]{20,}"), 0),
    (
        "openai-key",
        re.compile(
            _START + r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?" + _HAS_DIGIT + r"[A-Za-z0-9_\-]{20,}"
        ),
        0,
    ),
    ("aws-key", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
     0),
    (
        "aws-key",
        re.compile(
            r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    (
        "github-token",
        re.compile(
            _START + r"(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"
            + _END
        ),
        0,
    ),
    ("slack-token", re.compile(_START + r"xox[baprs]-" + _HAS_DIGIT + r"[A-Za-z0-9\-]{10,}"), 0),
    ("google-key", re.compile(_START + r"AIza[0-9A-Za-z_\-]{35}" + _END), 0),
    (
        "jwt",
        re.compile(_START + r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}"),
        0,
    ),
    (
        "bearer-token",
        re.compile(r"(?i:authorization)\s*[:=]\s*[\"']?(?i:bearer|token)\s+"
                   r"([A-Za-z0-9\-._~+/]{8,}=*)"),
        1,
    ),
    (
        "bearer-token",
        re.compile(r"\b(?i:bearer)\s+(" + _HAS_DIGIT + r"[A-Za-z0-9\-._~+/]{16,}=*)"),
        1,
    ),
    (
        "password",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])[\"']?(?:" + _ASSIGNED_NAMES + r")[\"']?\s*[:=]\s*(?!\[REDACTED:)"
            r"(\"[^\"\n]+\"|'[^'\n]+'|[^\s,;\"'<>]{4,})"
        ),
        1,
    ),
    # credentials in a URL: scheme://user:pass@host
    ("password", re.compile(r"(?<=://)[^/\s:@]+:(?!\[REDACTED:)([^/\s@]{3,})@"), 1),
)


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


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret in ``text``, in text order, without overlaps.

    >>> [m.kind for m in find_secrets("AKIAIOSFODNN7EXAMPLE and KX-7731")]
    ['aws-key']
    """
    found: list[SecretMatch] = []
    for kind, pattern, group in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span(group)
            if start == end:
                continue
            if any(start < other.end and other.start < end for other in found):
                continue
            found.append(SecretMatch(kind, start, end))
    found.sort(key=lambda m: m.start)
    return found


def redact(text: str) -> Redaction:
    """Replace each secret in ``text`` by ``[REDACTED:<kind>]`` and count them per kind.

    >>> redact("password=hunter22 ok").text
    'password=[REDACTED:password] ok'
    >>> redact("Meet Ana about KX-7731 at 10:30.").counts
    mappingproxy({})
    """
    matches = find_secrets(text)
    if not matches:
        return Redaction(text)
    parts: list[str] = []
    counts: dict[str, int] = {}
    position = 0
    for match in matches:
        parts.append(text[position : match.start])
        parts.append(f"[REDACTED:{match.kind}]")
        counts[match.kind] = counts.get(match.kind, 0) + 1
        position = match.end
    parts.append(text[position:])
    return Redaction("".join(parts), MappingProxyType(counts))


def redact_for_model(text: str) -> str:
    """Text of a memory file as it may be sent to a model: secrets redacted, and bytes that are
    not UTF-8 (kept as lone surrogates when files are decoded with ``surrogateescape``) shown
    as U+FFFD, so the request can always be encoded as JSON.

    >>> redact_for_model("caf" + chr(0xDCE9) + " key sk-proj-Abc123def456ghi789jkl012")
    'caf\ufffd key [REDACTED:openai-key]'
    """
    safe = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return redact(safe).text
