"""Round-5 junk: sentences that are no fact about the person nor an instruction never become
memory lines. Each kind is judged by sentence structure (nanomem.text.filler) or by the
consolidator's sentence rules (nanomem.engines.offline.extract); every sentence here is new,
none is taken from a benchmark conversation."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.extract import classify_sentence, is_anecdote_of_today, is_task_request
from nanomem.memory import Memory
from nanomem.store.workspace import MEMORY_FILES, Workspace, init_workspace
from nanomem.text.filler import filler_kind, is_agent_words, nonfact_reason

NOW = datetime(2026, 11, 30, 12, 0)


@pytest.mark.parametrize("text, kind", [
    ("Okay, that's enough for tonight.", "sign-off"),
    ("Right, I'll stop here for today.", "sign-off"),
    ("Cool, I'll carry on tomorrow.", "sign-off"),
    ("好，今天先到这儿吧。", "sign-off"),
    ("那我们改天再聊。", "sign-off"),
    ("Sure, I'll sort it out tomorrow.", "bare plan"),
    ("Fine, we'll look into that later.", "bare plan"),
    ("I'll pick them up tonight.", "bare plan"),
    ("嗯，我晚上改。", "bare plan"),
    ("That must feel like such a relief for you.", "reaction"),
    ("Oh, it sounds like a really long afternoon.", "reaction"),
    ("What a windy walk that was!", "reaction"),
    ("You always have the right word at hand.", "remark to the agent"),
    ("You're so patient with everyone.", "remark to the agent"),
    ("Your summaries read beautifully.", "remark to the agent"),
])
def test_filler_kind_names_the_structure_of_a_sentence_without_a_fact(text: str, kind: str) -> None:
    assert filler_kind(text) == kind


@pytest.mark.parametrize("text", [
    "I'll hand the keys to Oskar tomorrow.",        # a name: who gets them is a fact
    "I'll renew it tomorrow, it expires on 4 May.",  # a date
    "I'll move the standup to 10:15 tomorrow.",      # a number
    "I'm allergic to it.",                           # no plan: a health fact, even half said
    "Tomorrow is my first day at the clinic.",       # content words besides the time
    "That sounds like my landlord again.",           # something of the speaker's own
    "It looks like the Brno office will close.",     # a name inside the sentence
    "Your replies are too long for my phone.",       # a complaint about answers may be a rule
    "Your answers need fewer headings.",
    "You should always quote prices with VAT.",      # a request
    "我明天去苏州出差。",                              # a place, not a bare verb
    "明天交房租。",
])
def test_filler_kind_keeps_sentences_that_hold_a_value_or_a_rule(text: str) -> None:
    assert filler_kind(text) is None


@pytest.mark.parametrize("text, voice", [
    ("ASSISTANT: Got it, I've noted the new address.", True),
    ("Agent: Happy to help with the invoice.", True),
    ("The assistant suggested booking the earlier ferry.", True),
    ("The bot replied that the shop opens at nine.", True),
    ("The assistant should always answer in Dutch.", False),  # a rule for the agent
    ("My assistant Petra books my travel.", False),           # a person the user employs
])
def test_is_agent_words_tells_the_assistants_voice_from_a_rule_about_it(text: str, voice: bool) -> None:
    assert is_agent_words(text) is voice


def test_nonfact_reason_says_why_a_line_is_not_a_fact() -> None:
    assert nonfact_reason("Assistant: Noted, bullet points from now on.") == "assistant's words"
    assert nonfact_reason("Splendid, that's all for tonight.") == "filler"
    assert nonfact_reason("Here it is: [REDACTED:password]") == "secret-placeholder"
    assert nonfact_reason("My locker is L-208.") is None


@pytest.mark.parametrize("sentence", [
    "The upstairs drill went on all morning, this morning of all days.",
    "The tram was packed tonight, standing room only.",
    "My cat knocked a plant over earlier today.",
    "今早楼下装修的电钻响个不停。",
    "今天早上公交挤得要命。",
])
def test_consolidation_drops_the_news_of_the_day_that_has_no_value(sentence: str) -> None:
    assert is_anecdote_of_today(sentence)
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize("sentence, mark", [
    ("I left my bike at rack 14 this morning.", "ephemeral"),      # a number: worth a day
    ("Tonight I'm at the climbing gym.", "ephemeral"),             # not told in the past
    ("The plumber comes tomorrow, he rang this morning.", "ephemeral"),  # another time word
    ("The keys are with Maren since this morning.", "ephemeral"),  # a name
    ("I ordered the new sofa this morning, order SO-4471.", "durable"),  # a transaction lasts
])
def test_consolidation_keeps_a_dated_remark_that_carries_a_value(sentence: str, mark: str) -> None:
    assert classify_sentence(sentence) == mark


@pytest.mark.parametrize("sentence", [
    "Make a seating plan for the dinner.",
    "Draft a reply to the insurer: claim 8812, two photos attached.",
    "Please summarise these three quotes for me.",
    "Put together a shopping list for the barbecue next week.",
    "帮我列一下这周要买的东西。",
    "请帮我算一下这个月的油费。",
])
def test_consolidation_drops_a_one_off_task_for_the_agent(sentence: str) -> None:
    assert is_task_request(sentence)
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize("sentence, mark", [
    ("Always draft letters to the council in Welsh.", "durable"),  # a standing rule
    ("Make it short, always.", "durable"),
    ("帮我记一下，储物柜密码是 4471。", "durable"),               # asks to keep a fact
    ("以后账单都帮我列成表格。", "durable"),                      # a standing rule
    ("Remind me to make the booking on Friday.", "ephemeral"),
])
def test_consolidation_keeps_requests_that_last_or_ask_to_be_kept(sentence: str, mark: str) -> None:
    assert classify_sentence(sentence) == mark


def test_consolidation_treats_a_checklist_request_as_a_way_of_answering() -> None:
    assert classify_sentence("购物计划请做成清单发给我。") == "durable"
    assert extract_facts(["帮我排一下周末的安排，做成清单。"]) == []


def test_extract_facts_keeps_the_fact_and_drops_the_chatter_of_one_message() -> None:
    message = ("Sorry, long day. The lift was broken tonight. Our new code for the bike shed "
               "is 5190. Great, I'll write it down tomorrow. That's all for tonight!")
    assert extract_facts([message]) == [("durable", "Our new code for the bike shed is 5190.")]


def test_offline_dream_never_stores_junk_lines_and_the_ledger_says_why(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    init_workspace(root)
    ws = Workspace(root)
    with Memory(ws, clock=lambda: NOW) as memory:
        memory.history.append(
            "- [durable] ASSISTANT: I'll keep your gate code safe.\n"
            "- [durable] The assistant suggested a later train.\n"
            "- [ephemeral] Lovely, I'll finish it tonight. (said 2026-11-30)\n"
            "- [durable] That must have been a tiring trip for you!\n"
            "- [durable] You always know what to say.\n"
            "- [durable] My gate code is 2231.", kind="summary")
        result = memory.dream()
    text = "".join(ws.path(rel).read_text("utf-8") for rel in MEMORY_FILES)

    assert result.status == "committed", result.reason
    assert "2231" in text
    for junk in ("keep your gate", "later train", "finish it", "tiring", "know what to say"):
        assert junk not in text
    assert [(e.state, e.reason) for e in result.ledger] == [
        ("skipped", "assistant's words"), ("skipped", "assistant's words"), ("skipped", "filler"),
        ("skipped", "filler"), ("skipped", "filler"), ("kept", None)]
