"""Recall conversations: sessions of named turns, and questions with gold answers and evidence.

A file under ``conversations/<split>/<id>.json``::

    {"id": "maya-jonas", "split": "dev", "language": "en",
     "speakers": {"user": "Maya", "assistant": "Jonas"},
     "sessions": [{"id": "s01", "date": "2026-03-03 20:10",
                   "turns": [{"id": "s01-t01", "speaker": "Maya", "text": "hey stranger!"}]}],
     "questions": [{"id": "q01", "question": "...", "answer": "beagle", "alternatives": [],
                    "evidence": ["s01-t07"], "category": "single-hop"}]}

The ``user`` speaker's turns are replayed with role ``user``, the other speaker's with role
``assistant``; both carry the speaker's ``name``. Turn ``n`` of a session is said ``n - 1``
minutes after the session's date. A question whose answer is a date computed from a relative
one ("yesterday", "last Friday") has ``"derived": true`` and ``"derive": {"turn": ID, "days":
N}``: the answer is the date of that turn's session plus ``N`` days.

>>> conv = parse_conversation({"id": "t", "split": "dev", "language": "en",
...     "speakers": {"user": "Ada", "assistant": "Bo"},
...     "sessions": [{"id": "s01", "date": "2026-01-05 09:00", "turns": [
...         {"id": "s01-t01", "speaker": "Ada", "text": "I fed the cat yesterday."},
...         {"id": "s01-t02", "speaker": "Bo", "text": "Good."}]}],
...     "questions": [{"id": "q01", "question": "When?", "answer": "2026-01-04",
...         "evidence": ["s01-t01"], "category": "temporal", "derived": True,
...         "derive": {"turn": "s01-t01", "days": -1}}]}, source="t.json")
>>> conv.turn("s01-t02").role, conv.turn("s01-t02").at.isoformat(), check_conversation(conv)
('assistant', '2026-01-05T09:01:00', [])
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

CONVERSATIONS_DIR = Path(__file__).resolve().parent / "conversations"
SPLITS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6",
          "heldout7", "heldout8", "heldout9", "heldout10", "heldout11", "heldout12",
          "heldout13")
CATEGORIES = ("single-hop", "temporal", "changed-fact", "multi-hop", "chinese", "casual-detail")
DATE_FORMAT = "%Y-%m-%d %H:%M"
TURN_STEP = timedelta(minutes=1)
TURN_ID = re.compile(r"^s\d{2}-t\d{2}$")


class DataError(ValueError):
    """A conversation file is malformed; the message names the file, the entry and the fix."""


@dataclass(frozen=True)
class Turn:
    """One message: who said it, when, and the stable id that questions cite."""

    id: str
    speaker: str
    role: str
    text: str
    at: datetime

    def render(self) -> str:
        """The raw-turn form the BM25 baseline packs: ``[YYYY-MM-DD] speaker: text``."""
        return f"[{self.at:%Y-%m-%d}] {self.speaker}: {self.text}"


@dataclass(frozen=True)
class Session:
    """A sitting of the conversation, with its real start time."""

    id: str
    start: datetime
    turns: tuple[Turn, ...]

    @property
    def end(self) -> datetime:
        return self.start + TURN_STEP * len(self.turns)


@dataclass(frozen=True)
class Question:
    """A question whose answer is in the conversation, with the turns that hold it."""

    id: str
    question: str
    answer: str
    alternatives: tuple[str, ...]
    evidence: tuple[str, ...]
    category: str
    derived: bool = False
    derive_turn: str | None = None
    derive_days: int | None = None

    @property
    def answers(self) -> tuple[str, ...]:
        return (self.answer, *self.alternatives)


@dataclass(frozen=True)
class Conversation:
    """One conversation between two named speakers, and its questions."""

    id: str
    split: str
    language: str
    speakers: Mapping[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    source: str = ""
    _turns: Mapping[str, Turn] = field(default_factory=dict, repr=False, compare=False)

    @property
    def turns(self) -> tuple[Turn, ...]:
        return tuple(t for s in self.sessions for t in s.turns)

    def turn(self, turn_id: str) -> Turn:
        return self._turns[turn_id]

    def has_turn(self, turn_id: str) -> bool:
        return turn_id in self._turns


def normalise(text: str) -> str:
    """NFKC, case-folded, runs of whitespace as one space (pure).

    >>> normalise("  Café\\u3000ＡＢ\\n c ")
    'café ab c'
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _need(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise DataError(f"{where}: missing '{key}'; add it (see benchmarks/recall/README.md)")
    return obj[key]


def parse_conversation(obj: Mapping[str, Any], *, source: str) -> Conversation:
    """A :class:`Conversation` from the parsed JSON of ``source`` (pure; raises DataError)."""
    speakers = dict(_need(obj, "speakers", source))
    roles = {speakers.get("user"): "user", speakers.get("assistant"): "assistant"}
    sessions = []
    for s in _need(obj, "sessions", source):
        where = f"{source} session {s.get('id', '?')}"
        try:
            start = datetime.strptime(_need(s, "date", where), DATE_FORMAT)
        except ValueError as exc:
            raise DataError(f"{where}: date must look like 2026-03-01 19:30 ({exc})") from None
        turns = []
        for n, t in enumerate(_need(s, "turns", where)):
            speaker = _need(t, "speaker", where)
            if speaker not in roles:
                raise DataError(f"{where} turn {t.get('id')}: speaker '{speaker}' is neither "
                                f"of {sorted(speakers.values())}; fix the name")
            turns.append(Turn(id=_need(t, "id", where), speaker=speaker, role=roles[speaker],
                              text=_need(t, "text", where), at=start + TURN_STEP * n))
        sessions.append(Session(id=_need(s, "id", where), start=start, turns=tuple(turns)))
    questions = []
    for q in _need(obj, "questions", source):
        where = f"{source} question {q.get('id', '?')}"
        derive = q.get("derive") or {}
        questions.append(Question(
            id=_need(q, "id", where), question=_need(q, "question", where),
            answer=_need(q, "answer", where), alternatives=tuple(q.get("alternatives", ())),
            evidence=tuple(_need(q, "evidence", where)), category=_need(q, "category", where),
            derived=bool(q.get("derived", False)), derive_turn=derive.get("turn"),
            derive_days=derive.get("days"),
        ))
    turns_by_id = {t.id: t for s in sessions for t in s.turns}
    return Conversation(
        id=_need(obj, "id", source), split=obj.get("split", "dev"),
        language=obj.get("language", "en"), speakers=speakers, sessions=tuple(sessions),
        questions=tuple(questions), source=source, _turns=turns_by_id,
    )


def check_conversation(conv: Conversation) -> list[str]:
    """Every problem with ``conv``'s data, one line each (pure; empty when it is sound).

    Checks ids, categories, that evidence exists, and that each answer is in its evidence
    (or, for a derived date, that the session date plus the offset gives the answer).
    """
    problems: list[str] = []
    where = conv.source or conv.id
    if conv.split not in SPLITS:
        problems.append(f"{where}: split '{conv.split}' is not one of {SPLITS}")
    seen: set[str] = set()
    for session in conv.sessions:
        for turn in session.turns:
            if not TURN_ID.match(turn.id) or not turn.id.startswith(session.id + "-"):
                problems.append(f"{where}: turn id '{turn.id}' must be '{session.id}-tNN'")
            if turn.id in seen:
                problems.append(f"{where}: turn id '{turn.id}' is used twice")
            seen.add(turn.id)
    starts = [s.start for s in conv.sessions]
    if starts != sorted(starts):
        problems.append(f"{where}: sessions are not in date order")
    for q in conv.questions:
        qw = f"{where} {q.id}"
        if q.category not in CATEGORIES:
            problems.append(f"{qw}: category '{q.category}' is not one of {CATEGORIES}")
        missing = [e for e in q.evidence if not conv.has_turn(e)]
        if missing or not q.evidence:
            problems.append(f"{qw}: evidence {missing or '[]'} names no turn of the conversation")
            continue
        if q.derived:
            problems.extend(_check_derived(conv, q, qw))
            continue
        texts = [normalise(conv.turn(e).text) for e in q.evidence]
        if not any(normalise(a) in t for a in q.answers for t in texts):
            problems.append(f"{qw}: no accepted answer {list(q.answers)} appears in its evidence")
    return problems


def _check_derived(conv: Conversation, q: Question, where: str) -> list[str]:
    if q.derive_turn not in q.evidence or q.derive_days is None:
        return [f"{where}: derived answer needs 'derive': {{'turn': <an evidence id>, 'days': N}}"]
    said = conv.turn(q.derive_turn).at.date()
    try:
        gold = date.fromisoformat(q.answer)
    except ValueError:
        return [f"{where}: a derived answer must be an ISO date, not '{q.answer}'"]
    if said + timedelta(days=q.derive_days) != gold:
        return [f"{where}: {said} {q.derive_days:+d} days is "
                f"{said + timedelta(days=q.derive_days)}, not {gold}"]
    return []


def read_conversation(path: Path) -> Conversation:
    """Parse one conversation file (raises DataError naming the file)."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: cannot read the conversation ({exc})") from None
    return parse_conversation(obj, source=str(path))


def load_conversations(
    split: str = "all", *, root: Path = CONVERSATIONS_DIR, ids: Sequence[str] | None = None,
) -> list[Conversation]:
    """The conversations of ``split`` (one of ``SPLITS``, or ``all``), in ``SPLITS`` order, by id."""
    splits = SPLITS if split == "all" else (split,)
    out = [read_conversation(p) for s in splits for p in sorted((root / s).glob("*.json"))]
    return [c for c in out if not ids or c.id in ids]
