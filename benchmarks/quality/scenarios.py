"""Scripted conversations with planted items, loaded from ``conversations/*.json``.

A conversation is a list of sessions, each with a start time and user/assistant exchanges, plus
planted items whose ``key`` is a short string that scoring looks for in the files::

    {"id": "allergy", "kind": "fact", "key": "penicillin", "query": "What is the user allergic to?"}
    {"id": "budget", "kind": "correction", "key": "5,750", "old": "4,300", "query": "..."}

Kinds: ``fact`` and ``preference`` (must be kept), ``correction`` (only the newer value ``key``
may be kept, ``old`` must go), ``ephemeral`` (must be gone once older than the TTL), ``noise``
(should never be kept). ``"history_ok": true`` lets a fact count as retained when it is only in
``memory/history.jsonl``.

A top-level ``"split"`` says how independent a conversation is of the engine's tuning: ``dev``
(the default) for conversations that were read while the offline engine's rules were written,
``heldout`` for those written afterwards, blind to the rules.

>>> conv = parse_conversation({"id": "t", "language": "en", "sessions": [{"start":
...     "2026-01-01 10:00", "exchanges": [{"user": "My name is Ada.", "assistant": "Hi."}]}],
...     "items": [{"id": "n", "kind": "fact", "key": "Ada", "query": "name?"}]})
>>> conv.turn_count, conv.items[0].planted_at.isoformat(), conv.split
(2, '2026-01-01T10:00:00', 'dev')
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

CONVERSATIONS_DIR = Path(__file__).resolve().parent / "conversations"
KINDS = ("fact", "preference", "correction", "ephemeral", "noise")
RETAINED_KINDS = ("fact", "preference")
SPLITS = ("dev", "heldout")  # dev: read while tuning the engine; heldout: written blind to it
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"
MESSAGE_STEP = timedelta(minutes=1)


class ScenarioError(ValueError):
    """A conversation file is malformed; the message names the file, the item and the fix."""


@dataclass(frozen=True)
class Exchange:
    """One user turn and the assistant's reply."""

    user: str
    assistant: str


@dataclass(frozen=True)
class Turn:
    """One message of the replay, with the time the injected clock shows when it is sent."""

    session: int
    role: str
    content: str
    at: datetime

    @property
    def timestamp(self) -> str:
        return self.at.strftime(TIMESTAMP_FORMAT)


@dataclass(frozen=True)
class ScriptSession:
    """A session: a start time and its exchanges, one message per ``MESSAGE_STEP``."""

    index: int
    start: datetime
    exchanges: tuple[Exchange, ...]

    def turns(self) -> tuple[Turn, ...]:
        out: list[Turn] = []
        for exchange in self.exchanges:
            for role, text in (("user", exchange.user), ("assistant", exchange.assistant)):
                out.append(Turn(self.index, role, text, self.start + MESSAGE_STEP * len(out)))
        return tuple(out)

    @property
    def end(self) -> datetime:
        return self.start + MESSAGE_STEP * (2 * len(self.exchanges))


@dataclass(frozen=True)
class PlantedItem:
    """A planted item; ``planted_at`` is the time of the first user turn holding its key."""

    id: str
    kind: str
    key: str
    query: str
    planted_at: datetime
    old: str | None = None
    history_ok: bool = False


@dataclass(frozen=True)
class Conversation:
    """A whole scripted conversation."""

    id: str
    language: str
    title: str
    sessions: tuple[ScriptSession, ...]
    items: tuple[PlantedItem, ...]
    split: str = "dev"

    def turns(self) -> tuple[Turn, ...]:
        return tuple(turn for session in self.sessions for turn in session.turns())

    @property
    def turn_count(self) -> int:
        return sum(2 * len(session.exchanges) for session in self.sessions)

    @property
    def end(self) -> datetime:
        """When the last session ends: the time of the final Dream and of scoring."""
        return self.sessions[-1].end

    def of_kind(self, *kinds: str) -> tuple[PlantedItem, ...]:
        return tuple(item for item in self.items if item.kind in kinds)


def normalise(text: str) -> str:
    """Fold text for key matching: NFKC, lower case, no thousands commas, single spaces.

    >>> normalise("Budget: 5,750  EUR")
    'budget: 5750 eur'
    """
    folded = unicodedata.normalize("NFKC", text).lower()
    folded = re.sub(r"(?<=\d),(?=\d{3})", "", folded)
    return re.sub(r"\s+", " ", folded)


