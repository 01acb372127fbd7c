"""Slots: what a fact is about and which value it gives, so the offline Dream can tell that a
correction replaces a line although it does not repeat the old value (pure).

An *attribute* is the thing a fact sets: a head noun ("rent", "flight", "deadline", 房租, 航班)
or its verb ("we close at", "shutting", 关门), grouped into families (``close`` = close, closing,
shut). A *value* has a type: ``time`` (``21:30``, ``9pm``, 下午三点), ``date`` (``May 28``,
``2026-05-28``, ``5月28日``), ``weekday``, ``identifier`` (grouped by family: ``FI 615`` and
``FI 631`` are both ``fi``), ``number`` and ``name``.

:func:`same_slot` says whether a correction sets the same slot as a line with a new value;
:func:`trim_correction` drops the clauses of a correction that only restate the old value
(", not Halvorsen", "FI 615 got cancelled and …", 厦门七月太热了), so the corrected line no longer
carries it.

>>> same_slot("rent is 1,150 a month now", "- Rent is 980 a month, paid on the 1st")
True
>>> same_slot("the standup moved to 10:15", "- Rent is 980 a month")
False
>>> trim_correction("My dentist is Dr. Ivo Lund, not Dr. Sand.")
'My dentist is Dr. Ivo Lund.'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from nanomem.engines.offline.medicines import MEDICINE_EN
from nanomem.engines.offline.shapes import denial, denied_value, is_retraction
from nanomem.engines.offline.subject import sets_subject_anew
from nanomem.engines.offline.supersede import ZH_GIVEN_UP, holds_new_name, names_only_the_old, names_the_slot, subject_placed_anew
from nanomem.text.hant import fold_hant
from nanomem.vocab import COMMON_WORDS, HAN_CHAR, HAN_CLASS, HAN_RUN, MONTHS, WEEKDAYS

_I = re.IGNORECASE
_ATTRIBUTES_EN = {
    "rent": r"rent|rental|rents",
    "lease": r"lease|leases",
    "price": r"price|prices|cost|costs|fee|fees|fare|fares|rate|rates|charge|charges|tuition|quote|quotes|quoted",
    "budget": r"budget|budgets",
    "salary": r"salary|salaries|wage|wages|pay|income",
    "deadline": r"deadline|deadlines|due|submission|submit",
    "meeting": r"meeting|meetings|meet|meets",
    "standup": r"standup|stand-up|standups",
    "appointment": r"appointment|appointments",
    "supervision": r"supervision|supervisions",
    "class": r"class|classes|lesson|lessons|course|practice|rehearsal",
    "flight": r"flight|flights|fly|flying|plane",
    "train": r"train|trains|bus|coach|ferry",
    "hotel": r"hotel|hostel|accommodation|airbnb|lodging|lodgings|guest ?house|b&b|bed and breakfast|inn|motel",  # round 11
    "booking": r"booking|bookings|reservation|reservations",
    "address": r"address|street",
    "phone": r"phone|mobile|extension",
    "email": r"email|e-mail",
    "close": r"close|closes|closing|closed|shut|shuts|shutting",
    "open": r"open|opens|opening",
    "start": r"start|starts|starting|begin|begins|kickoff|kick-off|launch|launches",
    "end": r"ends|ending|finish|finishes",
    "departure": r"depart|departs|departure|departing|leave|leaves|leaving",
    "arrival": r"arrive|arrives|arrival|arriving|land|lands|landing",
    "trip": r"trip|trips|travel|travelling|traveling|destination|holiday|vacation",
    "venue": r"venue|location|held",
    "guests": r"guests|attendees|headcount|people|seats",
    "order": r"order|orders|ordering|ordered",  # round 11: a standing order ("order is 47 from Monday")
    "version": r"version|release",
    # round 5: a dose, where someone lives, who carries the parcels
    "dose": r"dose|doses|dosage|units|mg|ml|tablets?|pills?|jabs?|injections?",
    "home": r"home|flat|house|apartment|flatshare|lives|live|living",
    "courier": r"courier|couriers|carrier|shipping|delivery|deliveries|parcel service",
    "place": r"room|classroom|office|desk|berth|mooring|bay|pitch|stall|locker|seat|gate|platform|ward|bed|"
             r"pontoon|unit|studio|workshop",
    "role": r"supervisor|manager|boss|landlord|doctor|dentist|accountant|lawyer|teacher|coach|reader|"
            r"advisor|adviser|tutor|mentor|vet|therapist|contact|examiner",
}
_ATTRIBUTES_ZH = {
    "rent": r"房租|租金", "price": r"价格|价钱|费用|学费|票价", "budget": r"预算",
    "salary": r"工资|薪水|月薪|年薪", "deadline": r"截止|交稿|提交|期限",
    "meeting": r"会议|开会|例会|周会", "appointment": r"预约|约见|面谈", "class": r"上课|课程|培训|补习",
    "flight": r"航班|机票|飞机|起飞", "train": r"火车|高铁|动车", "hotel": r"酒店|住宿|民宿|宾馆",
    "address": r"地址", "phone": r"电话|手机号", "close": r"关门|打烊", "open": r"开门|营业",
    "start": r"开始|开学|开工|上线", "departure": r"出发|动身|启程", "arrival": r"到达|抵达",
    "trip": r"去" + HAN_CLASS + r"{2,4}(?:玩|旅游|旅行|度假|出差)|改去|目的地|旅行|旅游|度假",
    "venue": r"地点|场地", "courier": r"快递|物流|货运", "dose": r"剂量|用量|毫克",
    "home": r"我家|住在|住的|房子|新家", "assignee": r"交给|外包给|委托给|外包",
    # round 7: who does a job for the person ("化妆师约的是罗芊" → "化妆师换了，换成邵岚")
    "role": r"(?:化妆|摄影|设计|装修|策划|造型|理发)师|司仪|伴娘|伴郎|主持人|律师|会计|教练|房东",
}
_ATTRIBUTE_RX = {
    key: re.compile(r"\b(?:" + words + r")\b", _I) for key, words in _ATTRIBUTES_EN.items()
}
_ATTRIBUTE_ZH_RX = {key: re.compile(words) for key, words in _ATTRIBUTES_ZH.items()}

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# Currency codes, time zones and units: "EUR 900" is an amount, not an identifier of family "eur".
_UNITS = (r"(?:EUR|USD|GBP|CHF|JPY|CNY|RMB|AUD|CAD|SEK|NOK|DKK|PLN|CZK|HUF|INR|HKD|SGD|NZD|ZAR|BRL|"
          r"MXN|KRW|TWD|UTC|GMT|CET|CEST|EST|EDT|PST|PDT|AM|PM|KM|KG|MB|GB|TB|KB|HZ|KW|KWH)")
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")} | {"两": 2}
_VALUE_RX: list[tuple[str, re.Pattern[str]]] = [
    ("date", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("date", re.compile(r"\b" + _MONTH + r"\.? (\d{1,2})(?:st|nd|rd|th)?\b(?!:)", _I)),
    ("date", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?" + _MONTH + r"\b", _I)),
    # session 30: a month of a year ("until May 2030", 2030年5月), when no day is given
    ("date", re.compile(r"\b" + _MONTH + r",? ((?:19|20)\d\d)\b", _I)),
    ("date", re.compile(r"((?:19|20)\d\d)年(\d{1,2})月(?![\d日号])")),
    ("date", re.compile(r"(\d{1,2})月(\d{1,2})[日号]?")),
    ("date", re.compile(r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b")),
    ("time", re.compile(r"\b([01]?\d|2[0-3])[:h]([0-5]\d)\b")),
    ("time", re.compile(r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s?([ap])\.?m\b\.?", _I)),
    ("time", re.compile(r"(上午|早上|中午|下午|晚上)?(\d{1,2}|(?<=[午上])[一二三四五六七八九十两]{1,3})点(半)?")),
    ("weekday", re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", _I)),
    ("weekday", re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])")),
    ("identifier", re.compile(r"\b(?!" + _UNITS + r"\b)([A-Z]{1,4})[- ]?(\d{2,}[A-Z0-9]*)\b")),
    # round 7: a size ("6x8", "8 x 10 ft") and a medicine by its name's stem (a kind of its own)
    ("size", re.compile(r"\b(\d+(?:\.\d+)?)\s?[x×]\s?(\d+(?:\.\d+)?)\b", _I)),
    ("drug", re.compile(MEDICINE_EN, _I)),
    ("number", re.compile(r"\d+(?:[.,]\d+)*")),
]
_NAME = re.compile(r"(?<![\w'’-])[A-Z][a-z]+(?:-[A-Z][a-z]+)?")
_OPENING = re.compile(r"(?:^|[.!?:;]\s+|^\W*[-*+]\s+)$")
_TITLE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s*$")
_NOT_NAMES = frozenset(WEEKDAYS + MONTHS) | COMMON_WORDS
# Words that carry the change itself: a clause holding one is never dropped as "the old value".
_CHANGE = re.compile(
    r"\b(?:to|until|now|instead|moved|changed|switched|pushed|raised|lowered|rescheduled|postponed|"
    r"new|is|are|will)\b|改|换|搬|推迟|提前|调整|变成|不再|现在|而是|是|交给|以后|涨|定在", _I)
_NEGATED = re.compile(
    r"\s*[,，]\s*(?:not(?! only)\b|不是|不去)(?:(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s?|\d[.,]\d|[^,;.!?，；。！？]){1,40}"
    r"(?=[,;.!?，；。！？]|$)", _I)
_CLAUSE_SEP = re.compile(r"([,;:，；：]\s*|\s+(?:and|but|so)\s+)", _I)
_CONJUNCTION = re.compile(r"^\s+(?:and|but|so)\s+$", _I)


# A correction that names both values: "raised it from 2,100 to 2,400", "B-12 → B-19",
# "我之前说500，现在涨到650". The old value is dropped from the written fact.
_VAL = (r"(?:[$€£¥]\s?)?\d[\d,.:]*(?:\s?(?:am|pm|k)\b)?|" + _MONTH + r"\.? \d{1,2}(?:st|nd|rd|th)?\b"
        r"|\d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH + r"\b|(?-i:[A-Z]{1,4})-?\d{2,}\w*")
_FROM_TO = re.compile(r"\s+from\s+(?P<old>" + _VAL + r")(?=\s+(?:up |down |all the way )?to\s+(?:" + _VAL + r"))", _I)
_ARROW = re.compile(r"(?P<old>" + _VAL + r")\s*(?:→|->|=>|⇒)\s*(?=" + _VAL + r")", _I)
_REPLACED = re.compile(
    r"\b(?P<subj>(?-i:We|I|we))(?:'ve| have)? replaced (?P<old>(?-i:[A-Z])\w+(?: (?-i:[A-Z])\w+)?) with ", _I)
# Round 5: the old value named as out of service beside the new one ("I'm on D22 now, B14 is being
# dredged", "…, because the Old Mill is being rebuilt"): the clause says why, and names the old value.
_OUT_OF_SERVICE = re.compile(
    r"\s*[,;]\s*(?:(?:because|as|since|while|and)\s+)?(?:the\s+)?"
    r"(?P<old>(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*){0,3})\s+(?:is|are)\s+(?:being|getting)\s+\w+"
    r"(?:\s+(?:out|up|over|down))?(?=\s*[,;.!?]|$)", _I)
# Round 7: the old value denied ("Not Ludlow any more.", "the jam's not class 14 at all", 不是14桌，…
# 是11桌), a name the speaker had wrong ("I've been calling him Derek … it's Ambrose"), and a
# Chinese old value out of service (罗芊那天档期冲突).
_CALLED = re.compile(
    r"\bI(?:'ve|’ve| have) been calling (?:(?:him|her|them|that \w+|the \w+)\s+)?(?P<old>(?-i:[A-Z])[\w-]*)"
    r"[^.!?,]*?(?:,\s*|\s+and\s+)(?=[^.!?]*\b(?:it|he|she)(?:'s|’s| is) (?-i:[A-Z]))", _I)
# Round 11: the old value in brackets ("16 JULY (was 9 July)"), or after "not" with no comma
# between two values ("goes to Cape Town not Durban")
_WAS = re.compile(r"\s*\(\s*(?:was|previously|formerly)\s+(?P<old>[^()]{1,30}?)\s*\)", _I)
_BARE_NOT = re.compile(
    r"(?<=[\w'’])\s+not\s+(?P<old>(?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*){0,2}|\d[\w:.]*)(?=\s*(?:[,;.!?]|$))",
    _I)
# Round 11: two identifiers of one family either side of a verb of change ("您预订的HU7290…已变更为HU7186",
# "booking AB-12 has been changed to AB-19"): the first is the old one
_FAMILY_CHANGE = re.compile(
    r"(?P<old>(?-i:(?P<pre>[A-Z]{1,4}))[ -]?\d{2,}[A-Za-z0-9]*)(?![A-Za-z0-9-]) ?(?=[^。！？.!?]{0,80}?(?:变更为|变更成|改为|"
    r"改成|换成|调整为|changed to|moved to|switched to|rebooked (?:on|to|onto)|replaced (?:by|with))\s*(?P=pre)[ -]?\d)", _I)
_ZH_NO_LONGER = re.compile(r"[，,\s]*不是(?P<old>[^，,。；;！？\s了]{0,4}\d[^，,。；;！？\s了]{0,6})了(?=[，,。！？\s]|$)")
_ZH_NOT = re.compile(r"不是(?P<old>[^，,。；;！？\s而]{1,12})(?=[，,][^。！？]*是)")
_ZH_UNAVAILABLE = re.compile(
    r"[，,](?P<old>" + HAN_CLASS + r"{2,3}?)(?:那天|那边|这次|最近|当天)?(?:档期冲突|档期满了|没有档期|没档期|没空|排不开|"
    r"来不了|去不了|不干了)(?=[，,。！？])")
# Round 7: a mistake admitted about one thing's value ("I had the show date wrong"): that thing's
# value of that type is the slot, though no attribute of the list names it.
_ADMITTED = re.compile(r"\b(?:had|got) (?:the|my|our) (?P<noun>[a-z]+) (?P<kind>date|day|time|number|figure|price|size)"
                       r" wrong\b", _I)
_ADMITTED_KIND = {"date": "date", "day": "date", "time": "time", "number": "number", "figure": "number",
                  "price": "number", "size": "size"}
_ZH_EARLIER = re.compile(
    r"(?:我)?(?:之前|以前|原来|本来|先前|上次)(?:说|讲|定|报|写)?(?:的|是|为|成)*\s*"
    r"(?P<old>[^，,。；;！？\s]{1,12}?)\s*[，,](?=[^。！？]*?(?:涨|降|改|换|调|变|提高|推迟|提前|定在|定为))")


def old_value(correction: str) -> str | None:
    """The old value a correction names beside the new one, or None.

    >>> old_value("We raised the fee from 40 to 55 euros."), old_value("房租我之前说3200，现在涨到3500了。")
    ('40', '3200')
    >>> old_value("Gate B-12 → B-19."), old_value("The fee is 55 euros now.") is None
    ('B-12', True)
    >>> old_value("Gym moved. Not Hexham any more. Corbridge now."), old_value("I've been calling her Jo, and it's Joanne.")
    ('Hexham', 'Jo')
    >>> old_value("座位我记错了，不是8号，是12号。"), old_value("摄影师换了，吕平那天没空，换成宋哲。")
    ('8号', '吕平')
    """
    for rx in (_FROM_TO, _ARROW, _REPLACED, _ZH_EARLIER, _OUT_OF_SERVICE, ZH_GIVEN_UP, _WAS, _BARE_NOT, _ZH_NO_LONGER, _FAMILY_CHANGE):
        found = rx.search(correction)
        if found:
            return found.group("old").strip()
    for sentence in re.split(r"(?<=[.!?])\s+", correction):
        if denied_value(sentence):
            return denied_value(sentence)  # round 7: "Not Ludlow any more.", "not class 14 at all"
    for rx in (_CALLED, _ZH_NOT, _ZH_UNAVAILABLE):
        found = rx.search(correction)
        if found:
            return found.group("old").strip()
    return None


def drop_old_value(correction: str) -> str:
    """A correction without the part that names the old value ("from 40", "40 →", "我之前说40，").

    >>> drop_old_value("We raised the fee from 40 to 55 euros.")
    'We raised the fee to 55 euros.'
    >>> drop_old_value("We replaced Ada Moss with Bo Lind as our editor.")
    'We now have Bo Lind as our editor.'
    >>> drop_old_value("学费我之前说3200，下学期起涨到3500了。")
    '学费下学期起涨到3500了。'
    >>> drop_old_value("Gym moved. Not Hexham any more. Corbridge now.")
    'Gym moved. Corbridge now.'
    >>> drop_old_value("So I've been calling him Ted for weeks and it turns out it's Edwin.")
    "So it turns out it's Edwin."
    """
    correction = _REPLACED.sub(r"\g<subj> now have ", correction, count=1)
    for rx in (_FROM_TO, _ARROW, _ZH_EARLIER, _OUT_OF_SERVICE, ZH_GIVEN_UP, _CALLED, _ZH_UNAVAILABLE, _WAS, _BARE_NOT, _ZH_NO_LONGER, _FAMILY_CHANGE):
        correction = rx.sub("", correction, count=1)
    return _drop_denied(correction)


def _drop_denied(text: str) -> str:
    """``text`` without the clause that denies the old value ("Not Ludlow any more.", ", the
    jam's not class 14 at all"); a sentence left with no word goes with it."""
    kept = []
    for sentence in re.split(r"(?<=[.!?])(?<!\.\.\.)\s+", text):  # round 20: an ellipsis is a pause
        found = denial(sentence)
        if found and is_retraction(sentence):
            continue  # round 11: "She told me the records are not at Kelso any more." says nothing else
        if found:
            left, right = sentence[:found[1]], sentence[found[2]:]
            if not left.strip() or re.search(r"[:,;，；]\s*$", left):
                right = re.sub(r"^\s*(?:and|but|so)\b\s*", " ", right)  # "…: FI 615 got cancelled and they …"
            sentence = re.sub(r"\s{2,}", " ", left + right).strip()
            sentence = re.sub(r"^[\W_]+(?=\w)|\s*[,，]\s*(?=[,.!?，。！？]|$)", "", sentence)
        if re.search(r"\w", sentence):
            kept.append(sentence[:1].upper() + sentence[1:])
    return " ".join(kept)


def substitute_value(correction: str, line: str) -> str | None:
    """``line`` with its one old value replaced by the correction's one new value of the same
    type (an identifier of the same family, a date, a time or a number), or None when that is
    not a single clear swap. It keeps the context of a line when the correction has none
    ("The number on it is now K-20." for "My locker key is K-11").

    >>> substitute_value("The number on it is now K-20.", "My locker key is K-11, top row")
    'My locker key is K-20, top row'
    >>> substitute_value("It is K-20 and 4 pm.", "Key K-11") is None
    True
    """
    new, old = _spans(correction), _spans(line)
    swaps = []
    for kind in ("identifier", "size", "drug", "date", "time", "number"):
        fresh = {norm: raw for k, norm, raw in new if k == kind and norm not in {n for _, n, _ in old}}
        stale = {norm: raw for k, norm, raw in old if k == kind and norm not in {n for _, n, _ in new}}
        if fresh or stale:
            swaps.append((kind, fresh, stale))
    if len(swaps) != 1 or len(swaps[0][1]) != 1 or len(swaps[0][2]) != 1:
        return None
    kind, fresh, stale = swaps[0]
    (new_norm, new_raw), (old_norm, old_raw) = next(iter(fresh.items())), next(iter(stale.items()))
    if kind == "identifier" and new_norm.split(" ")[0] != old_norm.split(" ")[0]:
        return None
    return line.replace(old_raw, new_raw, 1)


def _spans(text: str) -> list[tuple[str, str, str]]:
    """``(kind, normalised, raw)`` of every value, with the masking of :func:`values_of`."""
    text = fold_hant(unicodedata.normalize("NFKC", text))
    out: list[tuple[str, str, str]] = []
    for kind, rx in _VALUE_RX:
        out.extend((kind, _normal(kind, m), m.group(0)) for m in rx.finditer(text))
        text = rx.sub(lambda m: " " * len(m.group(0)), text)
    return out


def value_spans(text: str) -> list[tuple[str, str, int, int]]:
    """``(kind, normalised, start, end)`` of every value of the NFKC-normalised ``text``, with the
    masking of :func:`values_of` (round 8: where a value stands, for the words around it).

    >>> value_spans("Show on 9 August")
    [('date', '8-9', 8, 16)]
    """
    text = fold_hant(unicodedata.normalize("NFKC", text))
    out: list[tuple[str, str, int, int]] = []
    for kind, rx in _VALUE_RX:
        out.extend((kind, _normal(kind, m), m.start(), m.end()) for m in rx.finditer(text))
        text = rx.sub(lambda m: " " * len(m.group(0)), text)
    return out


def attributes_of(text: str) -> frozenset[str]:
    """The attribute families a text speaks of.

    >>> sorted(attributes_of("From June we're shutting at 21:00")), sorted(attributes_of("房租涨到六千了"))
    (['close'], ['rent'])
    """
    text = fold_hant(unicodedata.normalize("NFKC", text))
    found = {key for key, rx in _ATTRIBUTE_RX.items() if rx.search(text)}
    found.update(key for key, rx in _ATTRIBUTE_ZH_RX.items() if rx.search(text))
    return frozenset(found)


@lru_cache(maxsize=4096)
def values_of(text: str) -> dict[str, frozenset[str]]:
    """The values of a text by type, normalised (``9pm`` = ``21:00``, ``May 3`` = ``5-3``).

    >>> v = values_of("Flight FI 615 on May 3 at 9pm, seat 14C, with Ana")
    >>> sorted(v["identifier"]), sorted(v["date"]), sorted(v["time"]), sorted(v["name"])
    (['fi 615'], ['5-3'], ['21:00'], ['ana'])
    """
    text = fold_hant(unicodedata.normalize("NFKC", text))
    out: dict[str, set[str]] = {kind: set() for kind in ("date", "time", "weekday", "identifier", "size", "drug", "number", "name")}
    rest = text
    for kind, rx in _VALUE_RX:
        for match in rx.finditer(rest):
            out[kind].add(_normal(kind, match))
        rest = rx.sub(lambda m: " " * len(m.group(0)), rest)
    for match in _NAME.finditer(rest):
        before = rest[:match.start()]
        alone = text.strip() == match.group(0)  # a name on its own ("Derek", an old value) is a name
        if match.group(0).casefold() in _NOT_NAMES or (_OPENING.search(before) and not _TITLE.search(before) and not alone):
            continue
        out["name"].add(match.group(0).casefold())
    return {kind: frozenset(values) for kind, values in out.items()}


def identifier_families(text: str) -> dict[str, frozenset[str]]:
    """Identifiers grouped by their letter prefix: ``{"fi": {"fi 615"}}``."""
    families: dict[str, set[str]] = {}
    for value in values_of(text)["identifier"]:
        families.setdefault(value.split(" ")[0], set()).add(value)
    return {family: frozenset(values) for family, values in families.items()}


def same_slot(correction: str, line: str) -> bool:
    """Whether a correction sets the same slot as a line with a new value: an identifier of the
    same family that the line lacks (``FI 631`` for ``FI 615``), or a shared attribute and a
    value of a type the line also has that the line lacks. Chinese texts that share an
    attribute match without values ("改去青岛" sets the ``trip`` of "去厦门玩五天"); round 20: so
    does the subject of a Chinese verb of change with another number or place
    (:mod:`nanomem.engines.offline.subject`: "会费改成150块" for "一年交120块会费").

    >>> same_slot("they rebooked me on FI 631", "- Icelandair FI 615 out of Boston")
    True
    >>> same_slot("The gym closes at 22:00 now", "- The pool closes on Sundays")
    False
    """
    mine, theirs = identifier_families(correction), identifier_families(line)
    if any(mine[family] - theirs[family] for family in mine.keys() & theirs.keys()):
        return True
    if subject_placed_anew(correction, line):
        return True  # round 10: "Ana moved to Lisbon" for "My sister Ana lives in Porto, …"
    new, old = values_of(correction), values_of(line)
    if any(new[kind] - old[kind] and old[kind] for kind in ("size", "drug")):
        return True  # round 7: another size ("8x10" for "6x8"), another medicine
    admitted = _ADMITTED.search(correction)
    if admitted and re.search(r"\b" + re.escape(admitted.group("noun")) + r"s?\b", line, _I):
        kind = _ADMITTED_KIND[admitted.group("kind").casefold()]
        if new[kind] - old[kind] and old[kind]:
            return True  # "I had the show date wrong … it's the 30 August" for "The show is on the 23 August"
    mine_money, their_money = _money(correction), _money(line)
    if any(mine_money[sign] - their_money[sign] for sign in mine_money.keys() & their_money.keys()):
        return True  # round 9: another sum in the same currency ("put them up to £91" for "… is £83")
    if len(new["name"] & old["name"]) >= 2 and any(new[kind] - old[kind] and old[kind] for kind in ("date", "time", "weekday")):
        return True  # round 10: two names shared, another date ("… Bo's crew at Elmfield want the 9th May")
    if sets_subject_anew(correction, line):
        return True  # round 20: the subject before 改成/改到 ("会费改成150块" for "一年交120块会费")
    if not attributes_of(correction) & attributes_of(line):
        return False
    if any(new[kind] - old[kind] and old[kind] for kind in new if kind != "name"):
        return True
    if new["name"] - old["name"] and old["name"] and {"role", "home", "venue", "hotel"} & attributes_of(correction) & attributes_of(line):
        return True  # "my supervisor is now Dr. Lee" for "my supervisor is Dr. Park"; a new street; round 11: a new hotel
    # Chinese texts that share an attribute match without values, unless the line holds an amount
    # the correction does not touch (a budget that mentions the hotel is not the hotel booking)
    return bool(HAN_CHAR.search(correction) and HAN_CHAR.search(line)) and not (old["number"] and not new["number"])


def _money(text: str) -> dict[str, frozenset[str]]:
    """Sums by currency sign: ``{"£": {"91"}}`` (pence dropped when zero: ``£91.00`` = ``£91``)."""
    found: dict[str, set[str]] = {}
    for m in re.finditer(r"([£$€¥])\s?(\d[\d,]*(?:\.\d+)?)", unicodedata.normalize("NFKC", text)):
        found.setdefault(m.group(1), set()).add(re.sub(r"\.0+$", "", m.group(2).replace(",", "")))
    return {sign: frozenset(values) for sign, values in found.items()}


def trim_correction(correction: str, replaced: str | None = None) -> str:
    """A correction without the clauses that only restate the old value: a negated clause
    (", not X", "，不是X") always; with the ``replaced`` line, also a clause whose values (or,
    in Chinese, character pairs) come from that line and that holds no change, as long as what
    is left still names the slot. The text is never rewritten otherwise.

    >>> trim_correction("Flight LX 12 was cancelled and they put me on LX 18.", "- Flight LX 12 on Monday")
    'They put me on LX 18.'
    >>> trim_correction("周末太挤了，聚餐改到周五。", "- 聚餐定在周末")
    '聚餐改到周五。'
    """
    text = drop_old_value(_NEGATED.sub("", correction)).strip()
    if replaced is None:
        return text
    parts = _CLAUSE_SEP.split(text)  # clause, separator, clause, ...
    clauses = parts[0::2]
    drop = {i for i, clause in enumerate(clauses) if _restates(clause, replaced, text)}
    if not drop or len(drop) == len(clauses):
        return text
    kept: list[str] = []
    before_drop: str | None = None  # the separator before a run of dropped clauses
    for i, clause in enumerate(clauses):
        separator = parts[2 * i - 1] if i else ""
        if i in drop:
            before_drop = separator if before_drop is None else before_drop
            continue
        if before_drop is not None and _CONJUNCTION.match(separator):
            separator = before_drop  # "A: B and C" without B is "A: C"
        if kept:
            kept.append(separator)
        kept.append(clause)
        before_drop = None
    trimmed = "".join(kept).strip()
    if not _still_about(trimmed, replaced):
        return text
    if trimmed[-1:] not in ".!?。！？" and text[-1:] in ".!?。！？":
        trimmed += text[-1]
    return trimmed[:1].upper() + trimmed[1:]


def _restates(clause: str, line: str, whole: str) -> bool:
    """Whether a clause only repeats the old value of ``line`` (and the correction gives a new one)."""
    if names_only_the_old(clause, line, whole):
        return True  # session 24: "Gethin moved to Cornwall, so Margaret Ellis is my mentor now"
    if holds_new_name(clause, line):
        return False  # session 24: the clause names the new holder or place
    if _CHANGE.search(clause):
        return False
    mine, old, new = values_of(clause), values_of(line), values_of(whole)
    for kind in mine:
        if kind == "name" or not mine[kind]:
            continue
        if not mine[kind] <= old[kind] or not (new[kind] - old[kind]):
            return False
    if any(mine[kind] for kind in mine if kind != "name"):
        return True
    if HAN_CHAR.search(clause) and not re.search(r"\d", clause):
        return bool(_pairs(clause) & _pairs(line))
    return False


def _still_about(text: str, line: str) -> bool:
    return bool(
        attributes_of(text) & attributes_of(line)
        or identifier_families(text).keys() & identifier_families(line).keys()
        or values_of(text)["name"] & values_of(line)["name"]
        or _pairs(text) & _pairs(line)
        or names_the_slot(text, line)
    )


def _pairs(text: str) -> set[str]:
    return {run[i:i + 2] for run in HAN_RUN.findall(text) for i in range(len(run) - 1)}


def _normal(kind: str, match: re.Match[str]) -> str:
    raw = match.group(0)
    groups = match.groups()
    if kind == "date" and len(groups) == 3 and groups[0] and groups[0].isdigit() and len(groups[0]) == 4:
        return f"{int(groups[1])}-{int(groups[2])}"
    if kind == "date" and "年" in raw:
        return f"{int(groups[1])}-{groups[0]}"  # a month of a year: "5-2030", never a day's "5-20"
    if kind == "date" and len(groups) == 2:
        month, day = (groups[0], groups[1]) if not groups[0].isdigit() else (groups[1], groups[0])
        if "月" in raw:
            month, day = groups[0], groups[1]
        number = int(month) if month.isdigit() else _MONTHS.index(month[:3].casefold()) + 1
        return f"{number}-{int(day)}"
    if kind == "time" and "点" in raw:
        part, hour, half = groups
        value = int(hour) if hour.isdigit() else _zh_number(hour)
        if part in ("下午", "晚上") and value < 12:
            value += 12
        return f"{value}:{'30' if half else '00'}"
    if kind == "time" and len(groups) == 3:
        hour = int(groups[0]) % 12 + (12 if groups[2].casefold() == "p" else 0)
        return f"{hour}:{groups[1] or '00'}"
    if kind == "time":
        return f"{int(groups[0])}:{groups[1]}"
    if kind == "identifier":
        return f"{groups[0].casefold()} {groups[1].casefold()}"
    if kind == "size":
        return f"{groups[0]}x{groups[1]}"
    return raw.replace(",", "").casefold()


def _zh_number(text: str) -> int:
    if text == "十":
        return 10
    if text.startswith("十"):
        return 10 + _ZH_DIGITS.get(text[1:], 0)
    if "十" in text:
        tens, _, units = text.partition("十")
        return _ZH_DIGITS.get(tens, 0) * 10 + _ZH_DIGITS.get(units, 0)
    return _ZH_DIGITS.get(text, 0)
