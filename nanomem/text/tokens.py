"""Fast token estimates for text, chat messages and tool definitions (pure, no tokenizer).

The consolidator checks the prompt against its budget on every turn, so estimates must be
cheap: a few regular-expression passes over the text, no vocabulary. The weights were fitted
against ``cl100k_base`` on English prose, Chinese, Python code and tool-call JSON
(``benchmarks/`` prints the measured error)::

    word (Latin letters)  1 token + 0.05 per letter   ("the" 1, "internationalization" 2)
    number                0.66 per run + 0.34 per digit (tokenizers split digits in threes)
    punctuation run       1 token                       ("://", "});", "```")
    underscore            0.5 token                     ("old_text" is "old" + "_text")
    CJK ideograph / kana  1.2 tokens per character      (not 4 characters per token)
    Hangul syllable       1.4 tokens per character
    other scripts         0.6 per character (Cyrillic, Greek, Arabic…), 2 per emoji

>>> estimate_text("I live in Lyon and work on project KX-7731.")  # cl100k_base: 14
14
>>> estimate_text("我住在上海，对花生过敏。")  # cl100k_base: 15
14

Every figure says where it came from (:data:`ESTIMATE`, :data:`CALIBRATED` or
:data:`REPORTED`): a :class:`Calibration` learns the ratio between these estimates and the
``prompt_tokens`` the endpoint reports, which also absorbs the model's own tokenizer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

#: Sources of a token figure.
ESTIMATE = "estimate"  # this module's heuristic
CALIBRATED = "calibrated"  # the heuristic scaled by the ratio learned from reported usage
REPORTED = "reported"  # the endpoint's own ``usage.prompt_tokens``

PER_MESSAGE = 4  # role, separators and message framing of the chat template
PER_TOOL_CALL = 4  # id, type and the function wrapper of one call
REPLY_PRIMING = 3  # the template's "assistant:" prefix the reply starts from
PER_TOOL_DEFINITION = 6  # the wrapper a server renders around each tool schema
IMAGE_PART = 85  # an image content part at low detail
FIT_BLOCK = 1024  # characters :func:`fit_prefix` counts at a time

_WORD = re.compile(r"[A-Za-z\u00C0-\u024F]+")
_NUMBER = re.compile(r"\d+")
_PUNCT_RUN = re.compile(r"[!-/:-@\[-^`{-~]+")
_CJK = re.compile(
    r"[\u2E80-\u2FDF\u3000-\u30FF\u3100-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF]"
)
_HANGUL = re.compile(r"[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]")
_ASTRAL = re.compile(r"[\U00010000-\U0010FFFF]")
_NON_LATIN = re.compile(r"[^\x00-\x7F\u00C0-\u024F]")


def estimate_text(text: str) -> int:
    """Estimated tokens of ``text``; 0 only for the empty string.

    >>> estimate_text("")
    0
    >>> estimate_text("hello world")
    2
    """
    return _total(_count(text)) if text else 0


def fit_prefix(text: str, max_tokens: int, start: int = 0) -> int:
    """The end of the longest ``text[start:end]`` that :func:`estimate_text` puts at or under
    ``max_tokens`` (``start`` when not one character fits), found in time proportional to that
    prefix, not to the rest of ``text``.

    The estimate of a prefix only grows as the prefix does, and it is a function of a few
    counts (words and their letters, numbers and their digits, punctuation runs, underscores,
    characters per script) that add up across a seam, less one run where a word, number or
    punctuation run goes on across it. So the prefix is counted block by block, and only the
    block where the budget runs out is bisected; the answer is exactly the one a bisection on
    whole-prefix estimates finds.

    >>> fit_prefix("one two three", 2), fit_prefix("one two three", 2, start=4)
    (8, 13)
    """
    if start >= len(text):
        return len(text)
    have, pos = _Counts(), start
    while True:
        end = min(len(text), pos + FIT_BLOCK)
        counts = _join(have, _count(text[pos:end]), text[pos - 1] if pos > start else "", text[pos])
        if _total(counts) > max_tokens:
            break
        if end == len(text):
            return end
        have, pos = counts, end
    left = text[pos - 1] if pos > start else ""
    lo, hi = 0, end - pos - 1  # text[pos:pos + lo] fits; text[pos:end] does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _total(_join(have, _count(text[pos:pos + mid]), left, text[pos])) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return pos + lo



class _Counts(NamedTuple):
    """What :func:`estimate_text` counts in a text."""

    words: int = 0
    letters: int = 0
    numbers: int = 0
    digits: int = 0
    puncts: int = 0
    underscores: int = 0
    cjk: int = 0
    hangul: int = 0
    astral: int = 0
    non_latin: int = 0
    ascii: bool = True


def _count(text: str) -> _Counts:
    words = _WORD.findall(text)
    numbers = _NUMBER.findall(text)
    counts = _Counts(len(words), sum(map(len, words)), len(numbers), sum(map(len, numbers)),
                     len(_PUNCT_RUN.findall(text)), text.count("_"))
    if text.isascii():
        return counts
    return counts._replace(cjk=len(_CJK.findall(text)), hangul=len(_HANGUL.findall(text)),
                           astral=len(_ASTRAL.findall(text)),
                           non_latin=len(_NON_LATIN.findall(text)), ascii=False)


def _total(c: _Counts) -> int:
    """The estimate of a non-empty text from its counts (the weights of the module's table)."""
    total = (c.words + 0.05 * c.letters + 0.66 * c.numbers + 0.34 * c.digits + c.puncts
             + 0.5 * c.underscores)
    if not c.ascii:
        other = c.non_latin - c.cjk - c.hangul - c.astral
        total += 1.2 * c.cjk + 1.4 * c.hangul + 2.0 * c.astral + 0.6 * other
    return max(1, round(total))


def _join(a: _Counts, b: _Counts, left: str, right: str) -> _Counts:
    """The counts of ``x + y`` from those of ``x`` (``a``) and ``y`` (``b``); ``left`` and
    ``right`` are the characters either side of the seam ("" when ``x`` is empty)."""
    words, numbers, puncts = a.words + b.words, a.numbers + b.numbers, a.puncts + b.puncts
    if left:
        pair = left + right
        if _WORD.fullmatch(pair):
            words -= 1
        elif _NUMBER.fullmatch(pair):
            numbers -= 1
        elif _PUNCT_RUN.fullmatch(pair):
            puncts -= 1
    return _Counts(words, a.letters + b.letters, numbers, a.digits + b.digits, puncts,
                   a.underscores + b.underscores, a.cjk + b.cjk, a.hangul + b.hangul,
                   a.astral + b.astral, a.non_latin + b.non_latin, a.ascii and b.ascii)


def estimate_content(content: Any) -> int:
    """Tokens of a message ``content``: a string, ``None``, or a list of parts.

    >>> estimate_content([{"type": "text", "text": "hello world"}, {"type": "image_url"}])
    87
    """
    if content is None:
        return 0
    if isinstance(content, str):
        return estimate_text(content)
    if isinstance(content, list):
        total = 0
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                total += estimate_text(str(part.get("text", "")))
            elif isinstance(part, Mapping) and str(part.get("type", "")).startswith("image"):
                total += IMAGE_PART
            else:
                total += estimate_text(_dumps(part))
        return total
    return estimate_text(_dumps(content))


def estimate_message(message: Mapping[str, Any]) -> int:
    """Tokens one OpenAI-format message adds to a prompt (framing, content, tool calls).

    Cache this per message: it depends on nothing else.

    >>> estimate_message({"role": "user", "content": "hello world"})
    6
    >>> estimate_message({"role": "assistant", "content": None, "tool_calls": [
    ...     {"id": "c1", "type": "function",
    ...      "function": {"name": "finish", "arguments": '{"status": "updated"}'}}]})
    16
    """
    total = PER_MESSAGE + estimate_content(message.get("content"))
    name = message.get("name")
    if isinstance(name, str) and name:
        total += 1 + estimate_text(name)
    for call in message.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(fn, Mapping):
            total += PER_TOOL_CALL + estimate_text(_dumps(call))
            continue
        arguments = fn.get("arguments")
        arguments = arguments if isinstance(arguments, str) else _dumps(arguments)
        total += PER_TOOL_CALL + estimate_text(str(fn.get("name") or "")) + estimate_text(arguments)
    if message.get("tool_call_id"):
        total += 1  # the id that ties a tool result to its call
    return total


def estimate_messages(messages: Iterable[Mapping[str, Any]]) -> int:
    """Tokens of a whole prompt's messages, including the reply priming.

    >>> estimate_messages([{"role": "system", "content": "Be brief."},
    ...                    {"role": "user", "content": "hello world"}])
    16
    """
    return REPLY_PRIMING + sum(estimate_message(m) for m in messages)


def estimate_tools(tools: Iterable[Mapping[str, Any]]) -> int:
    """Tokens the tool definitions add to a prompt (their JSON, plus a wrapper each).

    >>> estimate_tools([])
    0
    """
    return sum(PER_TOOL_DEFINITION + estimate_text(_dumps(tool)) for tool in tools)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class TokenCount(NamedTuple):
    """A token figure and where it came from (:data:`ESTIMATE`, :data:`CALIBRATED`, :data:`REPORTED`)."""

    value: int
    source: str


@dataclass(frozen=True)
class Calibration:
    """The learned ratio ``reported prompt_tokens / estimate`` for one endpoint and model.

    Immutable: :meth:`observe` returns a new calibration. The ratio is clamped to
    ``[MIN_RATIO, MAX_RATIO]`` so one odd report cannot make the budget check absurd, and
    later reports move it by a running average (the last few dominate).

    >>> cal = Calibration().observe(estimated=1000, reported=1300)
    >>> cal.apply(2000)
    TokenCount(value=2600, source='calibrated')
    >>> Calibration().apply(2000)
    TokenCount(value=2000, source='estimate')
    """

    ratio: float = 1.0
    samples: int = 0

    MIN_RATIO = 0.5
    MAX_RATIO = 2.0
    MIN_WEIGHT = 0.2  # a new report always moves the ratio by at least this share

    def observe(self, estimated: int, reported: int) -> Calibration:
        """Learn from one request: what this module estimated and what the endpoint reported.

        Pairs with a non-positive side are ignored (``self`` is returned).
        """
        if estimated <= 0 or reported <= 0:
            return self
        observed = _clamp(reported / estimated)
        if self.samples == 0:
            return Calibration(observed, 1)
        weight = max(1.0 / (self.samples + 1), self.MIN_WEIGHT)
        return Calibration(_clamp(self.ratio + weight * (observed - self.ratio)), self.samples + 1)

    def apply(self, estimate: int) -> TokenCount:
        """``estimate`` scaled by the learned ratio; the source says whether it was."""
        if self.samples == 0:
            return TokenCount(estimate, ESTIMATE)
        return TokenCount(round(estimate * self.ratio), CALIBRATED)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, e.g. for a session's metadata line."""
        return {"ratio": round(self.ratio, 4), "samples": self.samples}

    @classmethod
    def from_dict(cls, data: Any) -> Calibration:
        """Inverse of :meth:`to_dict`; anything malformed gives a fresh calibration."""
        if not isinstance(data, Mapping):
            return cls()
        ratio, samples = data.get("ratio"), data.get("samples")
        if not isinstance(ratio, (int, float)) or not isinstance(samples, int) or samples < 0:
            return cls()
        return cls(_clamp(float(ratio)), samples)


def _clamp(ratio: float) -> float:
    return min(Calibration.MAX_RATIO, max(Calibration.MIN_RATIO, ratio))
