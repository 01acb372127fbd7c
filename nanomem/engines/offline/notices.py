"""Machine-written notices pasted into the chat (pure; round-9 study).

People paste the texts their phone receives: a parcel-locker pickup code, a delivery slot, a
one-time login code, an appointment reminder from a booking system. Such a text is about the
person but not said by them, and what it holds (a pickup code, a slot) is over in a day. Its
structure gives it away, whatever the sender or the words:

- it is **addressed to the reader** (*you / your*, 您) and has **no first person** (I, my, we, 我);
- it holds a **code**: a number of four or more digits, or letters and digits together; or
  (round 19) a **link** to click, which every scam text carries (cra-ca-refund.com);
- it is **signed or templated**: a sender tag in brackets opening it (【Sender】, [Sender]), or
  the fixed phrasing of notifications (*do not share*, *valid for*, *reply STOP*, *is ready for
  collection*, 请及时, 凭…领取, 验证码) or of a prize text (*click here*, *to claim*; round 20).

>>> is_machine_notice("【顺丰速运】您的快件已放入3号柜，取件码5521，请及时取件。")
True
>>> is_machine_notice("Your Evri parcel is ready for collection at the locker, code 448192.")
True
>>> is_machine_notice("My locker code at the gym is 4471.")  # the person's own fact
False

A notice quoted inside the person's own message ("got this text: 'Parcel Force: you owe
£2.99, pay at pf-fees.net'") is set aside whole by :func:`without_quoted_notices` before the
message is cut into sentences, so no piece of it is judged as the person's own words.

>>> without_quoted_notices("Got this text: 'Parcel Force: you owe £2.99, pay at pf-fees.net' again.")
'Got this text:  again.'
"""

from __future__ import annotations

import re

__all__ = ["is_machine_notice", "without_quoted_notices"]

_I = re.IGNORECASE
_TAG = re.compile(r"^\W{0,2}(?:【[^】]{2,16}】|\[(?!REDACTED)[A-Z][^\]]{1,24}\]|(?-i:[A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+){0,2}):\s)")
_ADDRESSED = re.compile(r"\b(?:you|your|you're|you’re)\b|您", _I)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'll|me|my|mine|we|our|us)\b|我", _I)
_CODE = re.compile(r"(?<![\d.,:])\d{4,}(?![\d.,:]\d)|\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,}\b"
                   r"|https?://\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|info|cc|co|io|xyz|top|me|ly|uk|ca|cn|us|biz|site|online|link)\b")
# a span in quotes: opened after a space or colon, closed before a space or a stop (not "fishin'")
_QUOTED = re.compile(r"(?:(?<=^)|(?<=[\s:：(]))(['\"“‘])(?P<quoted>\S[^\n]{18,}?\S)['\"”’](?=$|[\s.,;!?)])", re.M)
_TEMPLATE = re.compile(
    r"\b(?:do not share|don't share|never share|valid for|expires in|reply stop|text stop|"
    r"(?:is|are) (?:now )?(?:ready for (?:collection|pickup|pick-up)|out for delivery|awaiting collection)|"
    r"has been (?:delivered|dispatched|shipped)|to collect|collection code|pickup code|pick-up code|"
    r"verification code|one-time (?:code|password|passcode)|security code|track your|"
    r"click (?:here|the link|now|http)|(?:to|and) claim|claim (?:your|it|now))\b"  # round 20: a prize text's call to click
    r"|请及时|凭[^，。]{0,12}(?:领取|取件|取货)|取件码|验证码|已到站|已签收|已发货|派送|请勿泄露|退订", _I)


def is_machine_notice(sentence: str) -> bool:
    """Whether a sentence is a pasted notification (see the module doc): addressed to the reader
    with no first person, holding a code, and signed or templated."""
    if _FIRST_PERSON.search(sentence) or not _CODE.search(sentence):
        return False
    tagged, templated = bool(_TAG.search(sentence)), bool(_TEMPLATE.search(sentence))
    return (tagged or templated) and (bool(_ADDRESSED.search(sentence)) or (tagged and templated))


def without_quoted_notices(text: str) -> str:
    """``text`` without the notices quoted in it (see the module doc)."""
    return _QUOTED.sub(lambda m: "" if is_machine_notice(m.group("quoted")) else m.group(), text)
