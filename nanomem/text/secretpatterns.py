"""The table of secret patterns that :mod:`nanomem.text.redact` applies (pure data).

Each row is ``(kind, pattern, group)``; ``group`` is the part that is replaced (0 = the whole
match), so for assignments (``password=…``), headers (``Authorization: Bearer …``) and URLs
(``postgres://user:…@host``) the name stays and only the value goes. Earlier rows win when
two matches overlap, so specific provider formats come before the generic rules. A password
told in prose (after a credential word: "my password is …", "Log in: …", "pw: …", 密码是 …),
typed with no word at all ("Heron!Gate42 oops") or near a cue ("Marmalade1952, wrong box") is a
:class:`Rule` with a ``check`` on its value; those patterns live in
:mod:`nanomem.text.passwordrules`, a card number's Luhn check in :mod:`nanomem.text.cards`. The
rules for tokens without any prefix (entropy, long hex) live in :mod:`nanomem.text.entropy`.

``docs/history.md`` (*Redaction*) lists every kind with an example.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from nanomem.text import passwordrules as pw
from nanomem.text.cards import CARD_NUMBER, card_number


@dataclass(frozen=True)
class Rule:
    """One secret format: matches of ``pattern`` (its ``group``) are redacted as ``kind``;
    with ``must_look_random`` only when the match also reaches the entropy threshold, with
    ``check`` only when ``check(value)`` holds for the replaced part, with ``near`` only when a
    match of ``near`` lies on the same line at most ``near_chars`` characters away (every match
    of ``near`` holds one of ``near_needles``, compared with the folded text).

    The prefilter that lets :func:`nanomem.text.redact.find_secrets` skip a rule: every match
    contains one of ``needles`` (compared with the text folded as ``(?i)`` folds it when
    ``folded``, see :func:`fold_case`), or, for a rule without needles, lies inside a run of
    at least ``min_run`` characters without whitespace. ``tests/test_redact_prefilter.py``
    checks both against the full scan."""

    kind: str
    pattern: re.Pattern[str]
    group: int = 0
    must_look_random: bool = False
    needles: tuple[str, ...] = ()
    folded: bool = False
    min_run: int = 0
    check: Callable[[str], bool] | None = None
    near: re.Pattern[str] | None = None
    near_chars: int = 0
    near_needles: tuple[str, ...] = ()


# The four non-ASCII letters that ``(?i)`` matches to an ASCII letter (Python's sre case
# folding): dotted and dotless i, long s, the Kelvin sign.
_SRE_FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


def fold_case(text: str) -> str:
    """``text`` in lower case such that whatever a ``(?i)`` pattern matches as an ASCII word
    appears in it as that word in lower case.

    >>> fold_case("PaSSWORD"), fold_case("pa\u017f\u017fword")
    ('password', 'password')
    """
    return text.lower() if text.isascii() else text.translate(_SRE_FOLDS).lower()

# A token must not continue a longer word: no letter, digit, '_' or '-' right before it.
_START = r"(?<![A-Za-z0-9_\-])"
_END = r"(?![A-Za-z0-9_\-])"
_HAS_DIGIT = r"(?=[A-Za-z_\-]*[0-9])"

_ASSIGNED_NAMES = (
    r"password|passwd|passphrase|pwd|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey"
    r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|aws_secret_access_key"
)

# Environment-variable style names: upper case, the LAST part names a credential
# (PGPASSWORD, DB_PASSWORD, GITHUB_TOKEN, STRIPE_SECRET, MY_API_KEY); MAX_TOKENS does not.
_ENV_NAME = (
    r"(?<![A-Za-z0-9_])(?:[A-Z][A-Z0-9_]*?)?"
    r"(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|SECRET_KEY|TOKEN|API_KEY|APIKEY|ACCESS_KEY"
    r"|PRIVATE_KEY|AUTH_KEY|CREDENTIALS?|(?<=[A-Z0-9])_PASS|(?<=[A-Z0-9])_PWD)"
)
# A bare number after such a name is a count or a limit (MAX_TOKEN=4096), and a boolean a
# switch (TEST_PASS=true), not a credential; an all-digit environment password is the accepted
# miss.
_SWITCHES = ("true", "false", "yes", "no", "on", "off", "none", "null")  # not (?i:): see Rule
_NOT_A_COUNT = (r"(?![0-9]+(?![^\s,;`]))"
                r"(?!(?:" + "|".join(f"{w}|{w.title()}|{w.upper()}" for w in _SWITCHES)
                + r")(?![^\s,;`]))")
# The value of an assignment: quoted, or a run without spaces; never an earlier redaction, nor
# the backtick that closes inline code in markdown ("`PGPASSWORD=`-style").
_VALUE = r"(?![\"']?\[REDACTED:|`(?:[^A-Za-z0-9]|$))(\"[^\"\n]+\"|'[^'\n]+'|[^\s,;\"'<>]{4,})"

# What every match of the row of the same index contains (see Rule); lower case for the rows
# whose pattern is case-insensitive, in part or whole.
_NEEDLES: tuple[tuple[str, ...], ...] = (
    ("-----BEGIN ",),
    ("sk-ant-",),
    ("sk-",),
    ("_live_", "_test_"),
    ("whsec_",),
    ("https://hooks.slack.com/",),
    ("SG.",),
    ("hf_",),
    ("GOCSPX-",),
    ("ya29.",),
    ("glpat-", "glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-"),
    ("npm_",),
    ("pypi-",),
    (":AA",),
    ("accountkey", "sharedaccess"),
    ("AKIA", "ASIA", "ABIA", "ACCA"),
    ("aws",),
    ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ("xox", "xapp-"),
    ("AIza",),
    ("eyJ",),
    ("authorization",),
    ("bearer",),
    ("://",),
    ("PASS", "SECRET", "TOKEN", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH_KEY",
     "CREDENTIAL", "_PWD"),
    ("pass", "pwd", "secret", "api", "token", "private"),
)


def _is_folded(pattern: re.Pattern[str]) -> bool:
    return bool(pattern.flags & re.IGNORECASE) or "(?i:" in pattern.pattern


RULES: tuple[Rule, ...]  # built on first use, see __getattr__


def __getattr__(name: str) -> tuple[Rule, ...]:
    """``RULES``, compiled on first use: two dozen patterns take milliseconds to compile,
    which a process that never redacts (``nanomem status``) should not pay."""
    if name == "RULES":
        rules = globals()["RULES"] = _build_rules()
        return rules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _build_rules() -> tuple[Rule, ...]:
    rows: tuple[tuple[str, re.Pattern[str], int], ...] = (
        (  # the body stops at the next BEGIN line: linear with many BEGINs and no END
            "private-key",
            re.compile(
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:(?:(?!-----BEGIN )[\s\S])*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                r"|[A-Za-z0-9+/=\s:\-,\\]*)"
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
        ("stripe-key", re.compile(_START + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _END), 0),
        ("stripe-key", re.compile(_START + r"whsec_[A-Za-z0-9]{24,}" + _END), 0),  # webhook secret
        (
            "slack-webhook",
            re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+"),
            0,
        ),
        (
            "sendgrid-key",
            re.compile(_START + r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,50}" + _END),
            0,
        ),
        ("huggingface-token", re.compile(_START + r"hf_[A-Za-z0-9]{30,}" + _END), 0),
        ("google-oauth-secret", re.compile(_START + r"GOCSPX-[A-Za-z0-9_\-]{20,}" + _END), 0),
        ("google-oauth-token", re.compile(_START + r"ya29\.[A-Za-z0-9_\-]{20,}" + _END), 0),
        (
            "gitlab-token",
            re.compile(_START + r"gl(?:pat|ptt|dt|rt|soat|cbt)-" + _HAS_DIGIT
                       + r"[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]+)*" + _END),
            0,
        ),
        ("npm-token", re.compile(_START + r"npm_" + _HAS_DIGIT + r"[A-Za-z0-9]{36}" + _END), 0),
        ("pypi-token", re.compile(_START + r"pypi-AgE[A-Za-z0-9_\-]{50,}" + _END), 0),
        ("telegram-token",
         re.compile(r"(?<![A-Za-z0-9:])[0-9]{8,10}:AA[A-Za-z0-9_\-]{32,33}" + _END), 0),
        (
            "azure-key",
            re.compile(
                r"(?i)(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*"
                r"([A-Za-z0-9+/%&=:\-]{20,}?)(?=;|\s|$|\"|')"
            ),
            1,
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
        ("slack-token",
         re.compile(_START + r"(?:xox[abeoprs]|xapp)-" + _HAS_DIGIT + r"[A-Za-z0-9\-]{10,}"), 0),
        ("google-key", re.compile(_START + r"AIza[0-9A-Za-z_\-]{35}" + _END), 0),
        (
            "jwt",
            re.compile(_START + r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}"),
            0,
        ),
        (
            "bearer-token",
            re.compile(r"(?i:authorization)\s*[:=]\s*[\"']?(?i:bearer|token|basic)\s+"
                       r"([A-Za-z0-9\-._~+/]{8,}=*)"),
            1,
        ),
        (
            "bearer-token",
            re.compile(r"\b(?i:bearer)\s+(" + _HAS_DIGIT + r"[A-Za-z0-9\-._~+/]{16,}=*)"),
            1,
        ),
        # credentials in a URL: scheme://user:pass@host; the password may itself hold '@' (the
        # host is what follows the LAST '@' before the path)
        (
            "password",
            re.compile(r"(?<=://)[^/\s:@]*:(?!\[REDACTED:)([^\s/]{3,})@(?=[^@\s/]+(?:[/?#\s]|$))"),
            1,
        ),
        ("password", re.compile(_ENV_NAME + r"[ \t]*=[ \t]*" + _NOT_A_COUNT + _VALUE), 1),
        (
            "password",
            re.compile(
                r"(?i)(?<![A-Za-z0-9])[\"']?(?:" + _ASSIGNED_NAMES + r")[\"']?[ \t]*[:=][ \t]*" + _VALUE
            ),
            1,
        ),
    )

    return (
        *(Rule(kind, pattern, group, needles=needles, folded=_is_folded(pattern))
          for (kind, pattern, group), needles in zip(rows, _NEEDLES, strict=True)),
        *(Rule("password", re.compile(pattern), 1, needles=needles,
               folded=_is_folded(re.compile(pattern)), check=check)
          for pattern, needles, check in pw.PROSE_SPECS),
        # an unlabelled AWS secret access key: exactly 40 base64 characters with a '/' or '+',
        # mixed case and digits, and random (entropy >= 4.3); one without '/' or '+' is left to
        # the entropy rule
        Rule(
            "aws-key",
            re.compile(r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
                       r"(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9])"
                       r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
            must_look_random=True,
            min_run=40,
        ),
        Rule("password", re.compile(pw.TYPED_PASSWORD), 2, needles=tuple(pw.PW_SYMBOLS),
             check=pw.typed_password),
        Rule("password", re.compile(pw.TYPED_TRAILING), 1, needles=pw.TYPED_TRAILING_NEEDLES,
             check=pw.typed_trailing),
        Rule("password", re.compile(pw.NEAR_TOKEN), 1, min_run=6, check=pw.near_password,
             near=re.compile(pw.NEAR_CUE), near_chars=pw.NEAR_CHARS, near_needles=pw.NEAR_NEEDLES),
        Rule("password", re.compile(pw.ALONE_PASSWORD), 1, min_run=6, check=pw.alone_password),
        Rule("password", re.compile(pw.PIN_TOKEN), 1, min_run=4, near=re.compile(pw.PIN_CUE),
             near_chars=pw.NEAR_CHARS, near_needles=("pin",)),
        # a payment card number: 13 to 19 digits (in the groups cards print), a known issuer's
        # prefix and a valid Luhn check digit
        Rule("card-number", re.compile(CARD_NUMBER), min_run=4, check=card_number),
    )
