"""Sentence shapes the consolidator's keyword rules misjudge, told by structure (pure).

The trigger words of :mod:`nanomem.engines.offline.extract` assume a full sentence with a
subject and a verb. A terse speaker writes notes; a chatty one hangs a question on a statement.
Each function here tells one shape by closed word classes and punctuation, never by a phrase:

- :func:`is_note_fragment`: a verbless note that opens with a name and describes it after a
  comma ("Bosun, springer spaniel, nine.", "Dr Hale, at the Leith practice.");
- :func:`is_bare_name` and :func:`is_greeting`: a message that opens with a greeting and then
  only a full name ("Evening. Rhona Calloway.") introduces the speaker;
- :func:`is_retraction`: a pronoun, ``not`` and what the speaker had thought or said ("It's not
  the Perkins I thought."): it takes back an old value and gives no new one;
- :func:`is_year_anecdote`: a past event dated only by a past year ("In 2003 we rowed …"); the
  year is when it happened, not a value to keep;
- :func:`is_occasion_anecdote`: a past event told as one occasion ("Once we waited three hours
  at Calais."); its numbers measure that occasion, not a value to keep;
- :func:`without_secret`: a sentence that tells a password or a placeholder for one, without the
  clauses that carry it; what is left is judged on its own (usually nothing);
- :func:`statement_before_question`: the statement that a question tag follows ("我是苗族，
  你觉得呢？", "I'm vegan, is that a problem?").

>>> is_note_fragment("Bosun, springer spaniel, nine."), is_note_fragment("Right, tide's turning.")
(True, False)
>>> is_retraction("That's not the date I said."), is_retraction("It's not far.")
(True, False)
"""

from __future__ import annotations

import re

from nanomem.engines.offline.relayed import superseded
from nanomem.text.filler import PLACEHOLDER, SOCIAL_WORDS, filler_kind
from nanomem.vocab import COMMON_WORDS, HAN_CHAR, MONTHS, WEEKDAYS

_I = re.IGNORECASE
_TITLE = r"(?:Dr|Mr|Mrs|Ms|Mx|Prof|Capt|Sir|Dame)\.?"
_NAME_WORD = r"[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?"
# A subject pronoun or a finite verb of the closed class: a sentence with one is not a note.
_FINITE = re.compile(
    r"\b(?:I|you|he|she|it|we|they|is|are|was|were|am|be|been|being|has|have|had|do|does|did|"
    r"will|would|can|could|shall|should|may|might|must|says|said|thinks|thought|wants|needs|lives|"
    r"works|goes|went|gets|got|let's)\b|['’](?:s|re|m|ll|ve|d)\b|n['’]t\b|\b\w{3,}ed\b",
    _I)
_HEAD = re.compile(r"^\s*((?:" + _TITLE + r" )?" + _NAME_WORD + r"(?: " + _NAME_WORD + r"){0,2})\s*,\s*\S")
_NOT_NAMES = (frozenset(w.casefold() for w in (*WEEKDAYS, *MONTHS)) | COMMON_WORDS | SOCIAL_WORDS
              | frozenset("ugh ha hah hmm well anyway also still cheers ta".split()))
_BARE_NAME = re.compile(r"^\s*(?:" + _TITLE + r" )?(" + _NAME_WORD + r"(?: " + _NAME_WORD + r"){1,2})\s*[.!]?\s*$")
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|morning|good morning|afternoon|good afternoon|evening|good evening|"
    r"greetings|howdy)(?:\s+(?:there|all|again))?\W*$", _I)
# The end of the first space-separated word that ends in . ! or , (a newline may follow it):
# one scan, where growing the head word by word and testing it again was quadratic in the text.
_FIRST_SENTENCE_END = re.compile(r"[.!,]\n?( |\Z)")
_RETRACTION = re.compile(
    r"^\W*(?:(?:oh|no|so|well|ok|okay)\W+)*(?:it|that|this|he|she|they)"
    r"(?:['’](?:s|re)\s+not|\s+(?:is|are|was|were)(?:\s+not|n['’]t))\s+(?:the |a |an |my |our |his |her |their )?(?:\S+ ){1,3}?"
    r"(?:I|we) (?:thought|said|told you|mentioned|assumed|wrote|had)\b", _I)
