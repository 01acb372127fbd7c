"""Whether a sentence informs about the speaker and their world (pure, English and Chinese).

The other rules of :mod:`nanomem.engines.offline.extract` keep a sentence for a trigger: a word
("prefer", "budget"), a shape (a name after "my … is"), a value (a number, a date). A writer who
states facts plainly, in lower case, in slang or in a dialect, often gives none of them: "i do
the saturday shifts at the garden centre", "my brother drives a forklift for the council". This
module is the general test, by the sentence's make-up rather than its phrasing:

- it speaks of the speaker's own (a first-person word, lower-case forms included: ``i``, ``im``,
  ``ive``, ``my``, ``we``, ``our``; in Chinese 我, 我们, 我家, Cantonese 我哋, 我嘅);
- it is a statement: the caller has already set aside questions, filler, tasks for the agent,
  conditions ("if …") and what only tells of the past (a narrative), and this module sets aside
  a sentence whose subject is the agent ("you …") and a plain request ("let me know …");
- it says enough: at least three content words (not a stop word, not social talk, not a time
  word, not a discourse word of chat such as "ngl", "tbh", "lowkey"), or two and a value (a
  digit or a capitalised name); in Chinese, at least six characters once the social particles
  and the pronouns are set aside.

What it does not judge: whether the statement will stay true. The caller marks it ``durable``;
Dream's own rules (supersession, expiry of the dated) apply to it as to every fact.

>>> is_informative_statement("i do the saturday shifts at the garden centre", narrative=False)
True
>>> is_informative_statement("im so tired ngl", narrative=False)
False
>>> is_informative_statement("我弟弟在一家物流公司做仓管", narrative=False)
True
"""

from __future__ import annotations

import re

from nanomem.engines.offline.tense import PAST_GUO_ZH, STANDING_ZH
from nanomem.text.filler import SOCIAL_WORDS, SOCIAL_ZH, TIME_WORDS
from nanomem.vocab import HAN_CHAR, STOP_WORDS

_I = re.IGNORECASE
_OWN_EN = re.compile(r"\b(?:i|i['’]?m|i['’]?ve|i['’]d|i['’]ll|my|me|mine|myself|we|we['’]re|we['’]ve|our|ours|us)\b", _I)
# 我 as the subject or the owner, not as the object of a verb ("吵到我", "叫我", "帮我").
_OWN_ZH = re.compile(r"(?<![到叫让帮俾畀给找问请被令陪])我")
# A first person that only hedges or frames ("I guess", "let me tell you"): not a statement of one's own.
_HEDGE = re.compile(
    r"\b(?:i (?:guess|think|mean|reckon|suppose|know|bet|swear|feel like|must say|have to say|gotta say)"
    r"|speaking of|talking of|talking about|let me (?:tell you|think|see|know)|bear with me|between you and me|if you ask me|trust me)\b", _I)
# The agent addressed: a remark to it or a request of it, unless the request is to keep something.
_SECOND_PERSON = re.compile(r"\b(?:you|u|ur|your|yours|ya|you['’](?:re|ve|d|ll))\b", _I)
_KEEPING = re.compile(r"\b(?:remember|always|never|from now on|whenever|every time|in future|going forward)\b", _I)
# A request or a question put without a question mark ("can i get …", "how do you spell …").
_ASKING = re.compile(
    r"^\W*(?:(?:and|also|so|oh|ok|okay|but|um|uh|right)\W+)*(?:pls|plz|please|can|could|would|will|may|shall|should|"
    r"how|what|what's|whats|where|which|who|why|when|is|are|do|does|did)\b"
    r"|\b(?:how|what|where|which|why|when|who) (?:do|does|can|could|should|would|will|is|are) (?:you|u|i|we)\b", _I)
