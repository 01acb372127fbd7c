"""The gates: pure checks that every Dream edit must pass before it touches the staged files.

The model proposes, code enforces (DESIGN §4). A :class:`Proposal` is one file's text before
and after a tool call; :class:`GateContext` holds the batch, the files as they were at the
start of the run and as they are staged now, and the config. Each ``check_<name>`` returns
``None`` to accept or a reason a person (and the model) understands. Cumulative rules (the
deletion guard, pins, permanent facts) compare against the ORIGINAL text of the run, so a
run cannot get around them in many small steps. Nothing here does I/O.

>>> ctx = GateContext("- [durable] Budget is $4,500", {"USER.md": ""}, {"USER.md": ""}, Config())
>>> check_all(Proposal("USER.md", "", "- Budget: 4500\\n"), ctx) is None
True
>>> check_all(Proposal("USER.md", "", "- Budget: 5000\\n"), ctx)
"traceability: '5000' in the new text of USER.md does not appear in the batch or the memory files; copy numbers, identifiers and names exactly as the batch writes them, or leave them out"

Order of :func:`check_all` (the first refusal wins): size, secrets, pins, corrections only,
deletion guard, traceability. Paths are checked before a proposal exists, by
:func:`check_path` and :func:`check_symlink`. ``docs/gates.md`` explains each rule.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nanomem.config import Config
from nanomem.redact import find_secrets
from nanomem.workspace import MEMORY_FILES

PIN_MARK = "<!-- pin -->"
PERMANENT_MARK = "<!-- permanent -->"

_TRAILING_MARKS = re.compile(r"(?:\s*<!--.*?-->)+\s*$")
_MARK = re.compile(r"<!--\s*(.*?)\s*-->")
_CORRECTION = re.compile(r"^\s*-\s*\[correction\]\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_CJK = re.compile(r"([\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\u3040-\u30ff])")
_CJK_RUN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\u3040-\u30ff]{2,}")
_CHUNK = re.compile(r"\w+(?:[.,:/@+'’\-–]+\w+)*")
_WORD = re.compile(r"[^\W\d_]+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")
_PIECE_SPLIT = re.compile(r"[-/–,+]")
_LINE_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)*[*_`\"'“(]*")
_SENTENCE_BREAK = re.compile(r"[.!?;]\s+[*_`\"'“(]*")

# Capitalised words that are ordinary words when they open a sentence or a heading.
_COMMON = frozenset(
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

_STOPWORDS = frozenset(
    """
    a an and or of to in on at for with is are was were be been has have had not no but from
    by as it its this that these those user user's agent i my me we our you your he she they his
    her their them there here so very also just still any all some more most does did do will
    would can could should about into than then actually now instead anymore longer correction
    fact facts
    """.split()
)


@dataclass(frozen=True)
class Proposal:
    """One proposed change: the whole text of ``path`` before and after the call."""

    path: str
    before: str
    after: str


@dataclass(frozen=True)
class GateContext:
    """The state the gates judge against.

    ``original_files``: the memory files at the start of the run; ``staged_files``: the staged
    texts before this call; ``batch_text``: the history batch as shown to the model (with the
    entry timestamps).
    """

    batch_text: str
    original_files: Mapping[str, str]
    staged_files: Mapping[str, str]
    config: Config


# ---------------------------------------------------------------------------------- paths


# The topic rule of matches(): (pattern for either side, extra pattern for the correction).
_PERSON_START = r"^(?:(?:the )?user(?:'s)? |I |I'm |I am |we |we're |we are )?(?:now |currently |still |also )?"
_TOPICS: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "residence": (
        re.compile(
            _PERSON_START + r"(?:lives?|living|resides?|residing|based)\b"
            r"|\b(?:I|we)(?:'m|'re| am| are)?(?: now| currently| still)? (?:live|living|reside|residing|based)\b"
            r"|\bmy (?:new )?(?:home|address)\b|我(?:们)?(?:现在)?住|我家在", re.I),
        re.compile(
            r"\b(?:I|we)(?:'ve| have)?(?: just| recently| finally| now| also)? (?:moved|relocated)\b"
            r"(?! (?:the|our|my|his|her|their|its|it|them|a|an|this|that|these|those|some|all)\b)"
            r"|我(?:们)?(?:已经|上周|刚|刚刚)?(?:搬|搬家)(?:到|去|了)?", re.I),
    ),
    "name": (
        re.compile(r"\bmy name\b|\bcall me\b|\bI(?:'m| am) called\b|" + _PERSON_START
                   + r"(?:name|named|called)\b|我叫|我的名字|叫我", re.I),
        re.compile(r"\bmy (?:new |real |full )?name\b", re.I),
    ),
    "job": (
        re.compile(_PERSON_START + r"works? (?:at|for|as)\b|\bI(?:'m| am)?(?: now)? work(?:ing)? (?:at|for|as)\b"
                   r"|\bmy (?:job|employer|role|position)\b|我(?:现在)?在\S{1,12}(?:工作|上班)|我的工作", re.I),
        re.compile(r"\bI (?:joined|quit|left)\b|换工作|跳槽|入职", re.I),
    ),
    "allergy": (
        re.compile(_PERSON_START + r"allergic\b|\bI(?:'m| am)\b[^.!?]{0,20}\ballergic\b"
                   r"|\bmy allerg\w*\b|我[^，。,.]{0,10}过敏", re.I),
        None,
    ),
    "diet": (
        re.compile(_PERSON_START + r"(?:vegetarian|vegan|pescatarian)\b"
                   r"|\bI(?:'m| am)\b[^.!?]{0,20}\b(?:vegetarian|vegan|pescatarian)\b"
                   r"|\bmy diet\b|我[^，。,.]{0,10}(?:吃素|素食)", re.I),
        re.compile(r"\bI (?:now )?(?:eat|drink) (?:meat|fish|dairy)\b", re.I),
    ),
}


def normalise_path(raw: str) -> str:
    """Trim surrounding whitespace and leading ``./``; nothing else is rewritten.

    >>> normalise_path(" ./USER.md ")
    'USER.md'
    """
    path = raw.strip()
    while path.startswith("./"):
        path = path[2:]
    return path


def check_path(raw: str) -> str | None:
    """Refuse anything but ``SOUL.md``, ``USER.md`` and ``memory/MEMORY.md``.

    >>> check_path("./USER.md") is None
    True
    >>> check_path("memory/history.jsonl")
    "'memory/history.jsonl' is not a memory file; Dream may edit only SOUL.md, USER.md, memory/MEMORY.md"
    """
    allowed = ", ".join(MEMORY_FILES)
    shown = safe_text(raw[:120])
    if "\x00" in raw or any(unicodedata.category(ch) == "Cc" for ch in raw):
        return f"path '{shown}' contains control characters; use one of {allowed}"
    if "\\" in raw:
        return f"path '{shown}' contains a backslash; use a forward-slash path: {allowed}"
    path = normalise_path(raw)
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or raw.strip().startswith("~"):
        return f"absolute path '{shown}' is not allowed; use a workspace-relative path: {allowed}"
    if ".." in path.split("/"):
        return f"path '{shown}' leaves its directory with '..'; use one of {allowed}"
    if path not in MEMORY_FILES:
        return f"'{shown}' is not a memory file; Dream may edit only {allowed}"
    return None


_BOOKKEEPING = ("memory/", "prompts/", "sessions/", ".git/", ".nanomem.git/")


def check_symlink(path: str, resolved: str, root: str) -> str | None:
    """Refuse a memory path whose real location (links followed) is outside the workspace,
    or is a bookkeeping file such as ``memory/history.jsonl``. Pure string logic: the caller
    passes ``os.path.realpath`` of the file and of the workspace root.

    >>> check_symlink("USER.md", "/ws/USER.md", "/ws") is None
    True
    >>> check_symlink("USER.md", "/etc/passwd", "/ws")
    'USER.md is a link that leads outside the workspace (to /etc/passwd); Dream does not write through it'
    """
    resolved_posix = resolved.replace("\\", "/")
    root_posix = root.replace("\\", "/").rstrip("/") or "/"
    if resolved_posix != root_posix and not resolved_posix.startswith(root_posix.rstrip("/") + "/"):
        return (
            f"{path} is a link that leads outside the workspace (to {safe_text(resolved)}); "
            "Dream does not write through it"
        )
    rel = posixpath.relpath(resolved_posix, root_posix)
    if rel == path or rel in MEMORY_FILES:
        return None
    if rel in ("nanomem.toml", ".") or rel.startswith(_BOOKKEEPING):
        return (
            f"{path} is a link to {rel}, a file nanomem manages itself; "
            "Dream does not write through it"
        )
    return None


# ---------------------------------------------------------------------------------- gates


def check_size(proposal: Proposal, context: GateContext) -> str | None:
    """The after text must fit the file's character cap. A file that is already over its cap
    (a person's edit) may still be shrunk, so the model can prune it."""
    cap = context.config.cap_for(proposal.path)
    size, now = len(proposal.after), len(proposal.before)
    if size <= cap or size <= now:
        return None
    return (
        f"size: {proposal.path} would be {size:,} characters, over its cap of {cap:,} "
        f"(now {now:,}); shorten the new text or remove outdated facts first"
    )


def check_secrets(proposal: Proposal, context: GateContext) -> str | None:
    """New text must not contain anything that looks like a credential. A secret already in
    the file (a person put it there) does not block other edits. The reason names the kind,
    never the secret."""
    known = {
        text[m.start : m.end]
        for text in (proposal.before, context.original_files.get(proposal.path, ""))
        for m in find_secrets(text)
    }
    kinds = sorted(
        {m.kind for m in find_secrets(proposal.after) if proposal.after[m.start : m.end] not in known}
    )
    if not kinds:
        return None
    return (
        f"secrets: the new text of {proposal.path} contains what looks like a credential "
        f"({', '.join(kinds)}); memory never stores secrets, leave it out"
    )


def check_pins(proposal: Proposal, context: GateContext) -> str | None:
    """Every line of the original that ends with ``<!-- pin -->`` stays, byte for byte (modulo
    surrounding whitespace); Dream may not add a pin mark of its own either."""
    original = context.original_files.get(proposal.path, "")
    after_lines = Counter(_stripped_lines(proposal.after))
    pinned = Counter(line for line in _stripped_lines(original) if _has_mark(line, "pin"))
    missing = pinned - after_lines
    if missing:
        line = next(iter(missing))
        return (
            f"pins: {proposal.path} line '{_quote(line)}' is pinned by a person; Dream may not "
            "remove or reword it. Keep it exactly as it is"
        )
    new_pins = Counter(line for line in after_lines.elements() if _has_mark(line, "pin")) - pinned
    if new_pins:
        return (
            f"pins: only a person pins a line; remove '{PIN_MARK}' from "
            f"'{_quote(next(iter(new_pins)))}'"
        )
    return None


def check_corrections(proposal: Proposal, context: GateContext) -> str | None:
    """A line marked ``<!-- permanent -->`` in the original may be removed or reworded only
    when the batch holds a ``- [correction] …`` fact that matches it (see :func:`matches`).

    Every removal of such a line passes this gate, so a line that is already gone from the
    staged text was removed with a correction's backing; only the lines this call removes
    need one (a later batch of the same run, with other corrections, is not blocked)."""
    original = context.original_files.get(proposal.path, "")
    permanent = Counter(line for line in _stripped_lines(original) if _has_mark(line, "permanent"))
    # A permanent line already gone from ``before`` left through an accepted call (one that a
    # correction backed, maybe in an earlier batch of this run); only this call's removals count.
    still_there = permanent & Counter(_stripped_lines(proposal.before))
    gone = still_there - Counter(_stripped_lines(proposal.after))
    if not gone:
        return None
    corrections = correction_facts(context.batch_text)
    for line in gone:
        if not any(matches(line, correction) for correction in corrections):
            return (
                f"corrections only: {proposal.path} line '{_quote(line)}' is a permanent fact; "
                "it may change only when the batch holds a matching [correction] (none does). "
                "Keep the line as it is"
            )
    return None


def check_deletion(proposal: Proposal, context: GateContext) -> str | None:
    """Over the whole run, the non-blank lines removed from the original file (as a multiset;
    a reworded line counts as removed) may not exceed ``config.max_deletion_share`` of its
    non-blank lines, rounded down, but at least 1 when the share is above 0."""
    original = [line for line in _stripped_lines(proposal_original(proposal, context)) if line]
    if not original:
        return None
    share = context.config.max_deletion_share
    allowed = int(share * len(original) + 1e-9)
    if share > 0:
        allowed = max(allowed, 1)
    removed = sum((Counter(original) - Counter(_stripped_lines(proposal.after))).values())
    if removed <= allowed:
        return None
    return (
        f"deletion guard: this run would remove {removed} of the {len(original)} lines "
        f"{proposal.path} started with; at most {allowed} ({share:.0%}) may go in one run. "
        "Edit lines in place, or keep more of them"
    )


def check_traceability(proposal: Proposal, context: GateContext) -> str | None:
    """Every number, identifier and capitalised name in new text must appear in the batch or
    in the memory files (original or staged). The lines of ``after`` that are not in
    ``before`` are the new text."""
    new_lines = Counter(proposal.after.splitlines()) - Counter(proposal.before.splitlines())
    if not new_lines:
        return None
    corpus = _Corpus(
        [context.batch_text, proposal.before, *context.original_files.values(),
         *context.staged_files.values()]
    )
    unknown: list[str] = []
    for line in new_lines:
        for token in _untraced(line, corpus):
            if token not in unknown:
                unknown.append(token)
    if not unknown:
        return None
    shown = ", ".join(f"'{_quote(token, 40)}'" for token in unknown[:5])
    more = f" (and {len(unknown) - 5} more)" if len(unknown) > 5 else ""
    verb = "does" if len(unknown) == 1 else "do"
    return (
        f"traceability: {shown}{more} in the new text of {proposal.path} {verb} not appear in "
        "the batch or the memory files; copy numbers, identifiers and names exactly as the "
        "batch writes them, or leave them out"
    )


GATES = (
    check_size,
    check_secrets,
    check_pins,
    check_corrections,
    check_deletion,
    check_traceability,
)


def check_all(proposal: Proposal, context: GateContext) -> str | None:
    """Run every gate in a fixed order; return the first refusal, or ``None``."""
    for gate in GATES:
        reason = gate(proposal, context)
        if reason is not None:
            return reason
    return None


# ---------------------------------------------------------------------------------- helpers


def proposal_original(proposal: Proposal, context: GateContext) -> str:
    """The text ``proposal.path`` had at the start of the run (``""`` for a new file)."""
    return context.original_files.get(proposal.path, "")


def correction_facts(batch_text: str) -> list[str]:
    """The text of every ``- [correction] …`` line of the batch.

    >>> correction_facts("- [durable] x\\n- [correction] moved to Porto")
    ['moved to Porto']
    """
    return [match.group(1) for match in _CORRECTION.finditer(batch_text)]


def matches(permanent_line: str, correction: str) -> bool:
    """Whether a correction is about a permanent line.

    They match when they share a distinctive token (a number, an identifier, an e-mail or
    URL, or a capitalised name) or at least two content words (stop words dropped, a final
    ``s`` ignored; for Chinese/Japanese/Korean, two shared character pairs), or when both
    speak of the same topic of the person (:func:`topics_of`: where they live, their name,
    job, allergies or diet), so "I live in Porto" is corrected by "I moved to Lisbon".

    >>> matches("- I live in Porto <!-- permanent -->", "Actually, I moved to Lisbon.")
    True
    >>> matches("- I live in Porto <!-- permanent -->", "We moved the server to Oslo.")
    False

    >>> matches("- Lives in Lisbon <!-- permanent -->", "actually I moved from Lisbon to Porto")
    True
    >>> matches("- Allergic to peanuts <!-- permanent -->", "the meeting moved to Friday")
    False
    """
    line = _MARK.sub(" ", permanent_line)
    body = _LINE_PREFIX.sub("", line)
    mine, theirs = _match_units(body), _match_units(correction)
    # A name capitalised on one side may be written in lower case on the other.
    if mine[0] & (theirs[0] | theirs[2]) or theirs[0] & mine[2]:
        return True
    if len(mine[1] & theirs[1]) >= 2:
        return True
    return bool(topics_of(body, correction=False) & topics_of(correction, correction=True))


def topics_of(text: str, *, correction: bool) -> set[str]:
    """The topics of the PERSON a text speaks of (pure): ``residence``, ``name``, ``job``,
    ``health``. Each pattern is anchored on the person (first person, or a subjectless or
    "the user" memory line), so "the office moved" or "Ana lives in Rome" has no topic.
    A ``correction`` may also use a verb of change ("I moved", "我搬到").

    >>> sorted(topics_of("Lives in Lisbon", correction=False)), topics_of("I moved to Porto", correction=True)
    (['residence'], {'residence'})
    >>> topics_of("We moved the server to Frankfurt", correction=True)
    set()
    """
    text = unicodedata.normalize("NFKC", text).replace("’", "'").strip()
    return {
        topic
        for topic, (line_rule, correction_rule) in _TOPICS.items()
        if line_rule.search(text) or (correction and correction_rule and correction_rule.search(text))
    }


def safe_text(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]`` (for reasons and logs)."""
    found = find_secrets(text)
    for match in reversed(found):
        text = text[: match.start] + f"[REDACTED:{match.kind}]" + text[match.end :]
    return text


def _quote(text: str, limit: int = 80) -> str:
    text = safe_text(text.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _has_mark(line: str, name: str) -> bool:
    trailing = _TRAILING_MARKS.search(line)
    if trailing is None:
        return False
    return any(mark.split()[:1] == [name] for mark in _MARK.findall(trailing.group(0)))


def _prepare(text: str) -> str:
    return _CJK.sub(r" \1 ", unicodedata.normalize("NFKC", text))


def _normal_chunk(chunk: str) -> str:
    chunk = _THOUSANDS.sub("", chunk.casefold())
    for suffix in ("'s", "’s"):
        if chunk.endswith(suffix):
            chunk = chunk[: -len(suffix)]
    return chunk


def _is_checked_chunk(chunk: str) -> bool:
    return any(ch.isdigit() for ch in chunk) or "@" in chunk or "://" in chunk


class _Corpus:
    """What the batch and the files contain: normalised number/identifier chunks and their
    pieces, and every word (casefolded)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.chunks: set[str] = set()
        self.words: set[str] = set()
        self.prefixes: dict[str, set[str]] = {}
        for text in texts:
            prepared = _prepare(text)
            for chunk in _CHUNK.findall(prepared):
                if _is_checked_chunk(chunk):
                    normal = _normal_chunk(chunk)
                    self.chunks.add(normal)
                    self.chunks.update(piece for piece in _PIECE_SPLIT.split(normal) if piece)
            for word in _WORD.findall(prepared):
                self.words.add(word.casefold())
        for word in self.words:
            if len(word) >= 4:
                self.prefixes.setdefault(word[:4], set()).add(word)

    def knows_stem(self, word: str) -> bool:
        """A sentence-opening word is an ordinary word when the corpus has the same stem
        (``Prefers`` for ``prefer``): a shared prefix of at least ``max(4, len - 2)``."""
        word = word.casefold()
        need = max(4, len(word) - 2)
        for other in self.prefixes.get(word[:4], ()):
            if len(posixpath.commonprefix([word, other])) >= need:
                return True
        return False


def _untraced(line: str, corpus: _Corpus) -> list[str]:
    """Tokens of one new line that the corpus does not contain."""
    prepared = _prepare(line)
    heading = prepared.lstrip().startswith("#")
    prefix_end = _LINE_PREFIX.match(prepared).end()  # type: ignore[union-attr]
    starts = _sentence_starts(prepared)
    unknown: list[str] = []
    for match in _CHUNK.finditer(prepared):
        chunk = match.group(0)
        if match.end() <= prefix_end:
            continue  # list numbering such as "1." is markup, not a fact
        if _is_checked_chunk(chunk):
            if not _chunk_known(chunk, corpus):
                unknown.append(chunk)
            continue
        for word in _WORD.finditer(chunk):
            text = word.group(0)
            if len(text) < 2 or not text[0].isupper():
                continue
            folded = text.casefold()
            if folded in corpus.words or folded in _COMMON:
                continue
            opening = heading or (match.start() + word.start()) in starts
            if opening and text[1:].islower() and (corpus.knows_stem(text) or _inflected(folded)):
                continue
            unknown.append(text)
    return unknown


def _inflected(word: str) -> bool:
    """An English verb or adverb form (``enjoys``, ``moved``, ``running``, ``mostly``): at the
    start of a sentence such a word is an ordinary word, not a name. Names that end in
    ``-as``, ``-is``, ``-os``, ``-us`` or ``-ss`` (Lucas, Paris, Carlos) are still checked."""
    if len(word) < 5:
        return False
    if word.endswith(("ed", "ing", "ly")):
        return True
    return word.endswith("s") and word[-2] not in "aiousé"


def _chunk_known(chunk: str, corpus: _Corpus) -> bool:
    normal = _normal_chunk(chunk)
    if normal in corpus.chunks:
        return True
    if _DATE.match(normal) or "@" in normal or "://" in normal:
        return False
    for piece in _PIECE_SPLIT.split(_THOUSANDS.sub("", chunk)):
        folded = _normal_chunk(piece)
        if not folded:
            continue
        if any(ch.isdigit() for ch in folded):
            if folded not in corpus.chunks:
                return False
        elif piece[:1].isupper() and folded not in corpus.words and folded not in _COMMON:
            return False
    return True


def _sentence_starts(text: str) -> set[int]:
    starts = {_LINE_PREFIX.match(text).end()}  # type: ignore[union-attr]
    starts.update(match.end() for match in _SENTENCE_BREAK.finditer(text))
    return starts


def _match_units(text: str) -> tuple[set[str], set[str], set[str]]:
    """(distinctive tokens, content words, all words) of a text, for :func:`matches`."""
    prepared = _prepare(text)
    starts = _sentence_starts(prepared)
    distinctive: set[str] = set()
    content: set[str] = set()
    words: set[str] = set()
    for match in _CHUNK.finditer(prepared):
        chunk = match.group(0)
        if _is_checked_chunk(chunk):
            distinctive.add(_normal_chunk(chunk))
            distinctive.update(p for p in _PIECE_SPLIT.split(_normal_chunk(chunk)) if p)
            continue
        for word in _WORD.finditer(chunk):
            original = word.group(0)
            folded = original.casefold()
            if _CJK.fullmatch(original):
                continue
            words.add(folded)
            if (
                original[:1].isupper()
                and (match.start() + word.start()) not in starts
                and folded not in _COMMON
            ):
                distinctive.add(folded)
            if len(folded) >= 3 and folded not in _STOPWORDS:
                content.add(folded[:-1] if folded.endswith("s") and len(folded) > 3 else folded)
    for run in _CJK_RUN.findall(unicodedata.normalize("NFKC", text)):
        content.update(run[i : i + 2] for i in range(len(run) - 1))
    return distinctive, content, words

