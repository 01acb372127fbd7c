"""The record of a Dream run: refusals, the commit message, and ``memory/dream-audit.jsonl``.

Everything a person later reads about a run is made here, by code, from the files and the gate
verdicts, never from what the model says about itself:

- the ``dream:`` commit subject and body (per-file ``+/-`` line counts, accepted and refused call
  counts with each refusal's reason, and the diff);
- one ``dream-audit.jsonl`` line per refused tool call: time, batch cursors, tool, path,
  arguments (secrets redacted), reason, the run's outcome and commit.

Bounds (issue 11): a run records at most ``dream_max_refusals`` refusals, and the body and the
audit say how many more there were; each argument string and reason is quoted up to
``quote_max_chars`` characters, followed by how many more there were; the audit file rotates
to ``dream-audit.1.jsonl`` … ``dream-audit.<audit_keep>.jsonl`` past ``audit_max_bytes``.

>>> summarize_changes({"USER.md": "a\\n"}, {"USER.md": "a\\nb\\n"})
{'USER.md': (1, 0)}
>>> render_subject({"USER.md": (1, 0)}, "4-9")
'dream: entries 4-9: USER.md +1 -0'
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanomem.records import NOT_JSON, to_json
from nanomem.store.fsutil import read_tail
from nanomem.versions.commits import render_file_diff
from nanomem.text.redact import redact
from nanomem.text.sanitize import sanitize_line
from nanomem.vocab import MOVED_MD

if TYPE_CHECKING:  # the ledger (and the offline engine under it) loads only where used
    from nanomem.dream.ledger import LedgerEntry

LEDGER_KIND = "ledger"  # the ``kind`` of the one audit line per run that holds the fact ledger
LEDGER_BODY_LINES = 12  # facts not kept, listed by name in the commit body (the rest: the audit)
ENCODING = ("utf-8", "surrogateescape")  # memory files round-trip byte for byte
_ROTATED = re.compile(r"dream-audit(\.[0-9]+)?\.jsonl")

log = logging.getLogger(__name__)


def is_audit_name(name: str) -> bool:
    """Whether a file name under ``memory/`` is the audit file or one of its rotations.

    >>> is_audit_name("dream-audit.jsonl"), is_audit_name("dream-audit.3.jsonl"), is_audit_name("x.jsonl")
    (True, True, False)
    """
    return _ROTATED.fullmatch(name) is not None


def clip(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were (pure).

    >>> clip("abcdef", 3)
    'abc… [3 more chars]'
    """
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more chars]"


@dataclass(frozen=True)
class Refusal:
    """One refused tool call; its JSON form is the stable ``{tool, path, reason}`` (the
    arguments and the batch are in the audit file, not in ``dream --json``)."""

    tool: str
    path: str | None
    reason: str
    arguments: Any = field(default=None, compare=False, repr=False, metadata=NOT_JSON)
    batch: str = field(default="", metadata=NOT_JSON)


def encode(text: str) -> bytes:
    """Text of a memory file back to the exact bytes it was read from."""
    return text.encode(*ENCODING)


def decode(data: bytes) -> str:
    """Bytes of a memory file as text that :func:`encode` turns back into the same bytes."""
    return data.decode(*ENCODING)


