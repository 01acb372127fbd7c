"""Slot supersession by name: the values a slot is set by that are names, not numbers (pure;
session 24).

:mod:`nanomem.engines.offline.reslot` lets a plain fact replace a line that holds the same slot
with another value, whatever the fact's words, but only for values of a kind it can compare: a
date, a time, a weekday, an amount of one unit. A slot as often changes its *name*: the mentor
is now Margaret Ellis (was Gethin), the workshop moves to Burneside Mill (was Staveley), the van
is LR22 BNO (was KV19 XMT), 豆豆转到蒲公英幼儿园 (was 小太阳幼儿园). A name on its own says too little
of which slot it fills (a first try that took every capitalised word beside a shared topic word
replaced 23 good lines on dev and fixed 4), so a name counts only inside a **slot frame**, and
the frame names the slot:

- ``@name:<slot>``: "my/our/the <slot> is NAME", "NAME is my <slot>", "my <slot>, NAME", "a new
  <slot> now, NAME", "the <slot> is a … called NAME", "<slot> is at / moves to / goes to NAME";
  two frames are the same slot only when their slot words agree (``mentor``, ``workshop``);
- ``@id:reg``: a registration plate of the UK shape (``KV19 XMT``);
- ``@place:<place word>``: a Chinese place name before a place word (区, 路, 幼儿园, 酒店 …),
  without the verb or preposition before it (在, 搬到, 转到 …); two are the same slot only when
  their place words agree.

Each comes with its position, so that the caller takes the topic words around it. The module
also holds the clause rules of a name-changing correction (:func:`names_only_the_old`,
:func:`holds_new_name`, :func:`names_the_slot`) and round 10's named subject placed anew
(:func:`subject_placed_anew`), moved here from :mod:`nanomem.engines.offline.slots`.

>>> [(k, v) for k, v, _, _ in named_values("Margaret Ellis is my mentor now.")]
[('@name:mentor', 'margaret ellis')]
>>> [(k, v) for k, v, _, _ in named_values("Workshop moves to Burneside Mill, unit 3")]
[('@name:workshop', 'burneside mill')]
>>> [(k, v) for k, v, _, _ in named_values("豆豆在小太阳幼儿园上中班")]
[('@place:幼儿园', '小太阳')]
>>> named_values("Gethin keeps bees in the valley")
[]
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.text.hant import fold_hant
from nanomem.vocab import COMMON_WORDS, MONTHS, WEEKDAYS

_NOT_NAMES = frozenset(w.casefold() for w in (*WEEKDAYS, *MONTHS)) | COMMON_WORDS | frozenset(
    "mr mrs ms dr prof st sir madam mum mom dad nan gran grandad ok okay hi hello thanks sorry yes no "
    "english chinese french german spanish welsh scottish irish british american".split())
_CAPS = re.compile(r"(?<![\w'’-])[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*(?:\s+[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*)*")
_OPENS = re.compile(r"(?:^|[.!?:;]\s+|^\W*[-*+]\s+|\n\s*)$")
# A UK-style registration or an identifier of letters and digits ("WX21 HDN", "KX-7731", "B12")
_PLATE = re.compile(r"\b[A-Z]{2}\d{2}\s?[A-Z]{3}\b")
_ZH_PLACE_WORDS = (
    "幼儿园|小学|中学|大学|学院|医院|诊所|酒店|宾馆|民宿|公园|软件园|产业园|园区|广场|大厦|商场|中心|"
    "小区|花园|大道|路|街|巷|区|县|镇|乡|村|市|站|机场|码头|球场|体育馆|健身房|餐厅|饭店")
_ZH_PLACE = re.compile(r"(?P<name>[\u4e00-\u9fff]{1,5})(?:" + _ZH_PLACE_WORDS + ")")
# the verbs and prepositions a place name follows: the name is what comes after the last of them
_ZH_LEAD = re.compile(r"^.*[我你他她它们的在到去从于住搬转改换调定选订是那这个就也还都已经又说了过和跟]")


_NAME_RUN = r"(?P<name>(?-i:[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*(?:\s+(?:of\s+|de\s+)?[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*)*))"
_SLOT = r"(?P<slot>[a-z]{3,})"
_FRAMES = (
    # "my mentor is Margaret Ellis", "our rep's now Anneliese Croft", "the pickup is at Silsden"
    re.compile(r"\b(?:my|our|the|his|her|their)\s+(?:new\s+|current\s+|usual\s+)?(?:[a-z]+\s+)?" + _SLOT
               + r"(?:'s|’s|\s+is|\s+are|\s+will be)\s+(?:now\s+|currently\s+|still\s+|going to be\s+)?"
               r"(?:called\s+|named\s+|at\s+|in\s+|with\s+|from\s+)?(?:the\s+)?" + _NAME_RUN, re.I),
    # "Margaret Ellis is my mentor now", "Croft's our new rep"
    re.compile(_NAME_RUN + r"(?:'s|’s|\s+is|\s+are|\s+will be)\s+(?:now\s+|currently\s+)?(?:my|our|the)\s+"
               r"(?:new\s+|current\s+|usual\s+)?" + _SLOT + r"\b", re.I),
    # "my mentor, Gethin", "our vet Dr Kaur", "a new rep now, Anneliese Croft" (an apposition)
    re.compile(r"\b(?:my|our|a new|the new)\s+(?:new\s+)?" + _SLOT + r"(?:\s+now)?,?\s+(?:is\s+)?(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?"
               + _NAME_RUN, re.I),
    # "the rep is a lovely lad called Joel Pemberton"
    re.compile(r"\b(?:my|our|the)\s+" + _SLOT + r"(?:'s|’s|\s+is|\s+are)\s+(?:now\s+)?an?\s+(?:[a-z]+\s+){0,3}(?:called|named)\s+"
               + _NAME_RUN, re.I),
    re.compile(r"\b(?:my|our)\s+(?:new\s+)?" + _SLOT + r",?\s+(?:is\s+)?(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?"
               + _NAME_RUN, re.I),
    # "the workshop's at Staveley", "workshop moves to Burneside Mill", "the chip goes to the farm at Nunney"
    re.compile(r"\b" + _SLOT + r"(?:'s|’s|\s+is|\s+are)?\s+(?:now\s+|all\s+|still\s+)?(?:based\s+|kept\s+|held\s+)?"
               r"(?:at|in|moves to|moved to|moving to|goes to|go to|going to|is going to|comes from|from)\s+(?:the\s+)?"
               r"(?:[a-z]+\s+(?:at|in|of)\s+)?" + _NAME_RUN, re.I),
)
_NOT_SLOTS = frozenset("who what which that this there here it one thing things stuff way lot bit time day week "
                       "now then just also still only really very they she him her them".split()) | COMMON_WORDS


def named_values(text: str) -> list[tuple[str, str, int, int]]:
    """``(kind, value, start, end)`` of every name in a slot frame, plate and Chinese place name
    in the NFKC-normalised ``text`` (see the module doc)."""
    text = fold_hant(unicodedata.normalize("NFKC", text))
    out: list[tuple[str, str, int, int]] = []
    for m in _PLATE.finditer(text):
        out.append(("@id:reg", m.group(0).replace(" ", "").casefold(), m.start(), m.end()))
    masked = _PLATE.sub(lambda m: " " * len(m.group(0)), text)
    for rx in _FRAMES:
        for m in rx.finditer(masked):
            slot = _stem(m.group("slot"))
            words = [w for w in m.group("name").split() if w.casefold() not in _NOT_NAMES]
            if slot in _NOT_SLOTS or not words or words[0] != m.group("name").split()[0]:
                continue
            found = ("@name:" + slot, " ".join(words).casefold(), m.start("name"), m.end("name"))
            out += [] if found in out else [found]  # two frames may read the same words
    for m in _ZH_PLACE.finditer(text):
        value = _ZH_LEAD.sub("", m.group("name"))
        if len(value) >= 2:
            out.append(("@place:" + m.group(0)[len(m.group("name")):], value, m.end() - len(value) - len(m.group(0)) + len(m.group("name")), m.end()))
    return out


def _stem(word: str) -> str:
    word = word.casefold()
    for end in ("ing", "ed", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[:-len(end)]
    return word


def holds_new_name(clause: str, line: str) -> bool:
    """Whether a clause of a correction names a value of :func:`named_values` that ``line``
    lacks: the clause gives the new value, and no trimming may drop it ("转到蒲公英幼儿园")."""
    old = {value for _, value, _, _ in named_values(line)}
    plain = fold_hant(unicodedata.normalize("NFKC", line)).casefold()
    return any(value not in old and value not in plain for _, value, _, _ in named_values(clause))


def names_only_the_old(clause: str, line: str, whole: str) -> bool:
    """Whether a clause only tells what became of the old holder of a slot ("Gethin moved to
    Cornwall, so Margaret Ellis is my mentor now"): the correction names a new holder in a
    slot frame, and this clause names no one but people of ``line``."""
    plain = fold_hant(unicodedata.normalize("NFKC", line)).casefold()
    cased = fold_hant(unicodedata.normalize("NFKC", line))
    new = {value for kind, value, _, _ in named_values(whole) if value not in plain  # a name's slot is no slot:
           and not re.search(r"\b" + re.escape(kind.partition(":")[2].capitalize()), cased)}  # "Gethin moved to …"
    text = fold_hant(unicodedata.normalize("NFKC", clause))
    if not new or any(value in text.casefold() for value in new):
        return False
    first = next((m.group(0) for m in _CAPS.finditer(text) if m.group(0).casefold() not in _NOT_NAMES), None)
    return first is not None and bool(re.search(r"\b" + re.escape(first.casefold()) + r"\b", plain))


def names_the_slot(text: str, line: str) -> bool:
    """Whether ``text`` sets, in a slot frame, a slot whose word ``line`` uses ("my mentor" for
    "is mentoring me"): what is left of a trimmed correction still speaks of the line."""
    words = {_stem(w) for w in re.findall(r"[a-z]{3,}", unicodedata.normalize("NFKC", line).casefold())}
    return any(kind.startswith("@name:") and kind[6:] in words for kind, _, _, _ in named_values(text))


# round 10: a named subject put in a new place ("Ana moved to Lisbon", "Tom's now based in Leeds")
_CAP = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*"
_PLACED = re.compile(
    r"(?P<who>\b[A-Z][\w'’-]+)(?:'s|’s| has| is| just| now| finally| recently)*\s+"
    r"(?:moved|relocated|gone|went|lives|lived|living|based|settled|now)(?:\s+(?:back|over|down|up|now))?\s+"
    r"(?:to|in|at|into)\s+(?:the\s+)?(?P<place>" + _CAP + ")")
_NOT_PLACED = frozenset(WEEKDAYS + MONTHS) | COMMON_WORDS
_LINE_PLACE = re.compile(r"\b(?:in|at|to|from|near)\s+(?:the\s+)?(?P<place>" + _CAP + ")")


def subject_placed_anew(correction: str, line: str) -> bool:
    """Whether a correction puts a named subject in a new place and the line holds that subject
    in another place of the same kind (a capitalised name after in/at/to/from).

    >>> subject_placed_anew("Actually, Ana moved to Lisbon.", "- My sister Ana lives in Porto")
    True
    >>> subject_placed_anew("Ana moved to Lisbon.", "- Ben lives in Porto")
    False
    """
    placed = _PLACED.search(correction)
    if placed is None or placed.group("who").casefold() in _NOT_PLACED:
        return False
    who, place = placed.group("who").casefold(), placed.group("place").casefold()
    if not re.search(r"\b" + re.escape(who) + r"\b", line, re.I):
        return False
    return any(m.group("place").casefold() not in (place, who) and m.group("place").casefold() not in correction.casefold()
               for m in _LINE_PLACE.finditer(line))


# Session 26: the Chinese old value out of service beside the new one ("…搬去 Jurong East 了，Tuas 那边
# 退租了", "…，老店关门了"): the clause says the old place or thing is given up, and names it.
ZH_GIVEN_UP = re.compile(
    r"\s*[，,]\s*(?P<old>[A-Za-z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}|[\u4e00-\u9fff]{2,6}?)\s*"
    r"(?:那边|那里|那间|那家|那个|那套)?(?:已经|也)?(?:退租|关门|关了|倒闭|停业|拆了|卖掉|卖了|不租|不用|不做|退掉|退了)了?"
    r"(?=\s*[，,。！？!?.]|$)")
