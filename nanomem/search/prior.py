"""Priors on a search's candidates: how much an archived turn says, whether it holds (or
replies to a question asking for) the kind of answer the question asks for, whether it reports
a change when the question asks for a value as it is now, and whether the question names its
speaker.

All of them multiply a candidate's relevance after the session window and before any fusion with the
vectors (they correct the BM25 ranking), and so before the boost and the recency prior of
:func:`nanomem.search.rank.score_hit`::

    relevance' = relevance × length × answer × asked × change × speaker

- ``length`` (archived turns only): ``min(1, units / LENGTH_FULL)``, where ``units`` counts the
  turn's Latin words that are not stop words plus half its CJK characters. BM25 normalises by
  length, so in chat a two-word turn ("good news?", "嗯？", a bare name) that shares one word
  with the question outranks the sentence that answers it, and the session window lends such
  a turn its neighbours' relevance besides. A document-length prior is the classic correction
  (in language-model retrieval, a prior in proportion to length); it is capped so that long
  turns are not favoured over ordinary sentences. Memory-file lines and history entries are
  distilled facts, short by design, and keep their relevance. A turn said right after a question
  (its previous turn of the session, ``docs.near``, ends with ``?`` or ``？``, or, since stop
  32, with a sentence that has no end mark and opens with an English question word or
  auxiliary: "NO. when", "is this the bookkeeping one"; :func:`plan_question`) has a length
  prior of at least :data:`REPLY_FLOOR`: a short reply is often the whole answer ("212", "latex.").
  Past :data:`LONG_FULL` units the prior falls as ``sqrt(LONG_FULL / units)`` (since stop 25):
  an assistant's long reply (a recipe, a draft letter, a packing list) shares many general
  words with a question and outranked the person's own short sentence that held the fact;
  BM25's saturation lets a long text win on many weak matches.
- ``speaker`` (archived turns only): :data:`SPEAKER_BOOST` when the question names the turn's
  speaker (a Latin word of the name among the question's words, or two characters of a CJK
  name in the question), 1 otherwise (since stop 25). "What did Nell's cat swallow?" asks about
  what Nell said; in a person's talk with an assistant, the assistant's reply restates and
  generalises ("hair ties are a common cause of blockages in cats") and took the first places.
- ``answer``: :data:`ANSWER_BOOST` when the question asks for a time ("when", "what date",
  什么时候, 哪天, 几号…) and the text holds a time expression (a weekday, a month, "yesterday",
  "last week", "the 3rd", 前天, 上周六, 5月…), or asks for an amount ("how many", "how long",
  "how heavy", "what did it cost", 多少, 多重, 什么价位…) and the text holds a number, or asks for a
  name (begins with "who", says "name", "named" or "called", or "what/which song|town|shop…")
  and the text holds a capitalised word that does not begin a sentence (chat capitalises
  little but names: "our tabby Mungo"), or (since stop 33) asks for a trade ("what does she do
  for a living", "what was his line of work", "what is Theo's wife's job", 做什么的, 干什么工作;
  since stop 34 "how does she earn her living", "what does she earn her money from", "what job
  does he have") and the text says what someone is ("she's an air traffic controller", "forty
  years as a sheep-shearer", 在华西医院当麻醉师, 周川是消防员; since stop 34 "thirty years driving
  the school bus", "she works at the council"), or (since stop 34) asks for a family name
  (姓什么, 姓啥) and the text says one (姓 + a character: 姓乔, 院长姓蒋); 1 otherwise.
  Answer-type matching, as in question answering: the turn that says "I tripped over the hose
  on Wednesday" shares no word with "on what date did she fall?", and among the turns the window
  brings near, the one with a day in it is the likelier answer.
- ``asked`` (archived turns only, since stop 27): :data:`ANSWER_BOOST` when the turn before it
  in its session (``docs.near``) ends with a question asking for the same kind of answer as the
  query (a time, an amount, a name or a trade: "what's wrong? when?", 考了几分？, "and?? how long did it
  take you"), 1 otherwise. The
  other speaker's question is the surest sign that a short reply ("the 17th of March now", "98",
  两千六) answers the same question.
- ``change`` (since stop 27): :data:`ANSWER_BOOST` when the question asks for a value as it is
  now or as it ended up ("now", "currently", "these days", "end up", "eventually", "finally",
  "in the end", "most recent", "latest", 现在, 最后, 后来, 最终, 目前) and the text reports a
  change ("instead", "change of plan", "changed", "switched", "moved", "rebooked", "bumped",
  "postponed", "cancelled", "renamed", "swapped", "replaced", "no longer", "anymore", "now",
  改, 换, 变, 推迟, 取消); 1 otherwise. A fact that changed is asked about in the old value's
  words ("where did they end up going on holiday in May?" for "we're going to Lisbon in May!"),
  and the turn with the new value says little but the change ("we've switched it all to Porto
  instead"). Since stop 31 a question for the value as it was at first ("originally", "at
  first", "used to", 一开始, 本来, 原本, 原来, 最早, 最开始, 起初, 当初) is cued too: it is asked
  so because the value changed, and the turn reporting the change is the one that tells the
  old value from the new. "first" and "before" alone do not cue ("her first lesson", "the week
  before").

>>> plan_length_prior("good news?"), plan_length_prior("I finished in 2:04:37, five minutes better than hoped")
(0.16666666666666666, 0.6666666666666666)
>>> plan_answer_prior(plan_answer_cue("When did she fall?"), "I tripped on Wednesday")
1.5
>>> plan_answer_cue("What breed is the dog?") is None
True
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Mapping

from nanomem.search import terms
from nanomem.vocab import HAN, HAN_CLASS

LENGTH_FULL = 12.0  # content units at which an archived turn has its full relevance
ANSWER_BOOST = 1.5  # a text holding the kind of answer the question asks for
REPLY_FLOOR = 0.33  # the least length prior of a turn said right after a question
LONG_FULL = 30.0  # content units past which an archived turn's length prior falls (sqrt)
SPEAKER_BOOST = 1.3  # an archived turn whose speaker the question names

_TIME_QUESTION = re.compile(
    r"\bwhen\b|\b(what|which) (date|day|time|month|year|week)\b|\bhow long ago\b"
    r"|什么时候|哪天|哪一天|几号|几月|哪年|哪一年|日期|何时")
_TIME_TEXT = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april"
    r"|may|june|july|august|september|october|november|december|yesterday|today|tomorrow"
    r"|tonight|weekend|ago|week|month|year|morning|afternoon|evening|night|\d+(st|nd|rd|th))\b"
    r"|昨天|前天|今天|明天|后天|上周|下周|这周|本周|周[一二三四五六日天末]|星期|礼拜"
    r"|[0-9一二三四五六七八九十]+[月号日]|上个|下个|去年|今年|明年|半夜|晚上|早上|上午|下午|那天")
_AMOUNT_QUESTION = re.compile(
    r"\bhow (many|much|long|old|far|often|heavy|tall|big|large|high|deep|wide|fast|expensive)\b"
    r"|\b(weigh|weighs|weighed|weight|cost|costs|price|score|height|distance|temperature)\b(?!-)"
    r"|多少|几[个岁次天年遍]|多[重高大长远久]|价[钱格位]|费用|分数|体重|身高|距离|温度|气温")
_NAME_QUESTION = re.compile(  # "who" asks only at the start or after a preposition, not "the man who"
    r"^\W*(who|whom|whose)\b|\b(to|with|for|from|by|of|at) whom?\b|\bnamed?\b|\bcalled\b"
    r"|\b(what|which) (airport|city|town|village|country|restaurant|shop|pub|cafe|hotel|band|film"
    r"|book|song|team|company|street|island|brand|make|school)\b")
_JOB_QUESTION = re.compile(  # asks what someone does for a living
    r"\bdo(es)? for (a )?(living|work)\b|\bfor a living\b"
    r"|\b(earn|earns|earned|make|makes|made) (a|her|his|their|your|my|our) living\b"
    r"|\bearn(s|ed)? (her|his|their|your|my|our|the)? ?(money|keep)\b"  # since stop 34
    r"|\bwhat (job|work|trade|occupation|profession|career|line of work) (do|does|did)\b"
    r"|\bwhat (is|was|'s|’s) (the |his |her |their |your |my |[\w'’-]+['’]s )*"
    r"(job|trade|occupation|profession|line of work|career)\b"
    r"|^\W*what (do|does|did) ([\w'’-]+ ){1,7}do( (before|now|these days|nowadays)\b|\W*$)"
    r"|做什么的|干什么的|干嘛的|干啥的|做啥的|[做干](什么|啥)工作|什么职业|职业是|从事什么")
_JOB_WORDS_ZH = "会计|老板|司机|记者|教练|保安|保姆|秘书|经理|主管"  # trades without a trade suffix
_JOB_TEXT = re.compile(  # says what someone is by trade: "she's an air traffic controller", 当护士
    r"\b(i'm|i’m|i am|i was|he's|he’s|he is|he was|she's|she’s|she is|she was|they're|they’re"
    r"|they are|they were|being|used to be|as)\s+(a|an)\s+"
    r"|\b(years|decades) (of )?[a-z]+ing (a|an|the|[a-z]+s)\b"  # "years driving the bus" (stop 34)
    r"|\b(i|he|she|they|we) (work|works|worked) (as|at|for|in)\b"  # "she works at the council"
    r"|(当|做|是|成了?)(个|一名|一个|名|位)?" + HAN_CLASS + "{0,4}?"  # 当护士, 是消防员, 做会计
    r"((师|员|士|医生|医|工|匠|官|警)(?=[的了呢啊吧呀就在]|[^" + HAN + r"]|$)|" + _JOB_WORDS_ZH + ")")
_SURNAME_QUESTION = re.compile(r"姓(什么|啥)")  # asks for a family name (since stop 34)
_SURNAME_TEXT = re.compile("姓" + HAN_CLASS)  # 姓乔, 院长姓蒋
_NAME_TEXT = re.compile(r"(?<![.!?]\s)(?<=\s)([A-Z][\w'’-]+)")  # capitalised, not a sentence's first word
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'll", "I'd", "I’m", "I’ve", "I’ll", "I’d", "OK", "Ok"})
_CHANGE_QUESTION = re.compile(  # asks for the value as it is now, as it ended up, or as it was at first
    r"\b(now|currently|current|these days|end(ed|s)? up|eventually|finally|final|in the end"
    r"|most recent(ly)?|latest|originally|at first|used to)\b|现在|最后|后来|最终|目前"
    r"|一开始|本来|原本|原来|最早|最开始|起初|当初")
_CHANGE_TEXT = re.compile(  # reports that something changed, or was settled
    r"\b(instead|change of plan|changed?|switch(ed)?|moved?|rebook(ed)?|bump(ed)?|postponed?"
    r"|cancell?ed|renamed?|swap(ped)?|replaced?|no longer|any ?more|now)\b|改|换|变|推迟|取消"
    r"|定了|决定|不[^，。！？,.!?]{1,5}了")  # 定了 "it's settled"; 不…了 "no longer …" (不干了, 不要X了)
_SENTENCES = re.compile(r"(?<=[.!。！？?\n])")  # splits after an end mark, keeping it
_QUESTION_OPENING = re.compile(  # a sentence without an end mark that begins so asks a question
    r"(what|where|when|who|whom|whose|how|why|which|is|are|am|was|were|do|does|did|any|can"
    r"|could|will|would|have|has|had|should|shall)\b")
_AMOUNT_TEXT = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|hundred|thousand|dozen|half)\b|[两二三四五六七八九十百千万]")


def plan_content_units(text: str) -> float:
    """Latin words that are not stop words, plus half the CJK characters (pure).

    >>> plan_content_units("Oh? 我下周去北京")
    4.0
    """
    folded = terms.normalise(text)
    latin = terms.CJK_RUN.sub(" ", folded)
    words = [w for w in re.findall(r"\w+", latin) if w != "_" and w not in terms.STOP_WORDS]
    return len(words) + sum(len(run) for run in terms.CJK_RUN.findall(folded)) / 2.0


def plan_length_prior(text: str) -> float:
    """``min(1, content units / LENGTH_FULL)`` (pure)."""
    return min(1.0, plan_content_units(text) / LENGTH_FULL)


def plan_answer_cue(query: str) -> re.Pattern[str] | None:
    """What an answer to ``query`` holds (a time, a number, a name, a family name or a trade),
    as a pattern; ``None`` when the question asks for none of them (pure).

    >>> plan_answer_cue("What does Kwame's girlfriend do for work?") is plan_answer_cue("许妍是做什么工作的？")
    True
    """
    folded = terms.normalise(query)
    if _TIME_QUESTION.search(folded):
        return _TIME_TEXT
    if _AMOUNT_QUESTION.search(folded):
        return _AMOUNT_TEXT
    if _NAME_QUESTION.search(folded):
        return _NAME_TEXT
    if _SURNAME_QUESTION.search(folded):
        return _SURNAME_TEXT
    if _JOB_QUESTION.search(folded):
        return _JOB_TEXT
    return None


def plan_asked_cue(near: str) -> re.Pattern[str] | None:
    """The answer cue of the question that ``near`` (the end of the previous turn) ends with;
    ``None`` when it does not end with ``?`` or ``？`` or asks for none of the kinds (pure).

    >>> plan_asked_cue("Oh no. To when?") is plan_answer_cue("When is it?")
    True
    >>> plan_asked_cue("and?? how long did it take you") is plan_answer_cue("How long was it?")
    True
    >>> plan_asked_cue("I asked when. Fine.") is None, plan_asked_cue("Is it nice?") is None
    (True, True)
    """
    question = plan_question(near)
    return None if question is None else plan_answer_cue(question)


def plan_asks_change(query: str) -> bool:
    """Whether ``query`` asks for a value that changed: as it is now, as it ended up, or as it
    was at first (pure).

    >>> plan_asks_change("Where does Dan work now?"), plan_asks_change("Where did Dan work first?")
    (True, False)
    >>> plan_asks_change("Where had Dan originally planned to work?"), plan_asks_change("他本来想去哪儿？")
    (True, True)
    """
    return bool(_CHANGE_QUESTION.search(terms.normalise(query)))


def plan_change_prior(asks: bool, text: str) -> float:
    """:data:`ANSWER_BOOST` when the question ``asks`` for a changed value and ``text`` reports
    a change, else 1 (pure).

    >>> plan_change_prior(True, "we've switched it all to Porto instead"), plan_change_prior(True, "Lisbon in May!")
    (1.5, 1.0)
    """
    return ANSWER_BOOST if asks and plan_reports_change(text) else 1.0


def plan_reports_change(text: str) -> bool:
    """Whether ``text`` reports that something changed, or was settled (pure).

    >>> plan_reports_change("we've switched it all to Porto instead"), plan_reports_change("Lisbon in May!")
    (True, False)
    """
    return bool(_CHANGE_TEXT.search(terms.normalise(text)))


def plan_answer_prior(cue: re.Pattern[str] | None, text: str) -> float:
    """:data:`ANSWER_BOOST` when ``text`` holds what ``cue`` looks for, else 1 (pure)."""
    if cue is None:
        return 1.0
    if cue is _NAME_TEXT:  # a name is told by its capital, so the text is not folded
        names = [m.group(1) for m in cue.finditer(unicodedata.normalize("NFKC", text))]
        return ANSWER_BOOST if any(n not in _NOT_NAMES for n in names) else 1.0
    return ANSWER_BOOST if cue.search(terms.normalise(text)) else 1.0


def plan_length(units: float, *, replies: bool) -> float:
    """The length prior of an archived turn of ``units`` content units; at least
    :data:`REPLY_FLOOR` for a turn that ``replies`` to a question (pure).

    >>> plan_length(1.0, replies=False), plan_length(1.0, replies=True), plan_length(12.0, replies=True)
    (0.08333333333333333, 0.33, 1.0)
    >>> plan_length(30.0, replies=False), plan_length(120.0, replies=False)
    (1.0, 0.5)
    """
    length = min(1.0, units / LENGTH_FULL)
    if units > LONG_FULL:
        length *= (LONG_FULL / units) ** 0.5
    return max(length, REPLY_FLOOR) if replies else length


def plan_named(query: str, name: str | None) -> bool:
    """Whether ``query`` names the speaker ``name``: a Latin word of the name among the
    query's words, or two consecutive CJK characters of the name inside the query (pure).

    >>> plan_named("What did Wren's uncle bake?", "Wren"), plan_named("what did she bake", "Wren")
    (True, False)
    >>> plan_named("秀兰的猫叫什么？", "周秀兰"), plan_named("猫叫什么？", "周秀兰")
    (True, False)
    """
    if not name:
        return False
    if set(terms.plan_latin_words(name)) & set(terms.plan_latin_words(query)):
        return True
    folded = terms.normalise(query)
    return any(run[i:i + 2] in folded for run in terms.CJK_RUN.findall(terms.normalise(name))
               for i in range(len(run) - 1))


def plan_replies(near: str) -> bool:
    """Whether the turn before (``near``, the end of the previous turn) asked a question (pure).

    >>> plan_replies("How much was the quote? "), plan_replies("好的。你呢？"), plan_replies("ok.")
    (True, True, False)
    >>> plan_replies("is this the bookkeeping one"), plan_replies("NO. when"), plan_replies("Have a good day.")
    (True, True, False)
    """
    return plan_question(near) is not None


def plan_question(near: str) -> str | None:
    """The question that ``near`` (the end of the previous turn) ends with: its last sentence,
    without the mark; ``None`` when it ends with none (pure).

    A sentence is a question when it ends with ``?`` or ``？``, or (since stop 32) when it has no
    end mark and begins with an English question word or auxiliary: texting drops the mark
    ("and?? how long did it take you", "NO. when", "any news on a flat").

    >>> plan_question("Great. And when is it?"), plan_question("lovely. what did you get her")
    ('And when is it', 'what did you get her')
    >>> plan_question("which reminds me."), plan_question("you were on boats") is None
    (None, True)
    """
    near = near.rstrip()
    if near.endswith(("?", "？")):
        return _SENTENCES.split(near[:-1])[-1].strip()
    last = _SENTENCES.split(near)[-1].strip()
    return last if _QUESTION_OPENING.match(terms.normalise(last)) else None


def plan_priors(relevance: Mapping[int, float], docs: Mapping[int, tuple[str, float, str]],
                query: str, replies: frozenset[int] = frozenset(),
                names: Mapping[int, str | None] | None = None,
                asked: Mapping[int, re.Pattern[str] | None] | None = None) -> dict[int, float]:
    """Each candidate's relevance × its length, answer, asked, change and speaker priors (pure);
    ``docs`` maps a rowid to its ``(source, content units, text)`` (the text is needed only when
    the question asks for a time, an amount, a name, a trade or a changed value), ``names`` an archived
    turn's rowid to its speaker, ``asked`` an archived turn's rowid to the answer cue of the
    question the turn before it asked (:func:`plan_asked_cue`).

    >>> plan_priors({1: 2.0, 2: 2.0}, {1: ("archive", 1.0, "Oh?"), 2: ("file", 1.0, "- Oh?")}, "when?")
    {1: 0.16666666666666666, 2: 2.0}
    """
    cue = plan_answer_cue(query)
    change = plan_asks_change(query)
    names, asked = names or {}, asked or {}
    named = {name: plan_named(query, name) for name in set(names.values())}
    out: dict[int, float] = {}
    for rowid, score in relevance.items():
        source, units, text = docs.get(rowid, ("", LENGTH_FULL, ""))
        factor = plan_answer_prior(cue, text) if cue is not None else 1.0
        factor *= plan_change_prior(change, text)
        if source == "archive":
            factor *= plan_length(units, replies=rowid in replies)
            if cue is not None and asked.get(rowid) is cue:
                factor *= ANSWER_BOOST
            if named.get(names.get(rowid)):
                factor *= SPEAKER_BOOST
        out[rowid] = score * factor
    return out


def read_priors(db: sqlite3.Connection, relevance: Mapping[int, float], query: str) -> dict[int, float]:
    """:func:`plan_priors` over the index's documents: each one's source, content units
    (``docs.units``, counted when it was indexed) and speaker, its text only for a question
    that asks for a time, an amount, a name, a trade or a changed value, and the end of the previous
    turn (``docs.near``: whether it asked a question, and which kind)."""
    rowids = list(relevance)
    cued = plan_answer_cue(query) is not None
    text = "body" if cued or plan_asks_change(query) else "''"
    docs: dict[int, tuple[str, float, str]] = {}
    replies: set[int] = set()
    names: dict[int, str | None] = {}
    asked: dict[int, re.Pattern[str] | None] = {}
    for start in range(0, len(rowids), 500):
        part = rowids[start:start + 500]
        sql = (f"SELECT rowid, source, units, {text}, near, name FROM docs "
               f"WHERE rowid IN ({','.join('?' * len(part))})")
        for rowid, source, units, body, before, name in db.execute(sql, part):
            docs[rowid] = (source, units, body)
            question = plan_question(before or "")  # read once: the reply floor and the asked cue
            if source == "archive":
                names[rowid] = name
                if cued:
                    asked[rowid] = None if question is None else plan_answer_cue(question)
            if question is not None:
                replies.add(rowid)
    return plan_priors(relevance, docs, query, frozenset(replies), names, asked)
