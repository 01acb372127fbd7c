"""What Dream can never place (nanomem/dream/limits.py): a fact too long for any file is
skipped before any engine sees it, and a memory file over its read ceiling refuses the run.
Small caps keep the inputs small."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.dream_fixtures import Setup, add_fact, finish, make_setup, provider_over, user_message
from tests.fakellm import FakeLLM

from nanomem.config import DEFAULT_FILE_CAPS
from nanomem.dream.ledger import LedgerFact, plan_ledger, summarize_ledger
from nanomem.dream.limits import FactRoom, clip_fact, plan_fact_room, screen_entry
from nanomem.dream.run import DreamResult

CAPS = {"SOUL.md": 300, "USER.md": 2_000, "memory/MEMORY.md": 2_500}  # room: 2,497 characters
WORDS = ("amber", "birch", "cedar", "dune", "ember", "fjord", "grove", "heath", "inlet", "juniper")


def _long_line(chars: int) -> str:
    """A pasted line of varied words, at least ``chars`` long."""
    out, n = [], 0
    while sum(len(w) + 1 for w in out) < chars:
        out.append(f"{WORDS[n % len(WORDS)]}{n // len(WORDS)}")
        n += 1
    return " ".join(out)


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace, file_caps={**DEFAULT_FILE_CAPS, **CAPS})


def _dream(setup: Setup, *replies: list, **kwargs: object) -> tuple[DreamResult, FakeLLM]:
    fake = FakeLLM()
    for reply in replies:
        fake.enqueue_tool_calls(reply)
    with provider_over("mock", fake) as engine:
        return setup.dream(engine, **kwargs), fake


def test_a_fact_too_long_for_any_file_is_skipped_before_the_model_sees_it(setup: Setup) -> None:
    pasted = _long_line(3_000)
    setup.history.append(f"- [durable] User keeps bees in Tarnow\n- [durable] {pasted}\n")
    result, fake = _dream(setup, [add_fact("USER.md", "- User keeps bees in Tarnow"), finish()])

    assert result.status == "committed" and result.dream_cursor_after == 1
    shown = user_message(fake.requests[0])
    assert "keeps bees in Tarnow" in shown and pasted[:40] not in shown
    kept, long = result.ledger
    assert kept.state == "kept" and kept.path == "USER.md"
    assert long.state == "skipped" and long.cursor == 1 and long.mark == "durable"
    assert long.reason == (f"too long for any file: {len(pasted):,} characters, the largest cap "
                           "is 2,500 (memory/MEMORY.md); the text stays in the history")
    assert long.fact.endswith(" …") and pasted.startswith(long.fact[:-2]) and len(long.fact) <= 202
    assert "1 kept, 1 skipped (too long for any file)" == result.ledger_summary
    ledger_line = [json.loads(line) for line in setup.ws.audit.read_text().splitlines()
                   if '"kind": "ledger"' in line][-1]
    assert len(json.dumps(ledger_line)) < 2_000  # the audit quotes the fact, not the paste
    assert pasted in setup.ws.history.read_text(encoding="utf-8")  # the words stay in history


def test_an_entry_of_nothing_but_a_too_long_line_takes_no_request(setup: Setup) -> None:
    setup.reconfigure(dream_batch_tokens=80)  # the paste would be split into many parts
    pasted = _long_line(6_000)
    setup.history.append(pasted)
    result, fake = _dream(setup, [finish("no_changes_needed")])

    assert fake.requests == []  # nothing an engine could place: no request
    assert result.status == "no_changes" and result.dream_cursor_after == 1
    assert [(e.state, e.cursor) for e in result.ledger] == [("skipped", 1)]  # one line, one fact
    assert result.ledger[0].reason is not None and result.ledger[0].reason.startswith("too long")


def test_the_ledger_reads_a_split_entry_whole(setup: Setup) -> None:
    setup.reconfigure(dream_batch_tokens=60)
    raw = "[RAW]\n" + "".join(f"My {w} is behind the shed, turn {n}\n"
                             for n, w in enumerate(WORDS * 2))
    setup.history.append(raw)
    result, fake = _dream(setup, *([[finish("no_changes_needed")]] * 20))

    assert len(fake.requests) >= 2  # the entry was shown in parts
    assert [(e.state, e.reason) for e in result.ledger] == [("skipped", "raw turns")]


def test_a_memory_file_over_its_ceiling_refuses_dream_and_changes_nothing(setup: Setup) -> None:
    setup.reconfigure(file_caps={**DEFAULT_FILE_CAPS, **CAPS, "USER.md": 100})  # ceiling 1,600
    setup.write("USER.md", setup.read("USER.md") + "- Pasted notes about the garden\n" * 60)
    setup.history.append("- [durable] User grows leeks")
    size = setup.ws.path("USER.md").stat().st_size
    before = setup.snapshot()
    for dry_run in (True, False):
        result, fake = _dream(setup, [finish("no_changes_needed")], dry_run=dry_run)
        assert result.status == "failed" and not result.ok and fake.requests == []
        assert result.dream_cursor_before == result.dream_cursor_after == 0
        reason = result.reason or ""
        assert f"USER.md is {size:,} bytes, over the 1,600 Dream works on" in reason
        assert "cap of 100" in reason and '[caps] "USER.md"' in reason
        assert "dream cursor stays at 0" in reason
        assert setup.snapshot() == before
        assert not setup.ws.audit.exists()  # nothing was attempted, nothing audited
    # the fix the message names (raise the cap), and the same entry is placed: none passed by
    setup.reconfigure(file_caps={**DEFAULT_FILE_CAPS, **CAPS, "USER.md": 4_000})
    result, _ = _dream(setup, [add_fact("USER.md", "- User grows leeks"), finish()])
    assert result.status == "committed" and result.ledger[0].state == "kept"


def test_plan_ledger_skips_a_too_long_fact_with_no_text_rule() -> None:
    fact = LedgerFact(7, "durable", "Thanks a lot! " * 40)  # filler, were it short
    ledger = plan_ledger([fact], {"USER.md": ""}, {"USER.md": ""}, caps={"USER.md": 300})
    assert ledger[0].state == "skipped"
    assert ledger[0].reason is not None and ledger[0].reason.startswith(
        "too long for any file: 560 characters, the largest cap is 300 (USER.md)")
    assert summarize_ledger(ledger) == "1 skipped (too long for any file)"
    short = plan_ledger([LedgerFact(7, "durable", "Thanks a lot!")], {"USER.md": ""},
                        {"USER.md": ""}, caps={"USER.md": 300})
    assert short[0].reason == "filler"  # within the room the ordinary rules apply


def test_screen_entry_keeps_raw_entries_and_lines_that_fit() -> None:
    room = FactRoom(50, "USER.md", 53)
    assert plan_fact_room({"USER.md": 53, "SOUL.md": 20}) == room
    raw = SimpleNamespace(cursor=1, timestamp="t", kind=None, content="[RAW]\n" + "x " * 80)
    assert screen_entry(raw, room) is raw  # raw turns are material to distil, not one fact
    fits = SimpleNamespace(cursor=2, timestamp="t", kind=None,
                           content="- [durable] " + "y" * 45 + "\n" + "- [durable] short\n")
    assert screen_entry(fits, room) is fits  # the line is 57 long, its fact 45
    mixed = SimpleNamespace(cursor=3, timestamp="t", kind=None,
                            content="- [durable] short\n# " + "z " * 40 + "\n")
    assert screen_entry(mixed, room).content == "- [durable] short\n"
    assert clip_fact("one two three", 100) == "one two three"
