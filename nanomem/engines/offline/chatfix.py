"""Chat conventions that correct what was just said, with no word of correction (pure; session 24).

Two shapes of quick chat, neither a phrase of one conversation:

- **a starred fix** (:func:`starred_fix`): a message that opens with ``*`` and a token fixes a
  typo of the message before ("key safe is 5813" then "*5831 sorry fat thumbs"). The token
  replaces the one of the earlier sentence it most resembles (the same kind, digits or letters,
  and most of the same characters); the fact kept is the earlier sentence so fixed, a
  correction, every word of it the speaker's;
- **a denial, then the value** (:func:`denial_then_value`): a sentence that denies a value in a
  clause of its own ("No no, is not Monday, I confuse …") and a short sentence after it that
  gives one ("Is Thursday.") are one correction.

>>> starred_fix("*5831 sorry fat thumbs", ["key safe at the hendersons is 5813"])
'key safe at the hendersons is 5831'
>>> starred_fix("*5831", ["my cat is called Bob"]) is None
True
>>> denial_then_value("No no, is not Monday, I confuse with the ballet.", "Is Thursday.")
True
>>> denial_then_value("The gym is great.", "Is Thursday.")
False
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher

from nanomem.vocab import MONTHS, WEEKDAYS

_STAR = re.compile(r"^\s*\*+\s*(?P<fix>[^\s*]+?)[\s.,!*]*(?:\s|$)")
_TOKEN = re.compile(r"[^\W_]+(?:[.:,/-][^\W_]+)*")
_NOT_CLAUSE = re.compile(r"(?:^|[,;:]\s*|\b(?:is|it's|it’s|it is|was|are)\s+)not\s+(?P<old>[A-Z0-9][\w:./-]*)(?=\s*(?:[,.;!?]|$))")
_VALUE = re.compile(r"\d|\b(?:" + "|".join((*WEEKDAYS, *MONTHS)) + r")\b|(?<=\w )[A-Z][a-z]+", re.I)
_BULLET = re.compile(r"^\s*[-*+]\s+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SAID = re.compile(r"\s*\(said \d{4}-\d{2}-\d{2}\)\s*$")
_SIMILAR = 0.5  # the share of characters a typo and its fix have in common, at least


def starred_fix(message: str, before: Sequence[str]) -> str | None:
    """The sentence of ``before`` (the sentences kept from the message before, in order) with
    the token a starred message fixes, or None when the message is no starred fix or no token
    of ``before`` resembles its fix."""
    found = _STAR.match(message)
    if found is None:
        return None
    fix = found.group("fix").strip(".,!")
    best: tuple[float, str, re.Match[str]] | None = None
    for sentence in before:
        for token in _TOKEN.finditer(sentence):
            old = token.group(0)
            if old == fix or _kind(old) != _kind(fix) or abs(len(old) - len(fix)) > 2:
                continue
            score = SequenceMatcher(None, old.casefold(), fix.casefold()).ratio()
            if score >= _SIMILAR and (best is None or score > best[0]):
                best = (score, sentence, token)
    if best is None:
        return None
    _, sentence, token = best
    return sentence[:token.start()] + fix + sentence[token.end():]


def recent_lines(view: Mapping[str, str], planned: Sequence[str], *, last: int = 3) -> list[str]:
    """The lines a starred fix may fix in Dream (the typo and its fix reach history in two
    entries): the lines planned in this batch and the last ``last`` bullets of each file, as
    text (no bullet, no machine mark, no date said)."""
    lines = [*planned]
    for text in view.values():
        lines += [line for line in text.splitlines() if _BULLET.match(line)][-last:]
    return [_SAID.sub("", _COMMENT.sub("", _BULLET.sub("", line))).strip() for line in lines]


def denial_then_value(sentence: str, after: str) -> bool:
    """Whether ``sentence`` denies a value in a clause of its own and ``after``, a short sentence,
    gives a value: the two are one correction."""
    return (bool(_NOT_CLAUSE.search(sentence)) and len(after.split()) <= 4
            and bool(_VALUE.search(after)) and not after.rstrip().endswith("?"))


# Session 24: who or what of the speaker's a Chinese statement names ("我弟承翰在新竹上班", "我家猫麻糬…",
# "我住景美"): the speaker, then a relative, a pet, a carer, or where they live or work
_ZH_OWN = re.compile(
    r"^(?:对了|嗯|啊|喔|另外)?[，,\s]*我(?:的|家|们|们家)?(?:"
    r"(?:爸|妈|哥|姐|弟|妹|儿子|女儿|老公|老婆|先生|太太|男友|女友|阿嬷|阿公|奶奶|爷爷|外婆|外公|猫|狗|家医科医生|医生|主管|老板|室友)"
    r"[\u4e00-\u9fff]{1,3}(?:在|叫|是|住|做|读|念|每|说|一直|也|都|很)|住(?:在)?[\u4e00-\u9fff]{2,4}[，,。]|在[\u4e00-\u9fff]{2,8}(?:上班|工作|念书|读书))"
    # round 17: the home said with the speaker left out, a space ending the clause ("家里住曹家渡 老房子")
    r"|^(?:家里?|老家)住(?:在)?[\u4e00-\u9fff]{2,6}(?:[，,。\s]|$)")


def is_own_statement_zh(sentence: str) -> bool:
    """Whether a Chinese sentence tells who or what is the speaker's (see ``_ZH_OWN``); the caller
    has already set aside questions, filler and the day's news."""
    return bool(_ZH_OWN.search(sentence))


def _kind(token: str) -> str:
    return "digits" if any(ch.isdigit() for ch in token) else "letters"
