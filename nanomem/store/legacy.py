"""Parsing of the legacy prose archive ``memory/HISTORY.md`` (pure).

nanobot appended prose entries to ``HISTORY.md``, separated by blank lines::

    [2025-03-01 09:15] User set up the Berlin project; budget 40k EUR.

    [2025-03-02 18:40] [RAW] 3 messages
    [2025-03-02 18:38] USER: what is the deadline?
    [2025-03-02 18:39] ASSISTANT: Friday.

    Some notes a person typed without a date.

:func:`parse_legacy_history` turns that text into :class:`LegacyEntry` records, in file order.
:func:`plan_migration` turns them into numbered, redacted :class:`HistoryEntry` records, and
:meth:`nanomem.store.history.History.migrate_legacy` writes those into ``history.jsonl`` once, under
the history lock: both cursors are set to the last migrated entry (old history is not replayed
into Dream) and the original is renamed, byte-identical, to ``HISTORY.md.bak`` (``.bak.2`` …).

Rules (see docs/history.md):
- an entry starts at a line ``[YYYY-MM-DD HH:MM] …`` at the top or after a blank line;
- a ``[RAW]`` entry runs until the next dated line that is not one of its messages
  (``[ts] ROLE: …``), so blank lines inside messages stay in the entry;
- a prose entry runs until the next blank line; paragraphs without a date become their own
  "undated" entries stamped with the nearest earlier date (the next later one at the top of the
  file, else ``default_timestamp``);
- nothing is dropped except whitespace between entries.

>>> [e.timestamp for e in parse_legacy_history("[2025-03-01 09:15] hi\\n\\nnote",
...                                             default_timestamp="x")]
['2025-03-01 09:15', '2025-03-01 09:15']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nanomem.store.historyfile import ENTRY_MAX_CHARS, HistoryEntry
from nanomem.text.parts import RAW_PART_CHARS, split_parts, split_raw
from nanomem.text.redact import redact
from nanomem.vocab import RAW_MARK

_HEADER = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})(?::\d{2})?\] ?(.*)$")
_RAW_MESSAGE = re.compile(r"^\[[^\]]{1,40}\] [A-Z_]+(?: \[[^\]]*\])?: ")


@dataclass(frozen=True)
class MigrationResult:
    """Outcome of a migration: ``migrated``, ``skipped`` or ``nothing_to_do``."""

    status: str
    entries: int = 0
    first_cursor: int | None = None
    last_cursor: int | None = None
    backup: Path | None = None
    reason: str = ""


@dataclass(frozen=True)
class LegacyEntry:
    """One migrated entry: timestamp, content and ``kind`` (``"raw"`` or ``None``)."""

    timestamp: str
    content: str
    kind: str | None = None
    dated: bool = True


def parse_legacy_history(text: str, *, default_timestamp: str) -> list[LegacyEntry]:
    """Split a legacy ``HISTORY.md`` into entries, in file order.

    >>> entries = parse_legacy_history(
    ...     "[2025-01-02 10:00] [RAW] 1 messages\\n[2025-01-02 09:59] USER: a\\n\\nb",
    ...     default_timestamp="2025-01-01 00:00")
    >>> [(e.kind, e.content) for e in entries]
    [('raw', '[RAW] 1 messages\\n[2025-01-02 09:59] USER: a\\n\\nb')]
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[tuple[str | None, str | None, list[str]]] = []  # (timestamp, kind, lines)
    current: tuple[str | None, str | None, list[str]] | None = None
    previous_blank = True
    for line in lines:
        blank = not line.strip()
        header = _HEADER.match(line) if previous_blank or current is None else None
        in_raw = current is not None and current[1] == "raw"
        if header and not (in_raw and _RAW_MESSAGE.match(line)):
            body = header.group(2)
            kind = "raw" if body.startswith(RAW_MARK) else None
            current = (header.group(1), kind, [body])
            blocks.append(current)
        elif blank:
            if current is not None and current[1] == "raw":
                current[2].append(line)
            elif current is not None:
                current = None
        elif current is None:
            current = (None, None, [line])
            blocks.append(current)
        else:
            current[2].append(line)
        previous_blank = blank
    return _stamp_undated(blocks, default_timestamp)


def _stamp_undated(
    blocks: list[tuple[str | None, str | None, list[str]]], default_timestamp: str
) -> list[LegacyEntry]:
    dated = [timestamp for timestamp, _, _ in blocks if timestamp is not None]
    fallback = dated[0] if dated else default_timestamp
    entries: list[LegacyEntry] = []
    last_seen: str | None = None
    for timestamp, kind, body in blocks:
        content = "\n".join(body).strip()
        if not content.strip():
            continue
        if timestamp is not None:
            last_seen = timestamp
        stamp = timestamp or last_seen or fallback
        entries.append(LegacyEntry(stamp, content, kind, dated=timestamp is not None))
    return entries


def _fitting_parts(content: str, *, raw: bool) -> list[str]:
    """An entry that fits stays as it is; a longer one is split by the one splitter
    (:mod:`nanomem.text.parts`), raw turns exactly as consolidation splits them."""
    limit = RAW_PART_CHARS if raw else ENTRY_MAX_CHARS
    if len(content) <= limit:
        return [content]
    return split_raw(content, limit) if raw else split_parts(content, limit)


def plan_migration(text: str, *, base: int, now: str) -> list[HistoryEntry]:
    """Legacy text -> redacted entries numbered from ``base + 1``; long ones split, never cut.

    >>> [(e.cursor, e.content) for e in plan_migration("[2025-01-02 10:00] hi", base=7, now="x")]
    [(8, 'hi')]
    """
    entries: list[HistoryEntry] = []
    for item in parse_legacy_history(text, default_timestamp=now):
        for part in _fitting_parts(redact(item.content).text, raw=item.kind == "raw"):
            cursor = base + len(entries) + 1
            entries.append(HistoryEntry(cursor, item.timestamp, part, kind=item.kind))
    return entries


def backup_path(legacy: Path) -> Path:
    """``HISTORY.md.bak``, or ``.bak.2``, ``.bak.3`` … when taken."""
    candidate = legacy.with_name(legacy.name + ".bak")
    number = 2
    while candidate.exists() or candidate.is_symlink():
        candidate = legacy.with_name(f"{legacy.name}.bak.{number}")
        number += 1
    return candidate
