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
