"""A plain fact that sets a slot already in memory with another value is a correction, whatever
its words (pure; round-8 study).

Four blind rounds showed that a correction is often told with no cue the consolidator knows
("the booking form came back and the deposit on it is £415", "Cartmel show's 16 August",
合同上写的交稿日期是11月30日): the sentence is kept as a plain ``durable`` fact and the old line
stays beside it. The mechanism here needs no cue phrase. A fact re-sets a line when

- they speak of the same thing: a content word they share (``deposit``, ``guild``, 交稿), or
  the same unit after a number (``40 pairs`` / ``55 pairs``, ``9万字`` / ``12万字``);
- the line holds a value of one kind (a date, a time, a weekday, or an amount of one unit) that
  the fact gives anew, and every value of that kind in the line is either absent from the fact
  or denied there ("isn't the first Monday at all", 不是之前说的11月15日).

A past event sets no slot ("Dad had the surgery last Tuesday" never corrects "dad fell on
Wednesday"), and a pinned or permanent line is never chosen this way (those change only through an explicit
correction and its gates), nor a line that shares only a value word.

>>> implied_correction("The deposit on the form is £415.", {"USER.md": "- The deposit's £260."})
('USER.md', "- The deposit's £260.")
>>> implied_correction("Tom left on Wednesday and phoned last night to say he would join the guild.", {"M": "- The guild meets on the first Monday."}) is None
True
>>> implied_correction("The deposit for the hall is £260 too.", {"USER.md": "- The deposit's £260."}) is None
True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from nanomem.text.hant import fold_hant
from nanomem.text.overlap import tokens
from nanomem.text.clauses import CLAUSE_BOUNDARY
from nanomem.engines.offline.kinds import is_sign, kind_values, kind_words
from nanomem.engines.offline.slots import value_spans
from nanomem.engines.offline.supersede import named_values
from nanomem.engines.offline.tense import is_narrative
from nanomem.vocab import BULLET, HAN_CHAR, MONTHS, STOP_WORDS, WEEKDAYS, has_mark, is_permanent, is_pinned

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_KINDS = ("date", "time", "weekday")  # the value kinds a slot is set by, beside amounts
# An amount: a currency sign before a number, or the unit word (or two Han characters) after it;
# session 24: also a rate, the unit after a, an or per ("16.50 a walk")
_MEASURE = re.compile(
    r"(?P<sign>[£$€¥])\s?(?P<n1>\d+(?:,\d{3})*(?:\.\d+)?)"
    r"|(?<![\d.,])(?!(?:19|20)\d\d\b)(?P<n2>\d+(?:,\d{3})*(?:\.\d+)?)(?: ?(?:(?:a|an|per) )?(?P<unit>[A-Za-z]{3,})\b|(?P<han>[\u4e00-\u9fff]{1,2}))")
_NEGATION = re.compile(r"\b(?:not|isn't|isn’t|wasn't|wasn’t|aren't|no longer|never)\b|不是|不算|并非|而非", re.I)
# Round 11: the measure words of a place in a building (building, floor, room, table, row, seat, bed),
# whatever word follows them
_PLACE_UNITS = frozenset("栋幢层楼室间桌排座床")
# Round 20: a count written as a word before what it counts ("fourteen goats", "twenty-two hives")
_UNITS_WORDS = "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_COUNT_WORD = re.compile(
    r"\b(?P<tens>" + "|".join(_TENS_WORDS) + r")(?:[- ](?P<ones>one|two|three|four|five|six|seven|eight|nine))?\s+(?P<unit>[a-z]{3,})\b"
    r"|\b(?P<small>" + "|".join(_UNITS_WORDS) + r")\s+(?P<unit2>[a-z]{3,})\b", re.I)
_NEAR = 32  # characters between a negation and the value it denies
_NEAR_WORDS, _NEAR_HAN = 28, 8  # characters either side of a value in which its topic word stands
_NOT_TOPICS = frozenset(w.casefold() for w in (*WEEKDAYS, *MONTHS)) | frozenset(
    "now new old first second third fourth last next one two three four five six seven eight nine ten "
    "day week month year time today tomorrow morning evening night weekend "
    "him her them his hers its our ours your yours their theirs she they who what which this these those "
    "there here also just very really still off".split())


def implied_correction(fact: str, files: Mapping[str, str]) -> tuple[str, str] | None:
    """``(path, line)`` of the bullet that a plain fact sets anew, or None (see the module doc)."""
    mine = _slots(fact)
    if not mine or _past_event(fact):
        return None  # a past event ("Dad had the surgery last Tuesday") sets no standing slot
    best: tuple[int, str, str] | None = None
    for rel, text in files.items():
        for line in text.splitlines():
            if not BULLET.match(line) or is_pinned(line) or is_permanent(line):
                continue
            if _past_event(_COMMENT.sub("", line)):
                continue
            theirs = _slots(_COMMENT.sub("", line))
            for kind in mine.keys() & theirs.keys():
                if has_mark(line, "ephemeral") and kind.startswith(("@place:", "@name:")):
                    continue  # round 20: where a moment happened (a queue at a hospital today) is no standing slot
                (new, near_new), (old, near_old) = mine[kind], theirs[kind]
                shared = near_new & near_old
                if kind.startswith("@place:"):  # session 26: "same time on Tuesdays, but the Bosworth room"
                    shared |= _other_values(mine, kind) & _other_values(theirs, kind)
                by_unit = not kind.startswith("@") and not is_sign(kind)  # "40 pairs" / "55 pairs"
                if not (shared or by_unit) or not (new - old):
                    continue  # not the same thing, or the fact gives no value the line lacks
                if not all(value not in new or _denied(fact, value) for value in old):
                    continue  # the fact repeats the line's value: an addition, not a correction
                if best is None or len(shared) + 1 > best[0]:
                    best = (len(shared) + 1, rel, line)
    return None if best is None else (best[1], best[2])


def _slots(text: str) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """``{kind: (values, topic words near them)}``; kinds ``@date``, ``@time``, ``@weekday`` and
    one per unit of an amount (``£``, ``pair``, ``万字``)."""
    text = fold_hant(unicodedata.normalize("NFKC", text))
    found: dict[str, tuple[set[str], set[str]]] = {}

    def note(kind: str, value: str, start: int, end: int) -> None:
        values, near = found.setdefault(kind, (set(), set()))
        values.add(value)
        reach = _NEAR_HAN if HAN_CHAR.search(text) else _NEAR_WORDS
        near.update(_topic_words(text[max(0, start - reach):end + reach]))

    for kind, value, start, end in value_spans(text):
        if kind in _KINDS:
            note("@" + kind, value, start, end)
    for kind, value, start, end in named_values(text):
        note(kind, value, start, end)  # session 24: a name, a plate, a Chinese place name
    for kind, value, start, end in kind_values(text):  # session 26: any currency, a phone, an English place
        values, near = found.setdefault(kind, (set(), set()))
        values.add(value)
        near.update(_topic_words(_clause_at(text, start, end)) - kind_words(kind))  # its own clause: a price list's other items are not its topic
    for m in re.finditer(r"《([^》]+)》", text):
        note("@title", m.group(1), m.start(), m.end())  # a title in 《》 (a book, a film)
    for m in _MEASURE.finditer(text):
        unit = m.group("sign") or (m.group("unit") or m.group("han")).casefold()
        if m.group("han") and m.group("han")[0] in _PLACE_UNITS:
            unit = m.group("han")[0]  # round 11: "5栋那套" and "3栋" are the same unit, a building
        unit = _unit(unit)
        if unit not in _NOT_TOPICS and unit not in STOP_WORDS:
            note(unit, (m.group("n1") or m.group("n2")).replace(",", ""), m.start(), m.end())
    for m in _COUNT_WORD.finditer(text):
        unit = _unit(m.group("unit") or m.group("unit2"))
        if unit not in _NOT_TOPICS and unit not in STOP_WORDS:
            note(unit, str(_count(m)), m.start(), m.end())
    return {kind: (frozenset(v), frozenset(n) - {kind}) for kind, (v, n) in found.items()}


def _count(m: re.Match[str]) -> int:
    """The number a count word of :data:`_COUNT_WORD` says ("twenty-two" is 22)."""
    if m.group("small"):
        return _UNITS_WORDS.index(m.group("small").casefold()) + 2
    ones = (m.group("ones") or "").casefold()
    return (_TENS_WORDS.index(m.group("tens").casefold()) + 2) * 10 + (1 if ones == "one" else _UNITS_WORDS.index(ones) + 2 if ones else 0)


def _unit(word: str) -> str:
    """A unit word in lower case and in the singular ("Goats" is "goat"; "gas" stays)."""
    word = word.casefold()
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _clause_at(text: str, start: int, end: int) -> str:
    """The clause of ``text`` that holds ``text[start:end]`` (:data:`CLAUSE_BOUNDARY`)."""
    left = max((m.end() for m in CLAUSE_BOUNDARY.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in CLAUSE_BOUNDARY.finditer(text, end)), len(text))
    return text[left:right]


def _other_values(slots: Mapping[str, tuple[frozenset[str], frozenset[str]]], kind: str) -> frozenset[str]:
    """The dates, times and weekdays of a text but those of ``kind``: a detail both texts repeat
    says they speak of the same thing ("same time on Tuesdays")."""
    return frozenset(f"{k}={v}" for k, (values, _) in slots.items() if k != kind and k[1:] in _KINDS for v in values)


def _past_event(text: str) -> bool:
    """An English sentence that only tells of the past (the Chinese past test, any 了, is too coarse)."""
    return not HAN_CHAR.search(text) and is_narrative(text)


def _denied(fact: str, value: str) -> bool:
    """Whether the fact denies ``value`` (a negation shortly before a mention of it)."""
    for spot in _mentions(fact, value):
        if _NEGATION.search(fact[max(0, spot - _NEAR):spot]):
            return True
    return False


def _mentions(fact: str, value: str) -> list[int]:
    text = fold_hant(unicodedata.normalize("NFKC", fact))
    if "-" in value and value.replace("-", "").isdigit():  # a normalised date "11-15": find its day
        month, day = value.split("-")
        found = [m.start() for m in re.finditer(rf"(?<!\d){int(month)}月{int(day)}[日号]?", text)]
        month_name = MONTHS[int(month) - 1] if 0 < int(month) <= 12 else ""
        found += [m.start() for m in re.finditer(rf"\b{int(day)}(?:st|nd|rd|th)?\b(?! ?[:h]\d)", text)
                  if not month_name or month_name[:3].casefold() in text.casefold()]
        return found
    return [m.start() for m in re.finditer(re.escape(value), text, re.I)]


def _topic_words(text: str) -> frozenset[str]:
    """Content words (no value, no stop word, a plural ``s`` dropped) and Han character pairs."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words = {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in re.findall(r"[a-z]{3,}", text)
             if w not in _NOT_TOPICS}
    pairs = {t for t in tokens(text) if re.fullmatch(r"[\u4e00-\u9fff]{2}", t)}
    return frozenset(w for w in words if w not in STOP_WORDS and w not in _NOT_TOPICS) | pairs
