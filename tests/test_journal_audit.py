"""The write journal's audit lines: their ``"commit": null`` filled with the sha and appended
exactly once, whichever of the run and the recovery of a killed run gets there first."""

from __future__ import annotations

import json
from pathlib import Path

from nanomem.store.journal import WriteJournal, append_journal_audit
from nanomem.store.workspace import Workspace

SHA = "ab" * 20


def _journal(audit: str) -> WriteJournal:
    return WriteJournal("dream", None, "dream: entries 1-1: USER.md +1 -0", audit=audit)


def _records(ws: Workspace) -> list[dict[str, object]]:
    return [json.loads(line) for line in ws.audit.read_text(encoding="utf-8").splitlines()]


def test_journal_audit_lines_get_the_sha_and_are_appended_once(workspace: Path) -> None:
    ws = Workspace(workspace)
    lines = (json.dumps({"kind": "ledger", "commit": None, "summary": "1 kept"}) + "\n"
             + json.dumps({"tool": "edit_file", "commit": None, "reason": "not found"}) + "\n")
    append_journal_audit(ws, _journal(lines), SHA)
    append_journal_audit(ws, _journal(lines), SHA)  # the recovery after a kill before the clear
    assert [(r.get("kind"), r["commit"]) for r in _records(ws)] == [("ledger", SHA), (None, SHA)]


def test_journal_audit_line_with_an_undecodable_byte_is_escaped_not_lost(workspace: Path) -> None:
    """A refusal may quote a memory file's undecodable byte (read as a lone surrogate): the
    strict UTF-8 encode raised after the commit, so the run crashed and so did every recovery."""
    ws = Workspace(workspace)
    line = json.dumps({"tool": "edit_file", "commit": None, "arguments": {"old_text": "caf\udce9"}})
    append_journal_audit(ws, _journal(line + "\n"), SHA)
    append_journal_audit(ws, _journal(line + "\n"), SHA)
    assert [(r["arguments"], r["commit"]) for r in _records(ws)] == [({"old_text": "caf\udce9"}, SHA)]
