"""Quality scores of one replayed workspace, computed from the files on disk only.

:func:`read_snapshot` is the only I/O: it reads the three memory files and
``memory/history.jsonl``. Everything else is a pure function of that snapshot and the scripted
conversation, so a score can never come from what a model says about itself.

>>> from benchmarks.quality.scenarios import parse_conversation
>>> conv = parse_conversation({"id": "t", "sessions": [{"start": "2026-01-01 10:00",
...     "exchanges": [{"user": "I am allergic to penicillin. Door code 4471 today.",
...                    "assistant": "Noted."}]}],
...     "items": [{"id": "a", "kind": "fact", "key": "penicillin", "query": "allergy?"}]})
>>> snap = Snapshot(files={"USER.md": "- Allergic to penicillin\\n- Badge 9921"}, history="")
>>> s = score_snapshot(conv, snap, caps={"USER.md": 100}, ttl_days=7)
>>> s.retention.rate, s.invented
(1.0, ('9921',))
"""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from benchmarks.quality.scenarios import RETAINED_KINDS, Conversation, contains_key

MEMORY_FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-_.:/,]*")


@dataclass(frozen=True)
class Snapshot:
    """The memory files (relative path -> text) and the history contents, as read from disk."""

    files: Mapping[str, str]
    history: str = ""
    seed_text: str = ""  # what the files held before the replay (template, pinned lines)

    @property
    def memory_text(self) -> str:
        """All memory files joined, machine marks (HTML comments) removed."""
        return "\n".join(strip_marks(text) for text in self.files.values())


@dataclass(frozen=True)
class Ratio:
    """``hits`` out of ``total``; ``rate`` is ``None`` when nothing was measured."""

    hits: int
    total: int

    @property
    def rate(self) -> float | None:
        return None if self.total == 0 else self.hits / self.total

    def __add__(self, other: Ratio) -> Ratio:
        return Ratio(self.hits + other.hits, self.total + other.total)

    def to_json(self) -> dict[str, object]:
        return {"hits": self.hits, "total": self.total, "rate": self.rate}


@dataclass(frozen=True)
class ItemOutcome:
    """What the files say about one planted item."""

    id: str
    kind: str
    key: str
    in_memory: bool
    in_history: bool
    old_in_memory: bool | None = None
    expired: bool | None = None
    ok: bool = False


@dataclass(frozen=True)
class FileSize:
    path: str
    chars: int
    cap: int

    @property
    def within_cap(self) -> bool:
        return self.chars <= self.cap


@dataclass(frozen=True)
class QualityScores:
    """Every metric of one conversation (or a total, see :func:`total_scores`)."""

    retention: Ratio
    correction: Ratio
    stale: Ratio  # corrections whose old value is still in memory
    expiry: Ratio
    junk: Ratio
    invented: tuple[str, ...]
    sizes: tuple[FileSize, ...]
    items: tuple[ItemOutcome, ...] = field(default=())

    @property
    def memory_chars(self) -> int:
        return sum(size.chars for size in self.sizes)

    @property
    def within_caps(self) -> bool:
        return all(size.within_cap for size in self.sizes)

    def to_json(self) -> dict[str, object]:
        return {
            "retention": self.retention.to_json(),
            "correction_accuracy": self.correction.to_json(),
            "stale_corrections": self.stale.to_json(),
            "expiry": self.expiry.to_json(),
            "junk_rate": self.junk.to_json(),
            "invention": {"count": len(self.invented), "tokens": list(self.invented)},
            "size": {
                "memory_chars": self.memory_chars,
                "within_caps": self.within_caps,
                "files": [
                    {"path": s.path, "chars": s.chars, "cap": s.cap, "ratio": s.chars / s.cap}
                    for s in self.sizes
                ],
            },
            "items": [dataclasses.asdict(item) for item in self.items],
        }


def strip_marks(text: str) -> str:
    """Remove HTML comments, the machine marks of memory lines (``<!-- pin -->`` and friends).

    >>> strip_marks("- Tea <!-- ephemeral 2026-03-02 -->")
    '- Tea '
    """
    return _COMMENT.sub("", text)


def extract_tokens(text: str) -> set[str]:
    """Numbers and identifiers in ``text``: word-like tokens holding a digit, folded.

    >>> sorted(extract_tokens("Contract KX-7731, budget 5,750 EUR at 08:15. 预算9.5万"))
    ['08:15', '5750', '9.5', 'kx-7731']
    """
    folded = unicodedata.normalize("NFKC", text)
    tokens = set()
    for match in _TOKEN.finditer(folded):
        token = re.sub(r"(?<=\d),(?=\d{3})", "", match.group()).rstrip("-_.:/,").lower()
        if any(ch.isdigit() for ch in token):
            tokens.add(token)
    return tokens


