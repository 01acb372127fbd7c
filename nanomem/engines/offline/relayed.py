"""Corrections told as news or relayed from someone else (pure; round-9 study).

Round 9's blind corrections were mostly not *said* as corrections: someone else brought the new
value ("inspector rang.", "payroll sorted my sat.", 院长开会说), or the old value was simply put
out of the running ("cant do 28 jan.", "X fell through", "the 31.20 was last year's rate",
"D7812没抢到票", "不去沈阳了"), and the new value came in the same or the next sentence. Three
shapes, none a phrase of one conversation:

- **a superseded value** (:func:`superseded`): a value that the sentence puts out of use, by
  inability (*can't do / make X*), by a plan that failed (*X fell through / is off / was
  cancelled*; X没抢到, X黄了), by age (*the X was last year's / the old one*), or by a move away
  (不去X了). It is the old value of a correction, like a denied one ("Not Hexham any more.");
- **a report of news** (:func:`is_news_report`): a short sentence that only says news came, and
  from whom ("inspector rang.", "News from the school.", "Payroll sorted my pay."): the
  decisive sentence after it is the news, a correction;
- **the report's frame** (:func:`without_report_frame`): "X rang this morning, …", 院长今天开会说，…:
  its time word tells when the news came, not how long it holds.

>>> superseded("cant do 3 mar.")[0], superseded("the 12.40 was last years price")[0]
('3 mar', '12.40')
>>> superseded("Harewood fell through, they lost the tender.")[0], superseded("车票K1234没抢到，改坐大巴。")[0]
('Harewood', 'K1234')
>>> is_news_report("surveyor rang."), is_news_report("The surveyor rang to say it's the 9th.")
(True, False)
>>> without_report_frame("经理今天早上开会说，年会不在周五了。")
'年会不在周五了。'
"""

from __future__ import annotations

import re

from nanomem.vocab import COMMON_WORDS, HAN_CLASS

__all__ = ["is_news_report", "superseded", "without_report_frame"]

_I = re.IGNORECASE
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
# A value as a terse speaker gives it: a date, a time, an amount, an identifier or a name.
_VALUE = (r"(?:\d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH + r"|" + _MONTH + r" \d{1,2}(?:st|nd|rd|th)?"
          r"|[£$€]?\d[\d.,:]*(?: ?(?:am|pm))?|(?-i:[A-Z]{1,4}) ?\d{2,}\w*|(?-i:[A-Z])[\w-]*\d[\w-]*"
          r"|(?-i:[A-Z])[a-z]+(?: (?-i:[A-Z])[a-z]+){0,2})")
