"""The shared vocabulary: one pinned-line rule, one symlink policy, one set of file names."""

from __future__ import annotations

from datetime import date

import pytest

from nanomem.config import Config
from nanomem.dream.gates.checks import GateContext, Proposal, check_pins
from nanomem.engines.offline.dream import expired_lines
from nanomem.text.context import render_context
from nanomem.vocab import MEMORY_FILES, check_link_target, is_bookkeeping, is_pinned

LINES = [
    ("- Allergic to peanuts <!-- pin -->", True),
    ("- Allergic to peanuts <!--pin-->", True),
    ("- Allergic to peanuts <!--   pin   -->  ", True),
    ("- Allergic to peanuts <!-- pin --> <!-- permanent -->", True),
    ("- Allergic to peanuts <!-- permanent --><!--pin-->", True),
    ("- <!-- pin --> Allergic to peanuts", False),
    ("- Allergic to peanuts <!-- pinned -->", False),
    ("- Allergic to peanuts", False),
]


@pytest.mark.parametrize(("line", "pinned"), LINES)
def test_vocab_is_pinned_agrees_with_the_pins_gate_and_the_context_block(
    line: str, pinned: bool
) -> None:
    original = f"# User\n{line}\n"
    context = GateContext("", {"USER.md": original}, {"USER.md": original}, Config())
    refused = check_pins(Proposal("USER.md", original, "# User\n"), context) is not None
    filler = "\n".join(f"- Project fact number {i} about the Atlas rollout." for i in range(60))
    block = render_context({"USER.md": f"# User\n{filler}\n{line}\n"}, {"USER.md": 6000}, 80)

    assert is_pinned(line) is pinned
    assert refused is pinned
    assert (line in block.split("\n")) is pinned


def test_vocab_offline_dream_expires_exactly_the_lines_the_pins_gate_leaves_unprotected() -> None:
    pinned = "- Flight FI 615 on Friday <!-- ephemeral 2026-01-02 --> <!--pin-->"
    mid_line = "- <!-- pin --> Flight FI 631 on Monday <!-- ephemeral 2026-01-02 -->"
    files = {"memory/MEMORY.md": f"# Memory\n{pinned}\n{mid_line}\n"}

    expired = expired_lines(files, date(2026, 11, 30), 7)

    assert expired == [("memory/MEMORY.md", mid_line)]
    assert (is_pinned(pinned), is_pinned(mid_line)) == (True, False)


@pytest.mark.parametrize("target", [
    "memory/history.jsonl", "memory/.cursor", "memory/.dream_cursor", "memory/dream-audit.jsonl",
    "memory/archive/0001.jsonl", "memory/index.sqlite", "sessions/cli.jsonl", ".git/config",
    ".nanomem.git/HEAD", "nanomem.toml", "prompts/dream.md", ".gitignore", "memory", ".",
])
def test_vocab_check_link_target_refuses_every_bookkeeping_file(target: str) -> None:
    resolved = "/ws" if target == "." else f"/ws/{target}"

    assert is_bookkeeping(target)
    assert "nanomem manages itself" in (check_link_target(resolved, "/ws") or "")


def test_vocab_check_link_target_allows_memory_files_and_other_files_inside() -> None:
    for target in (*MEMORY_FILES, "notes/user.md", "USER.md.bak"):
        assert check_link_target(f"/ws/{target}", "/ws") is None
    assert "outside the workspace" in (check_link_target("/wsx/USER.md", "/ws") or "")
    assert "outside the workspace" in (check_link_target("/etc/passwd", "/ws") or "")
