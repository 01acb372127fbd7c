"""End to end: control characters from a model never reach a commit message or the terminal
(issue 11 item 7). Real CLI, real FakeLLM server, real ``git fsck --strict`` and ``git log``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_support import (
    fake_edit,
    fake_finish,
    fsck,
    git,
    git_dir_of,
    init_ws,
    nanomem,
    openai_env,
)
from tests.fakellm import FakeLLM

FACTS = "## Facts\n"
FORGED = "\n\nDream-Cursor: 999\nBatch: 1-999"


@pytest.mark.slow
def test_model_controls_leave_git_fsck_clean_and_never_reach_the_terminal(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    assert nanomem(ws, "append", "- [durable] User lives in Lyon.").rc == 0
    user = ws / "USER.md"  # a person's hand edit with an escape sequence, committed as manual:
    user.write_text(user.read_text("utf-8") + "- likes \x1b[31mred\x1b[0m\n", "utf-8")
    fake = FakeLLM()
    fake.enqueue_tool_calls([
        ("write_file", {"path": "USER.md\x00.bak", "content": "x"}),  # NUL in a refused path
        ("write_file", {"path": "\x1b[2J\x1b[31mUSER.md" + FORGED, "content": "x"}),
        ("edit_file\x1b[5m", {"path": "USER.md"}),
        fake_edit("USER.md", FACTS, FACTS + "- \x1b]0;pwned\x07 Lyon\n"),  # refused: controls
        fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
        fake_finish(note="done\x1b[2J" + FORGED),
    ])
    fake.enqueue_tool_calls([fake_finish(note="done\x1b[2J" + FORGED)])  # after the refusals
    with fake.serve() as url:
        env = openai_env(url)
        dream = nanomem(ws, "dream", env=env)
        assert dream.rc == 0, dream.err
        log = nanomem(ws, "log", env=env)
        parent = git(git_dir_of(ws), "rev-parse", "HEAD~1").strip()
        manual = nanomem(ws, "log", parent, env=env)
        as_json = nanomem(ws, "dream", "--json", env=env)
    for run in (dream, log, manual, as_json):
        assert "\x1b" not in run.out + run.err and "\x00" not in run.out + run.err, run
    assert "\\x1b[31mred" in manual.out  # shown, inert, not dropped
    git_dir = git_dir_of(ws)
    fsck(git_dir)
    message = git(git_dir, "log", "-1", "--format=%B")
    cursor_lines = [line for line in message.splitlines() if line.startswith("Dream-Cursor:")]
    assert cursor_lines == ["Dream-Cursor: 1"], message
    trailers = git(git_dir, "log", "-1", "--format=%(trailers:key=Dream-Cursor,valueonly)")
    assert trailers.strip() == "1"
    assert "\\x00" in message and "refused 4" in message  # the whole body, up to the trailers
    assert "injection" not in message
    assert "- User lives in Lyon." in user.read_text("utf-8")
    assert "pwned" not in user.read_text("utf-8")
