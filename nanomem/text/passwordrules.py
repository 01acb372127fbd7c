"""The rules for a password told or typed in prose (pure data and checks).

:mod:`nanomem.text.secretpatterns` turns these into rows of its table (kind ``password``):

- after a credential word: "my password is …", "Log in: …", "pw: …", 密码是 … (:data:`PROSE_SPECS`);
- with no word at all, shaped like a typed password: "Heron!Gate42 oops", "the new one is
  Falcon#2024" (:data:`TYPED_PASSWORD`), or ending in its symbols: "use Summer2024! for the
  guest wifi" (:data:`TYPED_TRAILING`);
- near a credential word or a slip ("wrong window", "by accident", 打错): a word with digits,
  "Marmalade1952", "Summer2024!", "Kestrel#2024" (:data:`NEAR_CUE`, :data:`NEAR_TOKEN`);
- alone on its line, a whole message of one password-shaped token: "Sowa#4481"
  (:data:`ALONE_PASSWORD`);
- a PIN of four to six digits near a word for a card's PIN: "6093 … my card pin" (:data:`PIN_CUE`).

Every pattern runs in linear time on any input (no nested unbounded repetition, no possessive
quantifiers or atomic groups: Python 3.10 has none); ``benchmarks/redact.py`` feeds each one
long adversarial strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Prose: "my password is hunter2!x", "Log in: Brackw00d!7", "pw: Tr0ub4dor&3". The value is
# the next run without spaces or quotes, less trailing sentence punctuation (greedy, then one
# step back per trailing mark: linear, where a lazy value with a look-ahead was quadratic on a
# long run of dots), plus the '!' and '?' right after it ("Summer2024!"): the checks judge the
# value without them, so "the password is wrong!" stays.
_PROSE_VALUE = r"[\"'“]?(?!\[REDACTED:)([^\s\"'”]*[^\s\"'”.,;:!?)][!?]*)"
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


def _core(value: str) -> str:
    return value.rstrip("!?")


def _prose_password(value: str) -> bool:
    """The value after a credential word: four characters or more, a digit or a symbol in it,
    not a template placeholder ("{{portal_password}}")."""
    value = _core(value)
    return len(value) >= 4 and bool(_VALUE_MARK.search(value)) and not value.startswith("{{")


def _loose_cue_password(value: str) -> bool:
    """The value after a credential word some words away ("密码发出来了：…"): also no time,
    date, e-mail address, URL or code."""
    value = _core(value)
    return (_prose_password(value) and not _TIME_OR_DATE.fullmatch(value)
            and not _EMAIL_OR_URL.fullmatch(value) and not _CODE.search(value))


def _weak_cue_password(value: str) -> bool:
    """The value after "log in", "sign in" or "pass": also a lower-case letter in it."""
    return _loose_cue_password(value) and any(c.islower() for c in value)


def _not_template(value: str) -> bool:
    """Any value right after 密码是, but no unfilled template slot ("{{客服后台密码}}")."""
    return not value.startswith(("{{", "{", "${", "<<", "%"))


_CUED = _QUALIFIER + _SEPARATOR + _PROSE_VALUE
# (pattern, needles, check) of each prose rule; the value is group 1.
PROSE_SPECS: tuple[tuple[str, tuple[str, ...], Callable[[str], bool]], ...] = (
    (r"(?i)\b(?:" + _STRONG_CUES + r")\b" + _CUED,
     ("pass", "pw", "pin", "wifi", "wi-fi", "code"), _prose_password),
    (r"(?i)\b(?:" + _WEAK_CUES + r")\b" + _CUED, ("log", "sign", "pass"), _weak_cue_password),
    (r"(?:密码|口令)(?:" + _ZH_GAP + r"|(?=[A-Za-z0-9]))" + _ZH_ASCII_VALUE, ("密码", "口令"),
     _loose_cue_password),
    (r"(?:登录|登陆)" + _ZH_GAP + _ZH_ASCII_VALUE, ("登录", "登陆"), _weak_cue_password),
    # any value right after 密码是 / 口令： ("密码是一二三四五"), when no ASCII one came first
    (r"(?:密码|口令)\s*(?:是|为|：|:)\s*(?!\[REDACTED:)([^\s，。；、]{4,})", ("密码", "口令"),
     _not_template),
)

# A password typed with no word before it ("Heron!Gate42 oh, wrong box"): a run of printable
# ASCII (less the quotes, brackets and sentence marks around it) of 8 to 64 characters that
# mixes lower case, upper case, digits AND a symbol between two letters or digits. The joiners
# of identifiers, dates, plates and amounts (- _ . / : , and ') are no such symbol, so
# "KX-7731", "LR22 BNO", "08:15", "99.95", "£3,140" or "en_US-UTF8" never match; nor is '+'
# ("Python+UL4", "Disney+2": names joined, more often than a password holds one).
# The quotes around it are taken whole, as a possessive `*+` would (Python 3.10 has no possessive
# quantifiers): `(?=(X*))\1` matches X* and never gives any back; the value is group 2.
PW_SYMBOLS = "!#$%&*=?@^~"
TYPED_PASSWORD = (
    r"(?<![!-~])(?=([\"'“‘(\[{<*_]*))\1"
    r"(?=[!-~]*?[A-Z])(?=[!-~]*?[a-z])(?=[!-~]*?[0-9])"
    r"(?=[!-~]*?[A-Za-z0-9][" + re.escape(PW_SYMBOLS) + r"]+[A-Za-z0-9])"
    r"([!-~]{8,64})(?<![\"'”’)\]}>.,;:!?*_])(?=([\"'”’)\]}>.,;:!?*_]*))\3(?![!-~])"
)
# ...and is no e-mail address, URL, path, list, code or markup, number sign or factor after a
# word ("Issue#42", "Integer*1"; inside a sentence TYPED_TRAILING takes "is Falcon#2024"), ordinal after a missing space ("Great!2nd") or time after an
# at sign ("Standup@10am").
_NOT_TYPED = re.compile(
    r"[^@]*@[\w\-]+(?:\.[\w\-]+)+|.*(?:://|[/\\()\[\]{}<>\"'`|,;]).*|www\..*"
    r"|[A-Za-z]+[#*]\d+[A-Za-z]?|[A-Za-z]+[!?]\d+(?:st|nd|rd|th)"
    r"|[A-Za-z][A-Za-z\-]*@\d{1,2}(?::\d\d)?(?:am|pm)?", re.I)
_ASSIGNED = re.compile(r"\$?[A-Za-z_][\w.:\-]*=(?=.)")
_SHAPE = re.compile(r"(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=.*[A-Za-z0-9][" + re.escape(PW_SYMBOLS)
                    + r"]+[A-Za-z0-9]).{6,}")


def typed_password(value: str) -> bool:
    """The cue-less rule's value check; of ``NAME=value`` ("NANOMEM_MODEL=qwen2.5:7b") only the
    value is judged, as the assignment rules judge one with a credential name."""
    assigned = _ASSIGNED.match(value)
    if assigned:
        value = value[assigned.end():]
        if not _SHAPE.fullmatch(value):
            return False
    return not _NOT_TYPED.fullmatch(value)


# A password typed with no word before it, inside a sentence (after a lower-case word, a comma
# or a colon: a token that opens one, "Kestrel#2024 is the ship's name", "Summer2024! was hot",
# is a name), shaped as people build one from a word: a capital, letters and digits with a
# lower-case letter in them (the core), then either a symbol and four to eight digits ("the new
# one is Falcon#2024 don't lose it"; "Issue#42", "Room#12B" have fewer) or one to three
# password symbols after a core with two digits or more ("use Summer2024! for the guest wifi",
# "the new one is Falcon2024# ok"; "Python3!" has one); 8 characters or more in all. A '!' or
# '?' ends sentences too ("Can't wait for Euro2024!"), so it counts only when the sentence goes
# on in lower case after it. The accepted cost: "omg Euro2024! can't wait" and "the ship
# Kestrel#2024 sailed" are redacted. One start per token (the look-behind), so linear.
_PW_SYMBOL = "[" + re.escape(PW_SYMBOLS.replace("?", "").replace("!", "")) + "]"
TYPED_TRAILING = (
    r"(?<=[a-z,:;] )([A-Z][A-Za-z0-9]{2,62}"
    r"(?:" + _PW_SYMBOL + r"\d{4,8}|" + _PW_SYMBOL + r"[" + re.escape(PW_SYMBOLS) + r"]{0,2}"
    r"|[!?]{1,3}(?=[ \t]+[a-z])))"
    r"(?=[\s.,;:]|$)"
)
TYPED_TRAILING_NEEDLES = tuple(PW_SYMBOLS)
_TRAILING_CORE = re.compile(r"([A-Z][A-Za-z0-9]*)([" + re.escape(PW_SYMBOLS) + r"])(\d*)")


def typed_trailing(value: str) -> bool:
    """Eight characters or more, a lower-case letter in the core, and four digits after the
    symbol or two in the core ("Falcon#2024", "Summer2024!"; not "Python3!", "Issue#42")."""
    found = _TRAILING_CORE.match(value)
    if found is None or len(value) < 8 or not any(c.islower() for c in found.group(1)):
        return False
    if len(found.group(3)) >= 4 and found.end() == len(value):
        return True
    return sum(c.isdigit() for c in found.group(1)) >= 2


# A password near a cue (same line, at most NEAR_CHARS characters between them, either side):
# "in the wrong box, Marmalade1952, don't keep that, it's the password for the library account",
# "pw Marmalade1952", "Summer2024! oops, wrong window", "Kestrel#2024 — ignore that". The cue is
# a word that names a password (not "login" or "code": "the login page", "the locker code") or
# words that tell a slip: something typed in the wrong place, by accident, to be ignored.
NEAR_CHARS = 60
NEAR_CUE = (
    r"(?i)\b(?:passwords?|passcode|passphrase|passwd|pwd|pw|(?-i:PIN)"
    r"|wrong\s+(?:window|box|tab|field|chat|screen|app|thread|place)"
    r"|by\s+(?:accident|mistake)|accidentally|mistakenly|oops|whoops"
    r"|(?:ignore|forget|disregard)\s+(?:that|this|it|I\s+(?:typed|said|sent|pasted))"
    r"|don'?t\s+(?:keep|store|save|remember|record)\s+(?:that|this|it))\b"
    r"|密码|口令|打错|发错|输错|手滑|误发|别记|不要记|当没看见"
)
# What every match of NEAR_CUE holds, in the text folded as (?i) folds it.
NEAR_NEEDLES = ("pass", "pw", "pin", "wrong", "accident", "mistake", "oops", "ignore", "forget",
                "disregard", "don", "密码", "口令", "打错", "发错", "输错", "手滑", "误发", "别记", "不要记",
                "当没看见")
# The token: 6 to 64 letters, digits and password symbols, starting with a letter, not glued to
# an identifier, path, address, file name or call (no '_ - @ . / : \' around it, no '.x' or '('
# after it).
# Only one start per token (the look-behind excludes the token's own characters), so linear.
# Near a cue a product and its year is taken too ("the Office2019 password reset"): the accepted
# cost. It has the shape of "Marmalade1952", and a token right before the cue word is no name
# either: in "pw Abc12d pw Abc12d" each value stands before the next cue (docs/decisions.md).
_NEAR_CHARS_CLASS = r"A-Za-z0-9" + re.escape(PW_SYMBOLS)
NEAR_TOKEN = (
    r"(?<![" + _NEAR_CHARS_CLASS + r"_\-./:\\])"
    r"([A-Za-z][" + _NEAR_CHARS_CLASS + r"]{5,63})"
    r"(?![" + _NEAR_CHARS_CLASS + r"_\-@/:\\(\[]|\.[A-Za-z0-9])"
)
_LETTERS_THEN_DIGITS = re.compile(r"[A-Za-z]{3}\d\d")
_SYMBOL_INSIDE = re.compile(r"[A-Za-z0-9][" + re.escape(PW_SYMBOLS) + r"]+[A-Za-z0-9]")
# A number sign before a short number ("Issue#42", "Room#12B"), an ordinal after a missing space
# ("Great!2nd") or a time after an at sign ("Standup@10am") is no password, near a cue or not.
_NOT_NEAR = re.compile(r"[A-Za-z]+[#*]\d{1,3}[A-Za-z]?|[A-Za-z]+[!?]\d+(?:st|nd|rd|th)"
                       r"|[A-Za-z][A-Za-z\-]*@\d{1,2}(?::\d\d)?(?:am|pm)?", re.I)


# A password alone on its line (a whole message of one token, pasted into the wrong window:
# "Sowa#4481"), a bullet or quotes around it allowed: mixed case, a digit and a symbol between
# two letters or digits, as the cue-less rule asks, but a number sign before four digits or more
# counts here ("Issue#42", "Room#12B" and "Standup@10am" alone still do not); or built from a
# word with its symbols at the end, as TYPED_TRAILING asks inside a sentence: "Summer2024!",
# "Falcon2024#" (a capital, a lower-case letter, two digits or more, 8 characters or more;
# "Python3!", "Thanks!", "2024", "$45" alone are none). The accepted cost: "Euro2024!" alone.
ALONE_PASSWORD = (r"(?m)^[ \t]*(?:[-*+][ \t]+)?[\"'“‘]?([A-Za-z0-9" + re.escape(PW_SYMBOLS)
                  + r"]{6,64})[\"'”’.!?]?[ \t]*\r?$")
_ALONE_SHAPE = re.compile(r"(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])(?=.*[A-Za-z0-9]["
                          + re.escape(PW_SYMBOLS) + r"]+[A-Za-z0-9]).{6,64}")


def alone_password(value: str) -> bool:
    """A token alone on its line that is shaped like a password ("Sowa#4481", "Summer2024!";
    not "Issue#42", "Python3!")."""
    if _NOT_NEAR.fullmatch(value):
        return False
    return bool(_ALONE_SHAPE.fullmatch(value)) or typed_trailing(value)


# A PIN near a word for a card's PIN ("6093 enter, hang on, that was me saying my card pin out
# loud"): PIN in capitals, pin after card / bank / ATM / debit / credit / SIM / phone, or pin
# code / number; "the pin on the map" or "a safety pin" is no cue. The PIN is four to six digits
# on their own (no part of a date, time, amount, phone number or identifier); near such a word a
# year ("my card PIN since 2024") is redacted too: the accepted cost.
PIN_CUE = (r"\b(?:(?-i:PIN)|(?i:(?:card|bank|atm|debit|credit|sim|phone)\s+pin"
           r"|pin\s+(?:code|number)))\b")
PIN_TOKEN = r"(?<![\w.,:/\-#£$€+])(\d{4,6})(?![\w,:/\-%]|\.\d)"


def near_password(value: str) -> bool:
    """A word-and-digits password near a cue: a lower-case letter, a digit, and three letters
    then two digits or a symbol between two letters or digits ("Marmalade1952", "Summer2024!",
    "Kestrel#2024", "wren5#Kilt22"); "iOS17" and "b64encode" (no three letters before the
    digits), "Win8", "BA2490" (no lower case), "Issue#42" and "Standup@10am" are none."""
    core = value.rstrip(PW_SYMBOLS)
    if not (any(c.islower() for c in core) and any(c.isdigit() for c in core)):
        return False  # "username=username", "re$read" near "password" in code are no password
    if _NOT_NEAR.fullmatch(core):
        return False
    return bool(_LETTERS_THEN_DIGITS.search(core) or _SYMBOL_INSIDE.search(core))
