"""One append to ``history.jsonl``: what an entry's content becomes, and the durable write.

:func:`plan_content` redacts secrets and caps the text (8,000 characters for a summary, 64,000
for anything else, with a visible marker); :func:`append_lines` writes rendered entries in one
fsynced write on an ``O_APPEND`` descriptor, on a fresh line after a torn last one, and cuts a
failed write back so that nothing half-written stays. The caller holds the history lock and
chose the cursors (:class:`nanomem.store.history.History`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from nanomem.errors import HistoryError, StoreFileError
from nanomem.store.fsutil import append_durably, os_error_fix
from nanomem.store.historyfile import (
    ENTRY_MAX_CHARS,
    SUMMARY_MAX_CHARS,
    HistoryEntry,
    cap_content,
    render_line,
)
from nanomem.text.redact import redact

logger = logging.getLogger(__name__)

KINDS: tuple[str, ...] = ("summary", "raw")
_MINUTE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}")


def check_append(*, session_key: object, kind: object, chunk: object, said_at: object) -> None:
    """Refuse an append whose tags are not what the history format holds (pure)."""
    if kind is not None and kind not in KINDS:
        raise HistoryError(f"history entry kind {kind!r} is unknown; use one of {KINDS}")
    if session_key is not None and not isinstance(session_key, str):
        raise HistoryError(f"session_key must be a string, not {type(session_key).__name__}")
    if chunk is not None and (not isinstance(chunk, str) or not chunk or "\n" in chunk):
        raise HistoryError(f"chunk must be a one-line non-empty string, not {chunk!r}")
    if said_at is not None and (not isinstance(said_at, str) or not _MINUTE.fullmatch(said_at)):
        raise HistoryError(f"said_at must be 'YYYY-MM-DD HH:MM', not {said_at!r}")


def plan_content(text: object, kind: str | None) -> str:
    """The content an entry is written with: redacted and capped (a refusal for non-text)."""
    if not isinstance(text, str):
        raise HistoryError(f"history entry must be text, not {type(text).__name__}")
    if not text.strip():
        raise HistoryError("refusing to append an empty history entry; pass some text")
    redaction = redact(text)
    if redaction.total:
        logger.info("redacted %s before writing history", dict(redaction.counts))
    limit = SUMMARY_MAX_CHARS if kind == "summary" else ENTRY_MAX_CHARS
    content = cap_content(redaction.text, limit)
    if len(content) != len(redaction.text):
        logger.warning("history entry of %d chars cut to %d", len(redaction.text), limit)
    return content


def append_lines(path: Path, entries: Sequence[HistoryEntry]) -> None:
    """Append ``entries`` to ``path`` in one fsynced write: all of them or, on failure, none."""
    payload = b"".join(render_line(entry) for entry in entries)
    append_durably(path, payload, error=partial(_append_error, path))


def _append_error(path: Path, stage: str, exc: OSError, again: OSError | None) -> StoreFileError:
    """The error of a failed append: it could not open, it failed and was cut back, or even
    the cut back failed."""
    if stage == "open":
        return StoreFileError(f"{path}: cannot open for append ({exc.strerror}); {os_error_fix(exc)}")
    if again is not None:
        return StoreFileError(
            f"{path}: append failed ({exc.strerror}) and so did cutting back the partial "
            f"line ({again.strerror}); readers skip the torn line; {os_error_fix(exc)}")
    return StoreFileError(f"{path}: append failed ({exc.strerror}); nothing was written; "
                          f"{os_error_fix(exc)}")
