"""The running token count of a session file: what the under-budget check needs, read in O(1)
of the session's length (DESIGN §9, docs/sessions.md).

A :class:`SessionTally` is the metadata of a session, its message count and the estimated
tokens of its unconsolidated messages. :func:`read_session_tally` finds it without parsing the
whole file: from this process's last reading of the same file, or from the ``nanomem_tally``
written into the metadata line at the last save (a consolidation), it reads only the lines
appended since. Each starting point is checked by content before use: the metadata line is
the same bytes, the file is at least as long, and the hash of the bytes just before the
starting point matches. When no starting point checks out (a file written by another tool, a
hand edit) the whole file is parsed once, as :func:`~nanomem.store.sessions.load_session`
does, and that reading is the starting point of the next call.

The estimate is the sum of :func:`nanomem.text.tokens.estimate_message` over the
unconsolidated messages, exactly what :func:`nanomem.consolidate.budget.check_budget` sums.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nanomem.errors import WorkspaceError
from nanomem.store.fsutil import os_error_fix
from nanomem.store.sessions import (
    _RESERVED,
    METADATA_TYPE,
    TAIL_BYTES,
    TALLY_KEY,
    INTERNAL_KEY_PREFIX,
    parse_session_bytes,
    tail_hash,
)
from nanomem.text.tokens import estimate_message

_FIRST_LINE_LIMIT = 1 << 20  # a metadata line longer than this is read the slow way
_CACHE_LIMIT = 256


@dataclass(frozen=True)
class SessionTally:
    """What the under-budget check needs of a session file."""

    key: str
    messages: int
    last_consolidated: int
    tokens: int  # estimated tokens of the unconsolidated messages, uncalibrated
    metadata: Mapping[str, Any]

    @property
    def internal(self) -> bool:
        """As :attr:`nanomem.store.sessions.Session.internal`."""
        return self.key.startswith(INTERNAL_KEY_PREFIX) or self.metadata.get("internal") is True


@dataclass(frozen=True)
class _Mark:
    """A verified reading: ``end`` bytes of the file hold ``messages`` messages."""

    head: bytes  # the metadata line, newline included
    end: int
    messages: int
    tokens: int
    tail: str


_MARKS: dict[str, _Mark] = {}


def read_session_tally(path: Path) -> SessionTally:
    """The tally of the session file at ``path`` (which must exist); raises
    :class:`WorkspaceError` for an unreadable or malformed file, as ``load_session`` does."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError as exc:
        raise WorkspaceError(f"{path}: session file not found; check the path") from exc
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot read session file ({exc.strerror}); "
                             f"{os_error_fix(exc)}") from exc
    try:
        return _read(fd, path)
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot read session file ({exc.strerror}); "
                             f"{os_error_fix(exc)}") from exc
    finally:
        os.close(fd)


def _read(fd: int, path: Path) -> SessionTally:
    size = os.fstat(fd).st_size
    head = _first_line(fd, size)
    meta = _metadata(head)
    if meta is not None:
        offset = meta.get("last_consolidated", 0)
        for mark in (_MARKS.get(str(path)), _stored_mark(head, meta)):
            if mark is None or mark.head != head or type(offset) is not int:
                continue
            if not 0 <= offset <= mark.messages or mark.end > size:
                continue
            start = max(len(head), mark.end - TAIL_BYTES)
            if tail_hash(os.pread(fd, mark.end - start, start)) != mark.tail:
                continue
            tally = _extend(fd, path, mark, size, meta, offset)
            if tally is not None:
                return tally
    return _full(fd, path, size)


def _first_line(fd: int, size: int) -> bytes:
    """The first line with its newline, or b"" when there is none within the limit."""
    data = os.pread(fd, min(size, 4096), 0)
    cut = data.find(b"\n")
    if cut == -1 and len(data) < size:
        data = os.pread(fd, min(size, _FIRST_LINE_LIMIT), 0)
        cut = data.find(b"\n")
    return data[: cut + 1] if cut != -1 else b""


def _metadata(head: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(head)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or obj.get("_type") != METADATA_TYPE:
        return None
    return obj


def _stored_mark(head: bytes, meta: Mapping[str, Any]) -> _Mark | None:
    """The starting point the metadata line's ``nanomem_tally`` describes, if well-formed and
    written for the same ``last_consolidated``."""
    tally = meta.get(TALLY_KEY)
    if not isinstance(tally, dict) or tally.get("from") != meta.get("last_consolidated", 0):
        return None
    messages, body, tokens = (tally.get(k) for k in ("messages", "bytes", "tokens"))
    if not (type(messages) is int and type(body) is int and type(tokens) is int):
        return None
    if min(messages, body, tokens) < 0 or not isinstance(tally.get("tail"), str):
        return None
    return _Mark(head, len(head) + body, messages, tokens, tally["tail"])


def _extend(
    fd: int, path: Path, mark: _Mark, size: int, meta: dict[str, Any], offset: int
) -> SessionTally | None:
    """The tally from ``mark`` plus the complete lines after it; None when a line after it is
    not a plain message (the slow path then reports or repairs it)."""
    new = os.pread(fd, size - mark.end, mark.end) if size > mark.end else b""
    if new and not new.endswith(b"\n"):
        return None  # a torn last line: load_session's rules decide
    messages, tokens = mark.messages, mark.tokens
    for line in new.split(b"\n")[:-1] if new else ():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("role"), str):
            return None
        content = obj.get("content")
        if content is not None and not isinstance(content, (str, list)):
            return None
        messages += 1
        if messages > offset:
            tokens += estimate_message(obj)
    tail_start = max(len(mark.head), size - TAIL_BYTES)
    tail = mark.tail if size == mark.end else tail_hash(os.pread(fd, size - tail_start, tail_start))
    _remember(path, _Mark(mark.head, size, messages, tokens, tail))
    return _tally(meta, path, messages, offset, tokens)


def _full(fd: int, path: Path, size: int) -> SessionTally:
    raw = os.pread(fd, size, 0)
    session = parse_session_bytes(raw, path)
    tokens = sum(estimate_message(m) for m in session.unconsolidated)
    head = _first_line(fd, size)
    if raw.endswith(b"\n") and _metadata(head) is not None:
        start = max(len(head), size - TAIL_BYTES)
        _remember(path, _Mark(head, size, len(session.messages), tokens,
                              tail_hash(raw[start:])))
    return SessionTally(session.key, len(session.messages), session.last_consolidated, tokens,
                        session.metadata)


def _tally(meta: dict[str, Any], path: Path, messages: int, offset: int,
           tokens: int) -> SessionTally:
    key = meta.get("key")
    extra = {k: v for k, v in meta.items() if k not in _RESERVED}
    return SessionTally(key if isinstance(key, str) and key else path.stem, messages, offset,
                        tokens, MappingProxyType(extra))


def _remember(path: Path, mark: _Mark) -> None:
    if len(_MARKS) > _CACHE_LIMIT:
        _MARKS.clear()
    _MARKS[str(path)] = mark
