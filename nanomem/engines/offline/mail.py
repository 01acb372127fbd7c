"""The body of a message written as an e-mail (pure; round-11 study).

Some people write every chat message as a letter: a subject line, a greeting, the agent's last
reply quoted back with ``>``, a valediction and a signature, "Sent from my iPad"; others paste a
whole mail, headers and all, or forward a chain letter. None of that frame is a fact the person
states: the quoted lines are the agent's (or someone else's) words, the header and the signature
repeat themselves in every message, and a chain letter is someone else's text. What is left,
the body, is judged sentence by sentence as any message is. The shapes are those of mail
itself, not of any one writer:

- a **quoted line**: it opens with ``>``; an attribution line before a quote ("On 3 May, Ana
  wrote:") goes with it;
- an **original message** under a reply: from its marker line ("-----Original Message-----")
  to the end, someone else's text;
- a **forwarded message** (round 17): its marker line ("---------- Forwarded message
  ----------", "Begin forwarded message:") and the header under it; the forwarded text itself is
  judged as a pasted one is (people forward their own records: an insurance renewal, a club's
  notice, a roster), unless it is a chain letter (:func:`is_chain_letter`), which is someone
  else's text to the end, as is a second marker under the first;
- a **header line** (``Subject:``, ``From:``, ``To:``, ``Cc:``, ``Date:``, ``Sent:``): the
  subject is returned apart, since it can announce what the body corrects ("Subject: Change of
  plans");
- a **client footer** ("Sent from my iPhone", "Get Outlook for Android");
- a **signature**: a ``--`` line and what follows it, or a valediction alone on its line
  ("Regards,", "Kind regards", "Cheers,", 此致) and at most four short lines after it;
- a **text pasted to ask whether it is genuine** (round 18): the opening paragraph asks "is this
  real?", "legit or scam?", 是不是真的, ¿es real?, and the text pasted under it is someone else's
  (a message that came to the phone), not the person's own record: only the question is left.

>>> parts = message_body("Subject: Re: Trip\\n\\n> See you at 9.\\n\\nBook the 08:10 ferry.\\n\\nRegards,\\nAl Moss\\nLeith\\n\\nSent from my iPhone")
>>> parts.body.split(), parts.subject
(['Book', 'the', '08:10', 'ferry.'], 'Re: Trip')
>>> message_body("No frame at all: the gate code is 4471.").body
'No frame at all: the gate code is 4471.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MailParts", "asks_if_genuine", "is_chain_letter", "message_body", "subject_announces"]

_I = re.IGNORECASE
_QUOTED = re.compile(r"^\s*>")
_ATTRIBUTION = re.compile(r"^\s*On\b.{4,160}\b(?:wrote|schrieb|a écrit)\s*:\s*$|^.{0,80}写道[:：]\s*$", _I)
_FORWARD = re.compile(
    r"^\s*(?:-{2,}\s*(?:forwarded message|original message|forwarded by\b.*)\s*-{2,}|begin forwarded message\s*:"
    r"|-{2,}\s*(?:转发的邮件|原始邮件)\s*-{2,})\s*$", _I)
_ORIGINAL = re.compile(r"original message|原始邮件", _I)  # the mail a reply answers: someone else's text
_HEADER = re.compile(r"^\s*(?P<name>subject|from|to|cc|bcc|date|sent|reply-to|主题|发件人|收件人|抄送)\s*[:：]\s?(?P<value>.*)$", _I)
_FOOTER = re.compile(r"^\s*(?:sent from my\b.{0,40}|sent from (?:outlook|yahoo mail|mail) for\b.{0,30}|get outlook for\b.{0,30}"
                     r"|发自我的\S{0,12})\s*$", _I)
_DASHES = re.compile(r"^\s*--\s*$")
_VALEDICTION = re.compile(
    r"^\s*(?:(?:kind|best|warm|warmest|many|with|all the)\s+(?:regards|wishes|thanks|best)|regards|best|cheers|"
    r"sincerely|yours(?:\s+(?:truly|sincerely|faithfully|ever))?|respectfully|love|"
    r"thanks(?:\s+again)?|many thanks|thank you|take care|talk soon|此致|敬礼|祝好|顺祝商祺)\s*[,.!，。]?\s*$", _I)
_SIGNATURE_LINES = 4  # a signature is short: a name, a place, a phone number, a title
_SIGNATURE_WIDTH = 60


@dataclass(frozen=True)
class MailParts:
    """A message's ``body`` (the lines left once its mail frame is set aside) and its ``subject``
    (``""`` when it has none)."""

    body: str
    subject: str


# Round 18: a question whether a text is genuine ("Is this real?", "legit or a scam?", 是不是真的, ¿es real?)
_ASKS_GENUINE = re.compile(
    r"\b(?:is|was|are) (?:this|that|it|these|they) (?:(?:for )?real|legit|genuine|true|a scam|a con|fake)\b"
    r"|\b(?:legit|real|genuine) or (?:a )?(?:scam|fake|not)\b|\bscam or (?:not|legit|real)\b"
    r"|是不是真的|是真的吗|真的假的|是不是骗|是骗子吗|\bes (?:real|verdad)\b|\bes (?:una )?estafa\b", _I)


def asks_if_genuine(text: str) -> bool:
    """Whether the opening paragraph of ``text`` asks whether the text pasted under it is genuine
    (round 18): that text came to the person (a text message, a mail) and is someone else's.

    >>> asks_if_genuine("Legit or scam?\\n\\nHMRC: you are owed a refund of £310, claim at hmrc-pay.co")
    True
    >>> asks_if_genuine("Is this real, a two-headed calf?")
    False
    """
    opening, blank, pasted = text.strip().partition("\n\n")
    return bool(blank) and bool(pasted.strip()) and bool(_ASKS_GENUINE.search(opening))


def message_body(text: str) -> MailParts:
    """The body and subject of ``text`` (see the module doc); a message with no mail frame
    comes back unchanged, with no subject."""
    if asks_if_genuine(text):
        return MailParts(text.strip().partition("\n\n")[0], "")  # round 18: a pasted text asked about
    lines = text.split("\n")
    subject = ""
    kept: list[str] = []
    forwarded = False
    for n, line in enumerate(lines):
        if _FORWARD.match(line):
            if forwarded or _ORIGINAL.search(line) or is_chain_letter("\n".join(lines[n + 1:])):
                break  # a chain letter, or an original quoted under a forward: someone else's text, to the end
            forwarded = True  # round 17: a forward is judged as a pasted text is, its header set aside
            continue
        header = _HEADER.match(line)
        if header and (_is_header_block(lines, n) or (forwarded and _FORWARD.match(lines[n - 1]))):
            if header.group("name").casefold() in ("subject", "主题") and not subject:
                subject = header.group("value").strip()
            continue
        if _QUOTED.match(line) or _ATTRIBUTION.match(line) or _FOOTER.match(line):
            continue
        kept.append(line)
    kept = _without_signature(kept)
    return MailParts("\n".join(kept).strip("\n") if kept != lines else text, subject)


_CHAIN = re.compile(
    r"\b(?:fwd?|fw)\s*:\s*(?:fwd?|fw)\s*:|\bforward (?:this|it|now)\b|\bshare (?:this |it )?(?:to|with) (?:\d+|ten|all)\b"
    r"|\bclick here\b|\bforwards? this (?:message|e-?mail)\b|\b(?:ten|10) (?:friends|people)\b|转发给\S{0,4}(?:朋友|个人)"
    r"|!{2,}|！{2,}"  # shouted: a giveaway, a scare, a friend's great news
    r"|\b(?:win|won|giving away|is giving|free|voucher|prize|jackpot|cheque|reward)\b[^\n]{0,60}?[$£€¥]\s?\d", _I)


def is_chain_letter(text: str) -> bool:
    """Whether a forwarded text is a chain letter or the like: forwarded on and on ("Fwd: FW:"),
    asking to be passed on ("forward this to ten people", "share to 10 friends", "click here"),
    shouted ("!!"), or a prize of money ("Win a cruise worth $9,000")."""
    return bool(_CHAIN.search(text))


def _is_header_block(lines: list[str], n: int) -> bool:
    """A header line stands at the top of a message or of a pasted mail: the line before it is
    empty, ends with a colon ("pasting from my inbox:"), or is a header itself."""
    before = lines[n - 1].strip() if n else ""
    return not before or before.endswith((":", "：")) or bool(_HEADER.match(lines[n - 1]))


def _without_signature(lines: list[str]) -> list[str]:
    """``lines`` without a trailing signature: from a ``--`` line, or from a valediction alone
    on its line that at most four short lines follow."""
    for n, line in enumerate(lines):
        if _DASHES.match(line):
            return lines[:n]
    content = [n for n, line in enumerate(lines) if line.strip()]
    for n in reversed(content):
        after = [line for line in lines[n + 1:] if line.strip()]
        if len(after) > _SIGNATURE_LINES or any(len(line.strip()) > _SIGNATURE_WIDTH for line in after):
            break
        if _VALEDICTION.match(lines[n]):
            return lines[:n]
    return lines


_ANNOUNCING = re.compile(
    r"^\W*(?:(?:re|fwd?|aw|wg)\s*[:：]\s*)*(?:(?:a |an |the )?(?:change|changes|changed|update|updated|correction|"
    r"corrected|new|moved|cancell?ed|rescheduled|postponed|revised|amended)\b|[^:]{0,40}\b(?:changed|moved|cancell?ed|"
    r"rescheduled|postponed|revised)\W*$)|更正|变更|改期|改了", _I)


def subject_announces(subject: str) -> bool:
    """Whether a subject line announces a change ("Change of lodgings", "Re: Dinner moved",
    "Update: the venue"): what the body says first is then the new value.

    >>> subject_announces("Re: Change of lodgings"), subject_announces("Dinner moved"), subject_announces("Rotary")
    (True, True, False)
    """
    return bool(_ANNOUNCING.search(subject))
