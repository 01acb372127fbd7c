"""run_dream across batches, locks, replays and compaction (FakeLLM, real repositories)."""

from __future__ import annotations

from nanomem.dream.audit import read_refusal_records

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nanomem.errors import ShaError
from nanomem.store.fsutil import FileLock
from tests.dream_fixtures import Setup, add_fact, finish, make_setup, provider_over, user_message
from tests.fakellm import FakeLLM

TRANSPORTS = ["mock", pytest.param("server", marks=pytest.mark.slow)]
LONG = "".join(f"- [durable] Release note line {n} says the build number is {1000 + n}\n"
               for n in range(1, 13))


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace)


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


def history_block(body: dict) -> str:
    return user_message(body).split("untrusted-history\n", 1)[1]


# ---- batching and the long entry


def test_run_dream_splits_a_long_entry_across_batches_and_sees_it_whole(
    setup: Setup, transport: str
) -> None:
    setup.reconfigure(dream_batch_tokens=60)
    setup.history.append("- [durable] Short first")
    setup.history.append(LONG)
    setup.history.append("- [durable] Short last")
    fake = FakeLLM()
    for _ in range(10):
        fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over(transport, fake) as engine:
        result = setup.dream(engine)

    assert result.status == "no_changes" and result.dream_cursor_after == 3
    blocks = [history_block(body) for body in fake.requests]
    assert len(blocks) == result.batches
    parts = [b for b in blocks if "of entry 2 |" in b]
    count = len(parts)
    assert count >= 2
    texts = []
    for i, block in enumerate(parts, 1):
        header = f"[part {i}/{count} of entry 2 | 2026-11-30 12:00]\n"
        assert header in block
        texts.append(block.split(header, 1)[1].split("\n```", 1)[0].split("\n\n[entry", 1)[0])
    assert "".join(t if t.endswith("\n") else t + "\n" for t in texts) == LONG
    # every request is a fresh conversation: system + files/history
    assert all(len(body["messages"]) == 2 for body in fake.requests)


def test_run_dream_finishes_a_started_entry_but_stops_at_max_batches(setup: Setup) -> None:
    setup.reconfigure(dream_batch_tokens=60, dream_max_batches=1)
    setup.history.append(LONG)
    setup.history.append("- [durable] Waits for the next run")
    fake = FakeLLM()
    for _ in range(10):
        fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.dream_cursor_after == 1  # all parts of entry 1 were processed, entry 2 waits
    assert result.batches == len(fake.requests) >= 2
    assert all("Waits for the next run" not in history_block(b) for b in fake.requests)
    assert [e.cursor for e in setup.history.read_since(setup.history.read_dream_cursor())] == [2]


def test_run_dream_keeps_the_cursor_before_a_long_entry_when_a_later_part_fails(
    setup: Setup, transport: str
) -> None:
    setup.reconfigure(dream_batch_tokens=60)
    setup.history.append("- [durable] Short first")
    setup.history.append(LONG)
    before = setup.snapshot()
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Short first"), finish()])  # batch 1
    fake.enqueue_tool_calls([finish("no_changes_needed")])  # part 1 (with or without entry 1)
    fake.enqueue_error(500)
    fake.enqueue_error(500)
    with provider_over(transport, fake) as engine:
        result = setup.dream(engine)
    assert result.status == "failed"
    assert result.dream_cursor_after == 0
    assert setup.snapshot() == before


def test_run_dream_makes_one_commit_for_all_batches(setup: Setup, transport: str) -> None:
    setup.reconfigure(dream_batch_entries=1)
    setup.history.append("- [durable] Lives in Porto")
    setup.history.append("- [durable] Project Atlas is due 2027-01-15")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Lives in Porto"), finish()])
    fake.enqueue_tool_calls([add_fact("memory/MEMORY.md", "- Project Atlas is due 2027-01-15"),
                             finish()])
    head = setup.store.head()
    with provider_over(transport, fake) as engine:
        result = setup.dream(engine)
    info = setup.store.show(result.commit)
    assert info.parents == (head,)
    assert dict(info.trailers) == {"Dream-Cursor": "2", "Batch": "1-2"}
    assert set(info.files) == {"USER.md", "memory/MEMORY.md"}
    assert "History entries 1-2 in 2 batches." in info.body
    # batch 2 saw batch 1's staged edit
    assert "- Lives in Porto" in user_message(fake.requests[1])


# ---- single flight


def test_run_dream_returns_already_running_while_another_lock_object_holds_it(setup: Setup) -> None:
    setup.history.append("- [durable] Lives in Porto")
    before = setup.snapshot()
    holder = FileLock(setup.ws.dream_lock)
    assert holder.acquire(blocking=False)
    try:
        fake = FakeLLM()
        with provider_over("mock", fake) as engine:
            result = setup.dream(engine)
    finally:
        holder.release()
    assert result.status == "already_running"
    assert fake.requests == []
    assert setup.snapshot() == before


