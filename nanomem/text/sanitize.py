"""The one sanitiser for model-supplied text bound for a commit message, a log or a terminal (pure).

A model (or a hostile transcript) can put any character into a tool call: a NUL makes
``git fsck --strict`` fail (``nulInCommit``) and cuts ``git log`` short, ESC sequences repaint
or clear the terminal of whoever runs ``nanomem dream`` or ``nanomem log``, and a newline lets
it forge lines of a commit body, such as a ``Dream-Cursor:`` trailer.

- :func:`sanitize_line` is for one line of a commit message or a log record: line breaks
  (``\\n``, ``\\r``, U+2028, U+2029, U+0085) and tabs fold into one space, and every other
  control character is shown escaped.
- :func:`sanitize_terminal` is for multi-line output: ``\\n``, ``\\r\\n`` and ``\\t`` stay, every
  other control character is shown escaped.
- :func:`replace_lone_surrogates` is for any text taken in (a model's reply, a history entry):
  JSON can escape half of a UTF-16 pair (``"\\\\ud800"``), which Python decodes to a character
  that no UTF-8 file, request or audit line can hold; it becomes U+FFFD.

"Control character" here means C0 (U+0000–U+001F, ESC included), DEL (U+007F), C1
(U+0080–U+009F; U+009B is a one-byte CSI), the line and paragraph separators, and the
bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) that can make text
display in another order than it is stored. Each is written as ``\\xNN`` or ``\\uNNNN``, so
nothing is silently dropped and an ESC sequence is shown as inert text.

>>> sanitize_line("USER.md\\n\\nDream-Cursor: 999\\x00\\x1b[2J")
'USER.md Dream-Cursor: 999\\\\x00\\\\x1b[2J'
>>> sanitize_terminal("ok\\n\\x1b[31mred\\x1b[0m\\tend")
'ok\\n\\\\x1b[31mred\\\\x1b[0m\\tend'
"""

from __future__ import annotations

import re
from typing import Any

_BIDI = "\u202a-\u202e\u2066-\u2069"
_LINE_BREAKS = re.compile(r"[\t\n\r\x0b\x0c\x85\u2028\u2029]+")
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f\u2028\u2029{_BIDI}]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_TERMINAL_CONTROL = re.compile(f"\r(?!\n)|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")


def escape_char(char: str) -> str:
    """``\\x1b`` for ESC, ``\\u202e`` for a right-to-left override.

    >>> escape_char("\\x00"), escape_char("\\u2028")
    ('\\\\x00', '\\\\u2028')
    """
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitize_line(text: str) -> str:
    """``text`` as one safe line: line breaks and tabs fold to one space, controls escaped."""
    folded = _LINE_BREAKS.sub(" ", text)
    return _CONTROL.sub(lambda m: escape_char(m.group(0)), folded)


def sanitize_terminal(text: str) -> str:
    """``text`` safe to print: newlines (also ``\\r\\n``) and tabs kept, other controls escaped."""
    return _TERMINAL_CONTROL.sub(lambda m: escape_char(m.group(0)), text)


def sanitize_json(text: str) -> str:
    """JSON text safe to print: ``json.dumps(..., ensure_ascii=False)`` escapes C0 controls
    but leaves DEL, C1, the separators and bidi controls; this writes them as ``\\uNNNN``,
    which is still the same JSON.

    >>> sanitize_json('"a\x9b2J"')
    '"a\\\\u009b2J"'
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def find_controls(text: str) -> set[str]:
    """The control characters of ``text`` other than newlines, tabs and the ``\r`` of a
    ``\r\n``, escaped (``{'\\x1b'}``).

    >>> find_controls("- likes tea\\r\\n"), sorted(find_controls("- \\x1b[31mred\\x00"))
    (set(), ['\\\\x00', '\\\\x1b'])
    """
    return {escape_char(m.group(0)) for m in _TERMINAL_CONTROL.finditer(text)}


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` (text, or lists and dicts of it, as JSON decodes) with each lone surrogate
    replaced by U+FFFD; everything else as it was.

    >>> replace_lone_surrogates({"path": "a\\ud800b", "n": [1, "\\udcff"]})
    {'path': 'a\\ufffdb', 'n': [1, '\\ufffd']}
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [replace_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {replace_lone_surrogates(k): replace_lone_surrogates(v) for k, v in value.items()}
    return value
