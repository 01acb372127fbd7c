"""The offline engine: deterministic, rule-based, no network, behind the same ``ChatModel``.

It reads ``ChatRequest.task`` (structured stage data), never the rendered prompt:

- a ``ConsolidateTask`` → one ``archive_history`` tool call whose facts are *decisive*
  sentences copied verbatim from the user's messages (see :func:`extract_facts`), or
  ``{"facts": [], "nothing": true}`` when no sentence is decisive;
- a ``DreamTask`` → delegated to ``offline_dream.plan_dream_reply(task, messages)``;
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
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from nanomem.chat import ChatRequest, ChatResponse, ToolCall, Usage
from nanomem.sessions import content_text, message_time

NOT_A_CHAT_MODEL = (
    "The offline engine does not chat: it only answers nanomem's consolidation and Dream "
    "requests. Configure an OpenAI-compatible endpoint (NANOMEM_BASE_URL) for conversation."
)
MAX_FACT_CHARS = 500  # a longer "sentence" is pasted material, not a statement

_I = re.IGNORECASE


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), _I)


# Each category: (English patterns, Chinese patterns). Order of marks is decided in _mark().
_CORRECTION_STRONG = _rx(
    r"\bcorrection\b", r"\bno longer\b", r"\bnot anymore\b", r"\banymore\b",
    r"\b(?:I|we)(?:'ve| have)? moved\b(?! (?:the|our|my|his|her|their|its|it|them|a|an|this|that|some|all)\b)", r"\binstead\b", r"\bchanged? (?:it )?to\b",
    r"\bswitch(?:ed)? to\b", r"\bnot\b[^.!?]{1,40}\bbut\b", r"\bI was wrong\b",
    r"\bchange of plans?\b", r"^\s*(?:update|correction)\b[^:：]{0,30}[:：]",
    r"更正", r"改成", r"改为", r"搬到", r"搬去", r"搬家", r"不再", r"换成",
    r"(?:提高|提升|增加|降低|降|减少|调整|推迟|延期|延到|提前|改)(?:到|为|成|至)",
)
# A verb of change followed by "to"/"until" ("raised the budget to 5,750"): a correction when
# the sentence also carries a value (number, identifier, name) or another decisive signal.
_CORRECTION_CHANGE = _rx(
    r"\b(?:changed|raised|lowered|increased|decreased|reduced|cut|bumped|moved|pushed|postponed|"
    r"rescheduled|updated|extended|shortened|switched|upgraded|downgraded|renamed|relocated)\b"
    r"[^.!?]{0,60}?\b(?:to|until)\b",
)
_CORRECTION_WEAK = _rx(
    r"\bactually\b", r"其实", r"不对", r"错了", r"现在",
    r"\b(?:I|we|you|they|he|she|it)(?:'re|'m|'s|’re|’m|’s| are| am| is)?\s+now\b", r"\b(?:is|are)\s+now\b",
)
_IDENTITY = _rx(
    r"\bmy name is\b", r"\bmy (?:name|birthday|email|phone number|pronouns)\b",
    r"\bcall me\b", r"\bI(?:'m| am) (?:a|an)\s+\w+", r"\bI(?:'m| am) \d+\b",
    r"\bI(?:'m| am) from\b", r"\bI (?:live|work|was born|grew up)\b", r"\bI(?:'m| am) based in\b",
    r"\bmy (?:wife|husband|partner|son|daughter|mother|father|dog|cat)(?:'s name)? is\b",
    r"我叫", r"我的名字", r"我是(?!说|不是|否)", r"我住在", r"我来自", r"我在\S{1,12}工作", r"我的生日",
)
# Case-sensitive: "I'm" followed by a capitalised word introduces the person ("Hey, I'm Sam Ode").
_SELF_NAME = re.compile(r"\bI(?:'m|’m| am)\s+[A-Z][a-z]+\b")
# Someone or something named: "my landlord is Jonas", "the vet is called Dr Ruiz", "合伙人叫王磊".
_NAMED = re.compile(
    r"\b[Mm]y (?:[a-z]+ ){1,2}(?:is|are)\s+(?:called\s+|named\s+)?[A-Z][a-z]+"
    r"|\b(?:is|are)\s+(?:called|named)\s+[A-Z]"
    r"|(?:的|名字|名)[^，。！？\s]{0,8}?叫(?:做)?[\u4e00-\u9fff]{2,4}"
)
_PLACE = _rx(
    r"\bour (?:office|company|headquarters|shop|studio|team|school|clinic) (?:is|are) (?:now )?(?:in|at|on|based)\b",
    r"(?:办公室|公司|总部|我家|工作室)(?:现在)?(?:在|位于)",
)
_HEALTH = _rx(
    r"\ballerg(?:y|ic|ies)\b", r"\bdiabet(?:es|ic)\b", r"\basthma\b", r"\blactose\b",
    r"\bgluten\b", r"\bvegetarian\b", r"\bvegan\b", r"\bmedication\b", r"\bpregnant\b",
    r"过敏", r"糖尿病", r"哮喘", r"素食", r"吃素", r"乳糖不耐",
)
_PREFERENCE = _rx(
    r"\bI (?:really )?(?:prefer|like|love|hate|dislike|enjoy|want|need)\b",
    r"\bI don'?t (?:like|want|enjoy|need)\b", r"\bmy favou?rite\b",
    r"\bplease (?:always|never|use|reply|answer|write|keep|call|be|show|format|avoid|include)\b",
    r"^\s*(?:please\s+)?(?:don'?t|do not|never|always)\b",
    r"喜欢", r"偏好", r"讨厌", r"请用", r"请总是", r"请始终", r"请一直", r"用\S{1,6}(?:回答|回复)", r"请不要", r"别用", r"不要用", r"最爱",
)
_CONSTRAINT = _rx(
    r"\bmust\b", r"\bnever\b", r"\bbudget\b", r"\blimit\b", r"\bat most\b", r"\bat least\b",
    r"\bno more than\b", r"\brequired?\b", r"\bnot allowed\b",
    r"预算", r"不能", r"必须", r"不得", r"最多", r"至少", r"限制", r"不允许",
)
_DECISION = _rx(
    r"\bwe(?:'ve| have)? decided\b", r"\bI(?:'ve| have)? decided\b", r"\blet'?s go with\b",
    r"\bwe(?:'ll| will) (?:use|go with)\b", r"\bwe chose\b", r"\bgoing with\b",
    r"\bthe plan is\b", r"\bagreed\b",
    r"决定", r"定了", r"就用", r"选定", r"确定用",
)
_NEAR_TERM = _rx(
    r"\btoday\b", r"\btonight\b", r"\btomorrow\b", r"\bthis (?:week|weekend|morning|afternoon|evening)\b",
    r"\bnext (?:week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    r"\bby (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|noon|tonight|eod|end of)\b",
    r"\bremind me\b", r"\bdeadline\b", r"\bdue\b", r"\bin \d+ (?:minutes|hours|days)\b",
    r"\b(?:until|till|through|expires?(?: on)?)\s+(?:(?:this|next)\s+)?(?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|tomorrow|tonight|noon|the weekend|"
    r"(?:the )?end of (?:the )?(?:day|week))\b",
    r"有效到(?:明天|今晚|(?:这|本|下)?(?:周|星期)[一二三四五六日天末])",
    r"今天", r"今晚", r"明天", r"后天", r"下周", r"本周", r"这周", r"周末", r"截止", r"提醒我", r"之前完成",
)
_IDENTIFIER = re.compile(r"\b[A-Z][A-Z0-9]*-\d[\w-]*\b|\b[A-Z]{2,}\d+[A-Z0-9]*\b")
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\d{1,2}月\d{1,2}[日号]", _I
)
_NUMBER = re.compile(r"\d")
_QUESTION = re.compile(r"[?？]\s*$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])(?![。！？])|\n+")
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|my|we|we're|we’re|our|us)\b", _I)
_PAST_EN = re.compile(
    r"\b(?:was|were|got|had|did|saw|went|came|took|made|ate|broke|lost|found|bought|sold|met|"
    r"ran|fell|left|told|forgot|spent|woke|slept|\w{3,}ed)\b", _I)
_AHEAD_EN = re.compile(
    r"\b(?:will|shall|going to|gonna|need to|have to|has to|must|should|remind|tomorrow|tonight|"
    r"next|until|till|by|due|deadline|later|plan(?:s|ned)? to|am|is|are)\b|'ll\b|'m\b|'re\b|"
    r"\b(?:it|that|there|he|she|what|who)'s\b|\d", _I)
_PAST_ZH = re.compile(r"了|过(?!敏)|昨天|刚才")
_AHEAD_ZH = re.compile(r"要|会(?!议|计|员|场)|得|需要|明天|后天|今晚|待会|一会|稍后|下周|提醒|记得|别忘|截止|之前|\d")
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][A-Za-z]*[a-z][A-Za-z]*(?:-\w+)?")
_NOT_NAMES = frozenset(
    "I I'm I've I'll I'd OK Ok Hi Hello Hey Thanks Mr Mrs Ms Dr "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
)


def split_sentences(text: str) -> list[str]:
    """Split English and Chinese text into stripped sentences (pure).

    >>> split_sentences("I use v2.5 now. 我喜欢茶。好吗？ok")
    ['I use v2.5 now.', '我喜欢茶。', '好吗？', 'ok']
    """
    return [part.strip() for part in _BOUNDARY.split(text) if part and part.strip()]


def classify_sentence(sentence: str) -> str | None:
    """The mark of a decisive sentence, or ``None`` for small talk and noise (pure).

    >>> classify_sentence("Actually, I moved to Lisbon last month.")
    'correction'
    >>> classify_sentence("We pushed the launch to 9 October.")
    'correction'
    >>> classify_sentence("I spilled coffee on my keyboard this morning.") is None
    True
    """
    if len(sentence) > MAX_FACT_CHARS:
        return None
    preference = bool(_PREFERENCE.search(sentence))
    if _QUESTION.search(sentence) and not preference:
        return None
    narrative = is_narrative(sentence)
    named = has_name(sentence)
    identity = bool(_IDENTITY.search(sentence) or _HEALTH.search(sentence) or _SELF_NAME.search(sentence))
    near_term = bool(_NEAR_TERM.search(sentence)) and not narrative
    durable = (
        preference
        or bool(_CONSTRAINT.search(sentence))
        or bool(_DECISION.search(sentence))
        or bool(_NAMED.search(sentence))
        or bool(_PLACE.search(sentence))
        or bool(_IDENTIFIER.search(sentence))
        or bool(_DATE.search(sentence))
        or (bool(_NUMBER.search(sentence)) and _long_enough(sentence))
        or (named and not narrative and bool(_FIRST_PERSON.search(sentence)) and _long_enough(sentence))
    )
    decisive = identity or near_term or durable
    if (
        _CORRECTION_STRONG.search(sentence)
        or ((decisive or named) and _CORRECTION_CHANGE.search(sentence))
        or (decisive and _CORRECTION_WEAK.search(sentence))
    ):
        return "correction" if (decisive or named or _long_enough(sentence)) else None
    if identity:
        return "permanent"
    if near_term:
        return "ephemeral"
    if durable:
        return "durable"
    return None


def is_narrative(sentence: str) -> bool:
    """Whether a sentence only tells of something that already happened (pure): a past-tense
    verb and nothing that points ahead. Such a sentence is not a reminder even when it says
    "today"; it stays decisive only through other signals (a number, a decision, ...).

    >>> is_narrative("The printer jammed twice today."), is_narrative("I booked a table for tonight.")
    (True, False)
    >>> is_narrative("The call is scheduled for today.")
    False
    >>> is_narrative("今天电梯坏了，只好走楼梯。"), is_narrative("今天要交报告了。")
    (True, False)
    """
    if _CJK.search(sentence):
        return bool(_PAST_ZH.search(sentence)) and not _AHEAD_ZH.search(sentence)
    return bool(_PAST_EN.search(sentence)) and not _AHEAD_EN.search(sentence)


def has_name(sentence: str) -> bool:
    """Whether a sentence holds a capitalised name that does not open it or a clause (pure).

    >>> has_name("Our wiki runs on Confluence."), has_name("Sounds good. I agree.")
    (True, False)
    """
    for found in _CAPITALISED.finditer(sentence):
        before = sentence[:found.start()].rstrip()
        if not before or before[-1] in ".!?:;\"“(" or found.group(0) in _NOT_NAMES:
            continue
        return True
    return False


def extract_facts(user_texts: Iterable[str]) -> list[tuple[str, str]]:
    """``[(mark, sentence)]`` of decisive sentences, verbatim, first occurrence only (pure)."""
    return [(mark, text) for mark, text, _ in extract_dated_facts((text, None) for text in user_texts)]


def extract_dated_facts(texts: Iterable[tuple[str, str | None]]) -> list[tuple[str, str, str | None]]:
    """``[(mark, sentence, day)]`` for ``(text, day said)`` pairs (pure); see :func:`extract_facts`."""
    facts: list[tuple[str, str, str | None]] = []
    seen: set[str] = set()
    for text, day in texts:
        for sentence in split_sentences(_FENCE.sub("\n", text)):
            mark = classify_sentence(sentence)
            if mark is not None and sentence not in seen:
                seen.add(sentence)
                facts.append((mark, sentence, day))
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
    for message in messages:
        if message.get("role") == "user":
            said = message_time(message)
            texts.append((content_text(message.get("content")), said[:10] if said else None))
    facts = [
        {"mark": mark, "text": f"{text} (said {day})" if mark == "ephemeral" and day else text}
        for mark, text, day in extract_dated_facts(texts)
    ]
    return {"facts": facts, "nothing": not facts}


class OfflineEngine:
    """A deterministic :class:`nanomem.chat.ChatModel`; see the module docstring."""

    name = "offline"

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        self.clock = clock or datetime.now

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request from ``request.task``; never raises for an unknown task."""
        task = request.task
        kind = type(task).__name__
        if kind == "ConsolidateTask":
            arguments = render_archive_arguments(task.messages)
            call = ToolCall(
                id="offline-archive-1",
                name="archive_history",
                arguments=json.dumps(arguments, ensure_ascii=False),
            )
            return ChatResponse(
                content=None, tool_calls=(call,), finish_reason="tool_calls", usage=_no_usage()
            )
        if kind == "DreamTask":
            from nanomem import offline_dream  # lazy: dream imports the stages above us

            return offline_dream.plan_dream_reply(task, request.messages)
        return ChatResponse(content=NOT_A_CHAT_MODEL, finish_reason="stop", usage=_no_usage())


def _no_usage() -> Usage | None:
    # The offline engine has no tokenizer; reporting no usage keeps calibration untouched.
    return None


def _long_enough(sentence: str) -> bool:
    if _CJK.search(sentence):
        return len(_CJK.findall(sentence)) >= 6
    return len(sentence.split()) >= 4

