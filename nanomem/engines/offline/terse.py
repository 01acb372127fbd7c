"""Sentence shapes found by the round-8 study (pure): a fact or a request told without a subject,
and material that is quoted or pasted rather than said about the person.

Four blind rounds in a row lost a terse speaker's facts and kept pasted text. The rules here are
shapes, not phrases of one conversation:

- **a label and its value** ("Boiler service: Thursdays, Kemp & Sons.", "Locker code: 4471"): a
  short verbless label, a colon, and a value that holds a digit or a name;
- **a naming** ("Old mare's called Pippin."): something *called* or *named* a capitalised name;
- **a note about the agent's output** ("Summaries brief.", "Totals in euros always.", "Lists: date
  first, place after."): a short verbless note whose head is a thing the agent gives back;
- **a standing instruction behind a condition on the agent** ("When you draft a letter, sign it
  Jo.", "If you ever quote a price, round it up."): a clause about *you*, then an imperative;
  in Chinese, a request (请, 尽量) about answering, reminding or a piece of work the agent does;
- **quoted or pasted material** (a forwarded advert, a lyric, a line to translate): a sentence
  opened by a forward marker, or mostly inside quotation marks with no verb of saying before the
  quote, is not a statement about the person; and a long quotation is no cue of its own.
"""

from __future__ import annotations

import re

from nanomem.engines.offline.shapes import is_verbless
from nanomem.engines.offline.tense import is_narrative
from nanomem.vocab import COMMON_WORDS, HAN_CHAR

_I = re.IGNORECASE
_LABEL = re.compile(r"^\s*(?P<label>[A-Za-z][\w'’ -]{1,40}?)\s*:\s*(?P<value>\S.*)$")
_FORWARD = re.compile(
    r"^\W*(?:fwd?|fw|forwarded|forwarding|pasting|pasted|copied|copy of|cc)\b(?:\s+(?:from|of|this|in)\b)?"
    r"|^\s*(?:转发|转给你|复制)"
    # round 11: someone forwarded the speaker a thing to look at ("我妹给我转了个东西", "朋友发来一个链接")
    r"|^\s*[^，,。！？\s]{1,6}?给我(?:转|发)(?:了|来)(?:个|一个|一条|条)?(?:东西|链接|消息|文章|视频|帖子)"
    r"|^\s*[^，,。！？\s]{1,6}?(?:转来|发来)(?:了)?(?:个|一个|一条|条)?(?:东西|链接|消息|文章|视频|帖子)", _I)
_QUOTE = re.compile(r"(?<!\w)'((?:[^']|(?<=\w)'(?=\w)){2,}?)'(?!\w)|\"([^\"]{2,}?)\"|“([^”]{2,}?)”|‘([^’]{2,}?)’|「([^」]+)」|『([^』]+)』")
_SAYING = re.compile(r"\b(?:said|says|say|told|tells|asked|asks|wrote|writes|texted|replied|shouted|goes)\b|说|告诉|问",
                     _I)
_NAMING = re.compile(r"(?:['’]s|\bis|\bare|\bwas)\s+(?:called|named)\s+(?-i:[A-Z])[a-z]+", _I)
# What the agent gives back: a reply, a reminder, a list, a price, a date (the head of a note of form).
_OUTPUT = re.compile(
    r"^\W*(?:no\s+)?(?:answers?|repl(?:y|ies)|responses?|reminders?|lists?|prices?|costs?|quotes?|totals?|"
    r"figures?|amounts?|sums?|dates?|times?|measurements?|summar(?:y|ies)|messages?|emails?|drafts?|"
    r"notes?|letters?|invoices?|estimates?|units?)\b(?!\s+(?:is|are|was|were)\b)", _I)
_PRONOUNS = frozenset("i you he she it we they me him her us them this that these those there the a an my your "
                      "his its our their is are was were be been am will would can could should may might".split())
