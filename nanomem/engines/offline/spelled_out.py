"""Two short forms of chat, read written out for the rules (pure; round-17 study).

People who text leave out or run together the words the sentence rules look for:

- a **name contracted with "is" before "my" / "our"** ("Bramble's our spaniel", "Tilly's my
  mare"): the rules read "'s" as a possessive, so the sentence names nobody's anything; written
  out it is "Bramble is our spaniel";
- a **relative with no "my"** ("wife is Noor", "hubby's Colm, works nights", "son is Ewan"): the
  possessive left out, as a texter or a speaker of Singlish does; written out, "my wife is Noor";
  in Chinese (round 20) a relative opening a statement of where they are, what they are called or
  do (孙女在…读初二, 老伴叫…, 女儿是护士): 我 is left out as Chinese speakers do; written out, 我孙女在….

:func:`spelled_out` gives the sentence the rules judge; what is kept is the speaker's own text.
Both forms need a capitalised name that is no common word, so "Wife is off sick today" or
"Mum's the word" stay as they are.

>>> spelled_out("Bramble's our spaniel, nine years old.")
'Bramble is our spaniel, nine years old.'
>>> spelled_out("wife is Noor, she teaches in Leith")
'my wife is Noor, she teaches in Leith'
>>> spelled_out("Wife is off sick today.")
'Wife is off sick today.'
>>> spelled_out("【孙子】孙子在七中读高一，住校。"), spelled_out("儿子们都在外地。")
('【孙子】我孙子在七中读高一，住校。', '儿子们都在外地。')
"""

from __future__ import annotations

import re

from nanomem.vocab import COMMON_WORDS

__all__ = ["spelled_out"]

_NAME_IS_MINE = re.compile(r"^(?P<lead>\W*(?:(?:oh|and|also|so|btw|ya|yeah|ok)\W+)*)(?P<name>[A-Z][a-z]+)['’]s (?=(?:my|our)\b)")
_RELATIVE = (r"wife|husband|hubby|missus|partner|son|daughter|mum|mom|mam|dad|brother|sister|boyfriend|girlfriend|"
             r"fianc[ée]e?|grandson|granddaughter|niece|nephew|stepson|stepdaughter")
_BARE_RELATIVE = re.compile(r"^(?P<lead>\W*(?:(?:oh|and|also|so|btw|ya|yeah|ok)\W+)*)(?P<relative>(?i:" + _RELATIVE + r"))"
                            r"(?P<is>['’]s| is) (?P<name>[A-Z][a-z]+)\b")

_ZH_KIN = r"儿子|女儿|闺女|老公|老婆|丈夫|妻子|爱人|媳妇|老伴|孙子|孙女|外孙女|外孙|儿媳|女婿|婆婆|公公|岳父|岳母|哥哥|姐姐|弟弟|妹妹"
_ZH_BARE_KIN = re.compile(r"^(?P<lead>\W*(?:【[^】]{1,6}】)?\s*)(?P<kin>" + _ZH_KIN + r")(?=在|是|叫|今年|读|当|做|住)")


def spelled_out(sentence: str) -> str:
    """``sentence`` with a name's "'s" before "my" / "our" written "is", and "my" put before a
    relative who opens it with no possessive; any other sentence unchanged."""
    found = _NAME_IS_MINE.match(sentence)
    if found and found.group("name").casefold() not in COMMON_WORDS:
        return f"{found.group('lead')}{found.group('name')} is {sentence[found.end():]}"
    found = _BARE_RELATIVE.match(sentence)
    if found and found.group("name").casefold() not in COMMON_WORDS:
        return f"{found.group('lead')}my {sentence[found.start('relative'):]}"
    found = _ZH_BARE_KIN.match(sentence)
    if found:
        return f"{found.group('lead')}我{sentence[found.start('kin'):]}"
    return sentence
