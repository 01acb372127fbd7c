"""The receipt of a forget, ``memory/forget-log.jsonl``, and where an old sha went.

A receipt says what went where (lines per place, with their locations), which commits became
which, and what the sweep found afterwards. It never holds the text: the log keeps a salted,
slow hash of the folded pattern, so a person who still knows the text can show that it was
this forget, and nobody can read the text back from the log::

    {"time": "2026-12-01T11:30:00+00:00", "pattern": {"hash": "pbkdf2-sha256$200000$<salt>$<hex>",
     "regex": false}, "counts": {"files": 2, "history": 3}, "commits_rewritten": 20,
     "sha_map": {"<old>": "<new>"}, "commit": "<forget: commit>", "sweep_hits": 0}

>>> r = ForgetReceipt(status="forgotten", counts={"files": 2, "history": 1})
>>> r.total
3
>>> render_subject(r)
'forget: 3 lines from 2 places, 0 commits rewritten'
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from nanomem.records import NOT_JSON
from nanomem.store.fsutil import FileLock
from nanomem.store.workspace import Workspace

log = logging.getLogger(__name__)

FORGET_LOG = "memory/forget-log.jsonl"
HASH_ROUNDS = 200_000
STATUSES = ("forgotten", "nothing_found", "dry_run", "refused", "incomplete")


@dataclass(frozen=True)
class ForgetReceipt:
    """What a forget did (or, for a dry run, would do). Never holds the text itself.

    ``status``: ``forgotten`` (done, the sweep found nothing), ``incomplete`` (done, but the
    sweep still found the text: ``hits`` says where), ``nothing_found``, ``dry_run`` or
    ``refused`` (a pinned line holds the text and ``include_pinned`` was not given).
    """

    status: str
    counts: Mapping[str, int] = field(default_factory=dict)
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sha_map: Mapping[str, str] = field(default_factory=dict)
    commit: str | None = None
    hits: tuple[str, ...] = field(default=(), metadata=NOT_JSON)  # in ``sweep``
    refused: tuple[str, ...] = ()
    pattern_hash: str = ""
    time: str = ""

    # ``forget --json`` (through nanomem.records.to_json) adds these stable keys.
    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("commits_rewritten", "sweep")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def ok(self) -> bool:
        """Whether the run reached its goal (zero hits; a dry run or nothing found counts)."""
        return self.status in ("forgotten", "nothing_found", "dry_run")

    @property
    def commits_rewritten(self) -> int:
        return len(self.sha_map)

    @property
    def sweep(self) -> Mapping[str, Any]:
        """What the sweep after the rewrite still found: how many places, and where."""
        return {"hits": len(self.hits), "where": list(self.hits)}


@dataclass(frozen=True)
class MovedSha:
    """An old commit a forget rewrote, and the commit it is now."""

    old: str
    new: str
    time: str


def hash_pattern(folded: str, *, salt: bytes | None = None) -> str:
    """``pbkdf2-sha256$<rounds>$<salt hex>$<digest hex>`` of the folded pattern.

    >>> h = hash_pattern("alice", salt=b"\\0" * 16)
    >>> h.split("$")[:2], check_pattern_hash("alice", h), check_pattern_hash("bob", h)
    (['pbkdf2-sha256', '200000'], True, False)
    """
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", folded.encode("utf-8"), salt, HASH_ROUNDS)
    return f"pbkdf2-sha256${HASH_ROUNDS}${salt.hex()}${digest.hex()}"


def check_pattern_hash(folded: str, stored: str) -> bool:
    """Whether ``stored`` (from :func:`hash_pattern`) is the hash of ``folded``."""
    try:
        scheme, rounds, salt, digest = stored.split("$")
        if scheme != "pbkdf2-sha256":
            return False
        mine = hashlib.pbkdf2_hmac("sha256", folded.encode("utf-8"), bytes.fromhex(salt),
                                   int(rounds))
    except ValueError:
        return False
    return hmac.compare_digest(mine.hex(), digest)


def render_subject(receipt: ForgetReceipt) -> str:
    """The ``forget:`` commit subject: counts only, never the text."""
    places = sum(1 for count in receipt.counts.values() if count)
    return (f"forget: {receipt.total} line{'s' if receipt.total != 1 else ''} from {places} "
            f"place{'s' if places != 1 else ''}, {len(receipt.sha_map)} commit"
            f"{'s' if len(receipt.sha_map) != 1 else ''} rewritten")


def render_body(receipt: ForgetReceipt, log_line: int) -> str:
    """The ``forget:`` commit body: counts per place and where the sha map is kept."""
    lines = ["Removed (lines per place):"]
    lines += [f"  {place} {count}" for place, count in receipt.counts.items()]
    lines += ["", f"Commits rewritten: {len(receipt.sha_map)} (old -> new in {FORGET_LOG} "
              f"line {log_line}).", "The text itself is recorded nowhere; the log keeps a "
              "salted hash of it."]
    return "\n".join(lines)


def render_log_record(receipt: ForgetReceipt, *, regex: bool) -> dict[str, Any]:
    return {
        "time": receipt.time,
        "pattern": {"hash": receipt.pattern_hash, "regex": regex},
        "counts": dict(receipt.counts),
        "commits_rewritten": len(receipt.sha_map),
        "sha_map": dict(receipt.sha_map),
        "commit": receipt.commit,
        "sweep_hits": len(receipt.hits),
    }


def append_forget_log(workspace: Workspace, record: Mapping[str, Any]) -> int:
    """Append one receipt line (one write, fsynced); return its 1-based line number."""
    path = workspace.path(FORGET_LOG)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path.with_name(".forget-log.lock")):
        existing = read_forget_log(workspace)
        payload = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
    return len(existing) + 1


def read_forget_log(workspace: Workspace) -> list[dict[str, Any]]:
    """Every receipt in the log, oldest first (a damaged line is skipped with a warning)."""
    path = workspace.path(FORGET_LOG)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    records = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            log.warning("%s line %d: not JSON; skipped (repair or remove the line)", path, number)
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def find_moved(workspace: Workspace, prefix: str) -> MovedSha | None:
    """The commit an old sha (any unique prefix of 4+ hex digits) became, following every
    forget since; None when no forget rewrote such a commit (or the prefix is ambiguous).

    >>> find_moved(Workspace(Path("/nonexistent")), "abcd") is None
    True
    """
    text = prefix.strip().lower()
    records = read_forget_log(workspace)
    maps = [(r.get("time", ""), r.get("sha_map") or {}) for r in records]
    found = {old for _, sha_map in maps if isinstance(sha_map, dict)
             for old in sha_map if isinstance(old, str) and old.startswith(text)}
    if len(found) != 1:
        return None
    current, when = found.pop(), ""
    old = current
    for time, sha_map in maps:
        if isinstance(sha_map, dict) and current in sha_map:
            current, when = str(sha_map[current]), str(time)
    return MovedSha(old, current, when)