# Round 7: a value denied ("Not Ludlow any more.", "the jam's not class 14 at all"): it takes the
# old value back; the value that replaces it comes after.
NEGATED_VALUE = re.compile(
    # round 11: also in reported speech ("she told me the records are not at Kelso any more")
    r"(?:^|[,;:]\s*|[.!?]\s+|\band\s+|\b(?:told (?:me|her|him|us|them)|said|says|that)\s+)\W*(?:(?:oh|no|so|well)\W+)*"
    r"(?:(?:(?:the|my|our|his|her|their) (?:\w+ )?\w+|it|that|this|he|she|they|\w+)"
    r"(?:['’]s|['’]re| is| are| was| were)\s+)?not\s+(?P<old>[^,.;!?]{1,30}?)\s+(?:any ?more|at all(?: any ?more)?)\b", _I)
_VALUE_WORD = re.compile(r"\d|(?<=[a-z,;:] )(?-i:[A-Z])[a-z]+")
# What a bare value leaves besides itself ("It's 3,140.", "That's 11 now."): a pronoun and "be".
_BARE_WORDS = frozenset("it it's its that that's this is was are were now the a an mine ours so ok okay".split())
_CONDITION = re.compile(r"^\W*(?:allergic|diabetic|asthmatic|coeliac|celiac|epileptic|deaf|vegan|vegetarian)\W*$", _I)
_PAST_YEAR = re.compile(r"\b(?:in|back in|during|around)\s+(?:19|20)\d{2}\b", _I)
# Round 6: a single past occasion opens the sentence ("Once …", "One time …", "Years ago …").
_OCCASION = re.compile(
    r"^\W*(?:(?:and|but|so|oh|ha)\W+)*(?:once|one time|one year|years ago|years back|back then|that time|"
    r"one (?:summer|winter|spring|autumn|day|night|morning|afternoon|evening|weekend|christmas|easter|"
    r"new year|holiday|harvest|show))\b"
    r"(?!\s+(?:a|an|every|more|again)\b)(?![^.!?]*\b(?:is|are|am|will|'ll|'re|'m|’re|’m)\b)", _I)
# Round 7: what a teller puts before or inside a story ("Oh I must tell you, one summer, must have
# been '86, a …"): the opener that announces it and a guess at when, set aside before the past test.
_TELLER = re.compile(
    r"^\W*(?:(?:oh|ah|well|and|but|so|ha|now)\W+)*(?:I\s+(?:must|have to|['’]ve got to|gotta)\s+tell\s+you"
    r"|did I (?:ever )?tell you(?: about)?|funny story|true story|I (?:still )?remember|I['’]ll never forget)\W*", _I)
_GUESS = re.compile(r"\s*[,;(–—-]?\s*(?:it\s+)?must(?:['’]ve| have) been\s+[^,.;!?()]{1,24}(?=[,.;!?)–—-])\)?", _I)
_SECRET_WORD = re.compile(r"\b(?:password|passcode|passphrase|pin(?: code)?)\b|密码|口令", _I)
_SECRET_TOKEN = re.compile(r"(?<!\S)(?=\S*[A-Za-z])(?=\S*(?:\d|[!#$%&*@^~]))[^\s,，。]{6,}")
_CLAUSE = re.compile(r"\s*(?:[,;:，；：]|\band\b|\bbut\b)\s*", _I)
# Round 11: a PIN is digits alone ("the card PIN, which is 4417"): four to eight digits, not a year or amount
_PIN_DIGITS = re.compile(r"(?<![\d.,£$€¥])(?!(?:19|20)\d\d\b)\d{4,8}(?![\d.,:]?\d)(?!\s*(?:km|kg|m|mg|ml|am|pm|%|元|块))")
_QUESTION_OPENER = re.compile(
    r"^\W*(?:(?:so|and|but|also|oh|ok|okay)\W+)?(?:do|does|did|is|are|was|were|am|can|could|would|will|"
    r"should|shall|may|might|have|has|what|where|when|who|whom|whose|why|how|which)\b", _I)
_QUESTION_ZH = re.compile(r"吗|呢|么|是不是|能不能|可不可以|要不要|有没有|怎么|什么|为什么|哪|谁|多少|几")


def is_note_fragment(sentence: str) -> bool:
    """Whether a sentence is a verbless note about a name: a name (1-3 capitalised words, a
    title allowed) opens it, a comma follows with what it is or where, and no subject pronoun or
    finite verb of the closed class appears ("Morwenna, in Bristol.", "Dr Hale, at the Leith
    practice."). Social talk ("Thanks, Mel.") is filler and not a note.

    >>> is_note_fragment("Dr Hale, at the Leith practice."), is_note_fragment("Thanks, Mel.")
    (True, False)
    >>> is_note_fragment("Monday, as usual."), is_note_fragment("Ines, she works nights.")
    (False, False)
    """
    found = _HEAD.match(sentence)
    if not found or _FINITE.search(sentence) or filler_kind(sentence):
        return False
    words = re.sub(r"^" + _TITLE + r" ", "", found.group(1)).split()
    return not any(word.casefold() in _NOT_NAMES for word in words)


