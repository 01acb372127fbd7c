"""Session files: ``sessions/<key>.jsonl`` and the ``last_consolidated`` offset (DESIGN §1).

The first line is the metadata object, the lines after it are OpenAI-format messages::

    {"_type": "metadata", "key": "cli:alice", "last_consolidated": 2, "created_at": "...", ...}
    {"role": "user", "content": "hi", "timestamp": "2026-11-30T16:40:00"}
    {"role": "assistant", "content": "hello", "timestamp": "2026-11-30T16:40:02"}

``last_consolidated`` counts the messages already archived into ``history.jsonl``. Metadata keys
nanomem does not know (other tools' fields, the consolidator's failure record) are kept as they
are. A file without a metadata line (all messages) is read with ``last_consolidated = 0``.

Bad input never produces a traceback: a malformed line raises :class:`WorkspaceError` naming the
file, the line and the fix; an out-of-range ``last_consolidated`` is reset to 0 with a warning;
a torn final line (a write cut short, no trailing newline) is dropped with a warning.

>>> s = new_session("cli:alice", now=datetime(2026, 11, 30, 16, 40))
>>> s = append_to(s, [{"role": "user", "content": "hi"}], now=datetime(2026, 11, 30, 16, 41))
>>> (s.key, len(s.messages), s.messages[0]["timestamp"], s.last_consolidated)
('cli:alice', 1, '2026-11-30T16:41:00', 0)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nanomem.errors import WorkspaceError
from nanomem.store.fsutil import FileLock, atomic_write, os_error_fix, write_fully
from nanomem.text.tokens import estimate_message

log = logging.getLogger(__name__)

METADATA_TYPE = "metadata"
# The running token count (docs/sessions.md): derived, rewritten with the metadata line.
TALLY_KEY = "nanomem_tally"
TAIL_BYTES = 64
_RESERVED = frozenset({"_type", "key", "last_consolidated", "created_at", "updated_at", TALLY_KEY})
INTERNAL_KEY_PREFIX = "dream:"


@dataclass(frozen=True)
class Session:
    """One conversation: its messages and how many of them are already archived.

    ``metadata`` holds every metadata key besides the five reserved ones, unchanged.
    """

    key: str
    messages: tuple[dict[str, Any], ...] = ()
    last_consolidated: int = 0
    created_at: str = ""
    updated_at: str = ""
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def unconsolidated(self) -> tuple[dict[str, Any], ...]:
        """The messages not yet archived."""
        return self.messages[self.last_consolidated :]

    @property
    def internal(self) -> bool:
        """A session never consolidated: key ``dream:…`` or metadata ``internal: true``."""
        return self.key.startswith(INTERNAL_KEY_PREFIX) or self.metadata.get("internal") is True

    def with_metadata(self, **changes: Any) -> Session:
        """A copy whose extra metadata is updated; a value of ``None`` removes the key."""
        merged = {k: v for k, v in {**self.metadata, **changes}.items() if v is not None}
        return replace(self, metadata=MappingProxyType(merged))


def new_session(key: str, *, now: datetime, internal: bool = False) -> Session:
    """An empty session created at ``now``."""
    stamp = _stamp(now)
    metadata = MappingProxyType({"internal": True} if internal else {})
    return Session(key=key, created_at=stamp, updated_at=stamp, metadata=metadata)


def append_to(session: Session, messages: Iterable[Mapping[str, Any]], *, now: datetime) -> Session:
    """A copy with ``messages`` appended; each gets a ``timestamp`` unless it has one (pure)."""
    stamp = _stamp(now)
    added = []
    for message in messages:
        copy = dict(message)
        copy.setdefault("timestamp", stamp)
        added.append(copy)
    return replace(session, messages=session.messages + tuple(added), updated_at=stamp)


def parse_session(text: str, *, source: str, default_key: str) -> Session:
    """Parse the text of a session file (pure); ``source`` names the file in messages."""
    lines = text.split("\n")
    trailing_newline = text.endswith("\n")
    if trailing_newline:
        lines.pop()
    meta: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except RecursionError as exc:
            raise WorkspaceError(
                f"{source} line {number}: JSON nested too deeply to read; "
                "repair or remove the line"
            ) from exc
        except json.JSONDecodeError as exc:
            if number == len(lines) and not trailing_newline:
                log.warning(
                    "%s line %d: incomplete last line (a write was cut short); ignored",
                    source, number,
                )
                continue
            raise WorkspaceError(
                f"{source} line {number}: not valid JSON ({exc.msg}); "
                "repair or remove the line"
            ) from exc
        if not isinstance(obj, dict):
            raise WorkspaceError(
                f"{source} line {number}: expected a JSON object, got {type(obj).__name__}; "
                "repair or remove the line"
            )
        if obj.get("_type") == METADATA_TYPE:
            if meta is not None or messages:
                raise WorkspaceError(
                    f"{source} line {number}: metadata line must be the first line; "
                    "move or remove it"
                )
            meta = obj
            continue
        if not isinstance(obj.get("role"), str):
            raise WorkspaceError(
                f"{source} line {number}: message has no 'role'; "
                "add one (user, assistant, tool, system) or remove the line"
            )
        content = obj.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise WorkspaceError(
                f"{source} line {number}: message content is {_KIND_NAMES.get(type(content), 'not text')}; "
                "make it a string (or a list of parts, or null)"
            )
        messages.append(obj)
    return _build(meta or {}, messages, source=source, default_key=default_key)


_KIND_NAMES = {int: "a number", float: "a number", bool: "a boolean", dict: "an object"}


def _build(
    meta: dict[str, Any], messages: list[dict[str, Any]], *, source: str, default_key: str
) -> Session:
    key = meta.get("key")
    if not isinstance(key, str) or not key:
        key = default_key
    offset = meta.get("last_consolidated", 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= len(messages):
        log.warning(
            "%s: last_consolidated %r is outside 0..%d; reset to 0 (the session will be "
            "archived again from the start)",
            source, offset, len(messages),
        )
        offset = 0
    extra = {k: v for k, v in meta.items() if k not in _RESERVED}
    return Session(
        key=key,
        messages=tuple(messages),
        last_consolidated=offset,
        created_at=str(meta.get("created_at") or ""),
        updated_at=str(meta.get("updated_at") or ""),
        metadata=MappingProxyType(extra),
    )


def render_session(session: Session) -> str:
    """The file text of ``session`` (pure): metadata line, then one message per line.

    nanobot 0.3.5 writes the offset twice, as ``last_archived`` (which it reads first) and
    ``last_consolidated``; when the file carries ``last_archived``, it is kept equal to the
    offset, so nanobot never reads a stale one and archives those messages again.

    The metadata line ends with the running token count (``nanomem_tally``, see
    :func:`render_tally`), which lets the next under-budget check read only the lines appended
    after it; other tools may drop it (it is then rebuilt by reading the whole file once).
    """
    body = "".join(_render_line(m) + "\n" for m in session.messages)
    meta = {
        "_type": METADATA_TYPE,
        "key": session.key,
        "last_consolidated": session.last_consolidated,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        **session.metadata,
        TALLY_KEY: render_tally(body.encode("utf-8"), session.messages, session.last_consolidated),
    }
    if "last_archived" in meta:
        meta["last_archived"] = session.last_consolidated
    tally = meta.pop(TALLY_KEY)  # last on the line
    meta[TALLY_KEY] = tally
    return _render_line(meta) + "\n" + body


def render_tally(
    body: bytes, messages: Sequence[Mapping[str, Any]], last_consolidated: int
) -> dict[str, Any]:
    """The running token count of a session body (pure): ``messages`` lines in ``bytes``
    bytes after the metadata line, ``tokens`` the estimate of those from ``from`` on (the
    unconsolidated ones), ``tail`` a hash of the body's last bytes to verify it by."""
    tokens = sum(estimate_message(m) for m in messages[last_consolidated:])
    return {"from": last_consolidated, "messages": len(messages), "bytes": len(body),
            "tokens": tokens, "tail": tail_hash(body[-TAIL_BYTES:])}


