"""The query-aware prompt block: relevance, pending history, recalled turns, template text, budget."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nanomem.memory import Memory
from nanomem.text.context import PendingEntry, RecalledTurn, render_context
from nanomem.text.tokens import estimate_text

CAPS = {"SOUL.md": 4000, "USER.md": 6000, "memory/MEMORY.md": 12000}


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def _facts(n: int) -> str:
    return "# Memory\n" + "".join(f"- Project fact {i} about the Atlas rollout.\n" for i in range(n))


def test_render_context_with_relevance_keeps_the_relevant_line_over_file_order() -> None:
    text = _facts(200) + "- The dentist appointment is on June 3.\n"
    files = {"memory/MEMORY.md": text}

    plain = render_context(files, CAPS, 120)
    ranked = render_context(files, CAPS, 120, relevance={"memory/MEMORY.md": {201: 3.0}})

    assert "dentist" not in plain and "Project fact 0 " in plain
    assert "- The dentist appointment is on June 3." in ranked
    assert estimate_text(ranked) <= 120 and "lines omitted" in ranked


def test_render_context_shows_pending_entries_newest_first_and_announces_the_rest() -> None:
    pending = [PendingEntry(f"2026-05-0{i} 10:00", f"- [durable] fact {i} " + "word " * 20)
               for i in range(9, 0, -1)]  # newest first

    text = render_context({"USER.md": "# User\n"}, CAPS, 120, pending=pending)

    shown = [int(m.group(1)) for m in re.finditer(r"fact (\d)", text)]
    assert shown == sorted(shown) and shown[-1] == 9  # the newest kept, shown oldest first
    assert re.search(r"… \d older entries omitted to fit the budget; see memory/history.jsonl", text)
    assert estimate_text(text) <= 120


def test_render_context_shows_recalled_turns_with_date_and_speaker() -> None:
    recalled = [RecalledTurn("2026-05-08", "Ana (user)", "We painted a\nsunrise last week.")]

    text = render_context({"USER.md": "# User\n"}, CAPS, 200, recalled=recalled)

    assert text.endswith("[2026-05-08] Ana (user): We painted a sunrise last week.")


_entries = st.lists(st.text(alphabet="abc 我你。-[]", min_size=1, max_size=80), max_size=8)


@settings(max_examples=60, deadline=None)
@given(
    files=st.dictionaries(st.sampled_from(sorted(CAPS)),
                          st.lists(st.text(alphabet="abcXYZ #-.我", max_size=50), max_size=30)
                          .map("\n".join), max_size=3),
    pending=_entries, recalled=_entries, budget=st.integers(min_value=0, max_value=300),
    relevant=st.booleans(),
)
def test_render_context_never_exceeds_the_budget_and_counts_every_cut(
    files: dict[str, str], pending: list[str], recalled: list[str], budget: int, relevant: bool
) -> None:
    relevance = {rel: {0: 1.0, 3: 2.0} for rel in files} if relevant else None
    text = render_context(files, CAPS, budget, relevance=relevance,
                          pending=[PendingEntry("2026-05-08 10:00", p) for p in pending],
                          recalled=[RecalledTurn("2026-05-08", "user", r) for r in recalled])

    assert estimate_text(text) <= budget
    if text.startswith(("## Memory\n", "… memory")):
        return  # the compact layout below the headers counts in one note (test_context_compact)
    if text and pending:
        shown = text.count("[2026-05-08 10:00] ")
        left = re.search(r"… (\d+) older entr", text)
        assert shown + (int(left.group(1)) if left else 0) == len(pending)
    if text and recalled:
        shown = text.count("[2026-05-08] user: ")
        left = re.search(r"… (\d+) more recalled", text)
        assert shown + (int(left.group(1)) if left else 0) == len(recalled)


def test_memory_context_never_puts_template_text_in_the_prompt(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        plain = mem.context(2000)
        asked = mem.context(2000, query="what does Dream keep in this file?")

    for text in (plain, asked):
        assert "Dream keeps this file" not in text and "to pin it" not in text
        assert "## USER.md" in text


def test_memory_context_without_a_query_does_not_open_the_index(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.history.append("- [durable] Prefers tea.")
        text = mem.context(2000)

    assert "- [durable] Prefers tea." in text
    assert not (workspace / "memory" / "index.sqlite3").exists()


def test_memory_context_shows_pending_entries_but_not_dreamed_ones(workspace: Path) -> None:
    with Memory(workspace, clock=_clock) as mem:
        mem.history.append("- [durable] Old dreamed fact.")
        mem.history.write_dream_cursor(1)
        mem.history.append("- [durable] Fresh pending fact.")
        text = mem.context(2000)

    assert "Fresh pending fact" in text and "Old dreamed fact" not in text
    assert "[2026-05-09 10:00] - [durable] Fresh pending fact." in text


def test_memory_context_with_a_query_recalls_the_turn_that_answers_it(workspace: Path) -> None:
    (workspace / "memory" / "MEMORY.md").write_text(_facts(300), "utf-8")
    with Memory(workspace, clock=_clock) as mem:
        filler = [{"role": "user", "content": f"Chatting about topic {i} and the weather.",
                   "timestamp": "2026-05-01T09:00:00"} for i in range(50)]
        answer = {"role": "user", "name": "Caroline", "timestamp": "2026-05-08T14:03:00",
                  "content": "I went to an LGBTQ support group yesterday, it was powerful."}
        mem.archive.append_messages([*filler, answer], session_key="cli", start=0, chunk="c")

        plain = mem.context(400)
        asked = mem.context(400, query="When did Caroline go to the LGBTQ support group?")

    assert "support group" not in plain
    assert "[2026-05-08] Caroline (user): I went to an LGBTQ support group yesterday" in asked
    assert estimate_text(asked) <= 400 and "lines omitted to fit the budget" in asked


def test_memory_context_dates_pending_entries_when_their_words_were_said(workspace: Path) -> None:
    said = {"role": "user", "content": "I switched to green tea.", "timestamp": "2026-05-02T08:15:00"}
    with Memory(workspace, clock=_clock) as mem:
        mem.archive.append_messages([said], session_key="cli", start=0, chunk="5be0c1d2")
        mem.history.append("- [durable] Drinks green tea.", session_key="cli", chunk="5be0c1d2/1")
        mem.history.append("- [durable] Untagged entry.")
        text = mem.context(2000)

    assert "[2026-05-02 08:15] - [durable] Drinks green tea." in text
    assert "[2026-05-09 10:00] - [durable] Untagged entry." in text  # no chunk: archiving time


def test_memory_context_dates_entries_of_a_real_consolidation_when_said(workspace: Path) -> None:
    from nanomem.store.sessions import append_messages

    turns = [{"role": "user" if i % 2 == 0 else "assistant",
              "content": f"I always take the 7:40 train to work, note {i}.",
              "timestamp": f"2026-04-20T09:{i:02d}:00"} for i in range(40)]
    append_messages(workspace / "sessions" / "cli.jsonl", turns, key="cli", clock=_clock)
    with Memory(workspace, clock=_clock) as mem:
        result = mem.consolidate("cli", context_window=5_600)
        entries = mem.history.read_since(0)
        text = mem.context(4000)

    assert result.status == "archived" and entries and all(e.chunk for e in entries)
    assert all(e.timestamp == "2026-05-09 10:00" for e in entries)
    assert "[2026-04-20 09:" in text and "[2026-05-09 10:00]" not in text


def test_memory_context_dates_a_pending_entry_whose_chunk_is_far_back_in_the_archive(
    workspace: Path,
) -> None:
    from nanomem.store.sessions import append_messages

    turns = [{"role": "user" if i % 2 == 0 else "assistant",
              "content": f"I always take the 7:40 train to work, note {i}.",
              "timestamp": f"2026-04-20 09:{i:02d}:00"} for i in range(40)]
    append_messages(workspace / "sessions" / "cli.jsonl", turns, key="cli", clock=_clock)
    with Memory(workspace, clock=_clock) as mem:
        assert mem.consolidate("cli", context_window=5_600).status == "archived"
    filler = b"".join(  # 9 MiB archived after the chunk, by another session
        b'{"id": "f%d", "session_key": "web", "index": %d, "role": "user", "said_at": '
        b'"2026-05-09 09:59", "text": "%s", "archived_at": "2026-05-09 10:00"}\n'
        % (i, i, b"filler " * 140) for i in range(9 * 1024))
    (workspace / "memory" / "archive" / "archive-000002.jsonl").write_bytes(filler)

    with Memory(workspace, clock=_clock) as mem:  # a new process: nothing remembered
        text = mem.context(4000)

    assert "[2026-04-20 09:" in text and "[2026-05-09 10:00]" not in text
    lines = (workspace / "memory" / "history.jsonl").read_text("utf-8").splitlines()
    assert all(line.startswith('{"cursor": ') and '"timestamp": "2026-05-09 10:00", "content": '
               in line and '"said_at": "2026-04-20 09:' in line for line in lines)
