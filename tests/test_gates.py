"""The gates: one accepted and one refused case per rule, judged on before → after texts."""

from __future__ import annotations

import dataclasses

import pytest

from nanomem.config import Config
from nanomem.dream.gates.checks import (
    GateContext,
    Proposal,
    check_all,
    check_corrections,
    check_deletion,
    check_path,
    check_pins,
    check_secrets,
    check_size,
    check_symlink,
    check_traceability,
    normalise_path,
)

OPENAI_KEY = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"
USER = "# User\n\n## Facts\n- Name: Ana Silva\n- Lives in Lisbon <!-- permanent -->\n"


def ctx(files: dict[str, str] | None = None, batch: str = "", **config: object) -> GateContext:
    files = {"USER.md": USER} if files is None else files
    return GateContext(batch, dict(files), dict(files), dataclasses.replace(Config(), **config))


# ------------------------------------------------------------------------------ paths


@pytest.mark.parametrize("raw", ["SOUL.md", "USER.md", "memory/MEMORY.md", "./USER.md", " USER.md"])
def test_check_path_accepts_memory_files(raw: str) -> None:
    assert check_path(raw) is None
    assert normalise_path(raw) in ("SOUL.md", "USER.md", "memory/MEMORY.md")


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("/etc/passwd", "absolute path"),
        ("/work/ws/USER.md", "absolute path"),
        ("C:/ws/USER.md", "absolute path"),
        ("~/USER.md", "absolute path"),
        ("../USER.md", "'..'"),
        ("memory/../USER.md", "'..'"),
        ("memory\\MEMORY.md", "backslash"),
        ("USER.md\x00.txt", "control characters"),
        ("memory/history.jsonl", "not a memory file"),
        ("memory/.dream_cursor", "not a memory file"),
        ("memory/.cursor", "not a memory file"),
        ("nanomem.toml", "not a memory file"),
        ("prompts/dream.md", "not a memory file"),
        ("user.md", "not a memory file"),
        ("MEMORY.md", "not a memory file"),
        ("", "not a memory file"),
    ],
)
def test_check_path_refuses_everything_else(raw: str, words: str) -> None:
    reason = check_path(raw)
    assert reason is not None and words in reason
    assert "SOUL.md, USER.md, memory/MEMORY.md" in reason


def test_check_symlink_refuses_link_leading_outside_workspace() -> None:
    assert check_symlink("USER.md", "/ws/USER.md", "/ws") is None
    assert check_symlink("USER.md", "/ws/notes/user.md", "/ws") is None
    reason = check_symlink("USER.md", "/home/ana/.ssh/config", "/ws")
    assert reason is not None and "outside the workspace" in reason
    assert check_symlink("USER.md", "/wsx/USER.md", "/ws") is not None


def test_check_symlink_refuses_link_into_bookkeeping_files() -> None:
    reason = check_symlink("USER.md", "/ws/memory/history.jsonl", "/ws")
    assert reason is not None and "memory/history.jsonl" in reason
    assert check_symlink("SOUL.md", "/ws/nanomem.toml", "/ws") is not None
    assert check_symlink("SOUL.md", "/ws/memory/MEMORY.md", "/ws") is None


# ------------------------------------------------------------------------------ size


def test_check_size_accepts_text_within_cap() -> None:
    context = ctx(file_caps={"USER.md": 200})
    assert check_size(Proposal("USER.md", USER, USER + "- Likes tea\n"), context) is None


def test_check_size_refuses_growth_past_cap_with_current_size_and_cap() -> None:
    context = ctx(file_caps={"USER.md": 100})
    after = USER + "- Likes green tea from the market\n"
    reason = check_size(Proposal("USER.md", USER, after), context)
    assert reason is not None
    assert f"{len(after):,} characters" in reason and "cap of 100" in reason
    assert f"now {len(USER)}" in reason


def test_check_size_accepts_shrinking_file_already_over_cap() -> None:
    context = ctx(file_caps={"USER.md": 10})
    after = USER.replace("- Name: Ana Silva\n", "")
    assert check_size(Proposal("USER.md", USER, after), context) is None


# ------------------------------------------------------------------------------ secrets


def test_check_secrets_refuses_new_credential_without_echoing_it() -> None:
    after = USER + f"- API key is {OPENAI_KEY}\n"
    reason = check_secrets(Proposal("USER.md", USER, after), ctx(batch=OPENAI_KEY))
    assert reason is not None and "openai-key" in reason
    assert OPENAI_KEY not in reason and "sk-proj" not in reason


def test_check_secrets_ignores_secret_a_person_already_wrote() -> None:
    before = USER + "- password=hunter2222\n"
    after = before + "- Likes tea\n"
    assert check_secrets(Proposal("USER.md", before, after), ctx({"USER.md": before})) is None


# ------------------------------------------------------------------------------ pins


PINNED = "# User\n\n## Facts\n- Never call before 9:00 <!-- pin -->\n- Likes tea\n"


