"""A correction changes only the part of a line that holds the old value: the other facts that
shared the line survive, and the ledger and the commit show the edit (issue 13, round 9;
nanomem.engines.offline.remainder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanomem.engines.offline.engine import OfflineEngine
from nanomem.engines.offline.remainder import plan_corrected_line
from tests.dream_fixtures import Setup, finish, make_setup, provider_over
from tests.fakellm import FakeLLM

USER = "# User\n\n## Facts\n"
MEMORY = "# Memory\n\n## Facts\n"


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


@pytest.mark.parametrize(
    ("rel", "old", "correction", "new"),
    [
        ("USER.md", "- My sister Ana lives in Porto, works as a nurse, and has two kids.",
         "Actually, my sister Ana moved to Lisbon.",
         "- My sister Ana lives in Lisbon, works as a nurse, and has two kids."),
        ("memory/MEMORY.md", "- The standup is at 09:15 in room B4, led by Kim",
         "The standup moved to 09:45.", "- The standup is at 09:45 in room B4, led by Kim"),
        ("memory/MEMORY.md", "- Flight FI 615 on May 3, seat 14C", "They rebooked me on FI 631.",
         "- Flight FI 631 on May 3, seat 14C"),
        ("memory/MEMORY.md", "- We close at 22:00 on weekdays and 23:00 on Saturdays",
         "From June we shut at 21:30 on weekdays.",
         "- From June we shut at 21:30 on weekdays (23:00 on Saturdays)."),
        ("memory/MEMORY.md", "- Rent is 6,200 a month and the lease renews in March.",
         "I'd misread the lease: rent is 6,850 a month.",
         "- I'd misread the lease: rent is 6,850 a month (the lease renews in March)."),
    ],
)
def test_offline_dream_correction_keeps_the_other_facts_of_the_line(
    setup: Setup, rel: str, old: str, correction: str, new: str,
) -> None:
    head = USER if rel == "USER.md" else MEMORY
    setup.write(rel, head + old + "\n- Gym on Fridays\n")
    setup.store.commit_manual_if_dirty()
    setup.history.append(f"- [correction] {correction}")
    result = setup.dream(OfflineEngine())

    assert result.status == "committed" and result.refused == ()
    assert setup.read(rel) == head + new + "\n- Gym on Fridays\n"
    entry = result.ledger[0]
    assert (entry.state, entry.path, entry.old, entry.text) == ("corrected", rel, old, new)
    body = setup.store.show(result.commit).body
    assert "Facts: 1 corrected" in body
    assert f"\n-{old}\n" in body and f"\n+{new}\n" in body  # the diff shows the one edit


def test_offline_dream_correction_to_a_new_thing_replaces_the_whole_line(setup: Setup) -> None:
    old = "- My flat is on Mill Lane in Leith, up three flights"
    setup.write("USER.md", USER + old + "\n")
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [correction] We're in a new flat on Bath Street, still in Leith.")
    result = setup.dream(OfflineEngine())

    assert setup.read("USER.md") == USER + "- We're in a new flat on Bath Street, still in Leith.\n"
    assert (result.ledger[0].state, result.ledger[0].old) == ("corrected", old)


@pytest.mark.parametrize(
    ("corrected", "old", "written"),
    [
        ("I moved to Linz.", "I live in Graz.", "I moved to Linz."),  # nothing else in the line
        ("Landlord says the rent goes up to 1,240 from May.", "Rent is 1,090 a month, paid by transfer",
         "Landlord says the rent goes up to 1,240 from May (paid by transfer)."),  # "1,090" is one value
        ("Ana moved to Lisbon.", "Ana lives in Porto and Ana works in Porto.",
         "Ana moved to Lisbon (Ana works in Porto)."),  # the old value twice: no swap
        ("跟老公商量了一下，改去青岛。", "暑假打算全家去厦门玩五天，7月18号出发。", "跟老公商量了一下，改去青岛（7月18号出发）。"),
        ("书名定的是《雾中的灯塔》。", "书名暂定《海边的灯塔》，篇幅大概9万字。", "书名定的是《雾中的灯塔》（篇幅大概9万字）。"),
    ],
)
def test_plan_corrected_line_writes_the_correction_with_what_else_the_line_held(
    corrected: str, old: str, written: str,
) -> None:
    assert plan_corrected_line(corrected, old) == written


ANA = "- My sister Ana lives in Porto, works as a nurse, has two kids and a dog called Rex"


@pytest.mark.parametrize(
    ("new", "refused"),
    [
        ("- My sister Ana lives in Lisbon.", True),  # a careless model drops the dog's name
        ("- My sister Ana lives in Lisbon, works as a nurse, has two kids and a dog called Rex", False),
        ("- My sister Ana moved to Lisbon (works as a nurse, has two kids, dog Rex).", False),
    ],
)
def test_model_edit_that_drops_the_other_facts_of_a_line_is_refused(
    setup: Setup, new: str, refused: bool,
) -> None:
    result = setup.dream_rewriting("USER.md", USER, ANA, "- [correction] My sister Ana moved to Lisbon.", new)

    if refused:
        assert setup.read("USER.md") == USER + ANA + "\n"
        (refusal,) = result.refused
        assert refusal.reason.startswith("edit_file: details: this edit of USER.md drops 'rex', 'nurse', 'work', 'kid', 'two' from line ")
        assert [e.state for e in result.ledger] == ["refused"]
    else:
        assert result.refused == () and setup.read("USER.md") == USER + new + "\n"
        assert [e.state for e in result.ledger] == ["corrected"]


SAM = "- Sam works as a nurse at St Mary's and lives in Leeds"
SAM_PLAIN = "- Sam works as a nurse at the children's hospital and lives in Leeds"


@pytest.mark.parametrize(
    ("old", "new", "dropped"),
    [
        (SAM_PLAIN, "- Sam lives in York", "'children's', 'hospital', 'nurse', 'work'"),  # plain words: the old gate let it pass
        (SAM, "- Sam lives in York", "'mary's', 'st', 'nurse'"),  # the old gate named Leeds
        (SAM, "- Sam works as a nurse at St Mary's and lives in York", None),  # the value swapped
        (SAM, "- Sam is a nurse at St Mary's, lives in York now", None),  # condensed
        (SAM_PLAIN, "- Sam moved to York (nurse at the children's hospital)", None),  # rewritten
    ],
)
def test_model_edit_that_drops_a_clause_of_plain_words_is_refused(
    setup: Setup, old: str, new: str, dropped: str | None,
) -> None:
    setup.write("USER.md", USER + old + "\n")
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [correction] Sam lives in York now, not Leeds.")
    fake = FakeLLM()
    edit = ("edit_file", {"path": "USER.md", "old_text": old + "\n", "new_text": new + "\n"})
    fake.enqueue_tool_calls([edit, finish()])
    fake.enqueue_tool_calls([finish()])  # a finish beside a refused call waits one round
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)

    if dropped is not None:
        assert setup.read("USER.md") == USER + old + "\n"
        (refusal,) = result.refused
        assert refusal.reason.startswith(f"edit_file: details: this edit of USER.md drops {dropped}")
    else:
        assert result.refused == () and setup.read("USER.md") == USER + new + "\n"


def test_merging_two_lines_into_one_keeps_every_clause_and_passes(setup: Setup) -> None:
    old = "- Sam works as a nurse at St Mary's and lives in Leeds\n- Sam has a cat called Tom\n"
    new = "- Sam lives in York, works as a nurse at St Mary's and has a cat called Tom\n"
    setup.write("USER.md", USER + old)
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [correction] Sam lives in York now, not Leeds.")
    fake = FakeLLM()
    fake.enqueue_tool_calls([("edit_file", {"path": "USER.md", "old_text": old, "new_text": new}), finish()])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.refused == () and setup.read("USER.md") == USER + new
