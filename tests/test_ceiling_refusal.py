"""A memory file over its read ceiling (a pasted file, 16 bytes per character of its cap) is
never scanned and versioned as a hand edit: restore, forget, an answer, a ``manual:`` commit
and the watcher refuse it with a message naming the file, its size, the ceiling, the cap and
the fix, and every file (git included) stays as it was. The paste is generated here, just over
the default ceiling of USER.md (96,000 bytes), so the tests stay fast."""

from __future__ import annotations

import io
import logging
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import base_env
from nanomem.cli import main
from nanomem.config import DEFAULT_FILE_CAPS, Config
from nanomem.errors import OversizedFileError, WorkspaceError
from nanomem.memory import Memory
from nanomem.watch import Watcher

FILLER = b"- filler line with words\n" * 4_000  # 100,000 bytes: over the 96,000 of USER.md


def _config(user_cap: int = DEFAULT_FILE_CAPS["USER.md"]) -> Config:
    return Config(file_caps={**DEFAULT_FILE_CAPS, "USER.md": user_cap})


@pytest.fixture
def mem(workspace: Path) -> Iterator[Memory]:
    """A workspace with a committed Dream (offline engine), then USER.md pasted over its
    ceiling by hand."""
    memory = Memory(workspace, config=_config())
    memory.history.append("- [durable] User's kayak is called Quillon.")
    assert memory.dream().status == "committed"
    (workspace / "USER.md").write_bytes((workspace / "USER.md").read_bytes() + FILLER)
    yield memory
    memory.close()


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the workspace, git included (lock files and the derived search index
    aside: taking a lock is no write, and closing the index may flush its journal)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(".lock")
            and not p.relative_to(root).as_posix().startswith("memory/index")}


def _assert_names_the_fix(message: str, size: int, action: str) -> None:
    assert message.startswith(f"USER.md is {size:,} bytes, over the 96,000 ")
    assert "(16 per character of its cap of 6,000)" in message
    assert f"{action} did not run: no file was changed" in message
    assert 'raise [caps] "USER.md" in nanomem.toml' in message and "Move what you want" in message


RUNS: dict[str, tuple[str, Callable[[Memory, str], Any]]] = {
    "restore": ("restore", lambda m, sha: m.restore(sha)),
    "forget": ("forget", lambda m, sha: m.forget("Quillon")),
    "answer": ("the answer", lambda m, sha: m.answer(1, yes=True)),
    "commit": ("the hand-edit commit", lambda m, sha: m.commit_hand_edits()),
}


@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_run_that_versions_hand_edits_refuses_a_file_over_its_ceiling(
    mem: Memory, workspace: Path, run: str
) -> None:
    action, call = RUNS[run]
    sha = mem.store.head()
    size = (workspace / "USER.md").stat().st_size
    before = _snapshot(workspace)
    with pytest.raises(OversizedFileError) as caught:
        call(mem, sha)
    assert isinstance(caught.value, WorkspaceError) and caught.value.exit_code == 2
    _assert_names_the_fix(str(caught.value), size, action)
    assert _snapshot(workspace) == before  # not a byte written, in the files or in git


@pytest.mark.slow  # `git show` reads the manual: commit
def test_the_fix_it_names_works_and_the_paste_is_kept_in_git(mem: Memory, workspace: Path) -> None:
    sha = mem.store.head()
    pasted = (workspace / "USER.md").read_bytes()
    with pytest.raises(OversizedFileError, match=r'raise \[caps\] "USER.md"'):
        mem.restore(sha)
    with Memory(workspace, config=_config(user_cap=7_000)) as raised:  # a ceiling of 112,000
        result = raised.restore(sha)
    assert result.status == "restored" and result.manual is not None
    assert result.manual.subject == "manual: USER.md"
    assert (workspace / "USER.md").read_bytes() != pasted  # back to before the Dream
    kept = subprocess.run(["git", "-C", str(workspace), "show", f"{result.manual.sha}:USER.md"],
                          capture_output=True, check=True, env=base_env())
    assert kept.stdout == pasted  # the paste, whole, in the manual: commit


def test_the_cli_restore_says_so_and_exits_2(mem: Memory, workspace: Path) -> None:
    sha = mem.store.head()
    before = _snapshot(workspace)
    err = io.StringIO()
    code = main(["-w", str(workspace), "restore", sha[:8]], stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert "USER.md is 100," in err.getvalue() and "restore did not run" in err.getvalue()
    assert "Traceback" not in err.getvalue()
    assert _snapshot(workspace) == before


def test_the_watcher_warns_and_commits_nothing(
    mem: Memory, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    head = mem.store.head()
    now = [1000.0]
    watcher = Watcher(mem, clock=lambda: now[0])
    watcher.on_path(str(workspace / "USER.md"))
    now[0] += 10  # past the debounce
    with caplog.at_level(logging.WARNING):
        assert watcher.step() == []
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("hand edits not committed: USER.md is 100,") for m in warned)
    assert not any(r.exc_info for r in caplog.records)  # a warning, not a logged traceback
    assert mem.store.head() == head
