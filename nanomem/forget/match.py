"""What "the text" of a forget is: a folded pattern, and the whole lines it takes away (pure).

Matching is case-insensitive and NFKC-folded, with runs of white space read as one space, so
``ＡＬＩＣＥ`` (full width), ``alice`` and ``Alice`` are one text. What goes is never half a word:
a memory-file line, a line of a history entry, a line of a message, a line of a commit message
goes whole, and a text left with nothing is a tombstone (empty), so cursors and message counts
keep their meaning.

>>> m = Matcher.literal("Alice Smith")
>>> m.matches("met ALICE  smith today"), m.matches("met Alice")
(True, False)
>>> m.scrub_text("- likes tea\\n- Alice Smith is my sister\\n")
('- likes tea\\n', 1)
>>> m.scrub_value({"content": "Alice Smith", "n": 3})
({'content': '', 'n': 3}, 1)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from nanomem.errors import ForgetError
from nanomem.text.sanitize import replace_lone_surrogates

MIN_PATTERN_CHARS = 2
_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """The matching form of ``text``: NFKC, case-folded, white-space runs as one space.

    >>> fold("Ｓtraße\\t\\tNo.1")
    'strasse no.1'
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _SPACES.sub(" ", folded)


@dataclass(frozen=True)
class Matcher:
    """A forget pattern: a literal text (default) or a regular expression (``--regex``)."""

    folded: str
    regex: re.Pattern[str] | None = None

    @classmethod
    def literal(cls, pattern: str) -> Matcher:
        """A literal pattern; refuses one that is too short or spans lines.

        >>> Matcher.literal("  x ")
        Traceback (most recent call last):
        ...
        nanomem.errors.ForgetError: the pattern 'x' is too short: give at least 2 characters, so that a forget never takes away every line holding a letter
        """
        _check_one_line(pattern)
        folded = fold(pattern).strip()
        if len(folded) < MIN_PATTERN_CHARS:
            raise ForgetError(
                f"the pattern {pattern.strip()!r} is too short: give at least "
                f"{MIN_PATTERN_CHARS} characters, so that a forget never takes away every line "
                "holding a letter"
            )
        return cls(folded)

    @classmethod
    def compile(cls, pattern: str) -> Matcher:
        """A regular expression, matched case-insensitively against folded text.

        >>> Matcher.compile(r"KX-\\d{4}").matches("ticket kx-7731 is open")
        True
        >>> Matcher.compile("a*")
        Traceback (most recent call last):
        ...
        nanomem.errors.ForgetError: the regex 'a*' matches an empty text, so it would take away every line; make it match at least one character
        """
        _check_one_line(pattern)
        try:
            compiled = re.compile(unicodedata.normalize("NFKC", pattern), re.IGNORECASE)
        except re.error as exc:
            raise ForgetError(f"the regex {pattern!r} is invalid ({exc}); fix it or drop --regex") from exc
        if compiled.search(""):
            raise ForgetError(
                f"the regex {pattern!r} matches an empty text, so it would take away every "
                "line; make it match at least one character"
            )
        return cls(fold(pattern), compiled)

    @classmethod
    def build(cls, pattern: str, *, regex: bool = False) -> Matcher:
        """:meth:`compile` with ``regex``, else :meth:`literal`."""
        return cls.compile(pattern) if regex else cls.literal(pattern)

    @property
    def is_regex(self) -> bool:
        return self.regex is not None

    def matches(self, text: str) -> bool:
        """Whether the folded ``text`` holds the pattern anywhere."""
        folded = fold(text)
        if self.regex is None:
            return self.folded in folded
        return bool(self.regex.search(folded) or self.regex.search(_SPACES.sub(" ", text)))

    def scrub_text(self, text: str) -> tuple[str, int]:
        """``text`` without its matching lines (line ends kept), and how many went.

        >>> Matcher.literal("tea").scrub_text("tea\\r\\nmilk")
        ('milk', 1)
        """
        if not self.matches(text):
            return text, 0
        kept, removed = [], 0
        for line in text.splitlines(keepends=True):
            if self.matches(line):
                removed += 1
            else:
                kept.append(line)
        if removed == 0:  # a match that needs several lines: the whole text goes
            return "", 1
        return "".join(kept), removed

    def scrub_value(self, value: Any, *, arguments_key: str = "arguments") -> tuple[Any, int]:
        """Every string inside a JSON value scrubbed with :meth:`scrub_text`; ``(value, lines)``.

        A tool call's ``arguments`` string that held the text becomes ``"{}"`` (still JSON).
        Keys are kept as they are.

        >>> Matcher.literal("kx-77").scrub_value([{"arguments": '{"id": "KX-77"}'}, "ok"])
        ([{'arguments': '{}'}, 'ok'], 1)
        """
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            total = 0
            for key, item in value.items():
                if key == arguments_key and isinstance(item, str) and self.matches(item):
                    out[key], total = "{}", total + 1
                    continue
                out[key], count = self.scrub_value(item)
                total += count
            return out, total
        if isinstance(value, list):
            items, total = [], 0
            for item in value:
                new, count = self.scrub_value(item)
                items.append(new)
                total += count
            return items, total
        return value, 0


def _check_one_line(pattern: str) -> None:
    if not isinstance(pattern, str) or "\n" in pattern or "\r" in pattern:
        raise ForgetError("the pattern must be one line of text; forget each line on its own")
    if replace_lone_surrogates(pattern) != pattern:  # only the Python API can pass one
        raise ForgetError("the pattern holds half of a UTF-16 surrogate pair, which no file can "
                          "hold; pass the whole character (or the text around it)")
