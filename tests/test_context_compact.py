"""The prompt block at budgets smaller than its file headers: one compact header, the pinned
lines first, and always a note of what was cut (empty only below the shortest note)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from nanomem.memory import Memory
from nanomem.text.context import PendingEntry, RecalledTurn, render_context
from nanomem.text.tokens import estimate_text

CAPS = {"SOUL.md": 4000, "USER.md": 6000, "memory/MEMORY.md": 12000}
PIN = "- Allergic to peanuts <!-- pin -->"
_FILES = {
    "SOUL.md": "# Soul\n\n## Behaviour\n- Be brief.\n",
    "USER.md": "# User\n\n## Facts\n" + PIN + "\n" + "".join(f"- fact {i} about things\n"
                                                           for i in range(50)),
    "memory/MEMORY.md": "# Memory\n\n## Facts\n",
}
_PENDING = [PendingEntry("2026-05-09 10:00", "- [durable] Booked the hotel.")]
_COUNT = re.compile(r"(\d+) (?:lines?|questions?|history entr|recalled turn)")


def test_render_context_keeps_the_pinned_line_when_the_file_headers_do_not_fit() -> None:
    text = render_context(_FILES, CAPS, 40, pending=_PENDING)

    assert estimate_text(text) <= 40
    assert text.split("\n")[0] == "## Memory"
    assert PIN in text.split("\n")
    assert text.split("\n")[-1].startswith("… ") and "omitted to fit the budget" in text


def test_render_context_counts_every_cut_and_names_the_files_when_the_note_fits() -> None:
    text = render_context(_FILES, CAPS, 60, pending=_PENDING)

    lines = text.split("\n")
    assert lines[1:-1] == ["- Be brief.", PIN]
    assert lines[-1] == ("… 56 lines and 1 history entry omitted to fit the budget; see SOUL.md, "
                         "USER.md, memory/MEMORY.md, memory/history.jsonl")
    assert estimate_text(text) <= 60


def test_render_context_shortens_the_note_before_it_drops_a_pinned_line() -> None:
    texts = {budget: render_context(_FILES, CAPS, budget, pending=_PENDING)
             for budget in (14, 18, 24)}

    assert texts[14] == f"## Memory\n{PIN}\n… memory omitted"
    assert texts[18] == f"## Memory\n{PIN}\n… memory omitted to fit the budget"
    assert texts[24] == f"## Memory\n{PIN}\n… 57 lines and 1 history entry omitted to fit the budget"


def test_render_context_announces_the_cut_alone_at_a_tiny_budget() -> None:
    assert render_context(_FILES, CAPS, 3, pending=_PENDING) == "… memory omitted"
    assert render_context(_FILES, CAPS, 6) == "## Memory\n… memory omitted"
    assert render_context(_FILES, CAPS, 10) == "## Memory\n… memory omitted to fit the budget"


def test_render_context_is_empty_only_when_not_even_the_shortest_note_fits() -> None:
    assert render_context(_FILES, CAPS, 2) == ""
    assert render_context(_FILES, CAPS, 1) == ""
    assert render_context(_FILES, CAPS, 0) == ""


def test_render_context_keeps_the_file_layout_when_it_holds_every_pinned_line() -> None:
    text = render_context(_FILES, CAPS, 200, pending=_PENDING)

    assert text.startswith("## SOUL.md ") and PIN in text and "## Memory\n" not in text


def test_memory_context_below_the_header_cost_still_shows_pinned_lines(workspace: Path) -> None:
    user = workspace / "USER.md"
    user.write_text(user.read_text("utf-8") + PIN + "\n" + "- Lives in Porto.\n" * 30, "utf-8")
    with Memory(workspace) as mem:
        mem.history.append("- [durable] Booked the hotel.")
        texts = {budget: mem.context(budget) for budget in (3, 20, 50, 80)}

    for budget, text in texts.items():
        assert text and estimate_text(text) <= budget, (budget, text)
    assert PIN in texts[20] and PIN in texts[50] and PIN in texts[80]


_line = st.one_of(
    st.text(alphabet="abcdefgh XYZ-.,#", min_size=0, max_size=60),
    st.text(alphabet="我喜欢茶过敏花生。", min_size=1, max_size=30),
    st.builds(lambda s: f"- {s} <!-- pin -->", st.text(alphabet="abc ", max_size=20)),
)
_file = st.lists(_line, max_size=30).map(lambda ls: "\n".join(ls))
_entries = st.lists(st.text(alphabet="abc 我。-", min_size=1, max_size=60), max_size=5)


@settings(max_examples=80, deadline=None)
@example(files={"SOUL.md": ""}, pending=[], recalled=[], budget=2)  # once gave a bare "## Memory"
@given(
    files=st.dictionaries(st.sampled_from(sorted(CAPS)), _file, min_size=1, max_size=3),
    pending=_entries, recalled=_entries, budget=st.integers(min_value=0, max_value=120),
)
def test_render_context_compact_never_exceeds_the_budget_and_is_empty_only_below_3(
    files: dict[str, str], pending: list[str], recalled: list[str], budget: int
) -> None:
    text = render_context(files, CAPS, budget, relevance={rel: {1: 1.0} for rel in files},
                          pending=[PendingEntry("2026-05-08 10:00", p) for p in pending],
                          recalled=[RecalledTurn("2026-05-08", "user", r) for r in recalled])

    assert estimate_text(text) <= budget
    assert bool(text) == (budget >= 3)
    note = text.split("\n")[-1]
    if text.startswith("## Memory\n") and " omitted to fit the budget" in note and note[2].isdigit():
        shown = len(text.split("\n")) - 2
        omitted = sum(int(n) for n in _COUNT.findall(note.split(" omitted")[0]))
        lines = sum(1 for body in files.values() for ln in body.split("\n") if ln.strip())
        assert shown + omitted == lines + len(pending) + len(recalled)
