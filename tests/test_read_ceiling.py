"""The read ceiling: what the search index and the prompt block read of one memory file
(16 bytes per character of its cap, in whole lines), the one warning, and what status says."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from nanomem.cli import main
from nanomem.config import DEFAULT_FILE_CAPS, Config
from nanomem.memory import Memory
from nanomem.store.memfiles import plan_head, read_ceiling, read_memory_head
from nanomem.store.workspace import Workspace

CAP = 100  # USER.md's cap in these tests: a ceiling of 1,600 bytes


def _config() -> Config:
    return Config(file_caps={**DEFAULT_FILE_CAPS, "USER.md": CAP})


def _big_user_md(workspace: Path) -> bytes:
    """USER.md with a word early, filler past the ceiling, and a word after it."""
    filler = b"- filler line with words\n" * 400  # 10,000 bytes
    data = (workspace / "USER.md").read_bytes() + b"- Early note: the kayak is Quillon.\n" + filler
    data += b"- Late note: the canoe is Vartrek.\n"
    (workspace / "USER.md").write_bytes(data)
    return data


def test_plan_head_keeps_whole_lines_and_whole_characters() -> None:
    assert plan_head(b"one\ntwo\nthree\n", 9) == b"one\ntwo\n"
    assert plan_head(b"one\ntwo\n", 8) == b"one\ntwo\n"
    assert plan_head(b"one\ntwo", 7) == b"one\ntwo"  # within the limit: all of it
    assert plan_head("é世".encode() * 10, 5) == "é世".encode()  # 2 + 3 bytes, no half character
    assert plan_head(b"x" * 20, 5) == b"xxxxx"


def test_read_memory_head_reads_at_most_the_ceiling_and_reports_the_size(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = _big_user_md(workspace)
    with caplog.at_level(logging.WARNING):
        head = read_memory_head(Workspace(workspace), "USER.md", CAP)
        again = read_memory_head(Workspace(workspace), "USER.md", CAP)
    assert head is not None and again == head
    assert head.size == len(data) and head.cut
    assert len(head.data) <= read_ceiling(CAP) == 1_600
    assert data.startswith(head.data) and head.data.endswith(b"\n")
    assert len(head.data) > read_ceiling(CAP) - 30  # cut at the last line end, not before
    warnings = [r.getMessage() for r in caplog.records if "over the" in r.getMessage()]
    assert len(warnings) == 1  # once per process for one version of the file
    assert f"USER.md is {len(data):,} bytes, over the 1,600" in warnings[0]
    assert "cap of 100" in warnings[0] and '[caps] "USER.md"' in warnings[0]
    small = read_memory_head(Workspace(workspace), "SOUL.md", DEFAULT_FILE_CAPS["SOUL.md"])
    assert small is not None and not small.cut
    assert small.data == (workspace / "SOUL.md").read_bytes()


def test_context_and_search_use_the_head_of_a_file_over_its_ceiling_and_leave_it_as_it_is(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = _big_user_md(workspace)
    with caplog.at_level(logging.WARNING), Memory(workspace, config=_config()) as mem:
        early = mem.search("Quillon")
        late = mem.search("Vartrek")
        block = mem.context(4000, query="kayak")
        block_again = mem.context(4000)
        files = mem.read_files()
    assert [hit.path for hit in early] == ["USER.md"]
    assert late == []
    assert "Quillon" in block and "Vartrek" not in block and "Vartrek" not in block_again
    assert "Vartrek" not in files["USER.md"] and len(files["USER.md"].encode()) <= 1_600
    assert (workspace / "USER.md").read_bytes() == data  # nothing of the file is lost
    warnings = [r.getMessage() for r in caplog.records if "over the 1,600" in r.getMessage()]
    assert len(warnings) == 1, warnings  # not once per turn, nor once per reader


def test_status_names_a_file_over_its_ceiling_with_its_size_and_the_fix(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _big_user_md(workspace)
    (workspace / "nanomem.toml").write_text(f'[caps]\n"USER.md" = {CAP}\n', "utf-8")
    with Memory(workspace) as mem:
        status = mem.status()
    user = status.files["USER.md"]
    assert (user.bytes, user.ceiling, user.over_ceiling) == (len(data), 1_600, True)
    assert not status.files["SOUL.md"].over_ceiling
    assert len(status.health.over_ceiling) == 1
    assert status.health.over_ceiling[0].startswith(f"USER.md is {len(data):,} bytes")

    assert main(["-w", str(workspace), "status", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["files"]["USER.md"]["over_ceiling"] is True
    assert record["files"]["SOUL.md"]["over_ceiling"] is False
    assert main(["-w", str(workspace), "status"]) == 0
    text = capsys.readouterr().out
    assert f"warning       USER.md is {len(data):,} bytes, over the 1,600" in text
    with Memory(workspace) as mem:
        reply = mem.handle_command("/memory")
    assert reply is not None and "**warning**: USER.md is" in reply


def test_a_file_within_its_ceiling_is_read_whole(workspace: Path) -> None:
    with Memory(workspace, config=_config()) as mem:
        files = mem.read_files()
        status = mem.status()
    assert files["USER.md"] == (workspace / "USER.md").read_text("utf-8")
    assert status.health.over_ceiling == ()
