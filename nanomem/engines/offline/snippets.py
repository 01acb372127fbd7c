"""What a pasted code or config block says about the person (pure; session 27).

A fenced block (```` ``` ````) is material to work on, and until session 27 the consolidator
skipped it whole. A developer's facts often sit inside one: a git config names them
(``name = Ffion Brinkerhoff``), a comment in a compose file or a crontab says where they live or
when the standup is, a row of a pasted list says what they are allergic to. Code itself is never
a statement, so :func:`block_statements` reads only three kinds of line, each judged afterwards by
the ordinary sentence rules, like any sentence of the message:

- a **comment** in words (after ``#``, ``//``, ``--`` or ``;`` at the start of a line or after a
  space, at least five words of letters): "home box in Whanganui, I run pg locally";
- an **identity field**, a key that names a person (name, email, author, owner …) and a value that
  is a capitalised name or an address (:func:`is_identity_field`): ``name = Ffion Brinkerhoff``;
- a line in the speaker's **first person** (I, me, my, we, our) written in words, not code: a row of
  a pasted list about the speaker ("name: Ffion | dietary: nut allergy (put me in hospital once)").

>>> block_statements('''[user]
...     name = Ffion Brinkerhoff
...     email = ffion@quillmate.io
... port = 8000
... # home box in Whanganui, the fibre drops out so I run pg locally
... x = 1  # TODO
... ''')
['name = Ffion Brinkerhoff', 'email = ffion@quillmate.io', 'home box in Whanganui, the fibre drops out so I run pg locally']
"""

from __future__ import annotations

import re

__all__ = ["block_statements", "is_identity_field", "without_blocks"]

_FENCE = re.compile(r"```[^\n]*\n?(?P<body>.*?)(?:```|$)", re.DOTALL)
_COMMENT = re.compile(r"(?:^|(?<=\s))(?:#+|//|--|;)\s+(?P<text>[^\n]+?)\s*$")
_IDENTITY_FIELD = re.compile(
    r"^\s*[\"']?(?P<key>(?:user[_ ]?)?(?:full[_ ]?)?(?:name|e-?mail|author|owner|maintainer))[\"']?\s*[:=]\s*"
    r"(?P<value>\S[^\n]*?)\s*,?\s*$", re.IGNORECASE)
# Round 17: a pasted card or notice names its holder under a Chinese label ("驾驶员：顾卫东", "业主：林美华")
_IDENTITY_FIELD_ZH = re.compile(r"^\s*(?:姓名|名字|驾驶员|司机|业主|户主|车主|房主|持卡人|本人|作者)\s*[:：]\s*[\u4e00-\u9fff]{2,4}\s*$")
_NAME_VALUE = re.compile(r"^[\"']?(?:[A-Z][a-z'’-]+)(?: [A-Z][a-z'’-]+)+[\"']?$|^[\"']?[\w.+-]+@[\w-]+(?:\.[\w-]+)+[\"']?$")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|me|my|we|we're|our|us)\b")
_CODE_MARK = re.compile(r"[{}();=<>\[\]$`]|^\s*(?:def|return|import|from|class|fn|let|const|var|if|for|select)\b|::")


def is_identity_field(line: str) -> bool:
    """Whether a config line gives a person's name or address under a key that names it.

    >>> is_identity_field("name = Ffion Brinkerhoff"), is_identity_field('"author": "Ana Lima <ana@x.org>"')
    (True, False)
    >>> is_identity_field("email: ana@lima.example"), is_identity_field("name: api"), is_identity_field("owner:")
    (True, False, False)
    >>> is_identity_field("业主：林美华"), is_identity_field("业主：请于月底前缴费")
    (True, False)
    """
    found = _IDENTITY_FIELD.match(line)
    return bool(found and _NAME_VALUE.match(found.group("value"))) or bool(_IDENTITY_FIELD_ZH.match(line))


def _words(text: str) -> int:
    return len(re.findall(r"[A-Za-z]{2,}", text))


def block_statements(body: str) -> list[str]:
    """The lines of a block's ``body`` that may state something about the person (see the
    module docstring), in order; every other line is code or data and is left out."""
    statements: list[str] = []
    for line in body.splitlines():
        if is_identity_field(line):
            statements.append(line.strip())
            continue
        comment = _COMMENT.search(line)
        if comment and _words(comment.group("text")) >= 5:  # a shorter comment labels the code
            statements.append(comment.group("text"))
            continue
        text = line.strip()
        if _FIRST_PERSON.search(text) and _words(text) >= 5 and not _CODE_MARK.search(re.sub(r"\([^()]*\)", "", text)):
            statements.append(text)
    return statements


def without_blocks(text: str) -> str:
    """``text`` with each fenced block replaced by its statements, one a line (the rest of a block
    is material, not a statement)."""
    return _FENCE.sub(lambda m: "\n" + "\n".join(block_statements(m.group("body"))) + "\n", text)