# A bare plan or a leave-taking of the speaker's, and a memory opened by "reminds me": the day's
# business, not a standing fact (kept only with a value: a digit or a name).
_PLAN = re.compile(
    r"\b(?:i['’]?ll|i will|we['’]ll|we will|i['’]?m going to|we['’]re going to|i['’]?m gonna|gonna|"
    r"let me|let['’]s|i['’]?m off|we['’]re off|reminds? me|"
    r"(?:i['’]?d |i had |we['’]?d )?better (?:go|get going|run|dash|be off)|got to go|gotta go)\b", _I)  # session 27: a leave-taking
# The past, judged strictly: a past form that is not a participle after a form of "be" or
# "have" ("the business is called …", "I'm retired", "we've moved"), or a past adverbial.
_PAST_FORM = re.compile(
    r"\b(?:was|were|did|saw|went|came|took|made|ate|broke|lost|found|bought|sold|met|ran|fell|left|told|"
    r"forgot|spent|woke|slept|sent|built|burnt|kept|stole|drove|rode|wrote|spoke|chose|froze|threw|flew|"
    r"grew|knew|drew|began|sang|rang|swam|drank|caught|taught|brought|thought|wore|tore|sat|stood|paid|"
    r"said|heard|held|gave|became|\w{3,}(?<!e)ed|\w+ied|yesterday|ago|last (?:night|week|month|year|time|"
    r"weekend|summer|winter|spring|autumn)|this morning|earlier)\b", _I)
_PARTICIPLE_AFTER = re.compile(
    r"(?:\b(?:is|are|am|be|been|being|get|gets|getting|was|were|have|has|had|i['’]?m|we['’]re|'s|’s|['’]ve|so|very|"
    r"really|pretty|quite|too|all|fully|self)\W+(?:\w+ly\W+)?)$", _I)
_NOT_PAST = frozenset("hundred kindred naked wicked sacred beloved rugged ragged crooked wretched".split())
_LASTING = re.compile(
    r"\b(?:will|['’]ll|going to|gonna|tomorrow|next|every|always|usually|normally|each|still|since|"
    r"from now on|these days|now)\b", _I)
# An activity of the moment ("listening to a podcast", "my neighbour is repainting the fence"),
# unless it is one of the lasting ones of a life (work, study, living, training …) said of oneself.
_PROGRESSIVE = re.compile(
    r"(?:\b(?:am|is|are|i['’]?m|we['’]re|['’]s|['’]re)\s+(?:\w+ly\s+)?|^\W*(?:(?:now|just|currently|still)\s+)?)"
    r"(?P<verb>[a-z]{2,}ing)\b", _I)
_LASTING_ACTIVITY = frozenset(
    """working studying living staying training learning doing taking teaching volunteering renting
    saving dating seeing moving starting going coming getting having planning organising organizing
    running managing building applying retiring thinking considering hoping aiming""".split())
_OWN_SUBJECT = re.compile(r"\b(?:i['’]?m|i am|we['’]re|we are)\s+(?:\w+ly\s+)?[a-z]{2,}ing\b", _I)
_AHEAD = re.compile(
    r"\b(?:tomorrow|next|until|till|from|every|all (?:week|month|year|summer)|this (?:week|month|year|term|"
    r"season|summer|winter|autumn|spring)|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", _I)
# Chinese: the past and what opens a memory; what points ahead or says how things stand.
# round 19: not the 过 of 忙不过来, 看得过来 or 不过 (tense.PAST_GUO_ZH)
_PAST_ZH = re.compile(r"了|" + PAST_GUO_ZH + r"|咗|昨天|琴日|寻日|刚才|刚刚|那会儿|那时候|有一回|有一次|小时候|想起来|说起来")
_AHEAD_ZH = re.compile(r"要|会(?!议|儿)|打算|准备|想去|明天|后天|听日|下周|下个|下礼拜|以后|每|一直|平时|现在|开始|" + STANDING_ZH)
# A guess, not a statement: "the postman must be sick of us", "it might be the fuse".
_GUESS = re.compile(r"\b(?:must|might|may|could|would)\s+(?:be|have)\b|\b(?:probably|perhaps|maybe)\b", _I)
# A state of the moment: true today, this week or this month only (the rules of lifetimes judge it).
_MOMENT = re.compile(
    r"\b(?:today|tonight|tomorrow|this (?:week|weekend|month|morning|afternoon|evening|term)|at the moment|"
    r"right now|rn|currently|for now)\b", _I)