@pytest.mark.slow
def test_run_dream_returns_already_running_while_another_process_holds_the_lock(setup: Setup) -> None:
    setup.history.append("- [durable] Lives in Porto")
    script = (
        "import sys\nfrom nanomem.store.fsutil import FileLock\n"
        "lock = FileLock(sys.argv[1])\nassert lock.acquire(blocking=False)\n"
        "print('held', flush=True)\nsys.stdin.read()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(setup.ws.dream_lock)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "held\n"
        fake = FakeLLM()
        with provider_over("mock", fake) as engine:
            result = setup.dream(engine)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()
    assert result.status == "already_running"
    assert "dream.lock" in result.reason
    assert setup.history.read_dream_cursor() == 0


def test_two_racing_dreams_run_once(setup: Setup, transport: str) -> None:
    setup.history.append("- [durable] Lives in Porto")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Lives in Porto"), finish()])

    class Paused:
        """Holds the first request until the second Dream has answered."""

        name = "paused"

        def __init__(self, inner):
            self.inner, self.started, self.go = inner, asyncio.Event(), asyncio.Event()

        async def complete(self, request):
            self.started.set()
            await self.go.wait()
            return await self.inner.complete(request)

    async def race(engine):
        paused = Paused(engine)
        first = asyncio.create_task(setup.adream(paused))
        await paused.started.wait()
        second = await setup.adream(engine)
        paused.go.set()
        return await first, second

    with provider_over(transport, fake) as engine:
        first, second = asyncio.run(race(engine))
    assert (first.status, second.status) == ("committed", "already_running")
    assert setup.read("USER.md").count("- Lives in Porto") == 1
    assert len(fake.requests) == 1


# ---- replay


def _dream_once(setup: Setup, calls) -> str:
    fake = FakeLLM()
    fake.enqueue_tool_calls(calls)
    fake.enqueue_tool_calls([finish()])  # used when a refused call holds the first finish back
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.status in ("committed", "no_changes"), result.reason
    return result.commit


def test_run_dream_replay_reprocesses_that_batch_without_moving_the_cursor_back(
    setup: Setup, transport: str
) -> None:
    setup.history.append("- [durable] Lives in Porto")
    setup.history.append("- [durable] Likes green tea")
    first = _dream_once(setup, [add_fact("USER.md", "- Lives in Porto"), finish()])
    setup.history.append("- [durable] Something later")
    _dream_once(setup, [finish("no_changes_needed")])
    assert setup.history.read_dream_cursor() == 3

    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Likes green tea"), finish()])
    with provider_over(transport, fake) as engine:
        result = setup.dream(engine, replay_sha=first[:8])
    block = history_block(fake.requests[0])
    assert "[entry 1 |" in block and "[entry 2 |" in block and "entry 3" not in block
    assert result.status == "committed"
    assert (result.dream_cursor_before, result.dream_cursor_after) == (3, 3)
    info = setup.store.show(result.commit)
    assert dict(info.trailers) == {"Dream-Cursor": "3", "Batch": "1-2"}
    assert f"Replay of {first[:7]}." in info.body
    assert setup.history.read_dream_cursor() == 3


def test_run_dream_replay_refuses_a_commit_that_is_not_a_dream(setup: Setup) -> None:
    setup.write("USER.md", setup.read("USER.md") + "- by hand\n")
    manual = setup.store.commit_manual_if_dirty()
    with pytest.raises(ShaError, match="not a dream: commit"):
        setup.dream(FakeLLM(), replay_sha=manual.sha)
    with pytest.raises(ShaError):
        setup.dream(FakeLLM(), replay_sha="0000000")


def test_run_dream_replay_fails_clearly_when_the_entries_are_gone(setup: Setup) -> None:
    setup.write("USER.md", setup.read("USER.md") + "- from an old dream\n")
    old = setup.store.commit("dream: old", trailers={"Dream-Cursor": "60", "Batch": "50-60"})
    setup.history.append("- [durable] unrelated")
    before = setup.snapshot()
    fake = FakeLLM()
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine, replay_sha=old.sha)
    assert result.status == "failed"
    assert "entries 50-60" in result.reason and "no longer in history" in result.reason
    assert fake.requests == []
    assert setup.snapshot() == before


# ---- compaction and the audit


def test_run_dream_compacts_the_history_after_a_successful_run(setup: Setup) -> None:
    setup.reconfigure(max_history_entries=2)
    for n in range(5):
        setup.history.append(f"small talk {n}")
    fake = FakeLLM()
    fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.dream_cursor_after == 5
    main = setup.history.path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["cursor"] for line in main] == [4, 5]  # 1-3 moved, not deleted:
    assert [s.path.name for s in setup.history.segments()] == ["history.compacted-1-3.jsonl"]
    assert [e.cursor for e in setup.history.read_since(0)] == [1, 2, 3, 4, 5]


def test_run_dream_dry_run_does_not_compact(setup: Setup) -> None:
    setup.reconfigure(max_history_entries=2)
    for n in range(5):
        setup.history.append(f"small talk {n}")
    setup.history.write_dream_cursor(3)
    fake = FakeLLM()
    fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over("mock", fake) as engine:
        setup.dream(engine, dry_run=True)
    assert len(setup.history.read_since(0)) == 5


def test_run_dream_appends_to_the_audit_across_runs(setup: Setup) -> None:
    bad = ("edit_file", {"path": "prompts/dream.md", "old_text": "a", "new_text": "b"})
    setup.history.append("- [durable] one")
    _dream_once(setup, [bad, finish("no_changes_needed")])
    setup.history.append("- [durable] two")
    _dream_once(setup, [bad, finish("no_changes_needed")])
    audit = read_refusal_records(setup.ws.audit.read_text())
    assert [(a["batch"], a["path"], a["outcome"]) for a in audit] == [
        ("1-1", "prompts/dream.md", "no_changes"), ("2-2", "prompts/dream.md", "no_changes")]
