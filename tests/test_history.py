"""The history log: append, read_since, cursors, malformed lines, compaction and overflow."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanomem.config import Config
from nanomem.errors import HistoryError
from nanomem.store.history import ENTRY_MAX_CHARS, SUMMARY_MAX_CHARS, History, HistoryEntry
from nanomem.store.historyfile import LineProblem, cap_content, parse_line, render_line
from nanomem.store.workspace import Workspace

NOW = datetime(2025, 3, 1, 9, 15)


def make_history(root: Path, **kwargs: object) -> History:
    config = kwargs.pop("config", None) or Config()
    return History(Workspace(root), config, clock=lambda: NOW, **kwargs)  # type: ignore[arg-type]


def lines_of(root: Path) -> list[dict]:
    text = (root / "memory" / "history.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_lines(root: Path, lines: list[str]) -> None:
    path = root / "memory" / "history.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def entry_line(cursor: int, content: str | None = None) -> str:
    return json.dumps({"cursor": cursor, "timestamp": "2025-01-01 00:00", "content": content or f"e{cursor}"})


# appending ------------------------------------------------------------------------------------


def test_append_writes_one_json_line_per_entry_with_increasing_cursors(workspace: Path) -> None:
    history = make_history(workspace)
    assert history.append("User prefers tea.") == 1
    assert history.append("- [durable] likes tea", session_key="cli:1", kind="summary") == 2
    assert lines_of(workspace) == [
        {"cursor": 1, "timestamp": "2025-03-01 09:15", "content": "User prefers tea."},
        {"cursor": 2, "timestamp": "2025-03-01 09:15", "content": "- [durable] likes tea",
         "session_key": "cli:1", "kind": "summary"},
    ]
    assert (workspace / "memory" / ".cursor").read_text().strip() == "2"


def test_append_redacts_secrets_before_writing(workspace: Path) -> None:
    history = make_history(workspace)
    history.append("deploy key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z and password=hunter22")
    raw = (workspace / "memory" / "history.jsonl").read_text(encoding="utf-8")
    assert "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" not in raw and "hunter22" not in raw
    assert "[REDACTED:openai-key]" in raw and "password=[REDACTED:password]" in raw


@pytest.mark.parametrize(("kind", "limit"), [("summary", SUMMARY_MAX_CHARS), ("raw", ENTRY_MAX_CHARS), (None, ENTRY_MAX_CHARS)])
def test_append_caps_long_entries_with_a_visible_marker(workspace: Path, kind: str | None, limit: int) -> None:
    history = make_history(workspace)
    cursor = history.append("x" * (limit + 500), kind=kind)
    content = history.read_since(cursor - 1)[0].content
    assert len(content) <= limit
    assert content.startswith("x" * (limit - 100))
    assert content.endswith("chars]") and "[truncated" in content


def test_append_keeps_an_entry_at_the_cap_whole(workspace: Path) -> None:
    history = make_history(workspace)
    history.append("y" * SUMMARY_MAX_CHARS, kind="summary")
    assert history.read_since(0)[0].content == "y" * SUMMARY_MAX_CHARS


def test_cap_content_marker_counts_the_removed_characters() -> None:
    capped = cap_content("a" * 1000, 100)
    kept = capped.split("\n… [truncated ")[0]
    assert len(capped) <= 100
    assert capped.endswith(f"[truncated {1000 - len(kept)} chars]")


def test_append_starts_a_fresh_line_after_a_torn_last_line(workspace: Path) -> None:
    history = make_history(workspace)
    history.append("first")
    path = workspace / "memory" / "history.jsonl"
    with path.open("ab") as handle:
        handle.write(b'{"cursor": 2, "timestamp": "2025-0')  # a crash mid-write
    assert history.append("after the crash") == 3
    assert [e.content for e in history.read_since(0)] == ["first", "after the crash"]
    assert path.read_bytes().endswith(b'"content": "after the crash"}\n')


def test_append_cursor_exceeds_dream_cursor_after_history_is_truncated(workspace: Path) -> None:
    history = make_history(workspace)
    for i in range(5):
        history.append(f"e{i}")
    history.write_dream_cursor(5)
    (workspace / "memory" / "history.jsonl").write_bytes(b"")
    (workspace / "memory" / ".cursor").unlink()
    assert history.append("new after truncation") == 6
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == [6]


def test_append_cursor_exceeds_cursor_file_after_history_is_deleted(workspace: Path) -> None:
    history = make_history(workspace)
    for i in range(3):
        history.append(f"e{i}")
    (workspace / "memory" / "history.jsonl").unlink()
    assert history.append("again") == 4


def test_append_many_writes_all_entries_under_one_lock(workspace: Path) -> None:
    history = make_history(workspace)
    assert history.append_many(["[RAW] (part 1/2)\na", "[RAW] (part 2/2)\nb"], kind="raw") == [1, 2]
    assert [line["kind"] for line in lines_of(workspace)] == ["raw", "raw"]


def test_append_many_writes_nothing_when_one_text_is_invalid(workspace: Path) -> None:
    history = make_history(workspace)
    with pytest.raises(HistoryError, match="empty"):
        history.append_many(["ok", "   "])
    assert not (workspace / "memory" / "history.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [(("",), {}, "empty"), (("x",), {"kind": "notes"}, "unknown"), ((b"x",), {}, "text")],
)
def test_append_rejects_bad_input_with_a_clear_error(workspace: Path, args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(HistoryError, match=message):
        make_history(workspace).append(*args, **kwargs)


def test_append_keeps_lone_surrogates_and_line_separators_on_one_line(workspace: Path) -> None:
    history = make_history(workspace)
    text = "odd \udc80 bytes\u2028next\nline"
    history.append(text)
    raw = (workspace / "memory" / "history.jsonl").read_bytes()
    assert raw.count(b"\n") == 1 and json.loads(raw)["content"] == text  # kept as written
    # read as U+FFFD (session 31): a lone surrogate crashed every UTF-8 writer it reached
    assert history.read_since(0)[0].content == "odd \ufffd bytes\u2028next\nline"


# reading --------------------------------------------------------------------------------------


def test_read_since_returns_entries_after_the_cursor_in_order(workspace: Path) -> None:
    history = make_history(workspace)
    for i in range(1, 11):
        history.append(f"entry {i}")
    assert [e.cursor for e in history.read_since(7)] == [8, 9, 10]
    assert [e.cursor for e in history.read_since(2, limit=3)] == [3, 4, 5]
    assert history.read_since(10) == []
    assert history.read_since(0, limit=0) == []


def test_read_since_finds_entries_in_a_large_file_with_gaps(workspace: Path) -> None:
    cursors = [c for c in range(1, 30_000) if c % 7 != 3]
    write_lines(workspace, [entry_line(c, "x" * (c % 50)) for c in cursors])
    history = make_history(workspace)
    for target in (0, 1, 3, 10, 14_998, 29_990, 29_998, 29_999, 40_000):
        expected = [c for c in cursors if c > target][:20]
        assert [e.cursor for e in history.read_since(target, limit=20)] == expected


def test_read_since_rejects_a_negative_cursor(workspace: Path) -> None:
    with pytest.raises(HistoryError, match="cursor >= 0"):
        make_history(workspace).read_since(-1)


MALFORMED = {
    "invalid JSON": '{"cursor": 2, "content": ',
    "JSON that is not an object": "[1, 2, 3]",
    "a cursor that is not a positive integer": '{"cursor": "3", "content": "string cursor"}',
    "a missing or non-string content": '{"cursor": 4, "content": 42}',
}


def test_read_since_skips_malformed_lines_with_one_warning_per_kind(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bad_cursors = ['{"cursor": true, "content": "b"}', '{"cursor": -5, "content": "n"}',
                   '{"cursor": 2.5, "content": "f"}', '{"cursor": 0, "content": "z"}']
    missing_content = '{"cursor": 6, "timestamp": "2025-01-01 00:00"}'
    lines = [entry_line(1), *MALFORMED.values(), *bad_cursors, missing_content, entry_line(7), "", entry_line(8)]
    write_lines(workspace, lines)
    with caplog.at_level(logging.WARNING, logger="nanomem.store.history"):
        entries = make_history(workspace).read_since(0)
    assert [e.cursor for e in entries] == [1, 7, 8]
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 4
    for label in MALFORMED:
        assert sum(label in m for m in messages) == 1
    assert any("skipped 5 line(s) with a cursor" in m for m in messages)


def test_read_since_search_survives_malformed_lines_everywhere(workspace: Path) -> None:
    lines: list[str] = []
    for c in range(1, 5001):
        lines.append(entry_line(c))
        if c % 10 == 0:
            lines.append("garbage {{{" if c % 20 else '{"cursor": "x", "content": 1}')
    write_lines(workspace, lines)
    history = make_history(workspace)
    for target in (0, 9, 10, 11, 2500, 4990, 5000):
        assert [e.cursor for e in history.read_since(target, limit=15)] == list(range(target + 1, min(target + 16, 5001)))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    gaps=st.lists(st.integers(min_value=1, max_value=5), min_size=0, max_size=120),
    junk=st.sets(st.integers(min_value=0, max_value=130)),
    sizes=st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=5),
    target=st.integers(min_value=0, max_value=400),
    limit=st.one_of(st.none(), st.integers(min_value=1, max_value=30)),
)
def test_read_since_equals_a_full_scan(
    tmp_path_factory: pytest.TempPathFactory, gaps: list[int], junk: set[int], sizes: list[int],
    target: int, limit: int | None,
) -> None:
    root = tmp_path_factory.mktemp("ws")
    cursors, lines, c = [], [], 0
    for i, gap in enumerate(gaps):
        c += gap
        cursors.append(c)
        lines.append(entry_line(c, "p" * sizes[i % len(sizes)]))
        if i in junk:
            lines.append("not json at all")
    write_lines(root, lines)
    expected = [x for x in cursors if x > target]
    if limit is not None:
        expected = expected[:limit]
    assert [e.cursor for e in make_history(root).read_since(target, limit)] == expected


# the line parser ------------------------------------------------------------------------------

entries = st.builds(
    HistoryEntry,
    cursor=st.integers(min_value=1, max_value=2**62),
    timestamp=st.text(max_size=20),
    content=st.text(),
    session_key=st.one_of(st.none(), st.text(max_size=20)),
    kind=st.one_of(st.none(), st.sampled_from(["summary", "raw"])),
)


@given(entries)
def test_parse_line_round_trips_every_rendered_entry(entry: HistoryEntry) -> None:
    raw = render_line(entry)
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert parse_line(raw.decode("utf-8", errors="surrogatepass")[:-1]) == entry


@given(st.text())
def test_parse_line_never_raises_on_arbitrary_text(line: str) -> None:
    result = parse_line(line)
    assert isinstance(result, (HistoryEntry, LineProblem))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6,
)


@given(cursor=json_values, content=json_values)
def test_parse_line_accepts_only_positive_int_cursors_and_string_content(cursor: object, content: object) -> None:
    result = parse_line(json.dumps({"cursor": cursor, "content": content}))
    valid_cursor = type(cursor) is int and cursor >= 1
    if not valid_cursor:
        assert result == LineProblem("bad-cursor", f"cursor {cursor!r}")
    elif not isinstance(content, str):
        assert isinstance(result, LineProblem) and result.kind == "bad-content"
    else:
        assert result == HistoryEntry(cursor, "", content)


@given(json_values.filter(lambda v: not isinstance(v, dict)))
def test_parse_line_reports_non_objects(value: object) -> None:
    assert parse_line(json.dumps(value)).kind == "not-an-object"  # type: ignore[union-attr]


# cursor files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("garbage", [b"", b"   \n", b"abc", b"-4", b"\xff\xfe", b"12x"])
def test_cursor_file_garbage_is_recovered_from_the_history_tail(workspace: Path, garbage: bytes) -> None:
    history = make_history(workspace)
    for i in range(4):
        history.append(f"e{i}")
    (workspace / "memory" / ".cursor").write_bytes(garbage)
    assert history.last_cursor() == 4
    assert history.append("next") == 5
    assert (workspace / "memory" / ".cursor").read_text().strip() == "5"


def test_dream_cursor_missing_in_a_fresh_workspace_is_zero(workspace: Path) -> None:
    history = make_history(workspace)
    history.append("a")
    assert history.read_dream_cursor() == 0
    assert history.pending_count() == 1


@pytest.mark.parametrize("garbage", [b"", b"garbage", b"-1"])
def test_dream_cursor_garbage_uses_the_git_fallback(workspace: Path, garbage: bytes) -> None:
    history = make_history(workspace, dream_cursor_fallback=lambda: 3)
    history.write_dream_cursor(0)
    for i in range(5):
        history.append(f"e{i}")
    (workspace / "memory" / ".dream_cursor").write_bytes(garbage)
    assert history.read_dream_cursor() == 3
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == [4, 5]


def test_dream_cursor_missing_uses_the_git_fallback_when_dream_ran_before(workspace: Path) -> None:
    history = make_history(workspace, dream_cursor_fallback=lambda: 2)
    assert history.read_dream_cursor() == 2
    assert history.append("e") == 3  # never hidden behind the recovered dream cursor


def test_dream_cursor_garbage_without_fallback_is_never_zero(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    history = make_history(workspace, dream_cursor_fallback=lambda: None)
    for i in range(6):
        history.append(f"e{i}")
    (workspace / "memory" / ".dream_cursor").write_bytes(b"\x00\x00")
    with caplog.at_level(logging.WARNING, logger="nanomem.store.history"):
        assert history.read_dream_cursor() == 6
    assert "damaged" in caplog.text
    assert history.pending_count() == 0
    assert history.append("new") == 7
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == [7]


def test_write_dream_cursor_is_atomic_decimal_text(workspace: Path) -> None:
    history = make_history(workspace)
    history.append_many([f"e{i}" for i in range(12)])
    history.write_dream_cursor(12)
    assert (workspace / "memory" / ".dream_cursor").read_text() == "12\n"
    assert history.read_dream_cursor() == 12
    assert not list((workspace / "memory").glob("*.tmp"))
    with pytest.raises(HistoryError):
        history.write_dream_cursor(True)


# compaction -----------------------------------------------------------------------------------


def test_compact_drops_only_processed_entries_beyond_the_limit(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=5))
    history.append_many([f"e{i}" for i in range(1, 21)])
    history.write_dream_cursor(12)
    assert history.compact() == 12
    assert [line["cursor"] for line in lines_of(workspace)] == list(range(13, 21))


def test_compact_returns_the_number_of_dropped_entries(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=5))
    history.append_many([f"e{i}" for i in range(1, 21)])
    history.write_dream_cursor(20)
    assert history.compact() == 15
    assert [line["cursor"] for line in lines_of(workspace)] == [16, 17, 18, 19, 20]
    assert history.compact() == 0


def test_compact_never_drops_an_entry_after_the_dream_cursor(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=2))
    history.append_many([f"e{i}" for i in range(1, 11)])
    history.write_dream_cursor(4)
    assert history.compact() == 4
    assert [line["cursor"] for line in lines_of(workspace)] == list(range(5, 11))
    assert history.pending_count() == 6


def test_compact_moves_malformed_lines_verbatim_for_a_person_to_repair(workspace: Path) -> None:
    write_lines(workspace, [entry_line(1), "oops {", entry_line(2), entry_line(3)])
    history = make_history(workspace, config=Config(max_history_entries=1))
    history.write_dream_cursor(3)
    assert history.compact() == 2
    assert (workspace / "memory" / "history.jsonl").read_text().splitlines() == [entry_line(3)]
    segment = workspace / "memory" / "history.compacted-1-2.jsonl"
    assert segment.read_text().splitlines() == [entry_line(1), "oops {", entry_line(2)]


def test_compact_drops_nothing_when_the_dream_cursor_is_damaged(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=1))
    history.append_many([f"e{i}" for i in range(1, 6)])
    (workspace / "memory" / ".dream_cursor").write_text("??")
    assert history.compact() == 0
    assert len(lines_of(workspace)) == 5


def test_history_stays_bounded_when_dream_never_runs(workspace: Path) -> None:
    history = make_history(workspace, config=Config(max_history_entries=3))
    for i in range(1, 96):
        history.append(f"e{i}")
        history.compact()  # what every consolidation does after appending
    assert len(lines_of(workspace)) <= 31
    overflow = history.overflow_files()
    assert overflow and all(p.name.startswith("history.overflow-") for p in overflow)
    assert [e.cursor for e in history.read_since(0)] == list(range(1, 96))
    assert history.pending_count() == 95
    assert [e.cursor for e in history.read_since(10, limit=3)] == [11, 12, 13]


def test_compact_turns_overflow_segments_into_compacted_ones_once_dream_processed_them(
    workspace: Path,
) -> None:
    history = make_history(workspace, config=Config(max_history_entries=2))
    for i in range(1, 41):
        history.append(f"e{i}")
        history.compact()
    assert history.overflow_files()
    history.write_dream_cursor(40)
    assert history.compact() == 38
    assert history.overflow_files() == []
    assert {seg.kind for seg in history.segments()} == {"compacted"}
    assert [e.cursor for e in history.read_since(0)] == list(range(1, 41))
    assert [e.cursor for e in history.read_since(history.read_dream_cursor())] == []


def test_append_records_when_the_words_were_said_beside_the_nanobot_fields(workspace: Path) -> None:
    history = History(Workspace(workspace), clock=lambda: datetime(2026, 5, 9, 10, 0))
    history.append("- [durable] Takes the 7:40 train.", session_key="cli", said_at="2026-04-20 09:39")
    history.append("- [durable] Said just now.", said_at="2026-05-09 10:00")

    lines = [json.loads(line) for line in (workspace / "memory" / "history.jsonl").read_text("utf-8").splitlines()]
    assert lines[0] == {"cursor": 1, "timestamp": "2026-05-09 10:00",
                        "content": "- [durable] Takes the 7:40 train.", "session_key": "cli",
                        "said_at": "2026-04-20 09:39"}
    assert "said_at" not in lines[1]  # the archiving time itself needs no second field
    assert [e.said_at for e in history.read_since(0)] == ["2026-04-20 09:39", None]


def test_append_refuses_a_said_at_that_is_not_a_minute(workspace: Path) -> None:
    with pytest.raises(HistoryError, match="said_at must be 'YYYY-MM-DD HH:MM'"):
        History(Workspace(workspace)).append("x", said_at="yesterday")


def test_history_reads_backwards_lines_longer_than_its_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nanomem.store.historyfile as historyfile

    monkeypatch.setattr(historyfile, "_TAIL_BLOCK", 7)  # every line below spans blocks
    data = b"\n".join([b"a" * 40, b"", b"bc", b"d" * 7, b"e" * 8, b"f" * 6 + b"\n" + b"g" * 29])
    path = tmp_path / "history.jsonl"
    path.write_bytes(data)
    with path.open("rb") as handle:
        reader = historyfile.LineReader(handle, path, historyfile.MalformedLines())
        assert list(reader.iter_backward()) == list(reversed(data.split(b"\n")))
