"""The offline engine: deterministic, rule-based, no network, behind the same ``ChatModel``.

It reads ``ChatRequest.task`` (structured stage data), never the rendered prompt, and
dispatches on ``ChatRequest.stage`` (the stage that asks), never on the task's type:

- stage ``consolidate`` (a ``ConsolidateTask``) → one ``archive_history`` tool call whose facts are *decisive*
  sentences copied verbatim from the user's messages (see :func:`extract_facts`; the sentence
  rules live in :mod:`nanomem.engines.offline.extract`), or
  ``{"facts": [], "nothing": true}`` when no sentence is decisive;
- stage ``dream`` (a ``DreamTask``) → delegated to ``offline_dream.plan_dream_reply(task, messages)``;
- anything else → a plain text reply saying the offline engine does not chat (the caller then
  sees "no tool call", which is a failure for every stage).

>>> extract_facts(["Hi there! My name is Ana. I prefer tea over coffee."])
[('permanent', 'My name is Ana.'), ('durable', 'I prefer tea over coffee.')]
>>> extract_facts(["我叫小明。明天下午三点提醒我开会。谢谢！"])
[('permanent', '我叫小明。'), ('ephemeral', '明天下午三点提醒我开会。')]
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall, Usage
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.chatfix import denial_then_value, starred_fix
from nanomem.engines.offline.extract import (  # noqa: F401 (re-exported: the engine's sentence rules)
    MAX_FACT_CHARS,
    announces_change,
    classify_sentence,
    fact_part,
    is_narrative,
)
from nanomem.engines.offline.mail import message_body, subject_announces
from nanomem.engines.offline.notices import is_machine_notice, without_quoted_notices
from nanomem.engines.offline.recase import lowered, name_casing, recased, restore, shouted, writes_capitals, writes_lower_case
from nanomem.engines.offline.sentences import has_name, pauses_as_commas, split_sentences, without_heading
from nanomem.engines.offline.snippets import without_blocks
from nanomem.engines.offline.terse import is_bare_amount, is_length_fragment
from nanomem.engines.offline.shapes import denied_value, is_bare_condition, is_bare_name, is_bare_value, is_greeting
from nanomem.store.sessions import content_text, message_time
from nanomem.text.filler import is_filler
from nanomem.text.hant import fold_hant, restore_hant
from nanomem.text.northern import fold_northern, writes_northern
from nanomem.text.northwest import fold_northwest, writes_northwest
from nanomem.text.vernacular import standard_pronouns
from nanomem.text.wu import fold_wu, writes_wu

NOT_A_CHAT_MODEL = (
    "The offline engine does not chat: it only answers nanomem's consolidation and Dream "
    "requests. Configure an OpenAI-compatible endpoint (NANOMEM_BASE_URL) for conversation."
)
# Round 9: a correction whose object points back ("put them up to £91", "moved it to Friday"): what
# it is about is the sentence before it.
_POINTS_BACK = re.compile(r"\b(?:put|moved|pushed|changed|raised|lowered|switched|bumped|cut|upped) (?:them|it|those|that)\b|"
                          r"^\W*(?:they|it|those)(?:['’](?:re|s)| are| is| have| has)? (?:now |gone |going )", re.I)
# Session 34: a bare topic heading the correction after it ("Lowri's birthday. I got that wrong. 17 June.",
# "also the futsal. the Wednesday slot got taken, Saturday now"): a possessive or determiner and at
# most two lower-case words (a capitalised one is a value, the old one: "About the Nithbank."); a
# sentence that announces a change ("The marina moved me.") is no topic. The correction that
# follows in the same message is about it.
_BARE_TOPIC = re.compile(
    r"^\W*(?:(?:also|and|oh|ok|okay|right|so|now|then|re|about)\W+)*"
    r"(?:(?:the|my|our|his|her|their)\s+|(?-i:[A-Z])[a-z]+(?:'s|’s)\s+)(?-i:(?:[a-z]+\s+)?[a-z]+)\s*[.:!]?\s*$", re.I)
# Round 11: a row of a pasted spreadsheet (cells between tabs) is material to work on, like a code block
_SHEET_ROW = re.compile(r"^[^\t\n]*\t[^\n]*$", re.MULTILINE)


# "My reader is Dr. Moss, not Halvorsen.": the value a statement puts aside after a comma.
_NOT_AFTER_COMMA = re.compile(
    r",\s*not\s+(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?(?P<old>(?-i:[A-Z])[\w'’-]+(?:\s(?-i:[A-Z])[\w'’-]+)?|\d[\d.,:]*\d|\d)", re.I)


def _put_aside(sentence: str) -> str | None:
    found = _NOT_AFTER_COMMA.search(sentence)
    return found.group("old") if found else None


def _standard_mark(own: str | None, standard: str | None) -> str | None:
    """The mark of a sentence with vernacular pronouns: its own, unless it had none or the
    standard form reads as a correction."""
    return standard if own is None or standard == "correction" else own


def extract_facts(user_texts: Iterable[str]) -> list[tuple[str, str]]:
    """``[(mark, sentence)]`` of decisive sentences, verbatim, first occurrence only (pure)."""
    return [(mark, text) for mark, text, _ in extract_dated_facts((text, None) for text in user_texts)]


def extract_dated_facts(texts: Iterable[tuple[str, str | None]],
                        casing: Mapping[str, str] | None = None) -> list[tuple[str, str, str | None]]:
    """``[(mark, sentence, day)]`` for ``(text, day said)`` pairs (pure); see :func:`extract_facts`.
    ``casing`` (:func:`nanomem.engines.offline.recase.name_casing`) gives the names of a speaker
    who writes in lower case their capitals while the rules judge them (round 9); what is kept is
    the speaker's own text."""
    texts = list(texts)
    wu = writes_wu(text for text, _ in texts)  # round 17: a speaker of Shanghainese is judged as Mandarin
    northern = writes_northern(text for text, _ in texts)  # round 18: and one of Tianjin speech
    northwest = not wu and writes_northwest(text for text, _ in texts)  # round 19: 额 / 俺 for 我
    facts: list[tuple[str, str, str | None]] = []
    seen: set[str] = set()
    before: list[str] = []  # the sentences kept from the message before (session 24: a starred fix)
    for text, day in texts:
        start = len(facts)
        fixed = starred_fix(text, before)
        if fixed is not None:  # session 24: "*5831 sorry fat thumbs" fixes the message before
            facts.append(("correction", fixed, day))
            before = [fixed]
            continue
        mail = message_body(text)  # round 11: without quoted lines, headers, a forward, a signature
        text = mail.body
        capitals = writes_capitals(text)  # session 27: "IN 1974 WE HAD …" is judged as "in 1974 we had …"
        text = lowered(text) if capitals else text
        lower_case = bool(casing) and writes_lower_case(text)
        text = recased(text, casing or {})
        original, text = text, fold_hant(text)  # session 24: Traditional Chinese judged as Simplified
        text = fold_wu(text) if wu else text
        text = fold_northern(text) if northern else text
        text = fold_northwest(text) if northwest else text
        # round 11: "Subject: Change of lodgings": the body's first decisive sentence is the correction
        announced = bool(mail.subject) and (subject_announces(mail.subject) or announces_change(mail.subject))
        lead: list[str] = []  # sentences before that announced a change without giving the new value
        topic = ""  # session 34: a bare topic said just before (:data:`_BARE_TOPIC`)
        style_before, previous_kept, previous_said, previous_kept_fact = False, "", "", ""
        previous = ""
        denied: list[str] = []  # values a sentence of this message denied ("…, not Halvorsen")
        # a code block is material; session 27: but for its comments, identity fields and first-person lines
        sentences = split_sentences(_SHEET_ROW.sub("", without_blocks(without_quoted_notices(text))))  # round 19: a quoted text
        for n, sentence in enumerate(sentences):
            if (is_greeting(previous) and is_bare_name(sentence)) or (previous and is_bare_condition(sentence)):
                sentence = f"{previous} {sentence}"  # "Evening. Rhona Calloway.", "Wasps are a worry. Allergic."
            elif n == 0 and len(sentences) > 1 and is_bare_name(sentence):
                facts.append(("permanent", f"{sentence} {sentences[1]}", day))  # round 8: "Alec Ashdown. Farrier, Cumbria."
                seen.add(facts[-1][1])
            previous = sentence
            sentence = fact_part(sentence)
            if not sentence:
                continue
            judged = pauses_as_commas(sentence)  # round 20: "if you need me... call after supper"
            mark = classify_sentence(judged)
            if mark != "correction" and (standard := standard_pronouns(judged)) != judged:
                # round 19: "when ya tells me", "me mother"; round 20: or a correction once read ("ah on X now")
                mark = _standard_mark(mark, classify_sentence(standard))
            if mark is None and (bare := without_heading(judged)) != judged and not is_machine_notice(judged):
                mark = classify_sentence(bare)  # round 20: "【说明】以后给我报天气": a label heads it
            if mark is None and style_before and is_length_fragment(sentence):
                mark, sentence = "durable", f"{previous_kept} {sentence}"  # round 8: "Answers short. Three words if that does it."
                if facts and facts[-1][1] == previous_kept:
                    facts.pop()  # the request is kept once, with its length
            style_before, previous_kept = mark is not None and is_style_request(sentence), sentence
            if lead and (mark in ("durable", "permanent", "correction")
                         or (mark is None and (is_bare_value(sentence) or is_bare_amount(sentence)))):
                mark = "correction"  # "They reissued my badge. The number is now B-12."
                if is_bare_value(sentence) or is_bare_amount(sentence) or any(denied_value(s) for s in lead):
                    sentence = " ".join([*lead, sentence])  # round 7: "The quote was wrong. It's 3,140."
            if announced and mark in ("durable", "permanent", "correction"):
                mark, announced = "correction", False
            if mark == "correction" and not lead and previous_said and _POINTS_BACK.search(sentence):
                if facts and facts[-1][1] == previous_said:
                    facts.pop()  # round 9: "Decided about the foils. Put them up to £91." is one correction
                sentence = f"{previous_said} {sentence}"
            if mark == "correction" and topic and topic not in sentence:
                sentence = f"{topic} {sentence}"  # session 34: "Lowri's birthday. I got that wrong. 17 June."
            if mark is not None:
                topic = ""
            elif _BARE_TOPIC.match(sentence) and not announces_change(sentence):
                topic = sentence
            lead = [*lead, sentence] if mark is None and announces_change(sentence) else []
            previous_said = "" if is_filler(sentence) or sentence.rstrip().endswith(("?", "？")) else sentence
            if len(facts) > start and facts[-1][1] == previous_kept_fact and denial_then_value(previous_kept_fact, sentence):
                facts[-1] = ("correction", f"{previous_kept_fact} {sentence}", day)  # session 24: "… is not Monday. Is Thursday."
                continue
            if mark == "durable" and any(old.casefold() in sentence.casefold() for old in denied):
                mark = None  # session 25: "… not Halvorsen. Halvorsen is on my friend's committee.": the old value's news
            denied += [value for value in (denied_value(sentence), _put_aside(sentence)) if value]
            previous_kept_fact = sentence if mark is not None else ""
            if mark is not None and sentence not in seen:
                seen.add(sentence)
                facts.append((mark, sentence, day))
        before = [fact for _, fact, _ in facts[start:]]
        if text != original:
            facts[start:] = [(mark, restore_hant(fact, text, original), said) for mark, fact, said in facts[start:]]
        if lower_case:
            facts[start:] = [(mark, restore(fact), said) for mark, fact, said in facts[start:]]
        if capitals:
            facts[start:] = [(mark, shouted(fact), said) for mark, fact, said in facts[start:]]
    return facts