# Session 27: the clause may end without a comma before "please" ("when you explain it please one step at a time").
# Round 17: a texter leaves out the comma after the condition ("when i ask about work no need to
# explain it"): the main clause then opens with a word of telling not to.
_DONT = r"(?:no need to|don['’]?t|do not|never(?! mind)|always)\b"
_CONDITION_ON_YOU = re.compile(r"^\W*(?:when|whenever|if|once|any time)\s+(?:you|you're|you’re|I ask you|I ask)\b[^,;]{3,80}?"
                               r"(?:[,;]\s*|\s+(?=please\b|pls\b|" + _DONT + r"))(?:then\s+)?(?:please\s+)?(?P<verb>[a-z]+)\b", _I)
# Session 27: a request, then the agent's own act it holds for ("please no fancy words when you answer").
_AGENT_ACT = (r"(?:answer|reply|respond|explain|write|talk|tell|show|give|send|draft|list|summari[sz]e|translate|"
              r"remind|suggest|describe|quote|text|message)")
_PLEASE_WHEN_YOU = re.compile(r"\bplease\b[^.!?]{2,80}?\bwhen(?:ever)?\s+(?:you|u)\s+" + _AGENT_ACT + r"\b", _I)
_ZH_FROM_NOW = re.compile(r"^(?:以后|今后|往后)")  # session 27: "from now on" makes 帮我/给我 a standing request
_NAME_RUN = r"(?-i:[A-Z][a-z'’-]+)(?: (?-i:[A-Z][a-z'’-]+)){1,2}"
_ROLE_IS = re.compile(r"^\W*(?:the |our |(?-i:[A-Z]?[a-z]+ )?)?(?-i:[A-Za-z][a-z]+)(?:['’]s| is) (?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?"
                      r"(?P<name>" + _NAME_RUN + r")\s*(?:[.,;!]|$)")
_PLACE_NOTE = re.compile(r"^\W*(?:on|at|in|based at|based in|working at|up at|down at|out at)\s+(?:the\s+)?[a-z]", _I)
_SECRET_SHAPE = re.compile(r"(?=\S*[A-Za-z])(?=\S*\d)(?=\S*[^\w\s])\S{6,}")
_NUMBER_WORD = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|fifty|a hundred)"
_AMOUNT_HEAD = re.compile(r"^\W*(?:£|\$|€)?" + _NUMBER_WORD + r"\b", _I)
_LENGTH = re.compile(r"^\W*(?:max(?:imum)?\s+|at most\s+|under\s+)?" + _NUMBER_WORD +
                     r"\s+(?:words?|lines?|sentences?|paragraphs?|bullets?|characters?)\b", _I)
_PAST_DAY = re.compile(r"\b(?:yesterday|last night|the other day|the day before yesterday)\b|昨天|前天", _I)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|my|we|our|us|me)\b|我", _I)
_ZH_REQUEST = re.compile(r"请|尽量|麻烦")
_ZH_ABOUT_OUTPUT = re.compile(r"^(?:在)?(?:回答|回复|答复|提醒|告诉|给我|列|写|做|翻译|整理|总结)[^，。]*(?:的时候|时|的事情|的问题)?")


def is_label_note(sentence: str) -> bool:
    """Whether a sentence is a label, a colon and a value: the label has at most six words and no
    verb, and the value holds a digit or a capitalised name, and is not a quotation.

    >>> is_label_note("Locker code: 4471."), is_label_note("Farrier for the ponies: Gwen Ash, in Kendal.")
    (True, True)
    >>> is_label_note("One thing: I hate mornings."), is_label_note("Note to self: buy milk.")
    (False, False)
    >>> is_label_note("Odd one: yesterday a heron took a koi from Mrs Pell's pond."), is_label_note("Skip: Qz7!mm4")
    (False, False)
    """
    found = _LABEL.match(sentence)
    if not found or is_pasted(sentence) or HAN_CHAR.search(sentence):
        return False
    label, value = found.group("label"), found.group("value")
    if len(label.split()) > 6 or not is_verbless(label) or _QUOTE.search(value):
        return False
    if re.match(r"\W*(?:I|I'm|I’m|we|you|he|she|they|it)\b", value) or not is_verbless(value) or is_narrative(value):
        return False  # a clause after a colon ("One thing: I …", "Funny story: a dog ate …") is a sentence
    if _SECRET_SHAPE.fullmatch(value.strip()):
        return False  # "Ignore: Xk9!pq2": a typed secret, never a fact
    names = [w for w in re.findall(r"(?<![\w'’])[A-Z][a-z]+", value) if w.casefold() not in COMMON_WORDS]
    return bool(re.search(r"\d", value) or names)


