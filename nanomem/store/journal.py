"""The write journal: a multi-file write of the memory files as one recoverable unit (issue 11).

Dream and restore change up to three memory files and then commit. Killed between two file
writes, or between the writes and the commit, they would leave a mix of old and new files,
which the next run would commit as a person's ``manual:`` edit (and Dream would then redo its
batch). So the intended change is written first, as one atomic bookkeeping file
``memory/.write-journal.json`` (never a memory file): for each changed file the bytes it had
(``before``) and the bytes it gets (``after``, None to remove it), with the commit to make and
the HEAD it builds on. Then the files are written, the commit made, the journal cleared::

    journal = WriteJournal("dream", base=head, subject=..., body=..., trailers=...,
                           before={"USER.md": old}, after={"USER.md": new})
    write_journal(ws, journal)
    apply_journal(ws, journal)      # compare-and-swap per file; EditConflictError on a hand edit
    ...commit...
    clear_journal(ws)

A person's editor takes no lock, so every write is a compare-and-swap on **content**: a file is
written only while it still holds its ``before`` bytes (or already its ``after`` bytes). A file
that holds anything else was edited by hand: nothing more is written, the files already written
are put back, and :class:`~nanomem.errors.EditConflictError` says so; the edit stays on disk
for the next ``manual:`` commit. What remains is the instant between one file's compare and its
rename (microseconds), which no lock-free editor can be protected from.

The next writer that finds a journal completes it or rolls it back before anything else
(:mod:`nanomem.versions.journaled`), using :func:`read_file_states`.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from nanomem.errors import EditConflictError
from nanomem.store.fsutil import append_durably, atomic_write, read_tail
from nanomem.store.memfiles import read_versioned_files, write_memory_files
from nanomem.store.workspace import Workspace
from nanomem.vocab import VERSIONED_FILES, WRITE_JOURNAL

log = logging.getLogger(__name__)

VERSION = 1
_AUDIT_SLACK = 64 * 1024  # what may follow the journal's audit lines: nothing, but be lenient


@dataclass(frozen=True)
class WriteJournal:
    """One intended write of the memory files and the commit that records it."""

    kind: str
    base: str | None
    subject: str
    body: str = ""
    trailers: Mapping[str, str] = field(default_factory=dict)
    before: Mapping[str, bytes | None] = field(default_factory=dict)
    after: Mapping[str, bytes | None] = field(default_factory=dict)
    # JSON lines for memory/dream-audit.jsonl once the commit is made (``"commit": null``
    # becomes its sha), appended exactly once even by the recovery of a killed run
    audit: str = ""


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: object) -> bytes | None:
    if text is None:
        return None
    if not isinstance(text, str):
        raise ValueError("file bytes must be base64 text or null")
    return base64.b64decode(text.encode("ascii"), validate=True)


def render_journal(journal: WriteJournal) -> str:
    """The journal as JSON (pure)."""
    files = {rel: {"before": _b64(journal.before.get(rel)), "after": _b64(journal.after.get(rel))}
             for rel in VERSIONED_FILES if rel in journal.after}
    return json.dumps({"version": VERSION, "kind": journal.kind, "base": journal.base,
                       "subject": journal.subject, "body": journal.body,
                       "trailers": dict(journal.trailers), "files": files,
                       **({"audit": journal.audit} if journal.audit else {})}, indent=1) + "\n"


def parse_journal(text: str) -> WriteJournal:
    """The journal of :func:`render_journal`; ValueError for anything else (pure)."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise ValueError("not a version 1 write journal")
    files = data.get("files")
    trailers = data.get("trailers")
    if not isinstance(files, dict) or not isinstance(trailers, dict) or \
            any(rel not in VERSIONED_FILES or not isinstance(v, dict) for rel, v in files.items()):
        raise ValueError("files or trailers of the wrong shape")
    for key in ("kind", "subject", "body"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"{key} is not text")
    base = data.get("base")
    if base is not None and not isinstance(base, str):
        raise ValueError("base is not a sha")
    if not isinstance(data.get("audit", ""), str):
        raise ValueError("audit is not text")
    return WriteJournal(
        data["kind"], base, data["subject"], data["body"],
        {str(k): str(v) for k, v in trailers.items()},
        {rel: _unb64(v.get("before")) for rel, v in files.items()},
        {rel: _unb64(v.get("after")) for rel, v in files.items()},
        data.get("audit", ""),
    )