_MOMENT_ZH = re.compile(r"今天|今日|今晚|今早|明天|听日|今个礼拜|这个月|这周|本周|正在|叫我去|让我去|"
                        r"在(?:忙|搞|弄|大扫除|扫|收拾|排队|追|玩|吃|煮|洗)")
# A question without its mark: a question word or particle ("给多少合适", "要不要去", "係咪").
_ASKING_ZH = re.compile(r"吗|嘛|呢|多少|什么|怎么|哪|几[个点号天]|合适|要不要|是不是|有没有|係咪|係唔係|點|乜|咩|边度|幾時")
_PRAISE_ZH = re.compile(r"^[^，,。]{0,3}(?:你|妳)(?:真|太|好|最|超|人)|谢谢你|多谢你")
_REQUEST_ZH = re.compile(r"帮我|请你|麻烦你|想让你|想你|给我|唔该")
# A dropped subject: the speaker's work or study place opens the sentence ("喺觀塘一間保險公司做claims").
_OWN_PLACE_ZH = re.compile(r"^\W{0,2}(?:喺|在)[^，,。]{1,14}?(?:做|返工|上班|工作|读书|读|打工)")
# A duration measures an occasion, not a lasting fact ("for 40 mins", "since 2 hours", "an hour ago").
_DURATION = re.compile(
    r"\b(?:(?:for|since)\s+(?:about\s+|around\s+|nearly\s+|almost\s+|over\s+)?\d+\s*(?:mins?|minutes|hrs?|hours|secs?|seconds)\b"
    r"(?!\s+(?:a|per|each|every)\s+(?:day|week|shift))|\d+\s*(?:mins?|minutes|hrs?|hours)\s+ago\b)", _I)
# Discourse words of chat: they carry the tone, not the fact (a closed class).
CHAT_WORDS = frozenset(
    """
    ngl tbh tbf imo imho idk idc iirc fr lowkey highkey deadass literally basically honestly
    actually kinda sorta gonna wanna gotta rn tho though bc cuz coz cos lol lmao omg omfg smh
    ugh ugh meh mood vibe vibes vibing bro bruh mate dude innit like just really proper
    bit stuff things thing anyway anyways btw also okay ok yeah yea ya nah na yes no
    probably maybe guess mean means sort kind lot lots whatever everything anything nothing
    something someone anyone everyone always never sometimes usually often
    """.split()
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+")
_DIGIT = re.compile(r"\d")
_DROP = STOP_WORDS | SOCIAL_WORDS | TIME_WORDS | CHAT_WORDS
_PRONOUNS_ZH = re.compile(r"我们|我哋|我嘅|我家|我|你|佢|他|她|它|嘅|咗|係|啲|就|都|还|又|再|在|是|有")


def content_words(sentence: str) -> list[str]:
    """The content words of an English sentence: neither stop words, social talk, time words
    nor chat's discourse words (pure).

    >>> content_words("ngl my sister works at the vets on fridays")
    ['sister', 'works', 'vets', 'fridays']
    """
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(sentence)]
    return [w for w in words if w not in _DROP and w.rstrip("s") not in _DROP and not w.isdigit()
            and w not in ("i", "im", "ive", "id", "u", "ur")]