def test_check_pins_accepts_edit_keeping_pinned_line() -> None:
    after = PINNED.replace("- Likes tea", "- Likes green tea") + "- Works at Acme\n"
    after = after.replace("<!-- pin -->", "<!-- pin -->  ")
    assert check_pins(Proposal("USER.md", PINNED, after), ctx({"USER.md": PINNED})) is None


@pytest.mark.parametrize(
    "after",
    [
        PINNED.replace("- Never call before 9:00 <!-- pin -->\n", ""),
        PINNED.replace("before 9:00", "before 10:00"),
        PINNED.replace(" <!-- pin -->", ""),
    ],
)
def test_check_pins_refuses_removing_or_rewording_pinned_line(after: str) -> None:
    reason = check_pins(Proposal("USER.md", PINNED, after), ctx({"USER.md": PINNED}))
    assert reason is not None and "pinned" in reason and "Never call before 9:00" in reason


def test_check_pins_refuses_dream_adding_its_own_pin() -> None:
    after = PINNED + "- Works at Acme <!-- pin -->\n"
    assert check_pins(Proposal("USER.md", PINNED, after), ctx({"USER.md": PINNED})) is None
    reason = check_all(Proposal("USER.md", PINNED, after), ctx({"USER.md": PINNED}))
    assert reason is not None and "only a person pins" in reason


def test_check_pins_ignores_pin_mark_quoted_mid_line() -> None:
    before = "End a line with `<!-- pin -->` to pin it.\n- Likes tea\n"
    after = "- Likes tea\n"
    assert check_pins(Proposal("USER.md", before, after), ctx({"USER.md": before})) is None


# ------------------------------------------------------------------------------ corrections


def test_check_corrections_accepts_change_backed_by_matching_correction() -> None:
    after = USER.replace("Lives in Lisbon", "Lives in Porto")
    batch = "[2026-11-30 10:00] (cursor 7)\n- [correction] actually I moved from Lisbon to Porto"
    assert check_corrections(Proposal("USER.md", USER, after), ctx(batch=batch)) is None


@pytest.mark.parametrize(
    "batch",
    ["", "- [durable] moved to Porto", "- [correction] the meeting is on Friday, not Thursday"],
)
def test_check_corrections_refuses_permanent_change_without_matching_correction(batch: str) -> None:
    after = USER.replace("- Lives in Lisbon <!-- permanent -->\n", "")
    reason = check_corrections(Proposal("USER.md", USER, after), ctx(batch=batch))
    assert reason is not None and "permanent fact" in reason and "Lives in Lisbon" in reason


def test_check_corrections_refuses_dropping_permanent_mark() -> None:
    after = USER.replace(" <!-- permanent -->", "")
    assert check_corrections(Proposal("USER.md", USER, after), ctx()) is not None


# ------------------------------------------------------------------------------ deletion


def test_check_deletion_accepts_removal_within_share() -> None:
    before = "- a1\n- a2\n- a3\n- a4\n"
    after = "- a1\n- a2\n"
    assert check_deletion(Proposal("USER.md", before, after), ctx({"USER.md": before})) is None


def test_check_deletion_refuses_removal_beyond_share_with_counts() -> None:
    before = "- a1\n- a2\n- a3\n- a4\n"
    reason = check_deletion(Proposal("USER.md", before, "- a1\n"), ctx({"USER.md": before}))
    assert reason is not None and "remove 3 of the 4 lines" in reason and "at most 2" in reason


def test_check_deletion_allows_one_removal_in_tiny_file() -> None:
    before = "- only fact\n"
    assert check_deletion(Proposal("USER.md", before, ""), ctx({"USER.md": before})) is None


def test_check_deletion_allows_nothing_when_share_is_zero() -> None:
    before = "- only fact\n"
    context = ctx({"USER.md": before}, max_deletion_share=0.0)
    assert check_deletion(Proposal("USER.md", before, ""), context) is not None


def test_check_deletion_counts_cumulatively_against_the_original() -> None:
    original = "".join(f"- fact {n}\n" for n in range(10))
    staged = original
    context = GateContext("", {"USER.md": original}, {"USER.md": original}, Config())
    refused_at = None
    for step in range(10):
        after = staged.replace(f"- fact {step}\n", "")
        reason = check_deletion(Proposal("USER.md", staged, after), context)
        if reason is not None:
            refused_at = step
            break
        staged = after
    assert refused_at == 5
    assert staged.count("- fact") == 5


def test_check_deletion_ignores_blank_lines_and_reindentation() -> None:
    before = "- a\n\n- b\n\n\n"
    after = "  - a\n- b\n"
    assert check_deletion(Proposal("USER.md", before, after), ctx({"USER.md": before}, max_deletion_share=0.0)) is None


# ------------------------------------------------------------------------------ traceability