def tail_hash(data: bytes) -> str:
    """The short hash a tally keeps of the bytes before its end (pure)."""
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _render_line(obj: Mapping[str, Any]) -> str:
    """One JSON line as nanobot writes it; text with a lone surrogate (which UTF-8 cannot
    encode) is written with ``\\uXXXX`` escapes instead, so the file stays valid and loses
    nothing."""
    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, ensure_ascii=True)
    return text


def load_session(path: Path) -> Session:
    """Read ``path``; a missing file is an error that says how to create one.

    The key defaults to the file name without ``.jsonl`` when the metadata line lacks one.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise WorkspaceError(f"{path}: session file not found; check the path") from exc
    except OSError as exc:
        raise WorkspaceError(
            f"{path}: cannot read session file ({exc.strerror}); {os_error_fix(exc)}"
        ) from exc
    return parse_session_bytes(raw, path)


def parse_session_bytes(raw: bytes, path: Path) -> Session:
    """Parse the bytes of the session file ``path`` (pure): UTF-8, then :func:`parse_session`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkspaceError(
            f"{path}: not UTF-8 text (byte {exc.start}); re-save the file as UTF-8"
        ) from exc
    return parse_session(text, source=str(path), default_key=path.stem)


def save_session(path: Path, session: Session) -> None:
    """Write ``session`` to ``path`` atomically (temp file, fsync, rename)."""
    atomic_write(Path(path), render_session(session))


def session_lock(path: Path) -> FileLock:
    """The lock that serialises writers of one session file (``.<name>.lock`` beside it)."""
    path = Path(path)
    return FileLock(path.with_name(f".{path.name}.lock"))