def render_archive_arguments(messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``archive_history`` arguments for a chunk of messages (pure). An ephemeral fact
    ends with ``(said YYYY-MM-DD)`` when its message has a timestamp, so that Dream dates it
    from when it was said, not from when the turn was archived.

    >>> render_archive_arguments([{"role": "user", "content": "Call Bo tomorrow. I like figs.",
    ...                            "timestamp": "2026-03-02T19:05:00"}])["facts"]
    [{'mark': 'ephemeral', 'text': 'Call Bo tomorrow. (said 2026-03-02)'}, {'mark': 'durable', 'text': 'I like figs.'}]
    """
    texts = []
    casing = name_casing(content_text(m.get("content")) for m in messages if m.get("role") == "assistant")
    for message in messages:
        if message.get("role") == "user":
            said = message_time(message)
            texts.append((content_text(message.get("content")), said[:10] if said else None))
    facts = [
        {"mark": mark, "text": f"{text} (said {day})" if mark == "ephemeral" and day else text}
        for mark, text, day in extract_dated_facts(texts, casing)
    ]
    return {"facts": facts, "nothing": not facts}


class OfflineEngine:
    """A deterministic :class:`nanomem.engines.chat.ChatModel`; see the module docstring."""

    name = "offline"

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        self.clock = clock or datetime.now

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request from ``request.task`` by its stage; never raises for another."""
        if request.task is not None and request.stage == "consolidate":
            return _answer_consolidation(request)
        if request.task is not None and request.stage == "dream":
            from nanomem.engines.offline import dream as offline_dream  # lazy: dream imports the stages above us

            return offline_dream.plan_dream_reply(request.task, request.messages)
        return ChatResponse(content=NOT_A_CHAT_MODEL, finish_reason="stop", usage=_no_usage())


def _answer_consolidation(request: ChatRequest) -> ChatResponse:
    arguments = render_archive_arguments(request.task.messages)
    call = ToolCall(
        id="offline-archive-1",
        name="archive_history",
        arguments=json.dumps(arguments, ensure_ascii=False),
    )
    return ChatResponse(content=None, tool_calls=(call,), finish_reason="tool_calls", usage=_no_usage())


def _no_usage() -> Usage | None:
    # The offline engine has no tokenizer; reporting no usage keeps calibration untouched.
    return None

