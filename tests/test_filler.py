"""Social filler and bare secret placeholders are never stored as facts (nanomem.text.filler),
and the ledger says why (``skipped: filler`` / ``skipped: secret-placeholder``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from nanomem.memory import Memory
from nanomem.store.sessions import append_messages
from nanomem.store.workspace import MEMORY_FILES, Workspace, init_workspace
from nanomem.engines.offline.routing import route_fact
from nanomem.text.filler import is_filler, is_placeholder_only, nonfact_reason
from nanomem.text import secretpatterns
from nanomem.text.redact import KINDS, redact

NOW = datetime(2026, 11, 30, 12, 0)


@pytest.mark.parametrize("text", [
    "I'm so sorry to hear that.", "Haha, totally agree with you!", "Wow, that looks amazing, Jo!",
    "Thank you so much, I really appreciate it.", "Good luck, fingers crossed!",
    "That sounds like so much fun!", "Hey Priya, great to hear from you!", "太好了，谢谢你！",
    "哈哈，真不错", "Congrats, well done!",
])
def test_filler_is_filler_for_social_talk_with_no_fact(text: str) -> None:
    assert is_filler(text)


@pytest.mark.parametrize("text", [
    "I love rock climbing.", "Sorry, the meeting moved to Thursday.", "My sister Alma lives in Oslo.",
    "Thanks, I'll take the 7:40 train.", "我下周去杭州出差。", "Great news: the offer came in at 62k.",
    "I hate coriander.", "Keep your answers short.",
])
def test_filler_keeps_sentences_that_hold_a_fact(text: str) -> None:
    assert not is_filler(text)


@pytest.mark.parametrize("text, only", [
    ("My API key is [REDACTED:openai-key]", True),
    ("here's the password: [REDACTED:password]", True),
    ("我的密钥是 [REDACTED:openai-key]", True),
    ("The staging server web-3 uses token [REDACTED:github-token] for deploys", False),
    ("I live in Porto", False),
])
def test_filler_placeholder_only_when_nothing_but_the_secret_is_said(text: str, only: bool) -> None:
    assert is_placeholder_only(text) is only


@pytest.mark.parametrize("text, only", [
    ("Log in: [REDACTED:password] — ignore, wrong window.", True),
    ("pw: [REDACTED:password] oops, wrong tab, please forget that", True),
    ("登录：[REDACTED:password] 打错窗口了，别记", True),
    ("My PIN is [REDACTED:password] for the Windows laptop", False),
    ("刚才手滑把网银密码发出来了：[REDACTED:password]", True),
    ("支付宝密码是[REDACTED:password] 手滑了", True),
    ("银行卡密码 [REDACTED:password] 打错了，别记", True),
    ("微信支付密码是[REDACTED:password] 发错窗口了，忽略", True),
    ("邮箱账号密码是[REDACTED:password] 发错了", True),
    ("My online banking password is [REDACTED:password] oops wrong window", True),
    ("房东的银行卡是招商银行 [REDACTED:password]", False),
    ("My bank password is [REDACTED:password], the bank is Monzo", False),
])
def test_filler_placeholder_only_when_the_rest_tells_of_the_slip(text: str, only: bool) -> None:
    assert is_placeholder_only(text) is only


def test_route_fact_keeps_compliments_to_the_person_out_of_soul() -> None:
    assert route_fact("You always format your notes so nicely") != "SOUL.md"
    assert route_fact("You should answer in bullet points") == "SOUL.md"
    assert route_fact("Please reply in a formal tone") == "SOUL.md"


@pytest.mark.parametrize("kind", KINDS)
def test_filler_placeholder_of_every_kind_the_redaction_writes_is_a_placeholder(kind: str) -> None:
    assert is_placeholder_only(f"My API key is [REDACTED:{kind}]")
    assert nonfact_reason(f"Log in: [REDACTED:{kind}]") == "secret-placeholder"


def test_filler_placeholder_knows_every_kind_a_redaction_rule_writes() -> None:
    assert {rule.kind for rule in secretpatterns.RULES} <= set(KINDS)


@pytest.mark.parametrize("kind", ["anything", "made-up", "OPENAI-KEY", "openai-key-2", ""])
def test_filler_placeholder_of_a_kind_the_redaction_never_writes_is_no_placeholder(
        kind: str) -> None:
    text = f"My API key is [REDACTED:{kind}]"
    assert redact(text).text == text  # the redaction leaves it, and writes no such kind
    assert not is_placeholder_only(text)
    assert nonfact_reason(f"Log in: [REDACTED:{kind}]") is None


def test_offline_dream_never_stores_a_pasted_key_s_placeholder_or_filler(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    init_workspace(root)
    ws = Workspace(root)
    session = ws.sessions_dir / "chat.jsonl"
    with Memory(ws, clock=lambda: NOW) as memory:
        memory.store
        memory.history.append(
            "- [durable] My API key is [REDACTED:openai-key]\n"
            "- [durable] That must have been awesome!\n"
            "- [durable] Agreed, Mel!\n"
            "- [permanent] I am allergic to peanuts", kind="summary")
        result = memory.dream()
        append_messages(session, [{"role": "user", "content": "my API key is "
                                   "sk-proj-Zq8Xw2Lp0Vb7Nm4Kc1Jh6Gf3Ds9Ra5Te"}],
                        key="chat", clock=lambda: NOW)
    text = "".join(ws.path(rel).read_text("utf-8") for rel in MEMORY_FILES)

    assert result.status == "committed", result.reason
    assert "REDACTED" not in text and "awesome" not in text and "Mel" not in text
    assert "peanuts" in text
    assert [(e.state, e.reason) for e in result.ledger] == [
        ("skipped", "secret-placeholder"), ("skipped", "filler"), ("skipped", "filler"),
        ("kept", None)]
