"""The offline engine's consolidation: decisive sentences, verbatim, with marks (EN and ZH)."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path

import pytest

from nanomem.engines.chat import ChatRequest
from nanomem.config import Config
from nanomem.consolidate.budget import fixed_tokens, message_tokens
from nanomem.consolidate.request import ConsolidateTask, build_request, check_archive_reply
from nanomem.consolidate.run import consolidate
from nanomem.store.history import History
from nanomem.engines.offline.engine import NOT_A_CHAT_MODEL, OfflineEngine, extract_facts, split_sentences
from nanomem.store.sessions import Session, save_session
from nanomem.store.workspace import Workspace

ENGLISH = [
    ("My name is Ana Lima.", "permanent"),
    ("I live in Porto.", "permanent"),
    ("I'm allergic to peanuts.", "permanent"),
    ("I am a nurse at the city hospital.", "permanent"),
    ("I prefer short answers.", "durable"),
    ("I hate meetings before 10am.", "durable"),
    ("Please always reply in English.", "durable"),
    ("Don't use emojis.", "durable"),
    ("Our budget is 4,500 EUR.", "durable"),
    ("The report must never exceed two pages.", "durable"),
    ("We decided to use PostgreSQL for the archive.", "durable"),
    ("Let's go with the blue logo.", "durable"),
    ("The contract number is KX-7731.", "durable"),
    ("The lease ends on 2026-12-01.", "durable"),
    ("Remind me tomorrow to call the bank.", "ephemeral"),
    ("The slides are due by Friday.", "ephemeral"),
    ("I have a dentist appointment this week.", "ephemeral"),
    ("Actually, I moved to Lisbon last month.", "correction"),
    ("I no longer drink coffee.", "correction"),
    ("Use tabs instead of spaces.", "correction"),
    ("Hey there, I'm Tomas Berg and I run a small pottery studio.", "permanent"),
    ("My landlord is Jonas Weber, he lives downstairs.", "durable"),
    ("The accountant is called Ruth Ames.", "durable"),
    ("Our clinic is in Ghent, near the station.", "durable"),
    ("Our wiki runs on Confluence since the merger.", "durable"),
    ("Please be brief when you summarise papers.", "durable"),
    ("My visitor badge V-310 is valid until Thursday.", "ephemeral"),
    ("We pushed the launch to 9 October.", "correction"),
    ("They lowered the rent to 950 EUR.", "correction"),
    ("We switched our CI over to Buildkite.", "correction"),
    ("Change of plans: the retreat is in Bruges.", "correction"),
    ("The gym is now open until 23:00.", "correction"),
    ("The call is scheduled for today.", "ephemeral"),
    # how the assistant should answer
    ("Keep replies short.", "durable"),
    ("No exclamation marks, ever.", "durable"),
    ("When you summarise meetings, use numbered lists.", "durable"),
    ("Could you always answer in plain English?", "durable"),
    ("Be more casual with me, I'm not your boss.", "durable"),
    ("And put the costs in a table please.", "durable"),
    ("Keep your answers under 100 words.", "durable"),
    ("Can you remember that I prefer aisle seats?", "durable"),
    # names said in passing, titles and outcomes
    ("Hello, Jo Park here!", "permanent"),
    ("Marta Quist here, hope you're well.", "permanent"),
    ("My accountant is Mr. T. Okoro.", "durable"),
    ("My thesis got approved by the board!", "durable"),
    ("Booking No. 88123 is confirmed.", "durable"),
    ("Tender ref 4471.", "durable"),
    ("I booked the hall this morning, ref KQ-118.", "durable"),
    ("I parked in bay C-14 this morning.", "ephemeral"),
    ("From tomorrow I'm in Oslo for three days.", "ephemeral"),
    # deadlines: an absolute date is durable, a relative one short-lived
    ("The grant report is due on June 3.", "durable"),
    ("Deadline for the visa form is 2026-08-14.", "durable"),
    ("The essay is due tomorrow.", "ephemeral"),
    ("Remind me on May 3 to renew the lease.", "ephemeral"),
    # corrections that do not repeat the old value
    ("The budget is 3,400 EUR, not 3,000.", "correction"),
    ("I misspoke: the venue is the Harbour Hall.", "correction"),
    ("From next month we open at 07:30.", "correction"),
    ("The ferry leaves at 06:10 now.", "correction"),
    ("Kiln service KS-4410 was cancelled and the new job is KS-4471.", "correction"),
    ("Could you list suppliers as a numbered list?", "durable"),
    # round 3: corrections naming both values or a new person, durations, conditions, forms
    ("The landlord put the rent up from 1,150 to 1,240 a month.", "correction"),
    ("The kickoff is June 9 now, the client asked for a week more.", "correction"),
    ("The new bookkeeper is Hanna Solberg.", "correction"),
    ("We replaced Ilse Brandt with Omar Haddad as our translator.", "correction"),
    ("For the next three days I'm at a trade fair in Leipzig.", "ephemeral"),
    ("The side entrance is closed this week only.", "ephemeral"),
    ("I have arthritis in both thumbs.", "permanent"),
    ("My left knee is bad, so no stairs if we can avoid it.", "permanent"),
    ("When you propose config edits, show them as unified diffs.", "durable"),
    ("Give me numbered steps rather than paragraphs for the setup.", "durable"),
    ("Please itemise the invoice costs.", "durable"),
    ("Give me candid feedback on the draft, please.", "durable"),
    ("It's called Tidewell, a small budgeting app.", "durable"),
]
CHINESE = [
    ("我叫王小明。", "permanent"),
    ("我住在上海。", "permanent"),
    ("我对花生过敏。", "permanent"),
    ("我喜欢简短的回答。", "durable"),
    ("我不喜欢香菜！", "durable"),
    ("请用中文回答。", "durable"),
    ("预算不能超过一万元。", "durable"),
    ("我们决定用 Rust 重写。", "durable"),
    ("合同编号是 KX-7731。", "durable"),
    ("明天下午三点提醒我开会。", "ephemeral"),
    ("报告下周五截止。", "ephemeral"),
    ("其实我已经搬到北京了。", "correction"),
    ("我不再吃肉了。", "correction"),
    ("会议改成周四。", "correction"),
    ("我们的会计叫周文静。", "durable"),
    ("我们的工作室在成都。", "durable"),
    ("以后请一直用英文回复。", "durable"),
    ("房租降到三千了。", "correction"),
    ("我们上个月搬家了。", "correction"),
    ("我已经订了今晚的餐厅。", "ephemeral"),
    ("解释术语时请用英文单词。", "durable"),
    ("语气随意一点。", "durable"),
    ("回答尽量简短。", "durable"),
    ("以后回复请用表格。", "durable"),
    ("我女儿叫陈可欣，今年六岁。", "durable"),
    ("老板叫王建国。", "durable"),
    ("孩子的班主任是何静老师。", "durable"),
    ("报告6月3日截止。", "durable"),
    ("报告明天截止。", "ephemeral"),
    ("会议改在周四下午。", "correction"),
    ("我们改去成都了，不去重庆。", "correction"),
    ("场地费我之前说2000，现在涨到2600了。", "correction"),
    ("展会改期了，开幕定在9月20号。", "correction"),
    ("小周排不开，以后配音都交给韩露了。", "correction"),
    ("这两天我在杭州出差，晚上才有空。", "ephemeral"),
    ("每周三晚上七点我要去上吉他课。", "durable"),
    ("以后清单都逐条列出。", "durable"),
    ("邮件别写得太官方，像朋友聊天那样就行。", "durable"),
    ("我有腱鞘炎，打字不能太久。", "permanent"),
]
NOISE = [
    "Hi!", "Thanks, that was great.", "lol ok", "What's the weather like?", "Can you help me?",
    "I don't know.", "Sounds good.", "Hmm, interesting.", "你好！", "谢谢。", "哈哈，好的。",
    "你觉得呢？", "我是说没关系。", "嗯嗯",
    "I spilled coffee on my keyboard this morning.", "The printer jammed twice today.",
    "Thanks, Jonas!", "I moved the sofa to the other wall.", "今天电梯坏了，只好走楼梯。",
    "同事今天带了蛋糕来会议室。",
    "Can you make a table of the costs?", "Please send the answers to Maria.",
    "Use the short route through the park.", "Put the guest list in the shared folder.",
    "Keep the lists of suppliers in the shared drive.", "The tone of the meeting was tense.",
    "Everyone here loves the new coffee machine.", "I booked the hall this morning.",
    "How many chairs do I need for the party?", "Do I need a visa for Chile?",
    "请尽快回复客户的邮件。", "房东叫我去拿钥匙。", "孩子叫不醒。",
    "We replaced the tyres last week.", "The new café is nice.", "My back is killing me, ha.",
    "I went from tired to exhausted.", "Can you show me the diff?",
]


@pytest.mark.parametrize(("sentence", "mark"), ENGLISH + CHINESE)
def test_extract_facts_marks_decisive_sentence(sentence: str, mark: str) -> None:
    assert extract_facts([sentence]) == [(mark, sentence)]


@pytest.mark.parametrize("sentence", NOISE)
def test_extract_facts_ignores_small_talk(sentence: str) -> None:
    assert extract_facts([sentence]) == []


def test_extract_facts_copies_sentences_verbatim_from_mixed_text() -> None:
    text = "Hi there!  " + " ".join(s for s, _ in ENGLISH[:5]) + "\n" + "".join(s for s, _ in CHINESE[:4])
    facts = extract_facts([text])
    assert [t for _, t in facts] == [s for s, _ in ENGLISH[:5]] + [s for s, _ in CHINESE[:4]]
    assert all(t in text for _, t in facts)


def test_extract_facts_skips_code_blocks_duplicates_and_pasted_walls() -> None:
    code = "Look:\n```\nbudget = 5000  # must never change\n```\nThanks."
    wall = "The budget " + "is large " * 80 + "."
    assert extract_facts([code, wall]) == []
    assert extract_facts(["I like tea.", "I like tea."]) == [("durable", "I like tea.")]


def test_split_sentences_keeps_decimals_and_chinese_punctuation() -> None:
    assert split_sentences("Version 2.5 is out. 好吗？！嗯。") == ["Version 2.5 is out.", "好吗？！", "嗯。"]


def test_split_sentences_never_cuts_after_a_title_an_abbreviation_or_an_initial() -> None:
    text = ("Ask Prof. Lindqvist or Mrs. J. Oduya about it. Bring snacks, e.g. fruit, nuts etc. "
            "and water. Flat No. 14 is ours. No. It is not.")
    assert split_sentences(text) == [
        "Ask Prof. Lindqvist or Mrs. J. Oduya about it.",
        "Bring snacks, e.g. fruit, nuts etc. and water.",
        "Flat No. 14 is ours.",
        "No.",
        "It is not.",
    ]


def test_extract_facts_judges_each_sentence_of_an_excited_message_on_its_own() -> None:
    facts = extract_facts(["We did it!!! The grant came through! Grant ID 7734. So happy."])
    assert facts == [("durable", "Grant ID 7734.")]


def test_extract_facts_marks_the_value_after_an_announced_change_as_a_correction() -> None:
    facts = extract_facts(["The gym reissued my member card. The number on it is M-5521.",
                           "Sounds good. The number on it is M-5521."])
    assert facts == [("correction", "The number on it is M-5521.")]
    other = extract_facts(["My favourite shop is nearby. The code is Q-31."])
    assert ("durable", "The code is Q-31.") in other


def test_extract_facts_keeps_a_name_behind_a_title() -> None:
    assert extract_facts(["Our vet is Dr. Imogen Salt-Whitby. She is great."]) == [
        ("durable", "Our vet is Dr. Imogen Salt-Whitby.")]


def complete(engine: OfflineEngine, request: ChatRequest):  # noqa: ANN201
    return asyncio.run(engine.complete(request))


def test_offline_engine_answers_with_a_valid_archive_call_from_user_messages_only() -> None:
    chunk = [
        {"role": "user", "content": "Hello! My name is Ana. I prefer tea."},
        {"role": "assistant", "content": "My name is Bot. I prefer coffee."},
        {"role": "user", "content": [{"type": "text", "text": "Remind me tomorrow to water plants."}]},
    ]
    response = complete(OfflineEngine(), build_request(chunk, session_key="cli", config=Config()))
    checked = check_archive_reply(response)
    assert checked.reason is None
    assert checked.facts == (
        ("permanent", "My name is Ana."),
        ("durable", "I prefer tea."),
        ("ephemeral", "Remind me tomorrow to water plants."),
    )


def test_offline_engine_says_nothing_when_nothing_is_decisive() -> None:
    task = ConsolidateTask(messages=({"role": "user", "content": "Hi! Thanks, lol."},))
    response = complete(OfflineEngine(), ChatRequest(messages=(), task=task, stage="consolidate"))
    assert json.loads(response.tool_calls[0].arguments) == {"facts": [], "nothing": True}
    assert check_archive_reply(response).reason is None


def test_offline_engine_is_deterministic() -> None:
    task = ConsolidateTask(messages=tuple({"role": "user", "content": s} for s, _ in ENGLISH + CHINESE))
    first = complete(OfflineEngine(), ChatRequest(messages=(), task=task, stage="consolidate"))
    second = complete(OfflineEngine(), ChatRequest(messages=(), task=task, stage="consolidate"))
    assert first == second


def test_offline_engine_does_not_chat() -> None:
    response = complete(OfflineEngine(), ChatRequest(messages=({"role": "user", "content": "hi"},)))
    assert response.content == NOT_A_CHAT_MODEL and response.tool_calls == ()
    assert "no archive_history tool call" in (check_archive_reply(response).reason or "")


def test_offline_engine_delegates_dream_tasks() -> None:
    from types import SimpleNamespace

    from nanomem.engines.offline import dream as offline_dream
    from nanomem.dream.prompt import DreamTask

    entry = SimpleNamespace(cursor=1, timestamp="2026-11-30 10:00", content="- [durable] I like tea",
                            kind="summary", session_key=None)
    task = DreamTask((entry,), {"USER.md": "## Facts\n"}, datetime(2026, 11, 30), 7)
    messages = ({"role": "user", "content": "dream"},)
    response = complete(OfflineEngine(), ChatRequest(messages=messages, task=task, stage="dream"))
    assert response == offline_dream.plan_dream_reply(task, messages)


def test_consolidate_with_offline_engine_writes_marked_summary(workspace: Path) -> None:
    messages = []
    for i, (sentence, _) in enumerate(ENGLISH[:6] + CHINESE[:3]):
        messages.append({"role": "user", "content": f"{sentence} " + "filler words here " * 40})
        messages.append({"role": "assistant", "content": "Noted. " + "more filler " * 60})
    total = fixed_tokens("", "", ()) + sum(message_tokens(messages))
    config = Config(context_window=int(total * 0.9) + 100, max_completion_tokens=100, safety_buffer=0)
    path = workspace / "sessions" / "t.jsonl"
    save_session(path, Session(key="cli:t", messages=tuple(messages)))
    history = History(Workspace(workspace), config, clock=lambda: datetime(2026, 11, 30, 16, 40))
    result = asyncio.run(consolidate(path, history=history, engine=OfflineEngine(), config=config))
    assert result.status == "archived"
    lines = [json.loads(x) for x in (workspace / "memory" / "history.jsonl").read_text().splitlines()]
    content = "\n".join(x["content"] for x in lines)
    assert content.startswith("- [permanent] My name is Ana Lima.\n- [permanent] I live in Porto.")
    assert all(x["kind"] == "summary" and x["timestamp"] == "2026-11-30 16:40" for x in lines)


def test_offline_engine_dates_ephemeral_facts_by_the_message_that_said_them() -> None:
    chunk = [
        {"role": "user", "content": "Book the vet for tomorrow.", "timestamp": "2026-04-03T22:50:00"},
        {"role": "assistant", "content": "Noted.", "timestamp": "2026-04-03T22:50:05"},
        {"role": "user", "content": "I prefer aisle seats. Pack the chargers tonight.",
         "timestamp": "2026-04-05T08:10:00"},
        {"role": "user", "content": "Call the bank today."},
    ]
    response = complete(OfflineEngine(), build_request(chunk, session_key="cli", config=Config()))
    facts = json.loads(response.tool_calls[0].arguments)["facts"]
    assert facts == [
        {"mark": "ephemeral", "text": "Book the vet for tomorrow. (said 2026-04-03)"},
        {"mark": "durable", "text": "I prefer aisle seats."},
        {"mark": "ephemeral", "text": "Pack the chargers tonight. (said 2026-04-05)"},
        {"mark": "ephemeral", "text": "Call the bank today."},
    ]


def test_consolidation_prompt_shows_when_each_message_was_said() -> None:
    chunk = [{"role": "user", "content": "Dinner with Lea tomorrow.", "timestamp": "2026-04-03T22:50:41"},
             {"role": "assistant", "content": "Enjoy!"}]
    request = build_request(chunk, session_key="cli", config=Config())
    prompt = "\n".join(str(m.get("content")) for m in request.messages)
    assert "[2026-04-03 22:50] USER: Dinner with Lea tomorrow." in prompt
    assert "\nASSISTANT: Enjoy!" in prompt
