"""Which memory file a fact belongs in, for the offline Dream and the quality ledger: agent
behaviour and requests about how to answer go to ``SOUL.md``, the person to ``USER.md``, the
work (and anything else) to ``memory/MEMORY.md``.

>>> route_fact("Please answer in Portuguese"), route_fact("I am allergic to peanuts")
('SOUL.md', 'USER.md')
>>> route_fact("Project Atlas budget is 40k EUR")
'memory/MEMORY.md'
"""

from __future__ import annotations

import re

from nanomem.dream.gates.corrections import topics_of
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.extract import is_identity_field, is_self_introduction
from nanomem.vocab import CJK_RUN, MEMORY_MD, SOUL_MD, USER_MD

__all__ = ["route_fact"]

_I = re.IGNORECASE
_SOUL = re.compile(
    r"\b(?:answer|answers|answering|reply|replies|respond|responses?|speak|tone|formal|informal|"
    r"concise|verbose|emojis?|bullet points?|markdown|format(?:ting)?|you should|you must|"
    r"address me|talk to me|code blocks?|write in|spelling|language)\b|回答|回复|语气|格式|用中文|用英文|表格|列表", _I)
# A request the person makes of the agent: "please", "you should/can/could …", "I want you to",
# "answer me", or an imperative opening. A bare "you" is not one ("You always format so nicely"
# is a compliment, not a rule for the agent).
_ADDRESSED = re.compile(
    r"\bplease\b|\b(?:can|could|would|will) you\b|\byou(?:'ll| should| must| need| have to| can| could| will| would| may)\b|"
    r"\b(?:want|like|need|ask) you\b|\b(?:answer|reply|respond|talk|write|speak)(?: to)? me\b|"
    r"^\W*(?:don'?t|do not|never|always|use|keep|reply|answer|"
    r"write|be|show|format|avoid|stop|talk|speak|respond)\b", _I)
_HEALTH = re.compile(
    r"\b(?:allerg\w*|diabet\w*|asthma|medication|intoleran\w*|epilep\w*)|过敏|糖尿病|哮喘|不耐受", _I)
_WORK = re.compile(
    r"\b(?:projects?|contracts?|budgets?|meetings?|deadlines?|tasks?|tickets?|releases?|sprints?|"
    r"clients?|customers?|invoices?|deploy(?:ment)?s?|repo(?:sitory)?|servers?|milestones?|"
    r"roadmap|launch|proposal|report|presentation|colleagues?|team|boss|manager|office|due|"
    r"remind me|appointment|flight|trip)\b|\b[A-Z][A-Z0-9]*-\d[\w-]*\b|[$€£¥]\s?\d|"
    r"项目|合同|预算|会议|开会|截止|任务|客户|发布|报告|提醒我", _I)
_PERSON = re.compile(
    r"\b(?:I|I'm|I've|my|me|mine|myself|user|user's|name|lives?|born|allerg\w*|prefers?|"
    r"likes?|loves?|hates?|dislikes?|wife|husband|partner|son|daughter|kids?|children|dog|cat|"
    r"birthday|vegetarian|vegan|diet)\b|我", _I)


def route_fact(text: str) -> str:
    """The file a fact belongs in: agent behaviour -> SOUL.md, the work -> memory/MEMORY.md,
    the person -> USER.md, anything else -> memory/MEMORY.md. Health facts always go to
    USER.md; an English fact goes to SOUL.md only when it addresses the agent ("you", "your",
    or an imperative), so "the host answers quickly" is not a rule for the agent.

    >>> route_fact("Keep your replies short"), route_fact("The landlord replies within a day")
    ('SOUL.md', 'memory/MEMORY.md')
    """
    if _HEALTH.search(text) or is_identity_field(text):
        return USER_MD  # "you must never forget: I'm allergic to X", session 27 "email = jo@x.org": the person
    if is_style_request(text) or (_SOUL.search(text) and (_ADDRESSED.search(text) or CJK_RUN.search(text))):
        return SOUL_MD
    if is_self_introduction(text) or topics_of(text, correction=True):
        return USER_MD  # where the person lives, their name, job, allergies or diet
    if _WORK.search(text):
        return MEMORY_MD
    if _PERSON.search(text):
        return USER_MD
    return MEMORY_MD
