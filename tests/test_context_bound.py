"""The prompt block skips assembling the full block only when it provably cannot fit: at a
budget equal to the full block's own estimate, the full block is still what comes back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nanomem.text.context import PendingEntry, RecalledTurn, render_context
from nanomem.text.tokens import estimate_text

PIECES = st.sampled_from(["the", "Lisbon", "KX-7731", "4,500", "_", "__init__", "://", "});",
                          "我住在上海", "서울", "😀", "Ωmega", "<!-- pin -->", "#", "-", " ", "  ",
                          "\t", "x1", "é"])
LINE = st.one_of(st.sampled_from(["", " ", "_", "x1", "é"]), st.lists(PIECES, max_size=12).map("".join))
CAPS = {"USER.md": 6000, "memory/MEMORY.md": 12000}


@settings(max_examples=300, deadline=None)
@given(user=st.lists(LINE, max_size=80), memory=st.lists(LINE, max_size=30),
       pending=st.lists(LINE, max_size=4), recalled=st.lists(LINE, max_size=4))
def test_render_context_returns_the_full_block_at_a_budget_equal_to_its_estimate(
        user: list[str], memory: list[str], pending: list[str], recalled: list[str]) -> None:
    files = {"USER.md": "\n".join(user) + "\n", "memory/MEMORY.md": "\n".join(memory) + "\n"}
    kwargs = {"pending": [PendingEntry("2026-11-30 12:00", t) for t in pending],
              "recalled": [RecalledTurn("2026-11-29", "user", t) for t in recalled]}
    full = render_context(files, CAPS, 10**9, **kwargs)
    assert render_context(files, CAPS, estimate_text(full), **kwargs) == full


def test_render_context_returns_the_full_block_when_lines_cost_more_than_they_weigh() -> None:
    # a lone "_" weighs half a token but is charged a whole one: 300 of them are charged far
    # more than the full block's estimate, which still fits its own estimate
    files = {"USER.md": "_\n" * 300 + "\n" * 50 + "- tea\n"}
    full = render_context(files, CAPS, 10**9)
    assert full.count("\n_") == 300
    assert render_context(files, CAPS, estimate_text(full)) == full