def is_naming(sentence: str) -> bool:
    """Whether a short sentence names something ("Old mare's called Pippin.").

    >>> is_naming("Old mare's called Pippin."), is_naming("We watched a film called Jaws last night and it was long.")
    (True, False)
    """
    return len(sentence.split()) <= 8 and bool(_NAMING.search(sentence))


def is_role_naming(sentence: str) -> bool:
    """Whether a short sentence names who fills a role by a full name, with no "my" ("Foreman is
    Shonagh Beattie.", "Landlord's Piotr Nowak, decent sort."; round 9).

    >>> is_role_naming("Physio is Aoife Brennan."), is_role_naming("Lunch is at Noon Street.")
    (True, False)
    """
    found = _ROLE_IS.match(sentence)
    if found is None:
        return False
    return not any(w.casefold() in COMMON_WORDS for w in found.group("name").split())


def is_place_note(sentence: str) -> bool:
    """Whether a verbless note says where the person is, by a name ("On the tower crane at
    Quayside Yard.", "At the Harbour Lane clinic most days."; round 9).

    >>> is_place_note("On the night shift at Ferrybank Depot."), is_place_note("On the whole, fine.")
    (True, False)
    """
    if HAN_CHAR.search(sentence) or len(sentence.split()) > 10 or not _PLACE_NOTE.match(sentence):
        return False
    names = [w for w in re.findall(r"(?<![\w'’])[A-Z][a-z]+", sentence[3:]) if w.casefold() not in COMMON_WORDS]
    rest = re.sub(r"^\W*(?:based|working)\b", "", sentence, flags=_I)  # "Based at …": no finite verb
    return bool(names) and is_verbless(rest) and not is_narrative(rest)


def is_output_note(sentence: str) -> bool:
    """Whether a short verbless note sets the form of something the agent gives back.

    >>> is_output_note("Summaries brief."), is_output_note("Totals in euros always."), is_output_note("No email after nine, please.")
    (True, True, True)
    >>> is_output_note("Dates are fine."), is_output_note("Notes from the meeting about the new boiler are long.")
    (False, False)
    """
    if HAN_CHAR.search(sentence) or len(sentence.split()) > 8 or sentence.rstrip().endswith("?"):
        return False
    return bool(_OUTPUT.match(sentence)) and is_verbless(sentence) and len(sentence.split()) >= 2


def is_conditional_instruction(sentence: str) -> bool:
    """Whether a sentence is a standing instruction behind a condition on the agent ("When you
    draft a letter, sign it Jo."), or in Chinese a request about how the agent answers, reminds
    or does a piece of work ("列清单的时候请按日期排", "回复我尽量用短句").

    >>> is_conditional_instruction("When you draft a letter, sign it Jo.")
    True
    >>> is_conditional_instruction("If you see Tom, he owes me a fiver."), is_conditional_instruction("回复我尽量用短句。")
    (False, True)
    """
    if HAN_CHAR.search(sentence):
        rest = _ZH_FROM_NOW.sub("", sentence)
        asked = _ZH_REQUEST.search(sentence) or (rest != sentence and re.search(r"帮我|给我", rest))
        return bool(asked and (_ZH_ABOUT_OUTPUT.match(rest) or "的时候" in sentence))
    if _PLEASE_WHEN_YOU.search(sentence):
        return True
    found = _CONDITION_ON_YOU.match(sentence)
    if not found:
        return False
    verb = found.group("verb").casefold()
    return verb not in _PRONOUNS and not re.search(r"(?:ed|ing)$", verb)