def write_journal(workspace: Workspace, journal: WriteJournal) -> None:
    """Record the intended write durably (atomic) before any memory file is touched."""
    atomic_write(workspace.path(WRITE_JOURNAL), render_journal(journal))


def read_journal(workspace: Workspace) -> WriteJournal | None:
    """The journal left by an interrupted write, or None. A journal that cannot be parsed
    (it is written atomically, so only a person's edit makes one) is moved aside with a
    warning: it never blocks the memory files."""
    path = workspace.path(WRITE_JOURNAL)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        text, problem = "", str(exc)
    else:
        problem = ""
    try:
        if not problem:
            return parse_journal(text)
    except (ValueError, TypeError) as exc:
        problem = str(exc)
    aside = path.with_name(path.name + ".bad")
    path.replace(aside)
    log.warning("%s: unreadable write journal (%s); moved to %s, the memory files are taken "
                "as they are", path, problem, aside.name)
    return None


def append_journal_audit(workspace: Workspace, journal: WriteJournal, sha: str | None) -> None:
    """Append the journal's audit lines for its commit ``sha``, unless a run killed after
    appending them (before clearing the journal) already did: exactly once."""
    if not journal.audit:
        return
    lines = []
    for line in journal.audit.splitlines():
        record = json.loads(line)
        if isinstance(record, dict) and record.get("commit") is None:
            record["commit"] = sha
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    try:
        data = "".join(lines).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a file's undecodable byte): escaped, not lost
        data = "".join(json.dumps(json.loads(line)) + "\n" for line in lines).encode("ascii")
    if data not in read_tail(workspace.audit, len(data) + _AUDIT_SLACK):
        append_durably(workspace.audit, data)


def clear_journal(workspace: Workspace) -> None:
    """Remove the journal: the write is committed or rolled back."""
    workspace.path(WRITE_JOURNAL).unlink(missing_ok=True)


def read_file_states(workspace: Workspace, journal: WriteJournal) -> dict[str, str]:
    """For each journaled file: ``before``, ``after`` or ``edited`` (neither: a hand edit)."""
    current = read_versioned_files(workspace)
    states = {}
    for rel in journal.after:
        now = current.get(rel)
        states[rel] = ("after" if now == journal.after[rel] else
                       "before" if now == journal.before.get(rel) else "edited")
    return states


def apply_journal(workspace: Workspace, journal: WriteJournal) -> None:
    """Write each journaled file's ``after`` bytes, each only while the file still holds its
    ``before`` bytes (or already its ``after`` bytes). On a file edited by hand, put back the
    files written so far (those that still hold what was written) and raise
    :class:`EditConflictError`; the edited file is never touched."""
    written: list[str] = []
    for rel in journal.after:
        state = read_file_states(workspace, journal)[rel]
        if state == "edited":
            _put_back(workspace, journal, written)
            raise EditConflictError(
                f"{rel} was edited while nanomem was writing the memory files; nothing was "
                "written and the edit is kept (it is committed as manual: next); run the "
                "command again"
            )
        if state == "before":
            _write_one(workspace, rel, journal.after[rel])
            written.append(rel)


def roll_back_journal(workspace: Workspace, journal: WriteJournal) -> list[str]:
    """Give every journaled file that holds its ``after`` bytes its ``before`` bytes again;
    a file edited by hand since is left as it is. The files put back, in order."""
    states = read_file_states(workspace, journal)
    back = [rel for rel in journal.after if states[rel] == "after"
            and journal.after[rel] != journal.before.get(rel)]
    _put_back(workspace, journal, back)
    return back


def _put_back(workspace: Workspace, journal: WriteJournal, rels: list[str]) -> None:
    states = read_file_states(workspace, journal)
    for rel in rels:
        if states[rel] == "after":
            _write_one(workspace, rel, journal.before.get(rel))


def _write_one(workspace: Workspace, rel: str, data: bytes | None) -> None:
    write_memory_files(workspace, {rel: data} if data is not None else {}, [rel])