def append_messages(
    path: Path,
    messages: Iterable[Mapping[str, Any]],
    *,
    key: str | None = None,
    clock: Callable[[], datetime] | None = None,
) -> Session:
    """Append ``messages`` to the session file at ``path`` (created if missing); return it.

    Holds the session lock, so an append never races the consolidator's save. An existing
    file gets the new lines appended in one write and one fsync: the cost does not grow with
    the session (the metadata line, ``updated_at`` included, is rewritten only when the
    consolidator saves). A kill during the write leaves a torn last line, which readers skip
    and the next append cuts away.
    """
    created = append_turn(path, messages, key=key, clock=clock)
    return created if created is not None else load_session(path)


def append_turn(
    path: Path,
    messages: Iterable[Mapping[str, Any]],
    *,
    key: str | None = None,
    clock: Callable[[], datetime] | None = None,
) -> Session | None:
    """:func:`append_messages` without reading the file back: the new session when the file
    was created, else None (one write and one fsync of the new lines)."""
    now = (clock or datetime.now)()
    path = Path(path)
    with session_lock(path):
        if not path.exists() or path.stat().st_size == 0:
            session = append_to(new_session(key or path.stem, now=now), messages, now=now)
            save_session(path, session)
            return session
        added = append_to(Session(key=""), messages, now=now).messages
        append_session_lines(path, added)
    return None


def append_session_lines(path: Path, messages: Sequence[Mapping[str, Any]]) -> None:
    """Append message lines to an existing session file: one write, one fsync; the caller
    holds the session lock. A torn last line (a write cut short) is cut away first."""
    payload = "".join(_render_line(m) + "\n" for m in messages).encode("utf-8")
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot open session file for append ({exc.strerror}); "
                             f"{os_error_fix(exc)}") from exc
    try:
        size = os.fstat(fd).st_size
        keep = _complete_length(fd, size)
        try:
            if keep != size:
                log.warning("%s: cut a torn last line (%d bytes, a write cut short) before "
                            "appending", path, size - keep)
                os.ftruncate(fd, keep)
            write_fully(fd, payload)
        except OSError as exc:
            try:
                os.ftruncate(fd, keep)
            except OSError:
                pass
            raise WorkspaceError(f"{path}: append failed ({exc.strerror}); "
                                 f"{os_error_fix(exc)}") from exc
    finally:
        os.close(fd)


def _complete_length(fd: int, size: int) -> int:
    """The length of the file up to its last newline (``size`` when it ends in one)."""
    end = size
    while end > 0:
        begin = max(0, end - 8192)
        block = os.pread(fd, end - begin, begin)
        if end == size and block.endswith(b"\n"):
            return size
        cut = block.rfind(b"\n")
        if cut != -1:
            return begin + cut + 1
        end = begin
    return 0


def _stamp(now: datetime) -> str:
    return now.isoformat(timespec="seconds")


def format_messages(messages: Sequence[Mapping[str, Any]]) -> str:
    """``[YYYY-MM-DD HH:MM] ROLE: text`` per message, tool calls as ``-> name(arguments)``
    lines (pure). The time prefix appears only when the message has a readable ``timestamp``;
    it lets a model (and the offline engine) date what was *said*, so that "tomorrow" can be
    resolved and a short-lived fact expires from the day it was said.

    >>> format_messages([{"role": "user", "content": "hi", "timestamp": "2026-03-02T19:05:41"},
    ...     {"role": "assistant", "content": None,
    ...      "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}])
    '[2026-03-02 19:05] USER: hi\\nASSISTANT: \\n  -> f({})'
    """
    lines = []
    for message in messages:
        role = str(message.get("role", "?")).upper()
        if role == "TOOL" and message.get("name"):
            role = f"TOOL({message['name']})"
        said = message_time(message)
        text = f"[{said}] " if said else ""
        text += f"{role}: {content_text(message.get('content'))}"
        for call in message.get("tool_calls") or ():
            fn = call.get("function") or {} if isinstance(call, dict) else {}
            text += f"\n  -> {fn.get('name', '?')}({fn.get('arguments', '')})"
        lines.append(text)
    return "\n".join(lines)


_MESSAGE_TIME = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})")


def message_time(message: Mapping[str, Any]) -> str | None:
    """The message's ``timestamp`` as ``YYYY-MM-DD HH:MM``, or None when it has none (pure).

    >>> message_time({"timestamp": "2026-03-02T19:05:41+00:00"}), message_time({"role": "user"})
    ('2026-03-02 19:05', None)
    """
    found = _MESSAGE_TIME.match(str(message.get("timestamp") or ""))
    return f"{found.group(1)} {found.group(2)}" if found else None


def latest_message_time(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The latest :func:`message_time` among ``messages``, or None when none has one (pure).

    >>> latest_message_time([{"timestamp": "2026-03-02T19:05"}, {}, {"timestamp": "2026-03-01T08:00"}])
    '2026-03-02 19:05'
    """
    return max(filter(None, map(message_time, messages)), default=None)


def tool_spans(messages: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """``(call_index, result_index)`` of every tool result that answers an earlier call."""
    issued: dict[str, int] = {}
    spans = []
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                issued[call["id"]] = index
        if message.get("role") == "tool" and message.get("tool_call_id") in issued:
            spans.append((issued[message["tool_call_id"]], index))
    return spans


def content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'part')}]")
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)