def is_day_anecdote(sentence: str, narrative: bool) -> bool:
    """Whether a sentence tells what happened on one past day named anywhere in it ("yesterday",
    "last night", "the other day", 昨天), with no first person in it and ``narrative`` (the caller's
    past test, numbers set aside) holding: its numbers (a road, a time) measure the story.

    >>> is_day_anecdote("Queued behind a horsebox on the B5285 yesterday.", True)
    True
    >>> is_day_anecdote("I moved to desk 14 yesterday.", True), is_day_anecdote("Queued at gate 4 today.", True)
    (False, False)
    """
    return narrative and bool(_PAST_DAY.search(sentence)) and not _FIRST_PERSON.search(sentence)


def is_bare_amount(sentence: str) -> bool:
    """Whether a sentence is only an amount ("55 boxes.", "Twelve crates."): the new value after
    an announcement of change ("Scratch that on the order. 55 boxes.").

    >>> is_bare_amount("55 boxes."), is_bare_amount("Twelve crates."), is_bare_amount("55 boxes went missing.")
    (True, True, False)
    """
    words = re.findall(r"[\w'’-]+", sentence)
    return 1 < len(words) <= 3 and bool(_AMOUNT_HEAD.match(sentence)) and is_verbless(sentence) and not is_narrative(sentence)


def is_length_fragment(sentence: str) -> bool:
    """Whether a fragment gives a length in words, lines or sentences ("Two lines if it fits."):
    after a style request in the same message it belongs to that request.

    >>> is_length_fragment("Two lines if it fits."), is_length_fragment("Two dogs if it fits.")
    (True, False)
    """
    return len(sentence.split()) <= 7 and bool(_LENGTH.match(sentence))


def is_pasted(sentence: str) -> bool:
    """Whether a sentence is quoted or pasted material: opened by a forward marker, or mostly
    (at least 40% of its words, or of its Han characters) inside quotation marks with no verb of
    saying before the first quote (reported speech tells of the person's life and is kept).

    >>> is_pasted("Fwd from the garage: 'MOT special this month only!'")
    True
    >>> is_pasted("Been humming 'a whiter shade of pale, skipped the light fandango' all day.")
    True
    >>> is_pasted("Jo said 'the hall is booked for the 9th, not the 2nd'.")
    False
    """
    if _FORWARD.search(sentence):
        return True
    quoted = [next(g for g in m.groups() if g) for m in _QUOTE.finditer(sentence)]
    if not quoted or reports_speech(sentence):
        return False
    return _size("".join(quoted)) >= 0.4 * _size(sentence)


def reports_speech(sentence: str) -> bool:
    """Whether a verb of saying comes before the first quotation ("Jo said 'it's the 9th'").

    >>> reports_speech("Jo said 'it's the 9th'."), reports_speech("Put 'sale ends Friday' on it.")
    (True, False)
    """
    first = _QUOTE.search(sentence)
    return first is not None and bool(_SAYING.search(sentence[:first.start()]))


def without_quotes(sentence: str) -> str:
    """``sentence`` with each quotation of four or more words (or Han characters) left out: what
    the person says around a quotation, judged without the quotation's own words.

    >>> without_quotes("Put 'the sale ends on Friday at noon' in the flyer.")
    "Put '' in the flyer."
    """
    def blank(m: re.Match[str]) -> str:
        inner = next(g for g in m.groups() if g)
        return m.group(0)[0] + m.group(0)[-1] if _size(inner) >= 4 else m.group(0)
    return _QUOTE.sub(blank, sentence)


def _size(text: str) -> int:
    return len(HAN_CHAR.findall(text)) + len(re.findall(r"[A-Za-z0-9]+", text))
