"""Sentences that hold no fact: social filler and bare secret placeholders (pure).

A sentence is **filler** when, once the words of social talk are set aside, nothing is left:
no number, no identifier, no name (a name used only to address someone, "Agreed, Mel!", does not
count) and no content word. The social words are a closed class that says how someone feels
about what was said, not what is the case: thanks, agreement, sympathy, praise, greetings,
intensifiers and the verbs that carry them ("sounds", "must have been", "hear"). A sentence
with one content word left ("I love hiking", "Thanks, the gate code changed") is a fact.

A sentence is **placeholder-only** when it holds a ``[REDACTED:kind]`` placeholder and, once the
placeholder and the words that only name a secret ("API key", "password", "token") are set aside,
nothing is left: "my API key is [REDACTED:openai-key]" says nothing a memory can use.

>>> is_filler("That must have been awesome!"), is_filler("Agreed, Mel!"), is_filler("谢谢！")
(True, True, True)
>>> is_filler("I love hiking"), is_filler("Thanks, the gate code is 4417 now")
(False, False)
>>> is_placeholder_only("My API key is [REDACTED:openai-key]")
True
>>> is_placeholder_only("The deploy token [REDACTED:github-token] lives on server web-3")
False
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.vocab import CJK_RUN, STOP_WORDS

PLACEHOLDER = re.compile(r"\[REDACTED:[^\]\s]*\]")

# How someone feels about what was said (English): thanks, agreement, sympathy, praise, greetings,
# intensifiers, and the light verbs and pronouns that carry them. A closed class, not phrases.
SOCIAL_WORDS = frozenset(
    """
    thanks thank thx ty cheers appreciate appreciated welcome pleasure
    yes yeah yep yup sure ok okay alright right true exactly absolutely totally definitely
    indeed agree agreed agreeing fair point noted understood got gotcha makes sense
    sorry hear hearing heard sad unfortunate tough rough hard awful terrible shame pity hope
    hoping hopefully fingers crossed luck care wish wishes hug hugs
    great awesome amazing wonderful fantastic fabulous brilliant excellent perfect lovely nice
    cool neat fun funny exciting excited interesting incredible impressive beautiful sweet
    good glad happy proud congrats congratulations bravo well done job kudos wow whoa oh ah aw
    haha hahaha lol lmao hehe yay woo hi hello hey bye goodbye morning evening night see soon
    love loved lovely adore enjoy enjoyed like likes liked
    sound sounds sounded seem seems seemed look looks looked must been being feel feels felt
    really truly quite pretty super such totally much many lot lots ever always never what how
    one thing things way something that's it's you're that what's isn't wasn't here here's there's
    let's lets keep going go get take know think thought bet guess imagine
    """.split()
)
# Chinese: the same closed class as character runs.
SOCIAL_ZH = re.compile(
    r"谢谢|多谢|感谢|不客气|好的|好吧|好啊|好呀|好|行|可以|没问题|对|是的|是啊|嗯+|哈+|呵+|哇+|"
    r"太棒了|真棒|棒|厉害|不错|真好|太好了|加油|辛苦了|辛苦|抱歉|对不起|没关系|同意|赞|牛|"
    r"你好|早上好|晚安|再见|拜拜|恭喜|祝|开心|高兴|真的|确实|一定|呢|吧|啊|呀|了|的|你|我|很|太|真|也"
)
SECRET_WORDS = frozenset(
    """
    api key keys token tokens password passwords passcode passphrase pin secret secrets
    credential credentials login access code private ssh auth bearer
    """.split()
)
SECRET_ZH = re.compile(r"密钥|秘钥|密码|口令|令牌|验证码|是|我的|这个|这是")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_VOCATIVE = re.compile(
    r"^\s*(?:(?:hi|hey|hello|dear|ok|okay|oh)\s+)?[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s*[,!:]\s*"
    r"|[,，]\s*[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s*[.!?…]*\s*$"
)


def content_left(text: str, *, drop: frozenset[str] = SOCIAL_WORDS,
                 drop_zh: re.Pattern[str] | None = None) -> list[str]:
    """The words of ``text`` that are neither stop words nor in ``drop``; each CJK run minus
    the Chinese social words counts as one word; digits always count.

    >>> content_left("So sorry to hear that, Mel.")
    []
    >>> content_left("Sounds great, see you at 08:15")
    ['08', '15']
    """
    text = unicodedata.normalize("NFKC", text)
    if not re.search(r"\d", text):
        text = _VOCATIVE.sub(" ", _VOCATIVE.sub(" , ", text))
    left: list[str] = []
    for run in CJK_RUN.findall(text):
        rest = SOCIAL_ZH.sub("", drop_zh.sub("", run) if drop_zh else run)
        if rest:
            left.append(rest)
    for word in _WORD.findall(CJK_RUN.sub(" ", text)):
        folded = word.casefold().replace("’", "'")
        if folded in STOP_WORDS or folded in drop or folded.rstrip("s") in drop:
            continue
        left.append(folded)
    return left


def is_filler(text: str) -> bool:
    """True when the sentence is social talk with no fact in it (see the module doc)."""
    return bool(text.strip()) and not PLACEHOLDER.search(text) and not content_left(text)


def is_placeholder_only(text: str) -> bool:
    """True when the sentence's only content is a ``[REDACTED:…]`` placeholder."""
    if not PLACEHOLDER.search(text):
        return False
    rest = PLACEHOLDER.sub(" ", text)
    return not content_left(rest, drop=SOCIAL_WORDS | SECRET_WORDS, drop_zh=SECRET_ZH)