def is_verbless(sentence: str) -> bool:
    """Whether a sentence has no subject pronoun and no finite verb of the closed class: a
    note ("Three lines max per answer.", "Loads in tonnes.").

    >>> is_verbless("Two lines max per reply."), is_verbless("I like two lines.")
    (True, False)
    """
    return not _FINITE.search(sentence)


def is_bare_name(sentence: str) -> bool:
    """Whether a sentence is nothing but a full name (two or three capitalised words).

    >>> is_bare_name("Rhona Calloway."), is_bare_name("Good Friday."), is_bare_name("Rhona.")
    (True, False, False)
    """
    found = _BARE_NAME.match(sentence)
    return found is not None and not any(w.casefold() in _NOT_NAMES for w in found.group(1).split())


def is_greeting(sentence: str) -> bool:
    """Whether a sentence is only a greeting ("Morning.", "Hi there!").

    >>> is_greeting("Evening."), is_greeting("Evening class is at six.")
    (True, False)
    """
    return bool(_GREETING.match(sentence))


def is_self_named(text: str) -> bool:
    """Whether a text is a greeting followed by nothing but a full name ("Morning. Rhona
    Calloway."): the speaker introducing themselves.

    >>> is_self_named("Morning. Rhona Calloway."), is_self_named("Morning. Good Friday.")
    (True, False)
    """
    end = _FIRST_SENTENCE_END.search(text)  # the first word that ends in . ! or ,
    if end is None:
        return False
    first, rest = text[:end.start(1)], text[end.end(1):]
    return bool(rest) and is_greeting(first) and is_bare_name(rest)


def is_retraction(sentence: str) -> bool:
    """Whether a sentence takes back an old value without giving a new one: a pronoun, then
    ``not``, then what the speaker thought or said ("It isn't the blue one I mentioned.").

    >>> is_retraction("It isn't the blue one I mentioned."), is_retraction("It's not what I want.")
    (True, False)
    >>> is_retraction("Not Hexham any more."), is_retraction("oh no, the fee's not 40 at all, that's the old one")
    (True, True)
    >>> is_retraction("The gym's not Kelso any more, it's Selkirk.")
    False
    """
    if _RETRACTION.match(sentence):
        return True
    denied = denial(sentence)  # round 7: "Not Ludlow any more." gives no new value
    if denied is None:
        return False
    rest = sentence[:denied[1]] + " " + sentence[denied[2]:]
    if HAN_CHAR.search(sentence):  # round 9: 票没抢到。 takes back; 不去沈阳了，定在长春 gives the new value
        return len(HAN_CHAR.findall(rest)) < 4 and not re.search(r"\d|[A-Z]", rest)
    return not _VALUE_WORD.search(rest)


def denied_value(sentence: str) -> str | None:
    """The value a sentence denies ("Not Hexham any more." → "Hexham", "the fee's not 40 at all"
    → "40"), or None; what is denied must look like a value (a number or a name), so "I'm not
    tired at all" denies nothing.

    >>> denied_value("Not Hexham any more."), denied_value("It's not bad at all.")
    ('Hexham', None)
    """
    found = denial(sentence)
    return None if found is None else found[0]


def denial(sentence: str) -> tuple[str, int, int] | None:
    """``(old value, start, end)`` of the clause that denies a value or puts it out of use
    ("Not Hexham any more.", round 9: "cant do 28 jan", "Harewood fell through", 不去沈阳了), or None.

    >>> denial("Not Hexham any more."), denial("cant do 3 mar, 10 mar instead")
    (('Hexham', 0, 19), ('3 mar', 0, 13))
    """
    denied = NEGATED_VALUE.search(sentence)
    if denied is not None and re.search(r"\d|(?-i:[A-Z])", denied.group("old")):
        return denied.group("old").strip(), denied.start(), denied.end()
    return superseded(sentence)


def is_bare_value(sentence: str) -> bool:
    """Whether a sentence gives a value and nothing it is the value of ("It's 3,140.", "That's
    11 now."): what it is about is in a sentence before it.

    >>> is_bare_value("It's 3,140."), is_bare_value("The quote is 3,140.")
    (True, False)
    """
    if not re.search(r"\d", sentence):
        return False
    words = re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", without_numbers(sentence))
    return all(word.casefold().replace("’", "'") in _BARE_WORDS for word in words)


