"""The offline engine's Dream: routing, de-duplication, corrections, expiry, pins, determinism.

Most tests run the whole Dream (run_dream + OfflineEngine + real GitStore), so every edit the
rules propose also passes the tools and the gates.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from nanomem.dream.prompt import DreamTask
from nanomem.engines.offline.engine import OfflineEngine
from nanomem.engines.offline.dream import plan_dream_reply
from nanomem.engines.offline.routing import route_fact
from nanomem.text.overlap import is_duplicate
from tests.dream_fixtures import Setup, make_setup

USER = "# User\n\n## Facts\n"
MEMORY = "# Memory\n\n## Facts\n"


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


def seed(setup: Setup, **files: str) -> None:
    names = {"user": "USER.md", "memory": "memory/MEMORY.md", "soul": "SOUL.md"}
    for key, text in files.items():
        setup.write(names[key], text)
    setup.store.commit_manual_if_dirty()


def dream(setup: Setup, *facts: str, now: datetime | None = None):
    if facts:
        setup.history.append("\n".join(facts))
    kwargs = {"clock": (lambda: now)} if now else {}
    return setup.dream(OfflineEngine(), **kwargs)


def test_offline_dream_routes_facts_to_soul_user_and_memory(setup: Setup) -> None:
    result = dream(setup, "- [durable] Please answer in Portuguese.",
                   "- [permanent] I am allergic to peanuts.",
                   "- [durable] Project Atlas has a budget of 4500 EUR.")
    assert result.status == "committed", result.reason
    assert setup.read("SOUL.md").endswith("## Behaviour\n- Please answer in Portuguese.\n")
    assert setup.read("USER.md").endswith(
        "## Facts\n- I am allergic to peanuts. <!-- permanent -->\n")
    assert setup.read("memory/MEMORY.md").endswith(
        "## Facts\n- Project Atlas has a budget of 4500 EUR.\n")
    assert result.refused == ()


def test_offline_dream_routes_by_wording() -> None:
    assert route_fact("Reply in bullet points") == "SOUL.md"
    assert route_fact("My wife is called Maria") == "USER.md"
    assert route_fact("Meeting with the client on 2026-12-03") == "memory/MEMORY.md"
    assert route_fact("Contract KX-7731 renews in March") == "memory/MEMORY.md"
    assert route_fact("我对花生过敏") == "USER.md"


def test_offline_dream_skips_near_duplicates_but_keeps_changed_numbers(setup: Setup) -> None:
    seed(setup, user=USER + "- I am allergic to peanuts <!-- permanent -->\n",
         memory=MEMORY + "- Contract KX-7731 ends in March\n")
    result = dream(setup, "- [permanent] I am allergic to peanuts.",
                   "- [durable] The contract KX-7731 ends in March.",
                   "- [durable] Contract KX-7731 ends in April",
                   "- [durable] Contract KX-7731 ends in April")
    assert result.status == "committed"
    assert setup.read("USER.md").count("peanuts") == 1
    memory = setup.read("memory/MEMORY.md")
    assert memory.count("March") == 1 and memory.count("April") == 1


def test_is_duplicate_uses_containment_and_distinctive_tokens() -> None:
    assert is_duplicate("User likes green tea", "- Likes green tea a lot")
    assert not is_duplicate("Budget is 4500", "- Budget is 5000")
    assert not is_duplicate("Meets Ana on Friday", "- Meets Bruno on Friday")
    assert not is_duplicate("Likes green tea and jazz and hiking", "- Likes green tea")
    assert not is_duplicate("My new supervisor at the lab is Dr. Lee",
                            "- My new supervisor at the lab is Dr. Park")


def test_offline_dream_correction_replaces_lisbon_with_porto(setup: Setup) -> None:
    seed(setup, user=USER + "- I live in Lisbon <!-- permanent -->\n- I like tea\n")
    result = dream(setup, "- [correction] Actually I moved from Lisbon to Porto.")
    assert result.status == "committed", result.refused
    assert setup.read("USER.md") == (
        USER + "- I moved from Lisbon to Porto. <!-- permanent -->\n- I like tea\n")
    assert setup.store.show(result.commit).subject == "dream: entries 1-1: USER.md +1 -1"


def test_offline_dream_correction_finds_the_fact_by_topic(setup: Setup) -> None:
    seed(setup, user=USER + "- Lives in Lisbon\n- Works at Acme\n")
    dream(setup, "- [correction] I moved to Porto last month.")
    assert setup.read("USER.md") == USER + "- I moved to Porto last month.\n- Works at Acme\n"


def test_offline_dream_correction_by_topic_stays_in_its_own_file(setup: Setup) -> None:
    seed(setup, user=USER + "- Lives in Lisbon\n")
    dream(setup, "- [correction] The meeting moved to Friday.")
    assert setup.read("USER.md") == USER + "- Lives in Lisbon\n"
    assert setup.read("memory/MEMORY.md").endswith("## Facts\n- The meeting moved to Friday.\n")


def test_offline_dream_correction_fixes_a_fact_of_the_same_batch(setup: Setup) -> None:
    dream(setup, "- [durable] The kickoff meeting is on 2026-12-01.",
          "- [correction] The kickoff meeting moved to 2026-12-08.")
    memory = setup.read("memory/MEMORY.md")
    assert "2026-12-08" in memory and "2026-12-01" not in memory


def test_offline_dream_correction_without_a_match_is_added_without_its_negated_old_value(
    setup: Setup,
) -> None:
    seed(setup, user=USER + "- I like tea\n")
    dream(setup, "- [correction] My dog is called Rex, not Max.")
    assert setup.read("USER.md").endswith("- I like tea\n- My dog is called Rex.\n")


def test_offline_dream_expires_stale_ephemeral_facts(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- Dentist on Friday <!-- ephemeral 2026-11-01 -->\n"
         "- Call the plumber <!-- ephemeral 2026-11-28 -->\n- Atlas ships in Q1\n")
    now = datetime(2026, 11, 30, 9, 0)
    result = dream(setup, "- [ephemeral] Flight to Berlin tomorrow", now=now)
    assert result.status == "committed", result.refused
    assert setup.read("memory/MEMORY.md") == (
        MEMORY + "- Call the plumber <!-- ephemeral 2026-11-28 -->\n- Atlas ships in Q1\n"
        "- Flight to Berlin tomorrow <!-- ephemeral 2026-11-30 -->\n")
    later = dream(setup, "- [durable] nothing else", now=now + timedelta(days=30))
    assert later.status == "committed"
    memory = setup.read("memory/MEMORY.md")
    assert "plumber" not in memory and "Berlin" not in memory and "Atlas ships in Q1" in memory


def test_offline_dream_never_touches_pinned_lines(setup: Setup) -> None:
    pinned_old = "- Standup every Monday <!-- ephemeral 2026-01-01 --> <!-- pin -->"
    pinned_home = "- Lives in Lisbon <!-- pin -->"
    seed(setup, user=USER + pinned_home + "\n", memory=MEMORY + pinned_old + "\n")
    result = dream(setup, "- [correction] Actually I moved from Lisbon to Porto.",
                   "- [durable] Nice <!-- pin --> try", now=datetime(2026, 11, 30))
    assert pinned_home in setup.read("USER.md").splitlines()
    assert pinned_old in setup.read("memory/MEMORY.md").splitlines()
    assert "Porto" not in setup.read("USER.md")
    assert result.refused == ()
    files_diff, _, questions = result.diff.partition("diff --git a/memory/PENDING.md")
    added = [line for line in files_diff.splitlines() if line.startswith("+-")]
    assert added == ["+- Nice try"]  # the history cannot pin a line
    assert "+- now: `- Lives in Lisbon <!-- pin -->`" in questions.splitlines()  # asked instead


def test_offline_dream_skips_raw_entries_and_reads_plain_notes(setup: Setup) -> None:
    setup.history.append("[RAW] USER: my password is hunter2\nASSISTANT: ok", kind="raw")
    result = dream(setup, "I prefer metric units")
    assert result.status == "committed"
    assert setup.read("USER.md").endswith("## Facts\n- I prefer metric units\n")
    assert "hunter2" not in result.diff


def test_offline_dream_with_nothing_new_advances_the_cursor(setup: Setup) -> None:
    seed(setup, user=USER + "- I like tea\n")
    head = setup.store.head()
    result = dream(setup, "- [durable] I like tea")
    assert (result.status, result.dream_cursor_after) == ("no_changes", 1)
    assert setup.store.head() == head
    assert "1 duplicates" in result.note


def test_offline_dream_is_deterministic(tmp_path: Path, workspace: Path) -> None:
    import shutil

    other = tmp_path / "copy"
    shutil.copytree(workspace, other)
    facts = ["- [durable] Please keep answers short.", "- [permanent] My name is Ana.",
             "- [ephemeral] Call Bruno tomorrow about KX-7731.", "- [correction] Name is Ana Lima"]
    outputs = []
    for root in (workspace, other):
        setup = make_setup(root)
        dream(setup, *facts)
        outputs.append({rel: setup.read(rel) for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md")})
    assert outputs[0] == outputs[1]
    assert "- Name is Ana Lima <!-- permanent -->" in outputs[0]["USER.md"]


def test_plan_dream_reply_edits_and_finishes_in_one_reply() -> None:
    entry = type("E", (), {"cursor": 1, "timestamp": "2026-11-30 10:00", "kind": "summary",
                           "content": "- [durable] I like tea"})()
    task = DreamTask((entry,), {"USER.md": USER}, datetime(2026, 11, 30), 7)
    first = plan_dream_reply(task, [{"role": "user", "content": "..."}])
    assert [c.name for c in first.tool_calls] == ["edit_file", "finish"]
    assert json.loads(first.tool_calls[1].arguments)["status"] == "updated"
    assert first == plan_dream_reply(task, [{"role": "user", "content": "..."}])
    messages = [{"role": "user", "content": "..."}, first.assistant_message(),
                {"role": "tool", "tool_call_id": "offline-dream-1", "content": "ok: edited"},
                {"role": "tool", "tool_call_id": "offline-dream-2", "content": "error: wait"}]
    second = plan_dream_reply(task, messages)  # the run held the finish back
    assert [(c.name, json.loads(c.arguments)["status"]) for c in second.tool_calls] == [
        ("finish", "updated")]
    refused = [*messages[:2], {"role": "tool", "tool_call_id": "offline-dream-1",
                               "content": "error: size"}, messages[3]]
    note = json.loads(plan_dream_reply(task, refused).tool_calls[0].arguments)
    assert note["status"] == "no_changes_needed" and "1 of 1 edits refused" in note["note"]


def test_offline_dream_stays_within_the_file_cap(setup: Setup) -> None:
    setup.reconfigure(file_caps={"SOUL.md": 4000, "USER.md": 330, "memory/MEMORY.md": 12000})
    result = dream(setup, *[f"- [durable] I like fruit number {n}" for n in range(1, 10)])
    assert result.status == "committed" and result.refused == ()
    assert len(setup.read("USER.md")) <= 330
    assert "skipped" in result.note


def test_offline_dream_same_batch_correction_replaces_a_permanent_fact(setup: Setup) -> None:
    seed(setup, user=USER)
    result = dream(setup, "- [permanent] I live in Graz.",
                   "- [correction] Actually, I moved to Linz.")
    assert result.status == "committed", result.refused
    assert setup.read("USER.md") == USER + "- I moved to Linz. <!-- permanent -->\n"


def test_offline_dream_correction_by_topic_replaces_a_permanent_fact_of_an_earlier_run(
    setup: Setup,
) -> None:
    seed(setup, user=USER + "- I live in Graz. <!-- permanent -->\n- I like tea\n")
    result = dream(setup, "- [correction] Actually, we relocated to Ghent in spring.")
    assert result.status == "committed" and result.refused == ()
    assert setup.read("USER.md") == (
        USER + "- We relocated to Ghent in spring. <!-- permanent -->\n- I like tea\n")


def test_offline_dream_unrelated_correction_leaves_a_permanent_fact(setup: Setup) -> None:
    seed(setup, user=USER + "- I live in Graz. <!-- permanent -->\n")
    dream(setup, "- [correction] Update: we moved the staging server to Frankfurt.")
    assert setup.read("USER.md") == USER + "- I live in Graz. <!-- permanent -->\n"
    assert setup.read("memory/MEMORY.md").endswith(
        "## Facts\n- We moved the staging server to Frankfurt.\n")


def test_offline_dream_correction_finds_the_line_by_a_shared_phrase(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- The staging server runs in a small rack at the old office downtown\n"
         "- Release train every Tuesday\n")
    dream(setup, "- [correction] We moved the staging server to Frankfurt.")
    assert setup.read("memory/MEMORY.md") == (
        MEMORY + "- We moved the staging server to Frankfurt.\n- Release train every Tuesday\n")


def test_offline_dream_writes_corrections_without_their_lead_in(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- 周会时间是周二下午\n")
    dream(setup, "- [correction] 更正一下：周会时间改到周四下午。")
    assert setup.read("memory/MEMORY.md") == MEMORY + "- 周会时间改到周四下午。\n"


def test_offline_dream_dates_an_ephemeral_fact_by_when_it_was_said(setup: Setup) -> None:
    now = datetime(2026, 11, 30, 9, 0)  # the entry is archived on 11-30 ...
    dream(setup, "- [ephemeral] Water the ferns tomorrow. (said 2026-11-27)", now=now)
    memory = setup.read("memory/MEMORY.md")
    assert memory.endswith("- Water the ferns tomorrow. <!-- ephemeral 2026-11-27 -->\n")
    dream(setup, "- [durable] The gym card number is GY-118.", now=now + timedelta(days=5))
    assert "ferns" not in setup.read("memory/MEMORY.md")  # ... but expires from 11-27


def test_offline_dream_skips_an_ephemeral_fact_said_too_long_ago(setup: Setup) -> None:
    result = dream(setup, "- [ephemeral] Bring the umbrella today. (said 2026-11-01)",
                   now=datetime(2026, 11, 30))
    assert result.status == "no_changes"
    assert "umbrella" not in setup.read("memory/MEMORY.md")


def test_route_fact_sends_requests_about_answers_to_soul_and_self_introductions_to_user() -> None:
    assert route_fact("When you summarise meetings, use numbered lists.") == "SOUL.md"
    assert route_fact("And no exclamation marks in client emails please.") == "SOUL.md"
    assert route_fact("解释术语时请用英文单词。") == "SOUL.md"
    assert route_fact("Hello, Jo Park here!") == "USER.md"
    assert route_fact("Put the guest list in the shared folder.") == "memory/MEMORY.md"


def test_offline_dream_learns_preferences_into_soul(setup: Setup) -> None:
    result = dream(setup, "- [durable] Keep replies short.", "- [durable] 语气随意一点。",
                   "- [durable] Could you always answer in plain English?")
    assert result.status == "committed", result.refused
    assert setup.read("SOUL.md").endswith(
        "- Keep replies short.\n- 语气随意一点。\n- Could you always answer in plain English?\n")


@pytest.mark.parametrize(
    ("old", "correction", "new"),
    [
        ("- Rent is 1,090 a month, paid by transfer\n",
         "Landlord says the rent goes up to 1,240 from May.",
         "- Landlord says the rent goes up to 1,240 from May (paid by transfer).\n"),  # round 9: kept
        ("- The bakery closes at 19:00 on weekdays\n",
         "From next month we shut at 18:30 on weekdays.",
         "- From next month we shut at 18:30 on weekdays.\n"),
        ("- The thesis is due on April 30\n",
         "Good news: the committee pushed the thesis deadline to June 12.",
         "- Good news: the committee pushed the thesis deadline to June 12.\n"),
        ("- Train ICE 578 leaves Munich at 09:12\n",
         "Deutsche Bahn rebooked me: ICE 578 was cancelled and I'm on ICE 592 now.",
         "- Deutsche Bahn rebooked me: I'm on ICE 592 now.\n"),
        ("- 国庆打算去桂林玩四天\n", "桂林人太多了，改去大理。", "- 改去大理。\n"),
        ("- The caterer is Harbour Kitchen\n", "The caterer is Olive & Thyme, not Harbour Kitchen.",
         "- The caterer is Olive & Thyme.\n"),
    ],
)
def test_offline_dream_correction_replaces_the_line_of_the_same_slot_without_its_old_value(
    setup: Setup, old: str, correction: str, new: str,
) -> None:
    seed(setup, memory=MEMORY + old + "- Gym on Fridays\n")
    result = dream(setup, f"- [correction] {correction}")
    assert result.status == "committed" and result.refused == ()
    assert setup.read("memory/MEMORY.md") == MEMORY + new + "- Gym on Fridays\n"


@pytest.mark.parametrize(
    ("old", "correction", "new"),
    [
        ("- The stall fee for the market is 180 euros\n",
         "The organisers raised the stall fee from 180 to 215 euros this season.",
         "- The organisers raised the stall fee to 215 euros this season.\n"),
        ("- 场地费是2000元一天\n", "场地费我之前说2000，下个月起涨到2600了。", "- 场地费下个月起涨到2600了。\n"),
        ("- Opening night is April 9, the theatre confirmed\n",
         "Opening night is April 16 now, they need more rehearsal time.",
         "- Opening night is April 16 now, they need more rehearsal time (the theatre confirmed).\n"),
        ("- My gym locker is L-3321, by the showers\n", "The number on it is L-4409.",
         "- My gym locker is L-4409, by the showers\n"),
        ("- 展会开幕日期是9月12号\n", "展会改期了，开幕定在9月20号。", "- 展会改期了，开幕定在9月20号。\n"),
        ("- Our translator is Ilse Brandt\n", "We replaced Ilse Brandt with Omar Haddad as our translator.",
         "- We now have Omar Haddad as our translator.\n"),
        ("- 配音我外包给小周，他声音很稳。\n", "小周排不开，以后配音都交给韩露了。", "- 以后配音都交给韩露了。\n"),
    ],
)
def test_offline_dream_correction_drops_the_old_value_it_names_or_keeps_the_context_it_lacks(
    setup: Setup, old: str, correction: str, new: str,
) -> None:
    seed(setup, memory=MEMORY + old + "- Gym on Fridays\n")
    result = dream(setup, f"- [correction] {correction}")
    assert result.status == "committed" and result.refused == ()
    assert setup.read("memory/MEMORY.md") == MEMORY + new + "- Gym on Fridays\n"


def test_offline_dream_identifier_of_another_family_is_not_swapped_in(setup: Setup) -> None:
    seed(setup, memory=MEMORY + "- My gym locker is L-3321, by the showers\n")
    result = dream(setup, "- [correction] The number on it is Q-4409.")
    assert result.status == "committed"
    assert setup.read("memory/MEMORY.md") == MEMORY + (
        "- My gym locker is L-3321, by the showers\n- The number on it is Q-4409.\n")


def test_offline_dream_slot_rule_leaves_other_attributes_and_pinned_lines(setup: Setup) -> None:
    dentist = "- Dentist appointment on 2026-12-03 at 09:00\n"
    pinned = "- Shop closes at 19:00 on weekdays <!-- pin -->\n"
    hotel = "- Hotel costs EUR 140 per night\n"
    seed(setup, memory=MEMORY + dentist + pinned + hotel)
    result = dream(setup, "- [correction] The team meeting moved to 10:30.",
                   "- [correction] We shut at 18:00 on weekdays from June.",
                   "- [correction] The marketing budget is now EUR 5200.")
    assert result.status == "committed" and result.refused == ()
    assert setup.read("memory/MEMORY.md") == MEMORY + dentist + pinned + hotel + (
        "- The team meeting moved to 10:30.\n- We shut at 18:00 on weekdays from June.\n"
        "- The marketing budget is now EUR 5200.\n")
