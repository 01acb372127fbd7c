"""End to end: ``kill -9`` at each step of Dream's and restore's journaled write (issue 11,
item 5). The next run neither commits the killed run's files as a person's ``manual:`` edit
nor runs the batch again; ``git fsck --strict`` stays clean; the journal is gone."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e_support import (
    base_env, committed_bytes, dream_cursor, fake_edit, fake_finish, fsck, git, git_dir_of, init_ws,
    memory_bytes, nanomem, openai_env, subjects,
)
from tests.fakellm import FakeLLM

pytestmark = pytest.mark.slow  # every test here starts a process or a server

FACTS = "## Facts\n"
JOURNAL = "memory/.write-journal.json"

_KILL = r"""
import os, signal, sys
from nanomem.store import journal
from nanomem.versions import gitstore, journaled
where, nth = sys.argv[1], {"calls": 0}
def die():
    os.kill(os.getpid(), signal.SIGKILL)
def wrap(owner, name, when):
    real = getattr(owner, name)
    def dying(*a, **k):
        nth["calls"] += 1
        hit, after = when(nth["calls"], a), where.startswith("after-")
        if hit and not after:
            die()
        out = real(*a, **k)
        if hit and after:
            die()
        return out
    setattr(owner, name, dying)
if where == "after-journal":
    wrap(journaled, "write_journal", lambda n, a: True)
elif where == "between-files":
    wrap(journal, "_write_one", lambda n, a: n == 2)
elif where == "before-commit":
    wrap(gitstore.GitStore, "_commit_files", lambda n, a: True)
elif where == "before-clear":
    wrap(journaled, "clear_journal", lambda n, a: True)
from nanomem.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _killed(ws: Path, where: str, *args: str, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run([sys.executable, "-c", _KILL, where, "-w", str(ws), *args],
                          capture_output=True, text=True, env=env or base_env(), timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _pending_two_file_dream(tmp_path: Path) -> tuple[Path, FakeLLM]:
    """A workspace with one pending entry and a model that answers with a two-file edit."""
    ws = init_ws(tmp_path)
    assert nanomem(ws, "append", "- [durable] User lives in Lyon; KX ships in May.").rc == 0
    fake = FakeLLM()
    fake.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                             fake_edit("memory/MEMORY.md", FACTS, FACTS + "- KX ships in May.\n"),
                             fake_finish()])
    return ws, fake


@pytest.mark.parametrize("where", ["after-journal", "between-files", "before-commit",
                                   "before-clear"])
def test_dream_kill9_at_each_write_step_is_completed_once_and_never_manual(
    tmp_path: Path, where: str
) -> None:
    ws, fake = _pending_two_file_dream(tmp_path)
    with fake.serve() as url:
        _killed(ws, where, "dream", env=openai_env(url))
        assert (ws / JOURNAL).exists()
        after = nanomem(ws, "dream", "--json", env=openai_env(url))  # no reply queued: no call
    assert after.rc == 0, after.err
    assert after.json()["status"] == "nothing_to_do", after.out
    assert after.json()["manual_commit"] is None
    assert len(fake.requests) == 1  # only the killed run asked the model
    assert not (ws / JOURNAL).exists()
    log = subjects(ws)
    assert sum(s.startswith("dream:") for s in log) == 1 and not any(
        s.startswith("manual:") for s in log)
    assert memory_bytes(ws) == committed_bytes(ws)
    assert (ws / "USER.md").read_text().count("- User lives in Lyon.") == 1
    assert (ws / "memory" / "MEMORY.md").read_text().count("- KX ships in May.") == 1
    assert dream_cursor(ws) == "1"
    # the killed run's audit lines ride in its journal: appended once, with the dream: commit
    # (session 31; before, they followed the commit and a kill left it unaudited)
    dream_sha = git(git_dir_of(ws), "log", "-1", "--format=%H", "--grep=^dream:").strip()
    audited = [json.loads(line) for line in (ws / "memory/dream-audit.jsonl").read_text().splitlines()]
    kinds = sorted(r.get("kind", "refusal") for r in audited if r.get("commit") == dream_sha)
    assert "ledger" in kinds and len(kinds) == len(set(kinds)), kinds
    fsck(git_dir_of(ws))


@pytest.mark.parametrize("where", ["between-files", "before-commit"])
def test_restore_kill9_at_each_write_step_is_completed_as_restore(
    tmp_path: Path, where: str
) -> None:
    ws, fake = _pending_two_file_dream(tmp_path)
    with fake.serve() as url:
        done = nanomem(ws, "dream", "--json", env=openai_env(url)).json()
    assert done["status"] == "committed"
    _killed(ws, where, "restore", done["commit"][:7])
    status = nanomem(ws, "status", "--json")
    assert status.rc == 0, status.err
    again = nanomem(ws, "restore", done["commit"][:7], "--json")
    assert again.rc == 0, again.err
    log = subjects(ws)
    assert log[0].startswith("restore:") and not any(s.startswith("manual:") for s in log)
    assert "Lyon" not in (ws / "USER.md").read_text()
    assert "KX ships" not in (ws / "memory" / "MEMORY.md").read_text()
    assert memory_bytes(ws) == committed_bytes(ws) and not (ws / JOURNAL).exists()
    fsck(git_dir_of(ws))


def _asked(tmp_path: Path) -> Path:
    """A workspace whose offline Dream asked question 1: a correction of a pinned line."""
    ws = init_ws(tmp_path)
    with (ws / "USER.md").open("a", encoding="utf-8") as user:
        user.write("- Lives in Lisbon <!-- pin -->\n")
    assert nanomem(ws, "append", "- [correction] Actually I moved to Porto last month.").rc == 0
    assert nanomem(ws, "dream").rc == 0
    assert "change a pinned line?" in nanomem(ws, "pending").out
    return ws


@pytest.mark.parametrize("where", ["after-journal", "before-clear"])  # completed; committed
def test_answer_kill9_after_its_journal_is_committed_and_audited_exactly_once(
    tmp_path: Path, where: str
) -> None:
    """Session 27 (benchmarks/faults.py, answer-yes): the audit line was appended after the
    journaled commit, so a kill after the journal left a ``confirm:`` commit (completed by the
    next run) that no audit line recorded."""
    ws = _asked(tmp_path)
    _killed(ws, where, "pending", "yes", "1")
    after = nanomem(ws, "dream", "--json")  # the next writer completes the journal
    assert after.rc == 0, after.err
    log = subjects(ws)
    assert sum(s.startswith("confirm:") for s in log) == 1 and log[0].startswith("confirm:")
    assert not any(s.startswith("manual:") for s in log[:1])
    head = git(git_dir_of(ws), "rev-parse", "HEAD").strip()
    audited = [json.loads(line) for line in (ws / "memory/dream-audit.jsonl").read_text().splitlines()]
    answers = [r for r in audited if r.get("kind") == "question" and r.get("event") == "yes"]
    assert [(r["question"], r["commit"]) for r in answers] == [(1, head)]
    assert "- I moved to Porto last month. <!-- pin -->" in (ws / "USER.md").read_text()
    assert json.loads(nanomem(ws, "pending", "--json").out) == []
    assert memory_bytes(ws) == committed_bytes(ws) and not (ws / JOURNAL).exists()
    fsck(git_dir_of(ws))
