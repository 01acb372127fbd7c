"""The verbatim archive: every archived turn, word for word, under ``memory/archive/``.

History keeps what the Consolidator distilled; the archive keeps what was *said*, so that search
can find it again after the host clears its sessions (DESIGN §10). One JSON object per line::

    {"id": "3f2a9c01b4d7e6a2", "session_key": "cli", "index": 14, "role": "user",
     "name": "Ana", "said_at": "2026-05-08 14:03", "text": "We painted a sunrise last week.",
     "chunk": "5be0c1d2e3f4a5b6", "archived_at": "2026-05-09 10:00"}

- ``said_at`` is the message's own ``timestamp`` (when it was said), not the archiving time;
  a message without one gets the archiving time.
- ``id`` is stable: a hash of the session key, the message's index in the session, the role,
  the time and the redacted text, so the same message archived twice gets the same id.
- Text is redacted (:func:`nanomem.text.redact.redact`) before it is written. User and assistant
  text is kept whole: a message longer than :data:`RECORD_MAX_CHARS` is split over several
  records (``part``: ``[i, n]``), never cut. Tool results are summarised to
  :data:`TOOL_TEXT_CHARS` characters with a visible marker; tool calls keep their name and the
  start of their arguments.

Files are segments ``memory/archive/archive-000001.jsonl``, ``archive-000002.jsonl``, …; the
highest number is the one appended to, and a new one starts once it holds
:data:`SEGMENT_MAX_BYTES`. Closed segments are never rewritten. Appends hold
``memory/archive/.lock`` (a process lock), go out in one ``write`` on an ``O_APPEND`` descriptor
and are fsynced; a torn last line (a crash mid-write) is skipped by readers, and the next append
starts on a fresh line. A chunk whose fingerprint already appears for its session near the end of
the archive is not appended again (a consolidation retried after a crash).

>>> recs = plan_records([{"role": "user", "content": "hi", "timestamp": "2026-05-08T14:03:00"}],
...                     session_key="cli", start=0, chunk="c1", now="2026-05-09 10:00")
>>> (recs[0].role, recs[0].said_at, recs[0].text)
('user', '2026-05-08 14:03', 'hi')
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.errors import HistoryError
from nanomem.store.fsutil import FileLock, append_durably
from nanomem.store.sessions import content_text, message_time
from nanomem.store.workspace import Workspace
from nanomem.text.redact import redact

logger = logging.getLogger(__name__)

RECORD_MAX_CHARS = 64_000  # the history's hard cap on one entry; longer text is split, not cut
TOOL_TEXT_CHARS = 500
TOOL_ARGUMENT_CHARS = 200
SEGMENT_MAX_BYTES = 8 * 1024 * 1024
DEDUPE_WINDOW_BYTES = 256 * 1024
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"
_SEGMENT = re.compile(r"^archive-([0-9]{6,})\.jsonl$")


@dataclass(frozen=True)
class ArchiveRecord:
    """One archived message (or one part of a long one)."""

    id: str
    session_key: str
    index: int
    role: str
    said_at: str
    text: str
    name: str | None = None
    chunk: str | None = None
    archived_at: str | None = None
    part: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        """The line's JSON object; optional fields only when set."""
        data: dict[str, Any] = {"id": self.id, "session_key": self.session_key,
                                "index": self.index, "role": self.role}
        if self.name is not None:
            data["name"] = self.name
        data["said_at"] = self.said_at
        data["text"] = self.text
        for key in ("chunk", "archived_at"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.part is not None:
            data["part"] = list(self.part)
        return data

    @property
    def speaker(self) -> str:
        """``name (role)`` when the message has a name, else the role.

        >>> ArchiveRecord("x", "s", 0, "user", "", "", name="Ana").speaker
        'Ana (user)'
        """
        return f"{self.name} ({self.role})" if self.name else self.role


def render_record(record: ArchiveRecord) -> bytes:
    """One JSON line with its newline (UTF-8; lone surrogates escaped, never lost)."""
    try:
        return (json.dumps(record.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record.to_json(), ensure_ascii=True) + "\n").encode("ascii")


def parse_record(raw: bytes) -> ArchiveRecord | None:
    """A record from one line, or ``None`` for a line that is not one (never raises).

    >>> parse_record(render_record(ArchiveRecord("a1", "cli", 0, "user", "2026-05-08 14:03", "hi"))).text
    'hi'
    >>> parse_record(b'{"id": 3}') is None
    True
    """
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    strings = ("id", "session_key", "role", "said_at", "text")
    if not all(isinstance(data.get(key), str) for key in strings):
        return None
    index = data.get("index")
    part = data.get("part")
    optional = {key: data[key] if isinstance(data.get(key), str) else None
                for key in ("name", "chunk", "archived_at")}
    return ArchiveRecord(
        id=data["id"], session_key=data["session_key"],
        index=index if type(index) is int else 0, role=data["role"],
        said_at=data["said_at"], text=data["text"], name=optional["name"],
        chunk=optional["chunk"], archived_at=optional["archived_at"],
        part=(part[0], part[1]) if isinstance(part, list) and len(part) == 2
        and all(type(p) is int for p in part) else None,
    )


def render_message_text(message: Mapping[str, Any]) -> str:
    """What the archive keeps of one message (pure): user and assistant text whole, tool calls
    as ``-> name(arguments…)`` lines and tool results summarised.

    >>> render_message_text({"role": "tool", "content": "x" * 600})[-37:]
    'x… [100 chars of tool output omitted]'
    """
    role = message.get("role")
    text = content_text(message.get("content"))
    if role == "tool":
        if len(text) > TOOL_TEXT_CHARS:
            cut = len(text) - TOOL_TEXT_CHARS
            text = text[:TOOL_TEXT_CHARS] + f"… [{cut} chars of tool output omitted]"
        return text
    calls = []
    for call in message.get("tool_calls") or ():
        function = (call.get("function") or {}) if isinstance(call, dict) else {}
        arguments = str(function.get("arguments", ""))
        if len(arguments) > TOOL_ARGUMENT_CHARS:
            arguments = arguments[:TOOL_ARGUMENT_CHARS] + "…"
        calls.append(f"-> {function.get('name', '?')}({arguments})")
    return "\n".join([text, *calls]) if text and calls else text or "\n".join(calls)


def record_id(session_key: str, index: int, role: str, said_at: str, text: str) -> str:
    """The stable id of a message: a 64-bit hash of where and when it was said and its text.

    >>> record_id("cli", 0, "user", "2026-05-08 14:03", "hi")
    '62b16d69f48274a3'
    """
    key = "\0".join((session_key, str(index), role, said_at, text))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def plan_records(
    messages: Sequence[Mapping[str, Any]], *, session_key: str, start: int,
    chunk: str | None, now: str,
) -> list[ArchiveRecord]:
    """The records of a chunk of session messages (pure); ``start`` is the chunk's offset in the
    session and ``now`` (``YYYY-MM-DD HH:MM``) the archiving time. Empty messages are skipped."""
    records: list[ArchiveRecord] = []
    for offset, message in enumerate(messages):
        text = render_message_text(message)
        if not text.strip():
            continue
        text = redact(text).text
        role = str(message.get("role") or "?")
        name = message.get("name") if isinstance(message.get("name"), str) else None
        said = message_time(message) or now
        index = start + offset
        base = record_id(session_key, index, role, said, text)
        parts = [text[i:i + RECORD_MAX_CHARS] for i in range(0, len(text), RECORD_MAX_CHARS)]
        for number, body in enumerate(parts, start=1):
            records.append(ArchiveRecord(
                id=base if len(parts) == 1 else f"{base}-{number}", session_key=session_key,
                index=index, role=role, said_at=said, text=body, name=name, chunk=chunk,
                archived_at=now, part=None if len(parts) == 1 else (number, len(parts)),
            ))
    return records


def segment_name(number: int) -> str:
    """The file name of segment ``number``.

    >>> segment_name(3)
    'archive-000003.jsonl'
    """
    return f"archive-{number:06d}.jsonl"


def list_archive_segments(directory: Path) -> list[Path]:
    """The archive's segments, oldest first (``[]`` when there is no archive)."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = sorted((int(m[1]), m[0]) for m in map(_SEGMENT.match, names) if m)
    return [directory / name for _, name in found]


def read_records(path: Path, offset: int = 0) -> Iterator[tuple[int, ArchiveRecord]]:
    """``(end offset, record)`` for each whole record of ``path`` from byte ``offset`` on.

    A malformed line is skipped with one warning per call; an unterminated last line (an
    append in progress, or a torn write) is left for later and ends the iteration.
    """
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    bad, first_bad = 0, 0
    with handle:
        handle.seek(offset)
        position = offset
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            position += len(raw)
            if not raw.strip():
                continue
            record = parse_record(raw)
            if record is None:
                bad, first_bad = bad + 1, first_bad or position - len(raw)
                continue
            yield position, record
    if bad:
        logger.warning("%s: skipped %d malformed archive line(s) (first at byte %d); repair or "
                       "remove them", path.name, bad, first_bad)


class Archive:
    """The verbatim archive of one workspace (see the module docstring)."""

    def __init__(self, workspace: Workspace, *, clock: Callable[[], datetime] | None = None,
                 segment_max_bytes: int = SEGMENT_MAX_BYTES) -> None:
        self.workspace = workspace
        self.directory = workspace.archive_dir
        self._clock = clock or datetime.now
        self._lock = FileLock(workspace.archive_lock)
        self._segment_max = segment_max_bytes

    def segments(self) -> list[Path]:
        """Segment files, oldest first."""
        return list_archive_segments(self.directory)

    def append_messages(self, messages: Sequence[Mapping[str, Any]], *, session_key: str,
                        start: int, chunk: str | None = None) -> int:
        """Archive a chunk of session messages; return how many records were written.

        ``start`` is the chunk's offset in the session; ``chunk`` its fingerprint. A chunk
        already archived for this session (same fingerprint near the end) writes nothing.
        """
        now = self._clock().strftime(TIMESTAMP_FORMAT)
        records = plan_records(messages, session_key=session_key, start=start, chunk=chunk, now=now)
        return self.append(records)

    def append(self, records: Sequence[ArchiveRecord]) -> int:
        """Append ``records`` under the lock, in one fsynced write; all of them or none."""
        if not records:
            return 0
        with self._lock:
            segments = self.segments()
            active = segments[-1] if segments else None
            if active is not None and self._already_archived(active, records):
                logger.info("archive: chunk %s of session %s is already archived",
                            records[0].chunk, records[0].session_key)
                return 0
            if active is None or _size(active) >= self._segment_max:
                number = int(_SEGMENT.match(active.name)[1]) + 1 if active else 1  # type: ignore[index]
                active = self.directory / segment_name(number)
            payload = b"".join(render_record(record) for record in records)
            try:
                append_durably(active, payload)
            except OSError as exc:
                raise HistoryError(f"{active}: archive append failed ({exc.strerror}); nothing was "
                                   "written, check disk space and permissions") from exc
        return len(records)

    def iter_records(self) -> Iterator[ArchiveRecord]:
        """Every record, oldest first (streams; memory stays bounded)."""
        for path in self.segments():
            for _, record in read_records(path):
                yield record

    @staticmethod
    def _already_archived(active: Path, records: Sequence[ArchiveRecord]) -> bool:
        chunk, key = records[0].chunk, records[0].session_key
        if chunk is None:
            return False
        size = _size(active)
        offset = max(0, size - DEDUPE_WINDOW_BYTES)
        with open(active, "rb") as handle:
            handle.seek(offset)
            tail = handle.read()
        if chunk.encode() not in tail:
            return False
        for raw in tail.split(b"\n")[1 if offset else 0:]:
            record = parse_record(raw)
            if record is not None and record.chunk == chunk and record.session_key == key:
                return True
        return False


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
