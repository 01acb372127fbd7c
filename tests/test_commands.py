"""Slash commands: parsing (pure), rendering (pure) and routing through a real Memory."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from nanomem.dream.audit import Refusal
from nanomem.commands import Command, parse_command
from nanomem.replies import render_dream, render_log
from nanomem.statusreplies import render_status
from nanomem.dream.run import DreamResult
from nanomem.errors import CommandError
from nanomem.versions.gitstore import CommitInfo
from nanomem.memory import Memory
from nanomem.status import FileStatus, MemoryStatus

SHA = "4f1c2ab9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f"


def _clock() -> datetime:
    return datetime(2026, 11, 30, 16, 40)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/dream", Command("dream")),
        ("  /dream --dry-run ", Command("dream", dry_run=True)),
        ("/dream-log", Command("dream-log")),
        ("/dream-log ABC1", Command("dream-log", sha="abc1")),
        ("/dream-restore 4f1c2ab", Command("dream-restore", sha="4f1c2ab")),
        ("/dream-prompt", Command("dream-prompt")),
        ("/dream-prompt init", Command("dream-prompt", init=True)),
        ("/memory", Command("memory")),
        ("/dream@my_bot", Command("dream")),
    ],
)
def test_parse_command_reads_each_command(text: str, expected: Command) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize("text", ["hello", "", "  ", "/help", "/dreamy", "what is /dream?", "/"])
def test_parse_command_returns_none_when_not_a_nanomem_command(text: str) -> None:
    assert parse_command(text) is None


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("/dream --force", "--dry-run"),
        ("/dream-log xyz!", "not a sha"),
        ("/dream-log abc", "not a sha"),
        ("/dream-restore a b", "at most one sha"),
        ("/dream-prompt edit", "init"),
        ("/memory now", "takes `pending`, `moved`, `yes N` or `no N`"),
        ("/memory yes", "needs the number of a question"),
        ("/memory no x", "needs the number of a question"),
    ],
)
def test_parse_command_raises_usage_when_arguments_are_bad(text: str, needle: str) -> None:
    with pytest.raises(CommandError, match="usage") as info:
        parse_command(text)
    assert needle in str(info.value)


def test_render_dream_names_short_sha_and_next_steps_when_committed() -> None:
    result = DreamResult(
        "committed", 3, 9, commit=SHA, accepted=2,
        refused=(Refusal("edit_file", "USER.md", "would remove a pinned line"),),
    )

    text = render_dream(result)

    assert "`4f1c2ab`" in text and SHA not in text
    assert "`/dream-restore 4f1c2ab`" in text and "`/dream-log 4f1c2ab`" in text
    assert "2 edit(s) accepted, 1 refused" in text
    assert "would remove a pinned line" in text


@pytest.mark.parametrize(
    ("status", "needle"),
    [
        ("nothing_to_do", "Nothing to dream about"),
        ("no_changes", "no commit"),
        ("already_running", "already running"),
        ("failed", "Nothing was changed"),
    ],
)
def test_render_dream_explains_each_outcome(status: str, needle: str) -> None:
    text = render_dream(DreamResult(status, 5, 5, reason="endpoint returned HTTP 503"))

    assert needle in text
    if status == "failed":
        assert "HTTP 503" in text


def test_render_log_shows_files_diff_and_undo_hint() -> None:
    info = CommitInfo(
        sha=SHA, subject="dream: USER.md +1", body="accepted 1, refused 0",
        time="2026-11-30T16:40:00+00:00", files=("USER.md",),
        diff="--- a/USER.md\n+++ b/USER.md\n@@ -1 +1,2 @@\n # User\n+- Lives in Porto.\n",
    )

    text = render_log(info)

    assert text.startswith("**`4f1c2ab`** dream: USER.md +1")
    assert "2026-11-30 16:40" in text and "`USER.md`" in text
    assert "```diff\n--- a/USER.md" in text and "+- Lives in Porto." in text
    assert text.endswith("Undo with `/dream-restore 4f1c2ab`.")


def test_render_status_flags_a_file_over_its_cap() -> None:
    status = MemoryStatus(
        workspace="/w", cursor=12, dream_cursor=3, pending=9, git_dir="/w/.git", head=SHA,
        provider="offline", model=None, base_url=None,
        files={"USER.md": FileStatus(chars=7000, cap=6000, exists=True)}, uncommitted=(),
        last_dream=None, background_dream=None, provider_notes={},
    )

    text = render_status(status)

    assert "cursor 12, dream cursor 3, 9 pending" in text
    assert "`USER.md` 7,000/6,000 chars **over cap**" in text
    assert "Type `/dream`" in text


@pytest.fixture
def memory(workspace: Path) -> Memory:
    mem = Memory(workspace, clock=_clock)
    mem.store  # creates the repository with its init: commit
    yield mem
    mem.close()


def test_handle_command_returns_none_for_other_text(memory: Memory) -> None:
    assert memory.handle_command("What's the weather?") is None
    assert memory.handle_command("/help") is None


def test_handle_command_replies_with_usage_when_arguments_are_bad(memory: Memory) -> None:
    reply = memory.handle_command("/dream-log not-a-sha")

    assert reply is not None and "not a sha" in reply and "Traceback" not in reply


def test_handle_command_dream_then_log_then_restore_round_trip(memory: Memory) -> None:
    user = memory.workspace.user
    before = user.read_bytes()
    memory.history.append("- [permanent] I am allergic to peanuts.", kind="summary")

    dream_reply = memory.handle_command("/dream")
    sha = memory.store.latest("dream").sha

    assert f"`{sha[:7]}`" in dream_reply and "/dream-restore" in dream_reply
    assert b"peanuts" in user.read_bytes()
    log_reply = memory.handle_command(f"/dream-log {sha[:5]}")
    assert "peanuts" in log_reply and "`USER.md`" in log_reply
    restore_reply = memory.handle_command(f"/dream-restore {sha[:7]}")
    assert "**Restored**" in restore_reply and "`USER.md`" in restore_reply
    assert user.read_bytes() == before
    assert memory.history.read_dream_cursor() == 1  # restore does not rewind the dream cursor


def test_handle_command_reports_unknown_sha_without_traceback(memory: Memory) -> None:
    reply = memory.handle_command("/dream-log deadbeef")

    assert "no commit deadbeef" in reply and "Traceback" not in reply


def test_handle_command_dream_restore_without_sha_lists_versions(memory: Memory) -> None:
    reply = memory.handle_command("/dream-restore")

    assert "**Recent versions**" in reply and "init:" in reply


def test_handle_command_dream_log_says_so_before_the_first_dream(memory: Memory) -> None:
    assert "No Dream commit yet" in memory.handle_command("/dream-log")


def test_handle_command_dream_dry_run_writes_nothing(memory: Memory) -> None:
    memory.history.append("- [permanent] My name is Ana.", kind="summary")
    before = memory.workspace.user.read_bytes()

    reply = memory.handle_command("/dream --dry-run")

    assert "**Dry run**" in reply and "My name is Ana." in reply
    assert memory.workspace.user.read_bytes() == before
    assert memory.history.read_dream_cursor() == 0


def test_handle_command_dream_prompt_shows_builtin_then_init_makes_a_copy(memory: Memory) -> None:
    assert "(built-in)" in memory.handle_command("/dream-prompt")

    created = memory.handle_command("/dream-prompt init")
    memory.workspace.dream_prompt.write_text("Be terse.\n", encoding="utf-8")
    again = memory.handle_command("/dream-prompt init")

    assert "Created `prompts/dream.md`" in created
    assert "left unchanged" in again
    assert memory.workspace.dream_prompt.read_text(encoding="utf-8") == "Be terse.\n"
    assert "(prompts/dream.md)" in memory.handle_command("/dream-prompt")


def test_handle_command_memory_shows_cursors_and_sizes(memory: Memory) -> None:
    memory.history.append("- [durable] I prefer tea.", kind="summary")

    reply = memory.handle_command("/memory")

    assert "cursor 1, dream cursor 0, 1 pending" in reply
    assert "`USER.md`" in reply and "/6,000 chars" in reply