def summarize_changes(originals: Mapping[str, str], staged: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    """``{path: (lines added, lines removed)}`` for each file that changed, in file order."""
    changes: dict[str, tuple[int, int]] = {}
    for rel, new in staged.items():
        old = originals.get(rel, "")
        if old == new:
            continue
        added = removed = 0
        for line in difflib.ndiff(old.splitlines(), new.splitlines()):
            if line.startswith("+ "):
                added += 1
            elif line.startswith("- "):
                removed += 1
        changes[rel] = (added, removed)
    return changes


def render_diff(originals: Mapping[str, str], staged: Mapping[str, str], existed: Mapping[str, bool] | None = None) -> str:
    """A git-style unified diff from ``originals`` to ``staged`` (what a commit would show).

    ``existed`` says which files were on disk; a file that did not exist diffs from /dev/null.
    """
    out = []
    for rel, new in staged.items():
        old = originals.get(rel, "")
        if old == new:
            continue
        was = True if existed is None else existed.get(rel, True)
        out.append(render_file_diff(rel, encode(old) if was else None, encode(new)))
    return "".join(out)


def render_subject(changes: Mapping[str, tuple[int, int]], span: str) -> str:
    """``dream: entries 4-9: USER.md +1 -0, memory/MEMORY.md +2 -1``."""
    files = ", ".join(f"{rel} +{a} -{r}" for rel, (a, r) in changes.items())
    return f"dream: entries {span}: {files}"


def render_body(
    *,
    span: str,
    batches: int,
    changes: Mapping[str, tuple[int, int]],
    accepted: int,
    refusals: Sequence[Refusal],
    diff: str,
    replay_of: str | None = None,
    ledger: Sequence[LedgerEntry] = (),
    refused_more: int = 0,
    quote: int | None = None,
    recall: Sequence[str] = (),
) -> str:
    """The machine-made commit body: what was processed, per-file counts, calls, refusals, the
    fact ledger's summary (with the facts that were not kept and the lines moved out), the
    ``recall`` self-test's lines (:func:`nanomem.dream.selftest.render_recall_lines`), diff.

    >>> print(render_body(span="1-2", batches=1, changes={"USER.md": (1, 0)}, accepted=1,
    ...                   refusals=[Refusal("edit_file", "SOUL.md", "pinned line")], diff=""))
    History entries 1-2 in 1 batch.
    <BLANKLINE>
    Files:
      USER.md +1 -0
    <BLANKLINE>
    Tool calls: accepted 1, refused 1
    Refused:
      - edit_file SOUL.md: pinned line
    """
    head = f"History entries {span} in {batches} batch{'es' if batches != 1 else ''}."
    if replay_of:
        head += f" Replay of {replay_of}."
    lines = [head, "", "Files:"]
    lines += [f"  {rel} +{a} -{r}" for rel, (a, r) in changes.items()]
    lines += ["", f"Tool calls: accepted {accepted}, refused {len(refusals) + refused_more}"]
    if refusals:
        lines.append("Refused:")
        lines += [f"  - {_safe(r.tool, quote)} {_safe(r.path or '-', quote)}: {_safe(r.reason, quote)}"
                  for r in refusals]
    if refused_more:
        lines.append(f"  - and {refused_more} more refusals, not listed (dream_max_refusals)")
    if ledger:
        lines += ["", *render_ledger_summary(ledger)]
    if recall:  # a failing fact's line keeps its code-made indent, like the refusals'
        lines += [line[:len(line) - len(line.lstrip(" "))] + _safe(line, quote) for line in recall]
    if diff:
        lines += ["", "Diff:", diff.rstrip("\n")]
    return "\n".join(lines)


def render_ledger_summary(ledger: Sequence[LedgerEntry]) -> list[str]:
    """``Facts: 3 kept, 2 skipped (file full)`` and one line per fact that was not kept.

    >>> from nanomem.dream.ledger import LedgerEntry
    >>> render_ledger_summary([LedgerEntry(4, "durable", "Likes tea", "skipped", reason="cap")])
    ['Facts: 1 skipped (file full)', '  - skipped (cap): Likes tea [entry 4]']
    """
    from nanomem.dream.ledger import MOVED, summarize_ledger

    lines = [f"Facts: {summarize_ledger(ledger)}"]
    shown = [e for e in ledger if e.state in ("skipped", "refused", "pending")]
    for entry in shown[:LEDGER_BODY_LINES]:
        # a refusal's reason is in the Refused: list above; the others say why here
        why = f" ({_safe(entry.reason)})" if entry.reason and entry.state != "refused" else ""
        lines.append(f"  - {entry.state}{why}: {_safe(entry.fact)[:100]} [entry {entry.cursor}]")
    if len(shown) > LEDGER_BODY_LINES:
        lines.append(f"  - … {len(shown) - LEDGER_BODY_LINES} more in memory/dream-audit.jsonl")
    moved = [e for e in ledger if e.state == MOVED]
    if moved:
        lines.append(f"Moved to make room (now in {MOVED_MD}):")
        lines += [f"  - {_safe(e.moved_from or '-')}: {_safe(e.fact)[:100]}"
                  for e in moved[:LEDGER_BODY_LINES]]
    if len(moved) > LEDGER_BODY_LINES:
        lines.append(f"  - … {len(moved) - LEDGER_BODY_LINES} more in {MOVED_MD}")
    return lines


def render_ledger_line(
    ledger: Sequence[LedgerEntry],
    *,
    time: datetime,
    batch: str,
    outcome: str,
    commit: str | None = None,
    replay_of: str | None = None,
) -> str:
    """The one audit line of a run's fact ledger: ``{"kind": "ledger", ..., "facts": [...]}``."""
    from nanomem.dream.ledger import summarize_ledger

    record: dict[str, Any] = {
        "kind": LEDGER_KIND,
        "time": time.isoformat(timespec="seconds"),
        "batch": batch,
        "outcome": outcome,
        "commit": commit,
        "summary": summarize_ledger(ledger),
        "facts": [redact_value({k: v for k, v in to_json(e).items() if v is not None})
                  for e in ledger],
    }
    if replay_of:
        record["replay_of"] = replay_of
    return json.dumps(record, ensure_ascii=False) + "\n"


RECALL_KIND = "recall"  # the ``kind`` of the audit line with a run's recall self-test
TAIL_BYTES = 256 * 1024  # what status reads of the audit: its newest lines


def render_recall_line(health: Any, *, time: datetime, batch: str, commit: str | None) -> str:
    """The audit line of a run's recall self-test (:mod:`nanomem.dream.selftest`)."""
    record = {"kind": RECALL_KIND, "time": time.isoformat(timespec="seconds"), "batch": batch,
              "commit": commit, **redact_value(to_json(health))}
    return json.dumps(record, ensure_ascii=False) + "\n"


def read_audit_tail(path: Path, limit: int = TAIL_BYTES) -> str:
    """The newest ``limit`` bytes of the audit, from the first whole line ("" when absent)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return ""
    data = read_tail(path, limit)
    if size > limit:
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return data.decode("utf-8", "replace")


def plan_memory_health(text: str) -> dict[str, Any]:
    """From the audit's text: the newest recall self-test, and per file the facts skipped for
    ``cap`` (with the time of the first) — what ``status`` and ``/memory`` report.

    >>> line = json.dumps({"kind": "ledger", "time": "2026-11-30T12:00:00", "facts": [
    ...     {"state": "skipped", "reason": "cap", "fact": "I like figs"}]})
    >>> plan_memory_health(line)["skipped_for_cap"]
    {'count': 1, 'since': '2026-11-30T12:00:00'}
    """
    recall = None
    count, since, moved = 0, None, 0
    for record in read_refusal_records(text, kinds=(LEDGER_KIND, RECALL_KIND)):
        if record.get("kind") == RECALL_KIND:
            recall = {k: record.get(k) for k in ("time", "commit", "checked", "found", "share", "failures")}
            continue
        for fact in record.get("facts") or []:
            if not isinstance(fact, Mapping):
                continue
            if fact.get("state") == "skipped" and fact.get("reason") == "cap":
                count += 1
                since = since or record.get("time")
            elif fact.get("state") == "moved":
                moved += 1
    return {"recall_health": recall, "skipped_for_cap": {"count": count, "since": since},
            "moved_out": moved}


def read_refusal_records(text: str, *, kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The refusal records of an audit file's text (records with a ``kind`` left out), or,
    with ``kinds``, the records of those kinds."""
    out = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        if (record.get("kind") in kinds) if kinds is not None else ("kind" not in record):
            out.append(record)
    return out


def render_audit_lines(
    refusals: Sequence[Refusal],
    *,
    time: datetime,
    outcome: str,
    commit: str | None = None,
    replay_of: str | None = None,
    refused_more: int = 0,
    quote: int | None = None,
) -> str:
    """One JSON line per refusal, secrets redacted from the arguments and the reason, each
    string quoted up to ``quote`` characters; a last line counts the ``refused_more`` refusals
    beyond the run's cap."""
    lines = []
    for refusal in refusals:
        record = {
            "time": time.isoformat(timespec="seconds"),
            "batch": refusal.batch,
            "tool": refusal.tool,
            "path": refusal.path,
            "arguments": redact_value(refusal.arguments, quote),
            "reason": clip(_redact(refusal.reason), quote),
            "outcome": outcome,
            "commit": commit,
        }
        if replay_of:
            record["replay_of"] = replay_of
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    if refused_more:
        record = {"time": time.isoformat(timespec="seconds"), "refused_more": refused_more,
                  "reason": "refusals beyond dream_max_refusals, counted and not listed",
                  "outcome": outcome, "commit": commit}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(lines)


def append_audit(path: Path, text: str, *, max_bytes: int | None = None, keep: int = 5) -> None:
    """Append ready-made lines to the audit log with one write and an fsync, first rotating
    it when the append would take it past ``max_bytes``.

    The caller holds the Dream lock, so no other writer interleaves.
    """
    if not text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if max_bytes is not None:
        rotate_audit(path, len(text.encode("utf-8", "surrogateescape")), max_bytes, keep)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode("utf-8", "surrogateescape"))
        os.fsync(fd)
    finally:
        os.close(fd)


