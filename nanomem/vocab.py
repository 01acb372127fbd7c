"""The shared vocabulary, defined once: file names, marks, CJK ranges and stop words (pure).

Every module that needs one of these words imports it from here, so that the gates, the prompt
block, the offline engine and the store agree on what a memory file, a pinned line, a Chinese
character or a stop word is.

>>> MEMORY_FILES
('SOUL.md', 'USER.md', 'memory/MEMORY.md')
>>> is_pinned("- Allergic to peanuts <!--pin-->"), is_pinned("- <!-- pin --> is a mark")
(True, False)
>>> check_link_target("/ws/notes/user.md", "/ws"), check_link_target("/ws/memory/history.jsonl", "/ws")
(None, 'to memory/history.jsonl, a file nanomem manages itself')
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

SOUL_MD = "SOUL.md"
USER_MD = "USER.md"
MEMORY_MD = "memory/MEMORY.md"
# The memory files Dream may edit, relative to the workspace root, in prompt order.
MEMORY_FILES: tuple[str, ...] = (SOUL_MD, USER_MD, MEMORY_MD)
NEAR_FULL = 0.9  # a file at this share of its cap is near full (status and /memory warn)

MEMORY_DIR = "memory"
PENDING = "memory/PENDING.md"  # numbered questions for the person (bookkeeping, versioned)
# What the memory repository versions: the memory files and the pending questions.
VERSIONED_FILES: tuple[str, ...] = (*MEMORY_FILES, PENDING)
HISTORY = "memory/history.jsonl"
CURSOR = "memory/.cursor"
DREAM_CURSOR = "memory/.dream_cursor"
LEGACY_HISTORY = "memory/HISTORY.md"
AUDIT = "memory/dream-audit.jsonl"
MOVED_MD = "memory/MOVED.md"  # lines Dream moved out of a full memory file (bookkeeping)
HISTORY_LOCK = "memory/.history.lock"
DREAM_LOCK = "memory/.dream.lock"
WRITE_JOURNAL = "memory/.write-journal.json"
PROVIDER_NOTES = "memory/.provider_notes.json"
SESSIONS_DIR = "sessions"
PROMPTS_DIR = "prompts"
DREAM_PROMPT = "prompts/dream.md"
CONFIG_FILE = "nanomem.toml"
GITIGNORE = ".gitignore"
GIT_DIR = ".git"
SEPARATE_GIT_DIR = ".nanomem.git"

# Files and folders nanomem keeps for itself: never a memory file, never a link's target.
# Everything under memory/ but MEMORY.md is bookkeeping (history, cursors, audit, locks,
# archive, index, overflow files).
BOOKKEEPING_DIRS: tuple[str, ...] = (MEMORY_DIR, SESSIONS_DIR, PROMPTS_DIR, GIT_DIR,
                                     SEPARATE_GIT_DIR)
BOOKKEEPING_FILES: tuple[str, ...] = (CONFIG_FILE, GITIGNORE)


def is_bookkeeping(rel: str) -> bool:
    """Whether the workspace-relative POSIX path ``rel`` is one of nanomem's own files.

    >>> is_bookkeeping("memory/.cursor"), is_bookkeeping("memory/MEMORY.md"), is_bookkeeping(".git/config")
    (True, False, True)
    >>> is_bookkeeping("notes/user.md"), is_bookkeeping(".")
    (False, True)
    """
    if rel in MEMORY_FILES:
        return False
    if rel in (".", "") or rel in BOOKKEEPING_FILES:
        return True
    top = rel.split("/", 1)[0]
    return top in BOOKKEEPING_DIRS


def check_link_target(resolved: str, root: str) -> str | None:
    """The one symlink policy of the memory files, as pure string logic.

    ``resolved`` is the real path of a memory file (links followed), ``root`` the real path of
    the workspace. None when its content may be read and versioned; else where it leads, as a
    phrase for the caller's message. A memory file may lead to another file inside the
    workspace, but never outside it and never to a bookkeeping file (:func:`is_bookkeeping`).

    >>> check_link_target("/etc/passwd", "/ws")
    'outside the workspace (to /etc/passwd)'
    >>> check_link_target("/ws/.git/config", "/ws")
    'to .git/config, a file nanomem manages itself'
    >>> check_link_target("/ws/SOUL.md", "/ws") is None
    True
    """
    resolved_posix = resolved.replace("\\", "/")
    root_posix = root.replace("\\", "/").rstrip("/") or "/"
    inside = resolved_posix == root_posix or resolved_posix.startswith(root_posix.rstrip("/") + "/")
    if not inside:
        return f"outside the workspace (to {resolved})"
    rel = posixpath.relpath(resolved_posix, root_posix)
    if is_bookkeeping(rel):
        return f"to {rel}, a file nanomem manages itself"
    return None


# The marks a history fact carries (``- [durable] …``); ``skip`` drops a fact in consolidation.
FACT_MARKS: tuple[str, ...] = ("permanent", "durable", "ephemeral", "correction")
SKIP_MARK = "skip"
RAW_MARK = "[RAW]"  # opens a history entry that holds raw turns, not facts

def any_of(*alternatives: str) -> re.Pattern[str]:
    """One case-insensitive pattern that matches any of ``alternatives`` (each in its own group).

    >>> bool(any_of(r"\\bno longer\\b", "改成").search("I No Longer work there"))
    True
    """
    return re.compile("|".join(f"(?:{p})" for p in alternatives), re.IGNORECASE)


def any_word(words: Iterable[str]) -> re.Pattern[str]:
    """One pattern that matches any of the literal ``words``, the longest first where one holds
    another (the dialect folds' word tables).

    >>> any_word(["屋", "屋里"]).findall("屋里屋外")
    ['屋里', '屋']
    """
    return re.compile("|".join(sorted(map(re.escape, words), key=len, reverse=True)))


BULLET = re.compile(r"^\s*[-*+]\s+\S")  # a markdown list item with text: one fact line
PIN_MARK = "<!-- pin -->"
PERMANENT_MARK = "<!-- permanent -->"
MARK = re.compile(r"<!--\s*(.*?)\s*-->")
_TRAILING_MARKS = re.compile(r"(?:\s*<!--(?:(?!-->).)*-->)+\s*$")  # a mark never spans text


def has_mark(line: str, name: str) -> bool:
    """Whether ``line`` ends with an HTML-comment mark whose first word is ``name`` (spacing
    inside the comment is free, several trailing marks may follow each other).

    >>> has_mark("- x <!--permanent--> <!-- ephemeral 2026-12-01 -->", "permanent")
    True
    >>> has_mark("- x <!-- permanent --> and more", "permanent")
    False
    >>> has_mark("- <!-- pin --> x <!-- ephemeral 2026-12-01 -->", "pin")
    False
    """
    trailing = _TRAILING_MARKS.search(line)
    if trailing is None:
        return False
    return any(mark.split()[:1] == [name] for mark in MARK.findall(trailing.group(0)))


def is_pinned(line: str) -> bool:
    """Whether a person pinned ``line``: it ends with ``<!-- pin -->`` (any spacing)."""
    return has_mark(line, "pin")


def is_permanent(line: str) -> bool:
    """Whether ``line`` is a permanent fact: it ends with ``<!-- permanent -->``."""
    return has_mark(line, "permanent")


# Hedges: a closed class of words that say the speaker is not sure. A correction that holds one
# is not applied by the offline Dream but asked of the person (memory/PENDING.md).
HEDGE = re.compile(r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i believe|"
                   r"not sure|unsure)\b|可能|也许|大概|好像|不确定", re.IGNORECASE)


def find_hedge(text: str) -> str | None:
    """The first hedge word of ``text``, or None.

    >>> find_hedge("I think the rent is 1,200 now"), find_hedge("The rent is 1,200 now")
    ('I think', None)
    """
    found = HEDGE.search(text)
    return found.group(0) if found else None


# Unicode ranges, as regex class bodies. HAN: the ideographs (extension A, unified,
# compatibility); KANA: hiragana and katakana; HANGUL: syllables; CJK_WIDE: every East Asian
# block from the radicals to the unified ideographs (symbols, punctuation, kana, bopomofo …).
HAN = "\u3400-\u9fff\uf900-\ufaff"
KANA = "\u3040-\u30ff"
HANGUL = "\uac00-\ud7af"
CJK_WIDE = "\u2e80-\u9fff"

HAN_CLASS = f"[{HAN}]"  # one Chinese character, for patterns that name a run of them
CJK_WIDE_CLASS = f"[{CJK_WIDE}{HANGUL}\uf900-\ufaff{KANA}]"  # a CJK letter or mark
HAN_CHAR: re.Pattern[str]  # these four compile on first use, see __getattr__
HAN_RUN: re.Pattern[str]
CJK_RUN: re.Pattern[str]  # a run of Chinese, Japanese or Korean letters
CJK_CHAR: re.Pattern[str]
_PATTERNS = {"HAN_CHAR": HAN_CLASS, "HAN_RUN": f"[{HAN}]+", "CJK_RUN": f"[{KANA}{HAN}{HANGUL}]+",
             "CJK_CHAR": f"({CJK_WIDE_CLASS})"}


def __getattr__(name: str) -> re.Pattern[str]:
    """The CJK patterns, compiled on first use: a class this wide takes milliseconds to
    compile, which a process that never reads CJK text (``nanomem status``) should not pay."""
    if name in _PATTERNS:
        pattern = globals()[name] = re.compile(_PATTERNS[name])
        return pattern
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# Function words and the nouns every memory line uses; they say nothing about which fact a
# line is, so similarity and matching leave them out.
STOP_WORDS = frozenset(
    """
    a an and or of to in on at for with is are was were be been has have had not no but from
    by as it its this that these those user user's agent i i'm i've my me we our you your he
    she they his her their them there here so very also just still any all some more most does
    did do will would can could should about into than then actually now instead anymore longer
    correction fact facts the please
    """.split()
)

# Capitalised words that are ordinary words when they open a sentence or a heading (never a
# name that must be traced to the batch).
COMMON_WORDS = frozenset(
    """
    a about after again all also always an and another any are as at avoid be because been
    before being both but by can could did do does don't each even every few for from had has
    have he her here hers him his how i if in into is it its just keep less many may me might
    more most much must my never new no none not now of often old on once only or other our out
    over per please same she should since so some still such than that the their them then there
    these they this those though through to too under until up us use used very was we were what
    when where which while who whom why will with within without would yes yet you your
    user user's users agent agent's assistant person people name note notes fact facts
    behaviour behavior preferences preference project projects work health family home tasks
    task deadline deadlines meeting meetings contact contacts language style tone format answer
    answers reply replies respond speak write prefer prefers likes dislikes lives works uses
    wants needs has owns born allergic vegetarian vegan budget contract decision decisions
    identity identifiers open done todo soul memory today tomorrow yesterday currently
    """.split()
)

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
