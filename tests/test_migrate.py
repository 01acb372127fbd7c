"""Legacy memory/HISTORY.md migrates once into history.jsonl without replay or loss."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nanomem.config import Config
from nanomem.store.history import ENTRY_MAX_CHARS, History
from nanomem.consolidate.request import render_raw_entries
from nanomem.store.legacy import parse_legacy_history, plan_migration
from nanomem.text.parts import split_parts
from nanomem.store.workspace import Workspace

NOW = datetime(2025, 6, 1, 12, 0)

LEGACY = (
    "# History\n"
    "\n"
    "[2025-03-01 09:15] User set up the Berlin project; budget 40k EUR.\n"
    "\n"
    "[2025-03-02 18:40] [RAW] 3 messages\n"
    "[2025-03-02 18:38] USER: what is the deadline?\n"
    "\n"
    "second paragraph of the user message\n"
    "[2025-03-02 18:39] ASSISTANT [tools: search]: Friday.\n"
    "\n"
    "[2025-03-05 08:00] Discussed KX-7731 with Ana. password=hunter22\n"
    "\n"
    "A note a person typed without a date.\n"
)


def history_for(root: Path) -> History:
    return History(Workspace(root), Config(), clock=lambda: NOW)


def write_legacy(root: Path, data: bytes) -> Path:
    path = root / "memory" / "HISTORY.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def jsonl(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "memory" / "history.jsonl").read_text("utf-8").splitlines()]


def test_parse_legacy_history_splits_dated_raw_and_undated_chunks() -> None:
    entries = parse_legacy_history(LEGACY, default_timestamp="2025-06-01 12:00")
    assert [(e.timestamp, e.kind, e.dated) for e in entries] == [
        ("2025-03-01 09:15", None, False),
        ("2025-03-01 09:15", None, True),
        ("2025-03-02 18:40", "raw", True),
        ("2025-03-05 08:00", None, True),
        ("2025-03-05 08:00", None, False),
    ]
    assert entries[0].content == "# History"
    assert entries[2].content == (
        "[RAW] 3 messages\n[2025-03-02 18:38] USER: what is the deadline?\n\n"
        "second paragraph of the user message\n[2025-03-02 18:39] ASSISTANT [tools: search]: Friday."
    )


def test_parse_legacy_history_without_dates_uses_the_default_timestamp() -> None:
    entries = parse_legacy_history("just notes\n\nmore notes", default_timestamp="2025-06-01 12:00")
    assert [(e.timestamp, e.content) for e in entries] == [
        ("2025-06-01 12:00", "just notes"),
        ("2025-06-01 12:00", "more notes"),
    ]


@given(st.lists(st.text(alphabet="ab-: 0123456789\nUSER", max_size=40), max_size=12))
def test_parse_legacy_history_keeps_every_character_of_undated_text(chunks: list[str]) -> None:
    text = "\n\n".join(chunks)
    entries = parse_legacy_history(text, default_timestamp="t")
    kept = "".join(e.content for e in entries)
    assert [c for c in kept if not c.isspace()] == [c for c in text if not c.isspace()]


@given(st.lists(st.text(alphabet="abc xyz.,0123456789", min_size=1, max_size=30).filter(str.strip), max_size=20))
def test_parse_legacy_history_recovers_each_dated_entry(bodies: list[str]) -> None:
    text = "\n\n".join(f"[2025-01-01 10:{i:02d}] {body}" for i, body in enumerate(bodies))
    entries = parse_legacy_history(text, default_timestamp="t")
    assert [(e.timestamp, e.content) for e in entries] == [
        (f"2025-01-01 10:{i:02d}", body.strip()) for i, body in enumerate(bodies)
    ]


def test_split_parts_never_cuts_text() -> None:
    content = "".join(chr(65 + i % 26) for i in range(150_000))
    parts = split_parts(content, ENTRY_MAX_CHARS, prefix="[RAW] ")
    assert len(parts) == 3
    assert all(len(p) <= ENTRY_MAX_CHARS and p.startswith(f"[RAW] (part {i}/3)\n") for i, p in enumerate(parts, 1))
    assert "".join(p.split("\n", 1)[1] for p in parts) == content


def test_plan_migration_splits_a_long_raw_entry_exactly_as_consolidation_does() -> None:
    turns = "\n".join(f"[2025-03-02 18:{i % 60:02d}] USER: message {i}" + " word" * 40
                      for i in range(500))
    content = "[RAW] 500 messages\n" + turns

    migrated = [e.content for e in plan_migration(f"[2025-03-02 18:40] {content}", base=0, now="x")]

    assert migrated == render_raw_entries(content)
    assert len(migrated) > 1


def test_migrate_legacy_moves_entries_and_sets_both_cursors(workspace: Path) -> None:
    original = LEGACY.encode("utf-8") + b"\xff bad byte\n"
    write_legacy(workspace, original)
    result = history_for(workspace).migrate_legacy()
    assert result.status == "migrated" and result.entries == 5
    assert (result.first_cursor, result.last_cursor) == (1, 5)
    lines = jsonl(workspace)
    assert [line["cursor"] for line in lines] == [1, 2, 3, 4, 5]
    assert lines[3]["content"] == "Discussed KX-7731 with Ana. password=[REDACTED:password]"
    assert lines[2]["kind"] == "raw"
    assert (workspace / "memory" / ".dream_cursor").read_text().strip() == "5"
    assert (workspace / "memory" / ".cursor").read_text().strip() == "5"
    assert not (workspace / "memory" / "HISTORY.md").exists()
    assert (workspace / "memory" / "HISTORY.md.bak").read_bytes() == original


def test_migrate_legacy_history_is_not_replayed_into_dream(workspace: Path) -> None:
    write_legacy(workspace, LEGACY.encode())
    history = history_for(workspace)
    assert history.append("fresh fact") == 6  # first use migrates lazily
    assert [e.content for e in history.read_since(history.read_dream_cursor())] == ["fresh fact"]
    assert history.pending_count() == 1


def test_migrate_legacy_keeps_an_existing_backup_and_numbers_the_next(workspace: Path) -> None:
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / "HISTORY.md.bak").write_bytes(b"older backup")
    (workspace / "memory" / "HISTORY.md.bak.2").write_bytes(b"even older")
    write_legacy(workspace, b"[2025-01-01 10:00] one\n")
    result = history_for(workspace).migrate_legacy()
    assert result.backup == workspace / "memory" / "HISTORY.md.bak.3"
    assert (workspace / "memory" / "HISTORY.md.bak").read_bytes() == b"older backup"
    assert result.backup.read_bytes() == b"[2025-01-01 10:00] one\n"


def test_migrate_legacy_skips_when_history_jsonl_has_entries(workspace: Path) -> None:
    history = history_for(workspace)
    history.append("already here")
    legacy = write_legacy(workspace, LEGACY.encode())
    result = history_for(workspace).migrate_legacy()
    assert result.status == "skipped"
    assert legacy.read_bytes() == LEGACY.encode()
    assert [line["content"] for line in jsonl(workspace)] == ["already here"]


def test_migrate_legacy_runs_only_once(workspace: Path) -> None:
    write_legacy(workspace, LEGACY.encode())
    assert history_for(workspace).migrate_legacy().status == "migrated"
    assert history_for(workspace).migrate_legacy().status == "nothing_to_do"
    assert len(jsonl(workspace)) == 5


def test_migrate_legacy_numbers_entries_above_existing_cursors(workspace: Path) -> None:
    history = history_for(workspace)
    history.write_dream_cursor(40)
    write_legacy(workspace, b"[2025-01-01 10:00] one\n\n[2025-01-02 10:00] two\n")
    result = history.migrate_legacy()
    assert (result.first_cursor, result.last_cursor) == (41, 42)
    assert history.read_dream_cursor() == 42


def test_migrate_legacy_splits_a_huge_raw_block_without_cutting(workspace: Path) -> None:
    body = "\n".join(f"[2025-01-01 10:00] USER: message {i} " + "z" * 200 for i in range(400))
    write_legacy(workspace, f"[2025-01-01 10:01] [RAW] 400 messages\n{body}\n".encode())
    history_for(workspace).migrate_legacy()
    lines = jsonl(workspace)
    assert len(lines) > 1
    assert all(len(line["content"]) <= ENTRY_MAX_CHARS and line["content"].startswith("[RAW] (part ") for line in lines)
    joined = "".join(line["content"].split("\n", 1)[1] for line in lines)
    assert joined == f"[RAW] 400 messages\n{body}"


def test_migrate_legacy_of_an_empty_file_only_renames_it(workspace: Path) -> None:
    write_legacy(workspace, b"\n\n")
    result = history_for(workspace).migrate_legacy()
    assert result.status == "migrated" and result.entries == 0
    assert (workspace / "memory" / "HISTORY.md.bak").read_bytes() == b"\n\n"
    assert not (workspace / "memory" / ".dream_cursor").exists()