def contains_key(text: str, key: str) -> bool:
    """Whether ``key`` occurs in ``text`` as a word start (and, for numbers, a whole number).

    >>> contains_key("Budget limit 5,750 EUR", "5750"), contains_key("15750", "5750")
    (True, False)
    >>> contains_key("watched octopuses", "octopus"), contains_key("privy", "ivy")
    (True, False)
    """
    needle = normalise(key).strip()
    if not needle:
        return False
    before = r"(?<![a-z0-9.])" if re.match(r"[a-z0-9]", needle) else ""
    after = r"(?![0-9])" if needle[-1].isdigit() else ""
    return re.search(before + re.escape(needle) + after, normalise(text)) is not None


def parse_conversation(data: Mapping[str, Any], *, source: str = "<data>") -> Conversation:
    """Build and validate a :class:`Conversation` from its JSON object."""

    def fail(what: str) -> ScenarioError:
        return ScenarioError(f"{source}: {what}")

    try:
        sessions = tuple(
            ScriptSession(
                index=index,
                start=datetime.strptime(raw["start"], TIMESTAMP_FORMAT),
                exchanges=tuple(Exchange(str(e["user"]), str(e["assistant"])) for e in raw["exchanges"]),
            )
            for index, raw in enumerate(data["sessions"])
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise fail(f"bad session ({exc}); each needs 'start' (YYYY-MM-DD HH:MM) and 'exchanges'") from exc
    if not sessions or any(not s.exchanges for s in sessions):
        raise fail("every conversation needs at least one session with exchanges")
    for earlier, later in zip(sessions, sessions[1:]):
        if later.start < earlier.end:
            raise fail(f"session {later.index} starts before session {earlier.index} ends")
    user_turns = [turn for s in sessions for turn in s.turns() if turn.role == "user"]
    items = tuple(_parse_item(raw, user_turns, fail) for raw in data.get("items", ()))
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise fail("item ids must be unique")
    split = data.get("split", "dev")
    if split not in SPLITS:
        raise fail(f"split {split!r} is not one of {', '.join(SPLITS)}; leave it out for 'dev'")
    return Conversation(
        id=str(data.get("id") or source),
        language=str(data.get("language", "en")),
        title=str(data.get("title", "")),
        sessions=sessions,
        items=items,
        split=split,
    )


def _parse_item(raw: Mapping[str, Any], user_turns: list[Turn], fail: Any) -> PlantedItem:
    item_id = str(raw.get("id", "?"))
    kind = raw.get("kind")
    if kind not in KINDS:
        raise fail(f"item {item_id}: kind {kind!r} is not one of {', '.join(KINDS)}")
    key, query, old = raw.get("key"), raw.get("query"), raw.get("old")
    if not isinstance(key, str) or not key.strip() or not isinstance(query, str):
        raise fail(f"item {item_id}: needs a non-empty string 'key' and a 'query'")
    first = _first_user_turn(user_turns, key)
    if first is None:
        raise fail(f"item {item_id}: key {key!r} appears in no user turn; fix the key or the turn")
    if kind == "correction":
        if not isinstance(old, str) or not old.strip():
            raise fail(f"item {item_id}: a correction needs the superseded value as 'old'")
        first_old = _first_user_turn(user_turns, old)
        if first_old is None or first_old.at >= first.at:
            raise fail(f"item {item_id}: old value {old!r} must appear in a user turn before {key!r}")
    elif old is not None:
        raise fail(f"item {item_id}: only corrections take 'old'")
    return PlantedItem(
        id=item_id,
        kind=kind,
        key=key,
        query=query,
        planted_at=first.at,
        old=old,
        history_ok=bool(raw.get("history_ok", False)),
    )


def _first_user_turn(user_turns: list[Turn], key: str) -> Turn | None:
    return next((turn for turn in user_turns if contains_key(turn.content, key)), None)


def load_conversation(path: Path) -> Conversation:
    """Read one conversation file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read conversation ({exc})") from exc
    return parse_conversation(data, source=Path(path).name)


def load_conversations(
    directory: Path = CONVERSATIONS_DIR,
    ids: Iterable[str] | None = None,
    *,
    split: str | None = None,
) -> list[Conversation]:
    """Every conversation in ``directory`` (sorted by file name), optionally only ``ids``.

    ``split`` (``dev`` or ``heldout``) keeps only the conversations of that split.
    """
    if split is not None and split not in SPLITS:
        raise ScenarioError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    wanted = set(ids) if ids is not None else None
    conversations = [load_conversation(p) for p in sorted(Path(directory).glob("*.json"))]
    if wanted is not None:
        unknown = wanted - {c.id for c in conversations}
        if unknown:
            raise ScenarioError(f"unknown conversation id(s): {', '.join(sorted(unknown))}")
        conversations = [c for c in conversations if c.id in wanted]
    if split is not None:
        conversations = [c for c in conversations if c.split == split]
    return conversations