def find_invented(memory_text: str, allowed_texts: Iterable[str]) -> tuple[str, ...]:
    """Tokens of :func:`extract_tokens` in memory that appear in none of ``allowed_texts``.

    A part of an allowed identifier is allowed too (``7731`` when ``KX-7731`` was said).

    >>> find_invented("- Budget 5,750 EUR, code 8812, ref 7731", ["budget 5750 EUR, KX-7731"])
    ('8812',)
    """
    allowed: set[str] = set()
    for text in allowed_texts:
        for token in extract_tokens(text):
            allowed.add(token)
            allowed.update(part for part in re.split(r"[-_/:]", token) if part)
    return tuple(sorted(extract_tokens(memory_text) - allowed))


def history_text(raw_jsonl: str) -> str:
    """The ``content`` of every well-formed history line, joined (malformed lines skipped)."""
    contents = []
    for line in raw_jsonl.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("content"), str):
            contents.append(entry["content"])
    return "\n".join(contents)


def read_snapshot(root: Path, *, seed_text: str = "") -> Snapshot:
    """Read the memory files and the history of workspace ``root`` (missing files are empty).

    The history includes overflow segments (``memory/history.overflow-*.jsonl``).
    """
    root = Path(root)

    def read(rel: str) -> str:
        path = root.joinpath(*rel.split("/"))
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""

    segments = sorted((root / "memory").glob("history.overflow-*.jsonl"))
    raw = [p.read_text(encoding="utf-8", errors="replace") for p in segments]
    return Snapshot(
        files={rel: read(rel) for rel in MEMORY_FILES},
        history=history_text("\n".join([*raw, read("memory/history.jsonl")])),
        seed_text=seed_text,
    )


def score_snapshot(
    conversation: Conversation,
    snapshot: Snapshot,
    *,
    caps: Mapping[str, int],
    ttl_days: int,
) -> QualityScores:
    """Score one workspace snapshot against the planted items of ``conversation``."""
    memory = snapshot.memory_text
    end = conversation.end
    outcomes = []
    for item in conversation.items:
        in_memory = contains_key(memory, item.key)
        in_history = contains_key(snapshot.history, item.key)
        old_in_memory = contains_key(memory, item.old) if item.old else None
        expired = None
        if item.kind in RETAINED_KINDS:
            ok = in_memory or (item.history_ok and in_history)
        elif item.kind == "correction":
            ok = in_memory and not old_in_memory
        elif item.kind == "ephemeral":
            expired = end - item.planted_at > timedelta(days=ttl_days)
            ok = not in_memory if expired else True
        else:  # noise: ok means "not kept"
            ok = not in_memory
        outcomes.append(
            ItemOutcome(item.id, item.kind, item.key, in_memory, in_history, old_in_memory, expired, ok)
        )

    def ratio(kinds: tuple[str, ...], hit) -> Ratio:
        chosen = [o for o in outcomes if o.kind in kinds]
        return Ratio(sum(1 for o in chosen if hit(o)), len(chosen))

    allowed = [turn.content for turn in conversation.turns()]
    allowed += [turn.timestamp for turn in conversation.turns()]
    allowed.append(snapshot.seed_text)
    return QualityScores(
        retention=ratio(RETAINED_KINDS, lambda o: o.ok),
        correction=ratio(("correction",), lambda o: o.ok),
        stale=ratio(("correction",), lambda o: bool(o.old_in_memory)),
        expiry=Ratio(
            sum(1 for o in outcomes if o.expired and o.ok),
            sum(1 for o in outcomes if o.expired),
        ),
        junk=ratio(("noise",), lambda o: o.in_memory),
        invented=find_invented(memory, allowed),
        sizes=tuple(
            FileSize(rel, len(text), int(caps.get(rel, 0) or 0)) for rel, text in snapshot.files.items()
        ),
        items=tuple(outcomes),
    )


def total_scores(scores: Iterable[QualityScores]) -> QualityScores:
    """Pool several conversations: ratios are summed (micro-average), tokens and sizes joined."""
    scores = list(scores)
    zero = Ratio(0, 0)
    return QualityScores(
        retention=sum((s.retention for s in scores), zero),
        correction=sum((s.correction for s in scores), zero),
        stale=sum((s.stale for s in scores), zero),
        expiry=sum((s.expiry for s in scores), zero),
        junk=sum((s.junk for s in scores), zero),
        invented=tuple(token for s in scores for token in s.invented),
        sizes=tuple(size for s in scores for size in s.sizes),
    )
