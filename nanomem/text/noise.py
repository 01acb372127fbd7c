"""Noise classes that are junk whatever their phrasing (pure; round-14 study, session 26).

Four kinds of sentence hold nothing a memory should keep, told by what they are, not by the
words a writer chose:

- a **masked value**: a value still to come, written as a mask (``HM-XXXX``, ``Ref XXX``, a row
  of blanks ``___``, ``₦___``) or as a bracketed field name in plain words (``[customer name]``,
  ``[address here]``, ``[待填]``, ``【客户姓名】``). Like a ``{{slot}}`` of a template it is not a
  fact; :func:`cut_masked_clauses` takes the clauses that hold it out of a sentence, so the rest
  of the sentence ("… emergency contact 阿峰") is kept;
- a **secret typed by mistake**: a sentence that names a kind of secret (a password, a PIN, a
  one-time code, 验证码, 密码) and says it was a slip ("by mistake", "wrong window", "don't mind
  it", 打错, 当没看到): whatever the secret looks like (a bank's six-digit code is not something
  the redaction can tell from a number);
- an **apology for the moment**: a sentence that opens with an apology ("Sorry, …", "Forgive my
  …", "Excuse the …", 不好意思, 抱歉) and excuses the moment it is said in ("this morning", "this
  night", "right now", 这么晚), with no number in it: the state of the speaker that evening;
- **the news of the day, reported**: a sentence that passes on what the news, the paper or the
  radio said ("the news says …", "on the news today", 新闻说, 报纸上讲), with no number: the
  world's news, not the person's.

>>> holds_masked_value("Our ref HM-XXXX, to follow"), holds_masked_value("Customer: [customer name]")
(True, True)
>>> holds_masked_value("The XXL jumper, ref KX-7731"), holds_masked_value("I wrote [sic] in the note")
(False, False)
>>> is_secret_slip("552901 - ignore that, it's the bank's one-time code, wrong chat")
True
>>> is_secret_slip("My door PIN is 4417, please remember it")
False
>>> is_moment_apology("Sorry, I'm half asleep this morning."), is_moment_apology("Sorry, I meant 14:30.")
(True, False)
>>> is_reported_news("The radio says the bridge tolls went up again."), is_reported_news("Big news: we moved!")
(True, False)
"""

from __future__ import annotations

import re

from nanomem.text.clauses import split_clauses

# A mask: letters before a run of X or # ("HM-XXXX", "REF-####"), a bare run of four X, or a row
# of blanks ("___", "₦___"); the mask letters are capitals, so "XXL" and "xxx" (a kiss) are not.
_MASK = re.compile(r"(?-i:\b[A-Z]{1,6}[-/ ]?(?:X{3,}|#{3,})(?![A-Za-z0-9])|(?<![A-Za-z])X{4,}(?![A-Za-z])|\b_{3,}|_{3,}\b)")
# A field name in brackets: words that name what goes there (a name, a date, an address, a
# number …) or say it is still to fill ("here", "TBD", 待填, 待定)
_FIELD_WORDS = (
    r"name|first name|last name|surname|date|address|number|phone|email|e-mail|amount|price|"
    r"ref|reference|title|company|client|customer|recipient|sender|city|signature|here|tbd|tbc|to follow"
)
_FIELD = re.compile(
    r"[\[【](?:(?:[a-z]+\s){0,3}(?:" + _FIELD_WORDS + r")(?:\s[a-z]+){0,2}|"
    r"[\u4e00-\u9fff]{0,4}(?:待填|待定|待补|填写|姓名|名字|地址|电话|日期|编号|金额|链接)[\u4e00-\u9fff]{0,2})[\]】]",
    re.IGNORECASE)

# A kind of secret, and the slip said of it
_SECRET_KIND = re.compile(
    r"\b(?:password|passcode|passphrase|pin|otp|one[- ]time (?:code|password|pin)|verification code|"
    r"security code|login|2fa code|tac|(?:access |api |auth |real |personal )?token|api key|secret key)\b"  # session 27: a token
    r"|密码|验证码|口令|动态码", re.IGNORECASE)
