"""A model cannot grow files without bound (issue 11, item 11): facts per consolidation reply
and per run, refusals per Dream run, what is quoted of an argument, the audit file's size.
Everything beyond a cap is counted and reported, never silently cut."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from nanomem.config import Config, load_config
from nanomem.errors import ConfigError
from nanomem.records import to_json
from tests.dream_fixtures import Setup, add_fact, finish, make_setup, provider_over
from tests.fakellm import FakeLLM
from tests.test_consolidator import archive, config_for, history_lines, run, turns, write_session

from nanomem.engines.openai import OpenAIProvider


async def _no_sleep(_seconds: float) -> None:
    return None


def test_consolidate_archives_at_most_max_facts_per_reply_and_counts_the_rest(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeLLM()
    facts = [("durable", f"The user owns machine number {n}.") for n in range(500)]
    fake.enqueue_tool_calls([("archive_history", archive(*facts))])
    messages = turns(30)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    config = config_for(messages, 0.8, max_facts_per_reply=10)
    engine = OpenAIProvider(fake.base_url, None, "fake", transport=fake.transport(), sleep=_no_sleep)
    with caplog.at_level(logging.WARNING):
        result = run(path, workspace, engine, config)
    assert result.status == "archived"
    text = "\n".join(line["content"] for line in history_lines(workspace))
    assert "machine number 9." in text and "machine number 10." not in text
    assert result.facts_capped == 490 and to_json(result)["facts_capped"] == 490
    assert "490 facts of one reply were not archived" in caplog.text


def test_consolidate_caps_the_facts_of_a_whole_run(workspace: Path) -> None:
    fake = FakeLLM()
    for r in range(5):
        fake.enqueue_tool_calls([("archive_history", archive(
            *[("durable", f"Round {r} fact {n}.") for n in range(8)]))])
    messages = turns(60)
    path = write_session(workspace / "sessions" / "t.jsonl", messages)
    config = config_for(messages, 0.3, max_facts_per_run=12, max_consolidate_rounds=5)
    engine = OpenAIProvider(fake.base_url, None, "fake", transport=fake.transport(), sleep=_no_sleep)
    result = run(path, workspace, engine, config)
    text = "\n".join(line["content"] for line in history_lines(workspace))
    assert text.count(" fact ") <= 12
    assert result.facts_capped == 8 * result.rounds - text.count(" fact ") and result.rounds >= 2


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


def _refusing_dream(setup: Setup, calls: int, long_text: str = "x") -> Any:
    fake = FakeLLM()
    bad = [("edit_file", {"path": "SOUL.md", "old_text": f"not there {n} {long_text}",
                          "new_text": "y"}) for n in range(calls)]
    fake.enqueue_tool_calls([*bad, add_fact("USER.md", "- User lives in Lyon."), finish()])
    fake.enqueue_tool_calls([finish()])  # a finish beside refused calls waits one round
    with provider_over("mock", fake) as engine:
        return setup.dream(engine)


def test_run_dream_lists_at_most_max_refusals_and_counts_the_rest(setup: Setup) -> None:
    setup.reconfigure(dream_max_refusals=5)
    setup.history.append("- [durable] User lives in Lyon.")
    result = _refusing_dream(setup, 300)
    assert result.status == "committed"
    assert len(result.refused) == 5 and result.refused_more == 295
    assert to_json(result)["refused_more"] == 295
    body = setup.store.show(result.commit).body
    assert "refused 300" in body and "and 295 more refusals" in body
    assert body.count("  - edit_file SOUL.md") == 5
    lines = [json.loads(x) for x in setup.ws.audit.read_text().splitlines()]
    assert len([x for x in lines if "tool" in x]) == 5
    assert [x["refused_more"] for x in lines if "refused_more" in x] == [295]


def test_run_dream_quotes_at_most_quote_max_chars_of_an_argument(setup: Setup) -> None:
    setup.reconfigure(quote_max_chars=40)
    setup.history.append("- [durable] User lives in Lyon.")
    result = _refusing_dream(setup, 1, long_text="z" * 5000)
    line = json.loads(setup.ws.audit.read_text().splitlines()[0])
    quoted = line["arguments"]["old_text"]
    assert len(quoted) < 80 and quoted.endswith("more chars]")
    assert len(setup.store.show(result.commit).body) < 2000


def test_audit_file_rotates_past_audit_max_bytes_and_keeps_audit_keep_files(setup: Setup) -> None:
    setup.reconfigure(audit_max_bytes=400, audit_keep=2)
    for n in range(6):
        setup.history.append(f"- [durable] User owns machine {n}.")
        _refusing_dream(setup, 2)
    memory = setup.ws.root / "memory"
    names = sorted(p.name for p in memory.glob("dream-audit*.jsonl"))
    assert names == ["dream-audit.1.jsonl", "dream-audit.2.jsonl", "dream-audit.jsonl"]
    for name in names:
        assert all(json.loads(x) for x in (memory / name).read_text().splitlines())


def test_forget_covers_the_rotated_audit_files(workspace: Path) -> None:
    from nanomem.forget.places import AUDIT
    from nanomem.store.workspace import Workspace

    memory = workspace / "memory"
    for name in ("dream-audit.jsonl", "dream-audit.1.jsonl", "dream-audit.7.jsonl"):
        (memory / name).write_text("{}\n")
    found = sorted(Path(p).name for p in AUDIT.paths(Workspace(workspace)))
    assert found == ["dream-audit.1.jsonl", "dream-audit.7.jsonl", "dream-audit.jsonl"]


@pytest.mark.parametrize("key", ["max_refusals", "quote_max_chars", "audit_max_bytes",
                                 "audit_keep"])
def test_config_refuses_a_zero_cap_naming_the_key(workspace: Path, key: str) -> None:
    (workspace / "nanomem.toml").write_text(f"[dream]\n{key} = 0\n")
    with pytest.raises(ConfigError, match=key):
        load_config(workspace)


def test_config_caps_have_documented_defaults() -> None:
    cfg = Config()
    assert (cfg.max_facts_per_reply, cfg.max_facts_per_run, cfg.dream_max_refusals,
            cfg.quote_max_chars, cfg.audit_max_bytes, cfg.audit_keep) == (
        200, 1_000, 50, 300, 1_000_000, 5)
