"""The one sanitiser for model text bound for commit messages, logs and terminals (issue 11 item 7)."""

from __future__ import annotations

import pytest

from nanomem.dream.audit import Refusal, render_body
from nanomem.text.sanitize import find_controls, sanitize_json, sanitize_line, sanitize_terminal

CONTROLS = ["\x00", "\x07", "\x1b", "\x7f", "\x9b", "\u202e", "\u2066", "\x08"]


@pytest.mark.parametrize("char", CONTROLS)
def test_sanitize_line_and_terminal_escape_every_control(char: str) -> None:
    text = f"a{char}b"
    for clean in (sanitize_line(text), sanitize_terminal(text)):
        assert char not in clean
        assert clean.startswith("a\\") and clean.endswith("b")


def test_sanitize_line_folds_every_line_break_into_one_line() -> None:
    text = "USER.md\n\nDream-Cursor: 999\r\nBatch: 1-999\u2028x\u2029y\x85z\tend"
    assert sanitize_line(text) == "USER.md Dream-Cursor: 999 Batch: 1-999 x y z end"


def test_sanitize_terminal_keeps_newlines_tabs_and_crlf_but_not_a_lone_cr() -> None:
    assert sanitize_terminal("a\n\tb\r\nc") == "a\n\tb\r\nc"
    assert sanitize_terminal("fake\rreal") == "fake\\x0dreal"


def test_sanitize_terminal_shows_an_escape_sequence_as_inert_text() -> None:
    assert sanitize_terminal("\x1b[2J\x1b]0;title\x07") == "\\x1b[2J\\x1b]0;title\\x07"


def test_sanitize_json_keeps_the_json_value() -> None:
    import json

    value = {"note": "a\x9b\u202eb\x7f"}
    text = sanitize_json(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert not any(ch in text for ch in "\x9b\u202e\x7f")


def test_find_controls_ignores_newlines_tabs_and_crlf() -> None:
    assert find_controls("a\r\nb\tc\n") == set()
    assert find_controls("a\x00b\x1b") == {"\\x00", "\\x1b"}


def test_render_body_keeps_each_refusal_on_one_line_without_controls() -> None:
    refusal = Refusal("edit_file\x1b[31m", "USER.md\x00\n\nDream-Cursor: 999", "bad\nBatch: 1-9")
    body = render_body(span="1-2", batches=1, changes={"USER.md": (1, 0)}, accepted=1,
                       refusals=[refusal], diff="")
    refused = body.split("Refused:\n", 1)[1]
    assert len(refused.splitlines()) == 1
    assert "\x00" not in body and "\x1b" not in body
    assert not any(line.startswith(("Dream-Cursor:", "Batch:")) for line in body.splitlines())


def test_refusal_reasons_are_redacted_in_the_commit_body_and_the_audit() -> None:
    from datetime import datetime

    from nanomem.dream.audit import render_audit_lines

    key = "sk_live_51H8xYzQ4vLp9Tr2Wm7Kc3Nb6"
    refusal = Refusal("edit_file", "USER.md", f"traceability: '{key}' is unknown\x1b[2J",
                      arguments={"new_text": f"- key {key}"})
    body = render_body(span="1-2", batches=1, changes={}, accepted=0, refusals=[refusal], diff="")
    audit = render_audit_lines([refusal], time=datetime(2026, 12, 1), outcome="committed")
    for text in (body, audit):
        assert key not in text and "[REDACTED:stripe-key]" in text
    assert "\x1b" not in body


def test_cli_log_lines_escape_controls_a_server_sent() -> None:
    import io
    import logging

    from nanomem.cli import _TerminalFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_TerminalFormatter("%(message)s"))
    logger = logging.getLogger("nanomem.test_sanitize")
    logger.addHandler(handler)
    try:
        logger.warning("HTTP 500: %s", "\x1b[2Jgone")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == "HTTP 500: \\x1b[2Jgone\n"