_SLIP = re.compile(
    r"\b(?:by (?:mistake|accident)|accidentally|mistakenly|wrong (?:window|box|tab|chat|field|screen|place|terminal|shell|console|pane|thread|channel)|"
    r"ignore (?:it|that|this)|don['’]t mind (?:it|that|this)|disregard|typed (?:it )?(?:here|in here))\b"
    r"|打错|发错|输错|手滑|误发|不小心|当没看[见到]|别记|不要记|别管|不用管", re.IGNORECASE)

# An apology that opens the sentence, and a word of the moment it excuses
_APOLOGY = re.compile(
    r"^\W*(?:sorry|so sorry|apologies|pardon (?:me|my|the)|forgive (?:me|my|the)|excuse (?:me|my|the))\b"
    r"|^\W*(?:不好意思|抱歉|对不起|唔好意思|sorry)", re.IGNORECASE)
_MOMENT = re.compile(
    r"\b(?:this (?:morning|afternoon|evening|night)|tonight|today|right now|at the moment|just now)\b"
    r"|这么晚|今天|今晚|今早|现在|刚才", re.IGNORECASE)

# Session 27: what the apology is for is the speaker's act on the agent, now ("sorry in advance for
# dumping 400 lines of log on you"): its number measures what is sent, no fact
_ACT_ON_YOU = re.compile(
    r"\bin advance\b|\bfor (?:\w+ing|the)\b[^.!?]{0,60}\b(?:on|to|at|with|for) (?:you|u)\b", re.IGNORECASE)

# What the news said, passed on
_NEWS = re.compile(
    r"\b(?:the )?(?:news|paper|papers|newspaper|radio|tv|telly|headlines?)\s+(?:says?|said|reports?|reported)\b"
    r"|\b(?:on|in) the (?:news|paper|radio|telly|tv)\b"
    r"|新闻(?:说|讲|报|报道|上)|报纸(?:说|讲|上)|电视(?:说|讲|上)|电台(?:说|讲)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def holds_masked_value(text: str) -> bool:
    """Whether the sentence holds a masked value or a bracketed field name (see the module doc)."""
    return bool(_MASK.search(text) or _FIELD.search(text))


def cut_masked_clauses(text: str) -> str:
    """``text`` without the clauses that hold a masked value; ``""`` when nothing else is left.

    >>> cut_masked_clauses("先写 [待填]，其他帮我看：紧急联络人阿峰。")
    '其他帮我看：紧急联络人阿峰。'
    >>> cut_masked_clauses("Our ref HM-XXXX")
    ''
    """
    if not holds_masked_value(text):
        return text
    parts, seps = split_clauses(text)
    drop = [bool(part.strip()) and holds_masked_value(part) for part in parts]
    if all(d or not part.strip() for d, part in zip(drop, parts)):
        return ""
    out = ""
    for i, part in enumerate(parts):
        if drop[i]:
            continue  # the clause goes with the separator before it (after it, for the first)
        sep = seps[i - 1] if i else ""
        out += ("" if i and drop[i - 1] and not out else sep) + part
    return out.strip(" ,，;；:：")


def is_secret_slip(text: str) -> bool:
    """Whether the sentence names a kind of secret and says it was typed by mistake."""
    return bool(_SECRET_KIND.search(text) and _SLIP.search(text))


def is_moment_apology(text: str) -> bool:
    """Whether the sentence opens with an apology and excuses the moment, with no number, or the
    speaker's act on the agent ("Sorry in advance for the wall of text", "sorry for dumping 400
    lines on you").

    >>> is_moment_apology("sorry in advance for dumping 400 lines of log on you"), is_moment_apology("Sorry, it's 14:30.")
    (True, False)
    """
    return bool(_APOLOGY.search(text) and ((_MOMENT.search(text) and not _DIGIT.search(text)) or _ACT_ON_YOU.search(text)))


def is_reported_news(text: str) -> bool:
    """Whether the sentence passes on what the news said, with no number."""
    return bool(_NEWS.search(text) and not _DIGIT.search(text))


def noise_reason(text: str) -> str | None:
    """The ledger's skip reason for a noise sentence (``template-placeholder``,
    ``secret-placeholder`` or ``filler``), or None."""
    if holds_masked_value(text):
        return "template-placeholder"
    if is_secret_slip(text):
        return "secret-placeholder"
    if is_moment_apology(text) or is_reported_news(text):
        return "filler"
    return None