def is_informative_statement(sentence: str, *, narrative: bool) -> bool:
    """Whether ``sentence`` states something about the speaker or their world with enough in
    it to be worth keeping (see the module docstring). ``narrative`` is the caller's judgement
    that the sentence only tells of the past (:func:`nanomem.engines.offline.tense.is_narrative`).

    >>> is_informative_statement("my nan lives with us in a bungalow near the coast", narrative=False)
    True
    >>> is_informative_statement("you always get me", narrative=False)
    False
    >>> is_informative_statement("we went to the beach", narrative=True)
    False
    """
    if narrative:
        return False
    if HAN_CHAR.search(sentence):
        first_clause = re.split(r"[，,。；;]", sentence, maxsplit=1)[0]
        if not (_OWN_ZH.search(sentence) or _OWN_PLACE_ZH.search(sentence)) or _PRAISE_ZH.search(sentence):
            return False
        if _REQUEST_ZH.search(first_clause) or _MOMENT_ZH.search(sentence) or _ASKING_ZH.search(sentence):
            return False
        if _PAST_ZH.search(sentence) and not _AHEAD_ZH.search(sentence):
            return False
        rest = _PRONOUNS_ZH.sub("", SOCIAL_ZH.sub("", "".join(HAN_CHAR.findall(sentence))))
        return len(rest) >= 6
    plain = without_durations(_HEDGE.sub(" ", sentence))
    if not _OWN_EN.search(plain) or _ASKING.search(plain) or _MOMENT.search(plain) or _GUESS.search(plain):
        return False
    if _SECOND_PERSON.search(plain) and not _KEEPING.search(plain):
        return False
    valued = bool(_DIGIT.search(plain) or _NAME.search(plain))
    if _PLAN.search(plain) and not valued:
        return False
    if _tells_past(plain) or is_of_the_moment(plain):
        return False
    words = content_words(plain)
    return len(words) >= 3 or (valued and len(words) >= 2)


def _tells_past(sentence: str) -> bool:
    """A past form used as a verb (not a participle after "be" or "have") and nothing lasting."""
    if _LASTING.search(sentence):
        return False
    for found in _PAST_FORM.finditer(sentence):
        if found.group(0).casefold() in _NOT_PAST:
            continue
        if found.group(0).casefold().endswith("ed") and _PARTICIPLE_AFTER.search(sentence[:found.start()]):
            continue
        return True
    return False


def without_durations(sentence: str) -> str:
    """``sentence`` without the durations that measure an occasion ("for 40 mins", "since 2
    hours", "20 minutes ago"), so that they make it neither lasting nor near-term (pure).

    >>> without_durations("we waited on the field for 40 mins")
    'we waited on the field  '
    """
    return _DURATION.sub(" ", sentence)


_SPEAKING_OF = re.compile(r"^\W*(?:(?:and|oh|so|well)\W+)?(?:speaking|talking) (?:of|about)\b[^,;:]{1,40}[,;:]\s*", re.IGNORECASE)


def is_of_the_moment(sentence: str) -> bool:
    """An activity going on as it is told ("my neighbour is mowing again", "watching the match
    with my dad"), with no time that makes it last or points ahead; the lasting activities of a
    life said of oneself ("I'm working at the depot", "im thinking law") are not (pure).

    >>> is_of_the_moment("my sister is hoovering the stairs"), is_of_the_moment("I'm studying law at Keele")
    (True, False)
    >>> is_of_the_moment("Talking of boats, my brother Ruaridh owns a trawler in Ullapool")
    False
    """
    if _AHEAD.search(sentence) or _DIGIT.search(sentence):
        return False
    sentence = _SPEAKING_OF.sub("", sentence)  # round 17: "Speaking of books, my job is …" opens a topic
    main = re.split(r"[,;:—–(\"“]", sentence, maxsplit=1)[0]  # the main clause: "…, she's staying, …" is an aside
    for found in _PROGRESSIVE.finditer(main):
        verb = found.group("verb").casefold()
        if verb in _LASTING_ACTIVITY and _OWN_SUBJECT.search(main):
            continue
        return True
    return False
