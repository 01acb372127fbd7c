"""Sentences that hold no fact: social filler and bare secret placeholders (pure).

A sentence is **filler** when, once the words of social talk are set aside, nothing is left:
no number, no identifier, no name (a name used only to address someone, "Agreed, Mel!", does not
count) and no content word. The social words are a closed class that says how someone feels
about what was said, not what is the case: thanks, agreement, sympathy, praise, greetings,
intensifiers and the verbs that carry them ("sounds", "must have been", "hear"). A sentence
with one content word left ("I love hiking", "Thanks, the gate code changed") is a fact.

A sentence is **placeholder-only** when it holds a ``[REDACTED:kind]`` placeholder of a kind the
redaction writes (:data:`nanomem.text.redact.KINDS`) and, once the placeholder, the words that only name a secret ("API key", "password", "log in") and those that
only tell it was typed by mistake ("ignore", "wrong window", 打错) are set aside, nothing is left:
"my API key is [REDACTED:openai-key]" says nothing a memory can use.

>>> is_filler("That must have been awesome!"), is_filler("Agreed, Mel!"), is_filler("谢谢！")
(True, True, True)
>>> is_filler("I love hiking"), is_filler("Thanks, the gate code is 4417 now")
(False, False)
>>> is_placeholder_only("My API key is [REDACTED:openai-key]")
True
>>> is_placeholder_only("The deploy token [REDACTED:github-token] lives on server web-3")
False
>>> is_placeholder_only("My API key is [REDACTED:made-up]")  # no kind the redaction writes
False

Round 5 added four kinds of filler, each by sentence structure, never by phrase
(:func:`filler_kind`):

- a **sign-off**: once the time words ("tonight", 明天) and the closing words ("that's all",
  "stop here", 到这里, 再聊) are set aside too, nothing is left;
- a **bare plan**: a plan ("I'll", "we'll", "let me") whose object is a pronoun pointing back
  ("it", "that") and which names at most one thing besides: "I'll sort it out tomorrow" says
  nothing without the sentence before it; in Chinese, a bare verb with a time word (我周末写);
- a **reaction**: a back-pointing subject with a verb of seeming or a modal of guessing ("That
  must have been …", "It sounds …"), or an exclamation ("What a …"), with no value and nothing
  said of the speaker's own (no I, my, we, our);
- a **remark to the agent**: a sentence about "you" that asks nothing ("You always know what to
  say"), with no value, nothing of the speaker's own, and no word about answers (a complaint
  about answers may be a rule).

:func:`is_agent_words` tells a line in the assistant's voice ("ASSISTANT: Noted.", "The
assistant suggested …"): what the agent said is never a fact about the person.
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.text.noise import noise_reason
from nanomem.text.redact import PLACEHOLDER  # built from redact.KINDS: only what redaction writes
from nanomem.vocab import CJK_RUN, MONTHS, STOP_WORDS, WEEKDAYS

# Round 7: an unfilled template slot ("Dear {{recipient}}", "{first_name}", "${SITE}", "<<name>>",
# "[CLIENT_NAME]", "[NAME]", "%name%"): a name or word in the braces of a template language, standing for
# a value nobody has given yet. A sentence that holds one is a draft being worked on, not a fact.
TEMPLATE_SLOT = re.compile(
    r"\{\{\s*[^{}\n]{1,40}?\s*\}\}|\$?\{\s*[A-Za-z_][\w.-]{0,39}\s*\}|<<\s*[A-Za-z_][\w. -]{0,39}>>"
    r"|\[\[\s*[^\[\]\n]{1,40}\]\]|\[(?-i:[A-Z][A-Z0-9]*(?:[_ ][A-Z0-9]+)+|[A-Z]*(?:NAME|DATE|ADDRESS|EMAIL|PHONE|NUMBER|CITY|COMPANY|RECIPIENT|SENDER|CLIENT|CUSTOMER|AMOUNT))\]|%[A-Za-z_]\w{0,39}%"
    r"|｛｛[^｛｝\n]{1,40}｝｝")

# How someone feels about what was said (English): thanks, agreement, sympathy, praise, greetings,
# intensifiers, and the light verbs and pronouns that carry them. A closed class, not phrases.
SOCIAL_WORDS = frozenset(
    """
    thanks thank thx ty cheers appreciate appreciated welcome pleasure
    yes yeah yep yup sure ok okay alright fine right true exactly absolutely totally definitely
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
    log logon sign signin pw pwd pass passwd wifi wi fi security verification otp 2fa
    """.split()
)
# What is said of a secret typed by mistake, beside its placeholder: the slip, and that it
# should be forgotten ("Log in: [REDACTED:password] — ignore, wrong window.").
SLIP_WORDS = frozenset(
    """
    ignore ignored disregard forget wrong window box tab field mistake mistakenly accident
    accidentally oops whoops typo typed type pasted paste sent meant silly daft ugh bother
    delete remove change changing changed reset now sorry please that this there here saw
    """.split()
)
# The accounts a secret opens, said beside it ("my online banking password is …", 网银密码是 …,
# 支付宝密码): with the secret gone they are no fact, as the secret's own name is none. A closed
# class of kinds of account (banks, cards, payment apps, mail, phone), not one account's name.
ACCOUNT_WORDS = frozenset(
    """
    account accounts bank banking online card debit credit email e-mail mail phone app wallet
    """.split()
)
SECRET_ZH = re.compile(
    r"密钥|秘钥|密码|口令|令牌|验证码|登录|登陆|是|我的|这个|这是"
    r"|网银|网上银行|手机银行|银行卡|信用卡|储蓄卡|借记卡|银行|支付宝|微信支付|微信|支付|钱包"
    r"|账户|帐户|账号|帐号|邮箱|手机|取款|交易|开机|解锁|锁屏|卡|的")
# The Chinese of SLIP_WORDS: ignore it, wrong window or box, by accident, typed / pasted / sent
# into, delete, change it ("密码是[REDACTED:password] — 发错窗口了，忽略").
_SECRET_SLIP_ZH = re.compile(
    SECRET_ZH.pattern + r"|别记|不要记|别存|不要存|别保存|当没看见|没看见|打错|发错|输错|填错|贴错|搞错|弄错"
    r"|手滑|误发|不小心|窗口|搜索框|输入框|聊天框|对话框|框里|刚才|刚刚|马上|回头|忽略|无视|别管|不用管"
    r"|不要管|发出来|发出去|打到|输到|贴到|发到|粘贴|删掉|删了|删除|这个|那个|一下|一会儿|待会儿?|等下"
    r"|把|里|它|去|就|改|啊|吧|哦|呃")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# Words that only place a remark in the day or close the talk: a sign-off is nothing else.
TIME_WORDS = frozenset(
    """
    today tonight tomorrow morning afternoon evening night weekend week later soon now again
    today's tonight's tomorrow's
    """.split()
)
CLOSING_WORDS = frozenset(
    "stop stopping here all done enough leave wrap wrapping bed sleep bye for carry continue resume".split())
# A plan that names nothing: the subject's will, the particles of phrasal verbs, the pronouns
# that point back to what was said before.
PLAN_WORDS = frozenset("i'll we'll i'd we'd will shall gonna let's then maybe probably first".split())
PARTICLES = frozenset("up in out off over back down on through away around".split())
POINTERS = frozenset("it that this them those these".split())
_TIME_CLOSING_ZH = re.compile(
    r"今天|明天|后天|今晚|明晚|今早|早上|晚上|上午|下午|中午|周末|待会儿?|一会儿?|回头|改天|"
    r"到这里|到这儿|到此|这样|们|先|再|就|那|聊|吧|睡了")
_DIGIT = re.compile(r"\d")
_LABEL = re.compile(r"^\s*[A-Z][a-z]+(?: [a-z]+){0,3}\s*:\s*(?P<value>\S.*)$")
_INNER_NAME = re.compile(r"(?<=[a-z,;:])\s+(?:[A-Z][a-z]+|[A-Z]{2,})\b")
_OWN = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'd|I’d|my|mine|we|we're|we’re|our|ours)\b", re.I)
_OPENERS = SOCIAL_WORDS - {"that", "that's", "it's", "what", "what's", "how", "you're", "one"} | {"honestly", "so", "and", "but"}
_REACTION = re.compile(
    r"(?:that|this|it|which)(?:['’]s|\s+is|\s+was)?\s+(?:(?:must|might|may|could|would|should|will)"
    r"(?:\s+have\s+been|\s+be|\s+sound|\s+seem|\s+look|\s+feel)|(?:sounds?|seems?|looks?|feels?|sounded|"
    r"seemed|looked|felt))\b|what\s+an?\b", re.I)
_TO_AGENT = re.compile(r"(?:you|you['’](?:re|ve|d)|your)\b", re.I)
_REQUEST = re.compile(
    r"\b(?:please|should|must|can|could|will|would|need|needs|have to|may|might)\b|you['’]ll|\?", re.I)
# A remark to the agent about its answers may be a rule ("Your replies are long"), unless it
# praises; a complaint ("too", "not", "less") always may.
_ABOUT_ANSWERS = re.compile(
    r"\b(?:answers?|repl(?:y|ies)|responses?|summar(?:y|ies)|tone|format\w*|length|words|emojis?|lists?|"
    r"bullets?|tables?|spelling|language)\b", re.I)
_COMPLAINT = re.compile(r"\b(?:not|never|too|less|more|stop)\b|n['’]t\b|\w+er than\b", re.I)
PRAISE = frozenset(
    """
    great awesome amazing wonderful fantastic brilliant excellent perfect lovely nice neat beautiful
    impressive helpful clear clever kind good well patient star lifesaver
    """.split()
)
_AGENT_VOICE = re.compile(
    r"\W*(?:(?:assistant|agent|ai|bot)\s*[:：]|(?:the\s+)?(?:assistant|agent|ai|bot)\s+(?:said|says|suggested|"
    r"suggests|recommended|recommends|replied|answered|offered|explained|noted|proposed|asked|agreed|"
    r"confirmed|thinks|thought)\b)", re.I)
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
    return filler_kind(text) is not None


def filler_kind(text: str) -> str | None:
    """``social``, ``sign-off``, ``bare plan``, ``reaction`` or ``remark to the agent`` when the
    sentence holds no fact (see the module doc), else ``None``.

    >>> filler_kind("OK, that's all for tonight."), filler_kind("我们下午再弄。")
    ('sign-off', 'bare plan')
    >>> filler_kind("I'll tidy them up later."), filler_kind("I'll send it to Ines later.")
    ('bare plan', None)
    >>> filler_kind("That must be so frustrating for you."), filler_kind("It sounds like my boss quit.")
    ('reaction', None)
    >>> filler_kind("You explain things so clearly."), filler_kind("You should explain less.")
    ('remark to the agent', None)
    """
    if not text.strip() or PLACEHOLDER.search(text):
        return None
    label = _LABEL.match(text)
    if label and content_left(label.group("value")):
        return None  # round 11: "Insurer: Santam" is a label and its value, not "Mel: thanks!"
    if not content_left(text):
        return "social"
    if _is_bare_plan(text):
        return "bare plan"
    if not content_left(text, drop=SOCIAL_WORDS | TIME_WORDS | CLOSING_WORDS | PLAN_WORDS,
                        drop_zh=_TIME_CLOSING_ZH):
        return "sign-off"
    if _holds_value(text):
        return None
    body = _after_social(text)
    if _REACTION.match(body):
        return "reaction"
    if _TO_AGENT.match(body) and not _REQUEST.search(body) and _only_praise_of_answers(body):
        return "remark to the agent"
    return None


def is_agent_words(text: str) -> bool:
    """Whether a line is in the assistant's voice: a role label ("ASSISTANT: …") or the agent
    reported as the speaker ("The assistant suggested …").

    >>> is_agent_words("Assistant: I have noted your dates."), is_agent_words("The AI recommended Rust.")
    (True, True)
    >>> is_agent_words("The assistant should answer in Dutch.")
    False
    """
    return bool(_AGENT_VOICE.match(text))


def nonfact_reason(text: str) -> str | None:
    """Why a sentence is not stored as a fact: ``secret-placeholder``, ``template-placeholder``,
    ``assistant's words`` or ``filler``; ``None`` for a sentence that may hold a fact (the
    ledger's skip reasons).

    >>> nonfact_reason("Agent: Sure, done!"), nonfact_reason("I moved to Graz.")
    ("assistant's words", None)
    >>> nonfact_reason("Open the letter with Hi {{first_name}} for now.")
    'template-placeholder'
    """
    if is_placeholder_only(text):
        return "secret-placeholder"
    if holds_template_slot(text):
        return "template-placeholder"
    if is_agent_words(text):
        return "assistant's words"
    if is_filler(text):
        return "filler"
    return noise_reason(text)  # session 26: masks, secret slips, apologies, reported news


def _is_bare_plan(text: str) -> bool:
    if _DIGIT.search(text):
        return False
    if CJK_RUN.search(text):
        left = content_left(text, drop=SOCIAL_WORDS | TIME_WORDS, drop_zh=_TIME_CLOSING_ZH)
        return len("".join(left)) == 1 and bool(_TIME_CLOSING_ZH.search(text))
    words = {w.casefold().replace("’", "'") for w in _WORD.findall(text)}
    if not words & POINTERS or not (words & PLAN_WORDS or re.search(r"\b(?:let me|going to)\b", text, re.I)):
        return False
    drop = SOCIAL_WORDS | TIME_WORDS | CLOSING_WORDS | PLAN_WORDS | PARTICLES | POINTERS
    return len(content_left(text, drop=drop)) <= 1


def _only_praise_of_answers(text: str) -> bool:
    """No word about answers, or praise of them ("You format things so nicely"), and no complaint
    (an unhappy remark about answers may be a rule; the rules for those decide)."""
    if not _ABOUT_ANSWERS.search(text):
        return not _COMPLAINT.search(text)
    words = {w.casefold() for w in _WORD.findall(text)}
    praised = any(w in PRAISE or w.removesuffix("ly") in PRAISE for w in words)
    return praised and not _COMPLAINT.search(text)


def _holds_value(text: str) -> bool:
    """A number, a name inside the sentence, or something the speaker says of themselves."""
    body = _VOCATIVE.sub(" ", text)
    names = [m.group(0).strip() for m in _INNER_NAME.finditer(body)]
    # round 11: a weekday or a month is a time, not a name ("on a Friday night")
    named = any(n.casefold() not in WEEKDAYS and n.casefold() not in MONTHS for n in names)
    return bool(_DIGIT.search(body) or named or _OWN.search(body))


def _after_social(text: str) -> str:
    """``text`` without the social words and punctuation that open it ("Oh wow, what a …")."""
    rest = text.strip()
    while True:
        found = re.match(r"[\W_]*([^\W_]+(?:['’][^\W_]+)?)[\W_]*", rest)
        if not found or found.group(1).casefold() not in _OPENERS or found.end() >= len(rest):
            return rest.lstrip(" \t,.!;:-—–")
        rest = rest[found.end():]


def holds_template_slot(text: str) -> bool:
    """Whether a sentence holds an unfilled template slot (:data:`TEMPLATE_SLOT`): the text it
    belongs to is a draft with a value still to come, so nothing in it is a fact to keep, the
    way a ``[REDACTED:…]`` secret is not.

    >>> holds_template_slot("Sign it off with {{sender}} please"), holds_template_slot("Ref [PROJECT_CODE] here")
    (True, True)
    >>> holds_template_slot("I wrote [sic] in the note"), holds_template_slot("Set x = {1, 2}")
    (False, False)
    >>> holds_template_slot("[URGENT] the boiler service is on 3 May"), holds_template_slot("Hi [FIRSTNAME],")
    (False, True)
    """
    return bool(TEMPLATE_SLOT.search(text))


def is_placeholder_only(text: str) -> bool:
    """True when the sentence's only content is a ``[REDACTED:…]`` placeholder."""
    if not PLACEHOLDER.search(text):
        return False
    rest = PLACEHOLDER.sub(" ", text)
    return not content_left(rest, drop=SOCIAL_WORDS | SECRET_WORDS | SLIP_WORDS | ACCOUNT_WORDS,
                            drop_zh=_SECRET_SLIP_ZH)