def rotate_audit(path: Path, adding: int, max_bytes: int, keep: int) -> None:
    """``dream-audit.jsonl`` → ``dream-audit.1.jsonl`` → … when ``adding`` bytes would take it
    past ``max_bytes``; the oldest of ``keep`` rotations is dropped, with a warning."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0 or size + adding <= max_bytes:
        return
    def name(i: int) -> Path:
        return path if i == 0 else path.with_name(f"{path.stem}.{i}{path.suffix}")
    if name(keep).exists():
        log.warning("%s: dropped the oldest rotated audit file (audit_keep %d)", name(keep), keep)
    for i in range(keep, 0, -1):
        if name(i - 1).exists():
            os.replace(name(i - 1), name(i))


def redact_value(value: Any, quote: int | None = None) -> Any:
    """Redact secrets in every string inside a JSON-like value, each quoted up to ``quote``."""
    if isinstance(value, str):
        return clip(_redact(value), quote)
    if isinstance(value, Mapping):
        return {str(k): redact_value(v, quote) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, quote) for v in value]
    return value


def _redact(text: str) -> str:
    return redact(text).text


def _safe(text: str, quote: int | None = None) -> str:
    """Model-supplied text as one line of the commit body: redacted, controls escaped,
    newlines folded (so it cannot forge a body line or a trailer), quoted up to ``quote``."""
    return clip(" ".join(sanitize_line(_redact(text)).split()), quote)