_CLAUSE_END = r"(?=\s*(?:[,;.!?，；。！？]|\band\b|\bbut\b|$))"
_SUPERSEDED = (
    # inability: "can't do the 28th", "cannot make 3 Feb", "won't manage Tuesday"
    re.compile(r"\b(?:can['’]?t|cannot|can not|couldn['’]?t|won['’]?t|unable to)\s+(?:do|make|manage|attend|get)\s+"
               r"(?:the\s+|on\s+)?(?P<old>" + _VALUE + r")" + _CLAUSE_END, _I),
    # a plan that failed: "Harewood fell through", "the 14:10 is off", "Ortiz was cancelled"
    re.compile(r"(?:^|(?<=[,;:]\s)|(?<=\band\s))\W*(?:the\s+)?(?P<old>" + _VALUE + r")(?:\s+\w+)?\s+"
               r"(?:fell through|is off|is out(?! of| now| today| tonight| for| in| on)|(?:was|got|has been|is) (?:cancell?ed|called off|scrapped|dropped|pulled)|"
               r"didn['’]?t happen|isn['’]?t happening|is no more)\b[^,;.!?]*?" + _CLAUSE_END, _I),
    # by age: "the 31.20 was last year's rate", "the 9:15 was the old time"
    re.compile(r"(?:^|(?<=[,;:]\s)|(?<=\band\s)|(?<=\bbut\s))\W*the\s+(?P<old>" + _VALUE + r")\s+(?:was|is|were)\s+"
               r"(?:last\s+years?['’]?s?|the\s+old|old|out of date|outdated|a typo|the previous)\b[^,;.!?]*?" + _CLAUSE_END, _I),
    # Chinese: a plan not got (没抢到, 没订到, 黄了), or a move away (不去X了)
    re.compile(r"(?:^|(?<=[，,；;。]))[^，,；;。！？]{0,8}?(?P<old>[A-Za-z]{0,3}\d{2,}\w*|" + HAN_CLASS + r"{2,5}?)"
               r"(?:这趟|那趟|的票)?(?:没抢到|没订到|没买到|没约到|没约上|没排上|黄了|吹了|泡汤了|取消了)[^，,；;。！？]*[，,；;]?"),
    re.compile(r"(?:^|(?<=[，,；;。]))[^，,；;。！？]{0,8}?不(?:去|在|用|找|坐)(?P<old>" + HAN_CLASS + r"{2,5}?)了[，,；;]?"),
)
_NEWS = re.compile(
    r"^\W*(?:(?:so|and|well|right|oh)\W+)?(?:(?:news|an? update|update|word) from\b[^.!?]{0,30}|(?:heard|word) (?:back )?from\b[^.!?]{0,30}"
    r"|(?:the |my |our )?[a-z]+(?: [a-z]+)? (?:rang|phoned|called|emailed|texted|messaged|wrote|rang back|got back to me|"
    r"came back to me)(?: (?:today|this morning|this afternoon|earlier|back))?"
    r"|(?:the |my |our )?[a-z]+ (?:sorted|fixed|corrected|redid|rechecked|changed) (?:my|our|the) [a-z]+)\W*$", _I)
_FRAME_EN = re.compile(
    r"^\W*(?:the |my |our )?(?:\w+ ){0,2}\w+ (?:rang|phoned|called|emailed|texted|wrote|said|told me)"
    r"(?: (?:today|tonight|this morning|this afternoon|this evening|earlier))?\s*[,:]\s*"
    # session 27: what was done, and when, before a colon ("merged the upgrade PR this morning: every service …")
    r"|^\W*(?:\w+ ){0,3}?\w+ed\b[^:,.!?]{0,40}?\b(?:today|this morning|this afternoon|earlier today|last night)\s*:\s*", _I)
_FRAME_ZH = re.compile(r"^[^，,。！？：:]{1,14}?(?:说|讲|通知|告诉我|来电话|打电话来)[了]?(?:[，,：:]\s*|\s+)"  # session 27: or a pause
                       # round 11: the pause of voice input for a comma ("丽娜今天给我打电话 说她…")
                       r"|^[^，,。！？：:\s]{1,14}?(?:打(?:了个?)?电话|来(?:了个?)?电话|来(?:了个?)?短信)(?:了)?\s+(?:说)?")


def superseded(sentence: str) -> tuple[str, int, int] | None:
    """``(old value, start, end)`` of the clause that puts a value out of use, or None."""
    for rx in _SUPERSEDED:
        found = rx.search(sentence)
        old = found.group("old") if found else ""
        if found and re.search(r"\d|[A-Z]|[\u4e00-\u9fff]", old) and old.split()[0].casefold() not in COMMON_WORDS:
            return found.group("old").strip(), found.start(), found.end()
    return None


def is_news_report(sentence: str) -> bool:
    """Whether a short sentence only says that news came, and from whom (no value of its own)."""
    return len(sentence.split()) <= 6 and not re.search(r"\d", sentence) and bool(_NEWS.match(sentence))


def without_report_frame(sentence: str) -> str:
    """``sentence`` without a frame that only says who brought the news and when ("The vet rang
    this morning, …", 院长今天开会说，…)."""
    rest = _FRAME_ZH.sub("", sentence, count=1) if re.search(r"[\u4e00-\u9fff]", sentence) else _FRAME_EN.sub(
        "", sentence, count=1)
    return rest if len(rest) >= 4 else sentence
