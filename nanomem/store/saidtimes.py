"""When the messages behind a history entry were said: its own ``said_at``, or its chunk's
latest ``said_at`` found at the archive's tail.

A history entry's ``timestamp`` is when it was archived. The consolidator writes the latest
time among its chunk's messages into the entry as ``said_at`` (when it differs from the
archiving time), so an entry it wrote gives its said time itself, whatever the archive's size.

Entries written before that field existed are looked up in the archive. The consolidator tags each entry with
its chunk's fingerprint (``chunk``: ``<fingerprint>/<count>``) and appends the chunk's messages
to the archive just before, each record carrying that fingerprint and its ``said_at``
(:mod:`nanomem.store.archive`). So the time an entry's words were said is the latest ``said_at``
among the records of its chunk.

The prompt block asks this for the entries Dream has not processed yet, on every call, so it
must not read the archive each time (:class:`SaidTimes`):

- the chunks of new entries lie at the archive's end (they were appended just before the
  entries): the newest :data:`FIRST_WINDOW_BYTES` are searched first, and the window grows
  fourfold, up to :data:`SCAN_LIMIT_BYTES` back from the end, only while a chunk is not found;
- only lines holding a wanted fingerprint are parsed (a byte search finds them);
- a time found is remembered for good (closed chunks never change); a chunk not found is
  searched again only in what was archived since.

Such an entry without a chunk tag, written before the archive existed, or whose chunk lies
further back than the scan limit keeps its archiving time.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from nanomem.store.archive import list_archive_segments, parse_record
from nanomem.store.historyfile import HistoryEntry

logger = logging.getLogger(__name__)

FIRST_WINDOW_BYTES = 64 * 1024
SCAN_LIMIT_BYTES = 8 * 1024 * 1024  # one full segment

_Place = tuple[str, str]  # (session key, chunk fingerprint)


def read_said_times(segments: Sequence[Path], wanted: Iterable[_Place],
                    window: int) -> dict[_Place, str]:
    """The latest ``said_at`` of each wanted chunk among the records in the last ``window``
    bytes of the archive (``segments`` oldest first); chunks not found there are left out."""
    wanted = set(wanted)
    needles = {place: _needles(place[1]) for place in wanted}
    found: dict[_Place, str] = {}
    left = window
    for path in reversed(segments):
        if left <= 0 or len(found) == len(wanted):
            break
        data, left = _read_tail(path, left)
        for place, options in needles.items():
            for needle in options:
                _scan(data, needle, place, found)
    return found


class SaidTimes:
    """The said time of history entries, from the archive under ``directory``, remembered."""

    def __init__(self, directory: Path, *, limit: int = SCAN_LIMIT_BYTES) -> None:
        self.directory = directory
        self.limit = limit
        self._known: dict[_Place, str] = {}
        self._missed: set[_Place] = set()
        self._missed_at: tuple[str, int] | None = None  # the archive's end when they were missed

    def read(self, entries: Iterable[HistoryEntry]) -> dict[int, str]:
        """``{cursor: said_at}`` for the entries that record it or whose chunk is in the
        archive's tail."""
        known, said, missing = self._known, {}, set()
        entries = list(entries)
        for entry in entries:  # on every prompt block: kept to plain dict look-ups
            if entry.said_at:
                said[entry.cursor] = entry.said_at
            elif entry.chunk and entry.session_key is not None:
                place = (entry.session_key, entry.chunk.split("/")[0])
                if place in known:
                    said[entry.cursor] = known[place]
                else:
                    missing.add(place)
        if not missing:
            return said
        self._look_up(missing)
        said.update({entry.cursor: known[place] for entry in entries if not entry.said_at and
                     entry.chunk and entry.session_key is not None and
                     (place := (entry.session_key, entry.chunk.split("/")[0])) in known})
        return said

    def _look_up(self, missing: set[_Place]) -> None:
        segments = list_archive_segments(self.directory)
        end = _end_of(segments)
        again = missing & self._missed  # searched before: only what was archived since
        if again and end == self._missed_at and missing <= self._missed:
            return
        found: dict[_Place, str] = {}
        if again and end != self._missed_at:
            since = _bytes_since(segments, self._missed_at, self.limit)
            found.update(read_said_times(segments, again, since))
        fresh, window = missing - self._missed, FIRST_WINDOW_BYTES
        while fresh - found.keys():
            found.update(read_said_times(segments, fresh - found.keys(), min(window, self.limit)))
            if window >= self.limit:
                break
            window *= 4  # the chunks of new entries are near the end: widen only as needed
        self._known.update(found)
        if len(self._known) > 100_000:  # bounded: a long-lived host forgets the oldest half
            for place in list(self._known)[:50_000]:
                del self._known[place]
        self._missed, self._missed_at = missing - found.keys(), end
        if self._missed:
            logger.debug("said times: %d chunk(s) not in the archive's last %d bytes",
                         len(self._missed), self.limit)


def _needles(fingerprint: str) -> tuple[bytes, ...]:
    """How ``"chunk": "<fingerprint>"`` appears in a record line (UTF-8, or ASCII-escaped)."""
    plain = ('"chunk": ' + json.dumps(fingerprint, ensure_ascii=False)).encode("utf-8", "replace")
    escaped = ('"chunk": ' + json.dumps(fingerprint)).encode("ascii")
    return (plain,) if plain == escaped else (plain, escaped)


def _read_tail(path: Path, left: int) -> tuple[bytes, int]:
    """The whole lines among the last ``left`` bytes of ``path``, and what is left of ``left``."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            start = max(0, size - left)
            handle.seek(max(0, start - 1))
            data = handle.read(size - start + (start > 0))
    except OSError:
        return b"", left
    if start > 0:  # the byte before ``start`` tells whether it begins a line
        data = data[data.find(b"\n") + 1:] if b"\n" in data else b""
    return data, left - (size - start)


def _scan(data: bytes, needle: bytes, place: _Place, found: dict[_Place, str]) -> None:
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        if end < 0:
            return  # a torn last line: not a record yet
        record = parse_record(data[start:end])
        if record is not None and (record.session_key, record.chunk) == place:
            found[place] = max(found.get(place, ""), record.said_at)
        at = data.find(needle, end)


def _bytes_since(segments: Sequence[Path], mark: tuple[str, int] | None, limit: int) -> int:
    """How many bytes were archived after ``mark`` (the end seen before), at most ``limit``."""
    names = [path.name for path in segments]
    if mark is None or mark[0] not in names:
        return limit
    at = names.index(mark[0])
    sizes = [_end_of([path])[1] for path in segments[at:]]
    grown = sizes[0] - mark[1] + sum(sizes[1:])
    return limit if sizes[0] < mark[1] else min(limit, grown)


def _end_of(segments: Sequence[Path]) -> tuple[str, int]:
    if not segments:
        return ("", 0)
    try:
        return (segments[-1].name, segments[-1].stat().st_size)
    except OSError:
        return (segments[-1].name, -1)
