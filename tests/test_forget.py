"""Forget: a planted fact leaves every place it reached; the rest stays; the receipt proves it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

from nanomem.cli import main
from nanomem.errors import ForgetError
from nanomem.forget.match import Matcher, fold
from nanomem.forget.receipt import check_pattern_hash, read_forget_log
from nanomem.forget.run import JOURNAL
from nanomem.versions.gitstore import locate_git_dir
from tests.forget_fixtures import (
    FACT,
    OTHER,
    byte_hits,
    close_opened,
    memory,
    object_hits,
    plant,
    tree_hashes,
)


@pytest.fixture(autouse=True)
def _close_memories():
    yield
    close_opened()


def _history(ws: Path) -> dict[int, dict]:
    entries = {}
    for path in sorted((ws / "memory").glob("history*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            record = json.loads(line)
            entries[record["cursor"]] = record
    return entries


def _without_locks(hashes: dict[str, str]) -> dict[str, str]:
    """A real run creates the (empty) lock files it takes; nothing else may change."""
    return {rel: digest for rel, digest in hashes.items() if not rel.endswith(".lock")}


def _commits(ws: Path) -> dict[str, Commit]:
    repo = Repo(str(locate_git_dir(ws)[0]))
    try:
        out = {}
        for entry in repo.get_walker():
            out[entry.commit.id.decode()] = entry.commit
        return out
    finally:
        repo.close()


def test_forget_removes_the_fact_from_every_place_and_the_sweep_finds_nothing(workspace: Path) -> None:
    plant(workspace)
    assert byte_hits(workspace) and object_hits(workspace)

    receipt = memory(workspace).forget(FACT.lower())

    assert receipt.status == "forgotten"
    assert receipt.hits == ()
    assert byte_hits(workspace) == []
    assert object_hits(workspace) == []
    assert {"files", "history", "archive", "sessions", "audit", "index"} <= set(receipt.counts)
    assert not (workspace / "memory" / "index.sqlite3").exists()
    assert not (workspace / JOURNAL).exists()


def test_forget_keeps_every_other_fact_byte_for_byte(workspace: Path) -> None:
    plant(workspace)
    before_user = (workspace / "USER.md").read_text("utf-8")

    memory(workspace).forget(FACT)

    user = (workspace / "USER.md").read_text("utf-8")
    assert user == "".join(line for line in before_user.splitlines(keepends=True)
                           if FACT not in line)
    assert f"- {OTHER}\n" in user and "- note 19\n" in user
    assert "KX-7731" in (workspace / "memory" / "MEMORY.md").read_text("utf-8")
    history = _history(workspace)
    assert history[2]["content"] == f"- [durable] {OTHER}"
    assert history[3]["content"] == f"- [durable] {OTHER}\n"
    assert history[5]["content"] == f"- [durable] {OTHER}"
    archive = (workspace / "memory" / "archive" / "archive-000001.jsonl").read_text("utf-8")
    assert '"text": "Noted."' in archive
    audit = [json.loads(line) for line in
             (workspace / "memory" / "dream-audit.jsonl").read_text("utf-8").splitlines()]
    assert audit[1]["arguments"] == {"content": "be terse"}


def test_forget_turns_an_entry_that_only_held_the_fact_into_a_tombstone(workspace: Path) -> None:
    plant(workspace)
    mem = memory(workspace)

    mem.forget(FACT)

    history = _history(workspace)
    assert history[1] == {"cursor": 1, "timestamp": "2026-03-01 09:00", "content": "",
                          "kind": "forgotten"}
    assert history[4]["kind"] == "forgotten" and history[6]["kind"] == "forgotten"
    assert sorted(history) == [1, 2, 3, 4, 5, 6]
    assert mem.history.append("- [durable] a new fact") == 22
    assert [e.cursor for e in mem.history.read_since(5)] == [6, 22]


def test_forget_keeps_session_message_counts_and_tool_calls_valid(workspace: Path) -> None:
    plant(workspace)

    memory(workspace).forget(FACT)

    lines = [json.loads(line) for line in
             (workspace / "sessions" / "cli.jsonl").read_text("utf-8").splitlines()]
    assert lines[0]["last_consolidated"] == 2 and len(lines) == 5
    assert lines[1]["content"] == ""
    assert json.loads(lines[2]["tool_calls"][0]["function"]["arguments"]) == {}
    assert lines[4]["content"] == f"{OTHER}."


def test_forget_with_keep_sessions_leaves_the_sessions_as_they_were(workspace: Path) -> None:
    plant(workspace)
    before = (workspace / "sessions" / "cli.jsonl").read_bytes()

    receipt = memory(workspace).forget(FACT, keep_sessions=True)

    assert (workspace / "sessions" / "cli.jsonl").read_bytes() == before
    assert receipt.status == "incomplete"
    assert all(hit.startswith("sessions/cli.jsonl") for hit in receipt.hits)


def test_forget_rewrites_commits_keeping_authors_dates_and_trailers(workspace: Path) -> None:
    plant(workspace)
    old = _commits(workspace)

    receipt = memory(workspace).forget(FACT)

    new = _commits(workspace)
    assert len(receipt.sha_map) >= 21
    for old_sha, new_sha in receipt.sha_map.items():
        before, after = old[old_sha], new[new_sha]
        assert (after.author, after.committer, after.author_time, after.commit_time,
                after.author_timezone) == (before.author, before.committer, before.author_time,
                                           before.commit_time, before.author_timezone)
        assert after.message.split(b"\n\n")[-1] == before.message.split(b"\n\n")[-1] or \
            FACT.lower().encode() in before.message.lower()
    first = next(c for c in new.values() if c.message.startswith(b"manual:"))
    assert first.message == b"manual: [forgotten]\n"
    trailers = [c.message for c in new.values() if b"Dream-Cursor: 21" in c.message]
    assert trailers and b"Batch: 21-21" in trailers[0]


def test_forget_commits_a_receipt_and_logs_only_a_salted_hash(workspace: Path) -> None:
    plant(workspace)

    receipt = memory(workspace).forget(FACT)

    head = _commits(workspace)[receipt.commit]
    assert head.message.startswith(b"forget: ")
    assert b"zanzibar" not in head.message.lower()
    log_bytes = (workspace / "memory" / "forget-log.jsonl").read_bytes()
    assert b"zanzibar" not in log_bytes.lower()
    [record] = read_forget_log(type(memory(workspace).workspace)(workspace))
    assert check_pattern_hash(fold(FACT), record["pattern"]["hash"])
    assert not check_pattern_hash(fold("someone else"), record["pattern"]["hash"])
    assert record["sha_map"] == dict(receipt.sha_map) and record["commit"] == receipt.commit


def test_forget_old_sha_still_shows_and_restores_through_the_map(workspace: Path) -> None:
    shas = plant(workspace)["shas"]
    mem = memory(workspace)
    receipt = mem.forget(FACT)
    old = shas[10]

    info = mem.log(old[:8])
    result = mem.restore(old[:8])

    assert info.moved_from == old and info.sha == receipt.sha_map[old]
    assert result.status == "restored" and result.moved_from == old
    assert result.target == receipt.sha_map[old]
    assert "- note 7\n" in (workspace / "USER.md").read_text() and \
        "- note 8\n" not in (workspace / "USER.md").read_text()
    reply = mem.handle_command(f"/dream-log {old[:8]}")
    assert f"`{old[:7]}` was rewritten by a forget; it is now `{receipt.sha_map[old][:7]}`" in reply


def test_forget_dry_run_changes_no_byte(workspace: Path) -> None:
    plant(workspace)
    before = tree_hashes(workspace)

    receipt = memory(workspace).forget(FACT, dry_run=True)

    assert tree_hashes(workspace) == before
    assert receipt.status == "dry_run"
    assert "USER.md line" in " ".join(receipt.where["files"])
    assert len(receipt.sha_map) >= 21


def test_forget_refuses_a_pinned_line_and_changes_nothing(workspace: Path) -> None:
    plant(workspace)
    user = workspace / "USER.md"
    user.write_text(user.read_text() + f"- {FACT} is family <!-- pin -->\n")
    mem = memory(workspace)
    mem.store.commit("manual: pin")
    mem.close()
    before = tree_hashes(workspace)

    refused = mem.forget(FACT)
    assert _without_locks(tree_hashes(workspace)) == _without_locks(before)

    done = mem.forget(FACT, include_pinned=True)
    assert refused.status == "refused" and refused.refused
    assert refused.refused[0].startswith("USER.md line")
    assert done.status == "forgotten" and byte_hits(workspace) == []


def test_forget_a_regex_folds_width_and_case(workspace: Path) -> None:
    plant(workspace)

    receipt = memory(workspace).forget(r"zanz\w+ quok+a", regex=True)

    assert receipt.status == "forgotten" and byte_hits(workspace) == []


def test_forget_inside_an_enclosing_repository_leaves_it_untouched(tmp_path: Path, workspace: Path) -> None:
    outer = tmp_path
    Repo.init(str(outer)).close()
    (outer / "README").write_text("outer")
    outer_before = tree_hashes(outer / ".git")
    plant(workspace)
    assert (workspace / ".nanomem.git").is_dir()

    receipt = memory(workspace).forget(FACT)

    assert receipt.status == "forgotten"
    assert tree_hashes(outer / ".git") == outer_before
    assert byte_hits(workspace) == [] and object_hits(workspace) == []


def test_forget_then_dream_log_and_restore_still_work(workspace: Path) -> None:
    plant(workspace)
    mem = memory(workspace)
    mem.forget(FACT)

    mem.history.append("- [durable] User's dog is called Rex")
    dream = mem.dream()
    latest = mem.log()
    undone = mem.restore(latest.sha)

    assert dream.status == "committed" and "Rex" in latest.diff
    assert undone.status == "restored"
    assert byte_hits(workspace) == []


def test_forget_nothing_found_writes_nothing(workspace: Path) -> None:
    plant(workspace)
    mem = memory(workspace)
    mem.store.close()
    mem.close()
    before = tree_hashes(workspace)

    receipt = mem.forget("Nobody Atall")

    assert receipt.status == "nothing_found"
    assert _without_locks(tree_hashes(workspace)) == _without_locks(before)


def test_forget_rerun_with_another_pattern_refuses_while_one_is_unfinished(workspace: Path) -> None:
    plant(workspace)
    (workspace / JOURNAL).write_text(json.dumps({"hash": "pbkdf2-sha256$1$00$00", "time": "t"}))

    with pytest.raises(ForgetError, match="interrupted forget"):
        memory(workspace).forget(FACT)


def test_matcher_matches_folded_text_and_refuses_tiny_patterns() -> None:
    matcher = Matcher.literal("Straße 5")
    assert matcher.matches("STRASSE  5") and matcher.matches("ｓｔｒａｓｓｅ 5")
    with pytest.raises(ForgetError):
        Matcher.literal("a")
    with pytest.raises(ForgetError):
        Matcher.compile(".*")
    with pytest.raises(ForgetError):
        Matcher.literal("two\nlines")


def test_forget_refuses_half_a_surrogate_pair_with_a_clear_error(workspace: Path) -> None:
    """Only the Python API can pass one. It was taken as a pattern no file can hold (a forget
    that finds nothing, reported as done), and raised UnicodeEncodeError where a history entry
    held the same half pair."""
    plant(workspace)
    before = {p: p.read_bytes() for p in workspace.rglob("*.md")}
    with pytest.raises(ForgetError, match="half of a UTF-16 surrogate pair"):
        memory(workspace).forget("Porto \ud800")
    assert {p: p.read_bytes() for p in workspace.rglob("*.md")} == before
    assert Matcher.literal("Porto \U0001f600").matches("porto \U0001f600 by the sea")


def test_forget_chat_command_never_echoes_the_text(workspace: Path) -> None:
    plant(workspace)
    mem = memory(workspace)

    dry = mem.handle_command(f"/forget --dry-run {FACT}")
    done = mem.handle_command(f"/forget {FACT}")
    usage = mem.handle_command("/forget")

    assert dry.startswith("**Dry run:**") and done.startswith("**Forgotten.**")
    assert "zanzibar" not in (dry + done).lower()
    assert "needs the text" in usage


def test_forget_cli_exit_codes_say_whether_the_sweep_found_it(workspace: Path) -> None:
    plant(workspace)
    (workspace / "notes.txt").write_text(f"my own note about {FACT}\n")
    out, err = io.StringIO(), io.StringIO()

    rc = main(["-w", str(workspace), "forget", FACT, "--json"], stdout=out, stderr=err)

    data = json.loads(out.getvalue())
    assert rc == 1 and data["status"] == "incomplete"
    assert data["sweep"]["where"] == ["notes.txt line 1"]
    assert (workspace / "notes.txt").exists()
    (workspace / "notes.txt").unlink()
    assert main(["-w", str(workspace), "forget", FACT], stdout=io.StringIO()) == 0


def test_forget_keeps_an_append_made_while_it_runs(workspace: Path) -> None:
    plant(workspace)
    mem = memory(workspace)
    appended: list[int] = []

    def on_step(name: str) -> None:
        if name == "journal":  # after the plan, before history is rewritten
            appended.append(mem.history.append("- [durable] said during the forget"))

    receipt = mem.forget(FACT, on_step=on_step)

    history = _history(workspace)
    assert receipt.status == "forgotten"
    assert history[appended[0]]["content"] == "- [durable] said during the forget"
    assert history[4]["kind"] == "forgotten"


def test_forget_cli_refuses_a_pinned_line_with_exit_2(workspace: Path) -> None:
    plant(workspace)
    user = workspace / "USER.md"
    user.write_text(user.read_text() + f"- {FACT} <!-- pin -->\n")
    before = _without_locks(tree_hashes(workspace))
    out = io.StringIO()

    rc = main(["-w", str(workspace), "forget", FACT], stdout=out, stderr=io.StringIO())

    assert rc == 2 and out.getvalue().startswith("**Refused:**")
    assert _without_locks(tree_hashes(workspace)) == before  # not even a manual: commit
    assert "--include-pinned" in out.getvalue() and "zanzibar" not in out.getvalue().lower()