BATCH = (
    "[2026-11-30 10:00] (cursor 7)\n"
    "- [durable] Contract KX-7731 with Acme GmbH, budget $4,500, due 2026-12-15\n"
    "- [durable] Ana prefers email: ana.silva@example.com\n"
    "- [ephemeral] meeting with joão at 14:00-15:00 tomorrow\n"
)


@pytest.mark.parametrize(
    "line",
    [
        "- Contract KX-7731 with Acme GmbH",
        "- Budget: 4500 (dollars)",
        "- Budget is $4,500 (due 2026-12-15)",
        "- Prefers email (ana.silva@example.com)",
        "- Meeting with João at 14:00 <!-- ephemeral 2026-11-30 -->",
        "- Contract KX-7731's budget is 4,500",
        "- Prefers contact by email",
        "- Enjoys hiking. Speaks slowly",
        "- Moved here recently",
        "## Projects",
        "1. Contract KX-7731",
        "- 合同 KX-7731，预算 4500",
    ],
)
def test_check_traceability_accepts_tokens_from_batch_or_files(line: str) -> None:
    after = USER + line + "\n"
    assert check_traceability(Proposal("USER.md", USER, after), ctx(batch=BATCH)) is None


@pytest.mark.parametrize(
    ("line", "token"),
    [
        ("- Contract KX-7713 with Acme GmbH", "KX-7713"),
        ("- Budget: $5,000", "5,000"),
        ("- Budget: 4500.50", "4500.50"),
        ("- Due 2026-12-16", "2026-12-16"),
        ("- Due 2026-15-12", "2026-15-12"),
        ("- Works with Bob at Acme", "Bob"),
        ("- Email: ana@evil.example", "ana@evil.example"),
        ("- See https://example.com/a for details", "https://example.com/a"),
        ("- Meeting at 16:00", "16:00"),
        ("- Contract KY-7731", "KY-7731"),
        ("- Budget: 4500 USD", "USD"),
        ("- 预算 ５０００ 元", "5000"),
        ("- Zorblax is the manager", "Zorblax"),
        ("- Lucas is the manager", "Lucas"),
        ("- Talks daily with Zorblax", "Zorblax"),
    ],
)
def test_check_traceability_refuses_invented_or_altered_tokens(line: str, token: str) -> None:
    after = USER + line + "\n"
    reason = check_traceability(Proposal("USER.md", USER, after), ctx(batch=BATCH))
    assert reason is not None and f"'{token}'" in reason


def test_check_traceability_accepts_tokens_found_in_another_memory_file() -> None:
    files = {"USER.md": USER, "memory/MEMORY.md": "- Project Orion, ticket 88123\n"}
    after = USER + "- Works on Orion (ticket 88123)\n"
    assert check_traceability(Proposal("USER.md", USER, after), ctx(files)) is None


def test_check_traceability_checks_only_new_lines() -> None:
    before = USER + "- Invented long ago: Zorblax 999\n"
    after = before + "- Likes tea\n"
    context = GateContext("", {"USER.md": USER}, {"USER.md": before}, Config())
    assert check_traceability(Proposal("USER.md", before, after), context) is None


# ------------------------------------------------------------------------------ check_all


def test_check_all_accepts_a_reasonable_edit() -> None:
    after = USER + "- Contract KX-7731 with Acme GmbH, budget $4,500 <!-- ephemeral 2026-11-30 -->\n"
    assert check_all(Proposal("USER.md", USER, after), ctx(batch=BATCH)) is None


def test_check_all_reports_secret_before_traceability_without_echoing_it() -> None:
    after = USER + f"- Key {OPENAI_KEY} for Zorblax\n"
    reason = check_all(Proposal("USER.md", USER, after), ctx(batch=BATCH))
    assert reason is not None and reason.startswith("secrets:")
    assert OPENAI_KEY not in reason


def test_check_corrections_does_not_block_later_batches_after_an_accepted_correction() -> None:
    corrected = USER.replace("Lives in Lisbon", "Lives in Porto")
    later = corrected + "- Likes tea\n"
    context = GateContext("- [durable] Likes tea", {"USER.md": USER}, {"USER.md": corrected}, Config())
    assert check_corrections(Proposal("USER.md", corrected, later), context) is None


def test_check_corrections_lets_a_topic_correction_replace_a_permanent_fact() -> None:
    before = "# User\n\n## Facts\n- I live in Graz. <!-- permanent -->\n"
    after = "# User\n\n## Facts\n- I moved to Linz. <!-- permanent -->\n"
    accepted = GateContext("- [correction] Actually, I moved to Linz.", {"USER.md": before},
                           {"USER.md": before}, Config())
    refused = GateContext("- [correction] We moved the server to Linz.", {"USER.md": before},
                          {"USER.md": before}, Config())
    assert check_corrections(Proposal("USER.md", before, after), accepted) is None
    assert "Graz" in (check_corrections(Proposal("USER.md", before, after), refused) or "")
