"""The table of secret patterns that :mod:`nanomem.text.redact` applies (pure data).

Each row is ``(kind, pattern, group)``; ``group`` is the part that is replaced (0 = the whole
match), so for assignments (``password=…``), headers (``Authorization: Bearer …``) and URLs
(``postgres://user:…@host``) the name stays and only the value goes. Earlier rows win when
two matches overlap, so specific provider formats come before the generic rules. A password
told in prose (after a credential word: "my password is …", "Log in: …", "pw: …", 密码是 …) or
typed with no word at all ("Heron!Gate42 oops") is a :class:`Rule` with a ``check`` on its
value. The rules for tokens without any prefix (entropy, long hex) live in
:mod:`nanomem.text.entropy`.

``docs/history.md`` (*Redaction*) lists every kind with an example.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One secret format: matches of ``pattern`` (its ``group``) are redacted as ``kind``;
    with ``must_look_random`` only when the match also reaches the entropy threshold, with
    ``check`` only when ``check(value)`` holds for the replaced part.

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
    r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9_]*?"
    r"(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|SECRET_KEY|TOKEN|API_KEY|APIKEY|ACCESS_KEY"
    r"|PRIVATE_KEY|AUTH_KEY|CREDENTIALS?)"
)
# A bare number after such a name is a count or a limit (MAX_TOKEN=4096), not a credential;
# an all-digit environment password is the accepted miss.
_NOT_A_COUNT = r"(?![0-9]+(?![^\s,;]))"
# The value of an assignment: quoted, or a run without spaces; never an earlier redaction.
_VALUE = r"(?!\[REDACTED:)(\"[^\"\n]+\"|'[^'\n]+'|[^\s,;\"'<>]{4,})"

# Prose: "my password is hunter2!x", "Log in: Brackw00d!7", "pw: Tr0ub4dor&3". The value is
# the next run without spaces or quotes, less trailing sentence punctuation (greedy, then one
# step back per trailing mark: linear, where a lazy value with a look-ahead was quadratic on a
# long run of dots); :func:`_prose_password` and :func:`_weak_cue_password` decide on it.
_PROSE_VALUE = r"[\"'“]?(?!\[REDACTED:)([^\s\"'”]*[^\s\"'”.,;:!?)])"
_QUALIFIER = r"(?:\s+(?:for|of|to|on|into)\s+(?:the\s+|my\s+|our\s+|your\s+)?[\w.\-]+)?"
# A dash separates only with a space before it: "Login-1234-Foo" is a kebab-case name.
_SEPARATOR = r"(?:\s*(?:is|was|=|:)|\s+[-–—])\s*(?:now\s+)?"
# Words that name a credential whatever follows ("PIN" only in capitals: a pin is also a pin).
_STRONG_CUES = (
    r"password|passphrase|passcode|passwd|pwd|pw|pin\s+(?:code|number)|(?-i:PIN)|wi-?fi\s+key"
    r"|(?:login|log-in|sign-?in|security|verification|2fa|otp|one-time)\s+code"
)
# Words that name a credential only when a password-like value follows them: "Log in: X7!k…",
# not "log in: tomorrow", "sign in: 10am" or "login: ana@example.com".
_WEAK_CUES = r"log-?in|log\s+in|log-?on|sign-?in|sign\s+in|pass"
# A value holds a digit or one of these symbols, so "the password is correct" stays.
_VALUE_MARK = re.compile(r"[0-9!#$%&*+/=?@^~]")
_TIME_OR_DATE = re.compile(r"\d{1,4}(?:[:./\-]\d{1,4})*(?:am|pm|h|st|nd|rd|th)?", re.I)
_CODE = re.compile(r"[()\[\]{}<>`\\|]")
_EMAIL_OR_URL = re.compile(r"[^@\s]+@[\w\-]+(?:\.[\w\-]+)+|\w+://.*|www\..*", re.I)
# Chinese: 密码, 口令, 登录 and what the speaker did with it before the colon
# ("网银密码发出来了：…"), then an ASCII value; 登录名 / 登录账号 name an account, not a secret.
_ZH_GAP = r"(?![名账户用])[^\x00-\x7f\s，。；、！？：:]{0,6}?(?:是|为|：|:)\s*"
_ZH_ASCII_VALUE = r"(?!\[REDACTED:)([!-~]*[0-9A-Za-z!#$%&*+=?@^~])"


def _prose_password(value: str) -> bool:
    """The value after a credential word: four characters or more, a digit or a symbol in it,
    not a template placeholder ("{{portal_password}}")."""
    return len(value) >= 4 and bool(_VALUE_MARK.search(value)) and not value.startswith("{{")


def _loose_cue_password(value: str) -> bool:
    """The value after a credential word some words away ("密码发出来了：…"): also no time,
    date, e-mail address, URL or code."""
    return (_prose_password(value) and not _TIME_OR_DATE.fullmatch(value)
            and not _EMAIL_OR_URL.fullmatch(value) and not _CODE.search(value))


def _weak_cue_password(value: str) -> bool:
    """The value after "log in", "sign in" or "pass": also a lower-case letter in it."""
    return _loose_cue_password(value) and any(c.islower() for c in value)


# A password typed with no word before it ("Heron!Gate42 oh, wrong box"): a run of printable
# ASCII (less the quotes, brackets and sentence marks around it) of 8 to 64 characters that
# mixes lower case, upper case, digits AND a symbol between two letters or digits. The joiners
# of identifiers, dates, plates and amounts (- _ . / : , and ') are no such symbol, so
# "KX-7731", "LR22 BNO", "08:15", "99.95", "£3,140" or "en_US-UTF8" never match; nor is '+'
# ("Python+UL4", "Disney+2": names joined, more often than a password holds one).
# The quotes around it are taken whole, as a possessive `*+` would (Python 3.10 has no possessive
# quantifiers): `(?=(X*))\1` matches X* and never gives any back; the value is group 2.
_PW_SYMBOLS = "!#$%&*=?@^~"
_TYPED_PASSWORD = (
    r"(?<![!-~])(?=([\"'“‘(\[{<*_]*))\1"
    r"(?=[!-~]*?[A-Z])(?=[!-~]*?[a-z])(?=[!-~]*?[0-9])"
    r"(?=[!-~]*?[A-Za-z0-9][" + re.escape(_PW_SYMBOLS) + r"]+[A-Za-z0-9])"
    r"([!-~]{8,64})(?<![\"'”’)\]}>.,;:!?*_])(?=([\"'”’)\]}>.,;:!?*_]*))\3(?![!-~])"
)
# ...and is no e-mail address, URL, path, list, code or markup, number sign or factor after a
# word ("Issue#42", "Integer*1"), ordinal after a missing space ("Great!2nd") or time after an
# at sign ("Standup@10am").
_NOT_TYPED = re.compile(
    r"[^@]*@[\w\-]+(?:\.[\w\-]+)+|.*(?:://|[/\\()\[\]{}<>\"'`|,;]).*|www\..*"
    r"|[A-Za-z]+[#*]\d+[A-Za-z]?|[A-Za-z]+[!?]\d+(?:st|nd|rd|th)"
    r"|[A-Za-z][A-Za-z\-]*@\d{1,2}(?::\d\d)?(?:am|pm)?", re.I)
_ASSIGNED = re.compile(r"\$?[A-Za-z_][\w.:\-]*=(?=.)")
_SHAPE = re.compile(r"(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=.*[A-Za-z0-9][" + re.escape(_PW_SYMBOLS)
                    + r"]+[A-Za-z0-9]).{6,}")


def _typed_password(value: str) -> bool:
    """The cue-less rule's value check; of ``NAME=value`` ("NANOMEM_MODEL=qwen2.5:7b") only the
    value is judged, as the assignment rules judge one with a credential name."""
    assigned = _ASSIGNED.match(value)
    if assigned:
        value = value[assigned.end():]
        if not _SHAPE.fullmatch(value):
            return False
    return not _NOT_TYPED.fullmatch(value)


def _prose_rules() -> tuple[Rule, ...]:
    """The rules for a password told in prose, each with its needles and its value check."""
    def rule(pattern: str, needles: tuple[str, ...], check: Callable[[str], bool] | None) -> Rule:
        compiled = re.compile(pattern)
        return Rule("password", compiled, 1, needles=needles, folded=_is_folded(compiled),
                    check=check)

    cued = _QUALIFIER + _SEPARATOR + _PROSE_VALUE
    return (
        rule(r"(?i)\b(?:" + _STRONG_CUES + r")\b" + cued,
             ("pass", "pw", "pin", "wifi", "wi-fi", "code"), _prose_password),
        rule(r"(?i)\b(?:" + _WEAK_CUES + r")\b" + cued, ("log", "sign", "pass"), _weak_cue_password),
        rule(r"(?:密码|口令)(?:" + _ZH_GAP + r"|(?=[A-Za-z0-9]))" + _ZH_ASCII_VALUE, ("密码", "口令"),
             _loose_cue_password),
        rule(r"(?:登录|登陆)" + _ZH_GAP + _ZH_ASCII_VALUE, ("登录", "登陆"), _weak_cue_password),
        # any value right after 密码是 / 口令： ("密码是一二三四五"), when no ASCII one came first
        rule(r"(?:密码|口令)\s*(?:是|为|：|:)\s*(?!\[REDACTED:)([^\s，。；、]{4,})", ("密码", "口令"), None),
    )

# What every match of the row of the same index contains (see Rule); lower case for the rows
# whose pattern is case-insensitive, in part or whole.
_NEEDLES: tuple[tuple[str, ...], ...] = (
    ("-----BEGIN ",),
    ("sk-ant-",),
    ("sk-",),
    ("_live_", "_test_"),
    ("https://hooks.slack.com/",),
    ("SG.",),
    ("hf_",),
    ("GOCSPX-",),
    ("accountkey", "sharedaccess"),
    ("AKIA", "ASIA", "ABIA", "ACCA"),
    ("aws",),
    ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ("xox",),
    ("AIza",),
    ("eyJ",),
    ("authorization",),
    ("bearer",),
    ("://",),
    ("PASS", "SECRET", "TOKEN", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH_KEY",
     "CREDENTIAL"),
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
        ("stripe-key", re.compile(_START + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _END), 0),
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
        # credentials in a URL: scheme://user:pass@host; the password may itself hold '@' (the
        # host is what follows the LAST '@' before the path)
        (
            "password",
            re.compile(r"(?<=://)[^/\s:@]+:(?!\[REDACTED:)([^\s/]{3,})@(?=[^@\s/]+(?:[/?#\s]|$))"),
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
        *_prose_rules(),
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
        Rule("password", re.compile(_TYPED_PASSWORD), 2, needles=tuple(_PW_SYMBOLS),
             check=_typed_password),
    )