def is_bare_condition(sentence: str) -> bool:
    """Whether a sentence is only a word for a condition of the person ("Allergic.", "Diabetic."):
    what it is said of is the sentence before it ("Wasp stings are a worry. Allergic.").

    >>> is_bare_condition("Allergic."), is_bare_condition("Allergic to wasps.")
    (True, False)
    """
    return bool(_CONDITION.match(sentence))


def is_year_anecdote(sentence: str, narrative: bool) -> bool:
    """Whether the only number of a sentence told in the past is the past year it happened in:
    ``narrative`` says whether the sentence without that year only tells the past (the caller's
    rule). "Back in 2011 a swan chased me off the towpath." is an anecdote, not a value.

    >>> is_year_anecdote("In 2003 we rowed across the loch.", True)
    True
    >>> is_year_anecdote("In 2003 we rowed 14 miles.", True), is_year_anecdote("I was born in 1961.", False)
    (False, False)
    """
    if not _PAST_YEAR.search(sentence):
        return False
    return narrative and not re.search(r"\d", _PAST_YEAR.sub(" ", sentence))


def is_occasion_anecdote(sentence: str, narrative: bool) -> bool:
    """Whether a sentence tells one past occasion: it opens with a marker of a single occasion
    ("once", "one time", "years ago", "back then"), with no "once a …" or "once more", nothing in
    the present or future, and ``narrative`` (the caller's past-tense test, with the numbers set
    aside) holds. Its numbers (a road, a duration) measure the occasion and make it no fact.

    >>> is_occasion_anecdote("Once waited six hours at Calais for the B2 ferry.", True)
    True
    >>> is_occasion_anecdote("Once a month I see Dr Moss.", True), is_occasion_anecdote("Once you're in, ring.", True)
    (False, False)
    """
    return narrative and bool(_OCCASION.match(story_body(sentence)))


def story_body(sentence: str) -> str:
    """``sentence`` without a teller's opener ("Oh I must tell you,", "Did I ever tell you about")
    and a guess at when ("must have been '86"), which sit outside the story itself.

    >>> story_body("Oh I must tell you, one spring, must have been '92, a goat ate the washing.")
    'one spring, a goat ate the washing.'
    """
    return _GUESS.sub("", _TELLER.sub("", sentence, count=1))


def without_numbers(sentence: str) -> str:
    """``sentence`` with its numbers set aside, for the past-tense test of an occasion."""
    return re.sub(r"\w*\d[\w,.:]*", " ", sentence)


def without_year(sentence: str) -> str:
    """``sentence`` with its past years ("in 1994") set aside, for the past-tense test."""
    return _PAST_YEAR.sub(" ", sentence)


def without_secret(sentence: str) -> str | None:
    """The sentence without the clauses that tell a password (a ``[REDACTED:…]`` placeholder, a
    password word, or a value with letters and digits or symbols in a sentence that names a
    password), or None when it tells none. The caller judges what is left; a secret is never
    a fact to keep.

    >>> without_secret("I pasted my bank password by mistake, it's Gr33nFinch!")
    ''
    >>> without_secret("My PIN is [REDACTED:password] and the safe is in the attic")
    'the safe is in the attic'
    >>> without_secret("The gate code is 4417") is None
    True
    """
    if not (PLACEHOLDER.search(sentence) or _SECRET_WORD.search(sentence)):
        return None
    pin = bool(_PIN_DIGITS.search(sentence))
    if not (PLACEHOLDER.search(sentence) or _SECRET_TOKEN.search(sentence) or pin):
        return None
    clauses = [c for c in _CLAUSE.split(sentence) if c and c.strip()]
    kept = [c for c in clauses
            if not (PLACEHOLDER.search(c) or _SECRET_WORD.search(c) or _SECRET_TOKEN.search(c)
                    or (pin and _PIN_DIGITS.search(c)))]
    return ", ".join(c.strip() for c in kept)


def statement_before_question(sentence: str) -> str | None:
    """The statement a question tag follows, or None: the clauses before the last comma of a
    question, when they do not ask themselves ("I'm vegan, is that a problem?" → "I'm vegan").

    >>> statement_before_question("I'm vegan, is that a problem?")
    "I'm vegan"
    >>> statement_before_question("Do I need a visa, or is my passport enough?") is None
    True
    >>> statement_before_question("我是苗族，下个月想办个专场，你觉得呢？")
    '我是苗族，下个月想办个专场'
    """
    if not re.search(r"[?？]\s*$", sentence):
        return None
    cut = max(sentence.rfind(","), sentence.rfind("，"))
    if cut <= 0:
        return None
    lead = sentence[:cut].strip()
    if not lead or _QUESTION_OPENER.match(lead) or _QUESTION_ZH.search(lead) or "?" in lead or "？" in lead:
        return None
    return lead
