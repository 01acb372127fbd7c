"""The memory block for a system prompt: headers, budget, visible omissions, pinned lines."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from nanomem.text.context import render_context
from nanomem.text.tokens import estimate_text

CAPS = {"SOUL.md": 4000, "USER.md": 6000, "memory/MEMORY.md": 12000}
_OMITTED = re.compile(r"^… (\d+) lines? omitted to fit the budget; see (\S+)$")


def _memory_md(n: int) -> str:
    facts = "\n".join(f"- Project fact number {i} about the Atlas rollout plan." for i in range(n))
    return f"# Memory\n\n## Facts\n{facts}\n"


def _blocks(text: str) -> dict[str, list[str]]:
    """Split a rendered context into ``{file: lines}`` by its usage headers."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        match = re.match(r"^## (\S+\.md) [\d,]+/[\d,]+ chars$", line)
        if match and match.group(1) in CAPS:
            current = match.group(1)
            blocks[current] = []
        elif current is not None:
            blocks[current].append(line)
    for lines in blocks.values():
        while lines and not lines[-1]:
            lines.pop()  # the blank line that separates blocks
    return blocks


def test_render_context_shows_each_file_under_a_usage_header() -> None:
    files = {"SOUL.md": "# Soul\n- Be brief.\n", "USER.md": "# User\n- Lives in Porto.\n"}

    text = render_context(files, CAPS, 1000)

    assert text == (
        "## SOUL.md 19/4,000 chars\n# Soul\n- Be brief.\n\n"
        "## USER.md 25/6,000 chars\n# User\n- Lives in Porto."
    )


def test_render_context_marks_an_empty_file_when_it_has_no_text() -> None:
    text = render_context({"USER.md": ""}, CAPS, 100)

    assert text == "## USER.md 0/6,000 chars\n(empty)"


def test_render_context_stays_within_budget_and_says_what_was_left_out_when_too_long() -> None:
    files = {"memory/MEMORY.md": _memory_md(200)}

    text = render_context(files, CAPS, 300)

    assert estimate_text(text) <= 300
    last = text.split("\n")[-1]
    match = _OMITTED.match(last)
    assert match is not None, last
    kept = [ln for ln in _blocks(text)["memory/MEMORY.md"][:-1] if ln.strip()]
    assert int(match.group(1)) + len(kept) == 202  # 2 headings + 200 facts, none lost silently
    assert match.group(2) == "memory/MEMORY.md"


def test_render_context_keeps_pinned_lines_when_truncating() -> None:
    pinned = "- Contract KX-7731 renews every March. <!-- pin -->"
    files = {"memory/MEMORY.md": _memory_md(300) + pinned + "\n"}

    text = render_context(files, CAPS, 250)

    assert pinned in text.split("\n")
    assert "lines omitted" in text
    assert estimate_text(text) <= 250


def test_render_context_keeps_kept_lines_in_file_order_when_truncating() -> None:
    files = {"memory/MEMORY.md": _memory_md(100) + "- Late fact. <!-- pin -->\n"}

    lines = _blocks(render_context(files, CAPS, 200))["memory/MEMORY.md"]

    numbers = [int(m.group(1)) for ln in lines if (m := re.search(r"number (\d+)", ln))]
    assert numbers == sorted(numbers) and numbers[0] == 0
    last_kept = f"- Project fact number {numbers[-1]} about the Atlas rollout plan."
    assert lines.index("- Late fact. <!-- pin -->") > lines.index(last_kept)


def test_render_context_shares_the_budget_across_files_when_one_is_huge() -> None:
    files = {"USER.md": "# User\n- Allergic to peanuts.\n", "memory/MEMORY.md": _memory_md(500)}

    text = render_context(files, CAPS, 400)

    assert "- Allergic to peanuts." in text
    assert "see memory/MEMORY.md" in text


def test_render_context_announces_the_cut_when_not_even_the_headers_fit() -> None:
    assert render_context({"USER.md": "- a fact\n"}, CAPS, 3) == "… memory omitted"
    assert render_context({"USER.md": "- a fact\n"}, CAPS, 2) == ""
    assert render_context({"USER.md": "- a fact\n"}, CAPS, 0) == ""


_line = st.one_of(
    st.text(alphabet="abcdefgh XYZ-.,", min_size=0, max_size=60),
    st.text(alphabet="我喜欢茶过敏花生。", min_size=1, max_size=30),
    st.builds(lambda s: f"- {s} <!-- pin -->", st.text(alphabet="abc ", max_size=20)),
)
_file = st.lists(_line, max_size=40).map(lambda ls: "\n".join(ls))


@settings(max_examples=40, deadline=None)
@given(
    files=st.dictionaries(st.sampled_from(sorted(CAPS)), _file, min_size=1, max_size=3),
    budget=st.integers(min_value=0, max_value=400),
)
def test_render_context_never_exceeds_budget_nor_cuts_silently(
    files: dict[str, str], budget: int
) -> None:
    text = render_context(files, CAPS, budget)

    assert estimate_text(text) <= budget
    for rel, lines in _blocks(text).items():
        total = sum(1 for ln in files[rel].split("\n") if ln.strip()) if files[rel].strip() else 0
        omitted = 0
        if lines and (match := _OMITTED.match(lines[-1])):
            omitted = int(match.group(1))
            lines = lines[:-1]
        shown = sum(1 for ln in lines if ln.strip() and ln != "(empty)")
        assert shown + omitted == total
