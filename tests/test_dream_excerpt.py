"""What a Dream batch sends: excerpts of large files, one request per batch, batches cut by
tokens (FakeLLM and the offline engine, real repositories)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanomem.dream.excerpt import plan_excerpt, render_excerpt, render_excerpt_note
from nanomem.dream.prompt import ExcerptRule, render_files
from nanomem.dream.batchloop import FINISH_WAITS
from nanomem.engines.chat import ChatRequest, ChatResponse
from nanomem.engines.offline.engine import OfflineEngine
from tests.dream_fixtures import NOW, Setup, add_fact, finish, make_setup, provider_over, user_message
from tests.fakellm import FakeLLM

HEAD = "# User\n\nStable facts about the person.\n\n## Facts\n"
FRIEND_LINES = [f"- My friend Fr{n} likes tea blend Bl{n}\n" for n in range(1, 41)]
FRIENDS = "".join(FRIEND_LINES)
PIN = "- Name is Ana <!-- pin -->\n"
ACME = "- Works at Acme Corp\n"
PORTO = "- Has a flat in Porto\n"
BIG_USER = HEAD + PIN + "".join(FRIEND_LINES[:20]) + ACME + "".join(FRIEND_LINES[20:]) + PORTO


@pytest.fixture
def setup(workspace: Path) -> Setup:
    return make_setup(workspace, dream_excerpt_tokens=100)


def file_block(user: str, rel: str) -> str:
    return user.split(f"## {rel} (", 1)[1].split("\n```\n", 1)[0]


# ---- the excerpt (pure)


def test_excerpt_holds_headings_pins_and_term_sharing_lines_and_counts_the_rest() -> None:
    text = HEAD + PIN + FRIENDS + "- Tea blend Bl7 is from Japan\n" + PORTO
    shown = plan_excerpt(text, ["- [durable] Moved out of Porto\n- [durable] Bl7 ran out"],
                         min_tokens=50)
    assert shown is not None
    body = render_excerpt(text, shown)
    assert body == ("# User\n⋯ (3 lines not shown)\n## Facts\n" + PIN
                    + "⋯ (6 lines not shown)\n- My friend Fr7 likes tea blend Bl7\n"
                    + "⋯ (33 lines not shown)\n- Tea blend Bl7 is from Japan\n" + PORTO)
    # "tea" and "blend" are on nearly every line: they select nothing; Porto and Bl7 do
    total = len(text.split("\n"))
    assert render_excerpt_note("USER.md", text, shown).startswith(
        f"EXCERPT of USER.md: {len(shown)} of {total} lines shown; the {total - len(shown)} other "
        "lines are not shown: read_file(\"USER.md\") shows the whole file.")
    assert total - len(shown) == 3 + 6 + 33


def test_excerpt_shows_a_small_file_whole() -> None:
    files = {"USER.md": HEAD + PIN + "- Likes tea\n"}
    rule = ExcerptRule(("- [durable] Lives in Porto",))
    block = render_files(files, {"USER.md": 6000}, rule)
    assert files["USER.md"] in block and "EXCERPT" not in block and "⋯" not in block


def test_excerpt_shows_stale_ephemeral_lines_so_they_can_be_dropped() -> None:
    old = "- Dentist on Friday <!-- ephemeral 2026-11-01 -->"
    fresh = "- Call back on Monday <!-- ephemeral 2026-11-29 -->"
    text = HEAD + FRIENDS + old + "\n" + fresh + "\n"
    shown = plan_excerpt(text, ["- [durable] Lives in Braga"], min_tokens=50,
                         today=NOW.date(), ttl_days=7)
    assert shown is not None
    body = render_excerpt(text, shown)
    assert old in body and fresh not in body


# ---- the excerpt in a run


def test_run_dream_sends_a_large_file_as_an_excerpt_with_its_note(setup: Setup) -> None:
    setup.write("USER.md", BIG_USER)
    setup.history.append("- [durable] Sold the flat in Porto")
    fake = FakeLLM()
    fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over("mock", fake) as engine:
        setup.dream(engine)
    user = user_message(fake.requests[0])
    block = file_block(user, "USER.md")
    assert f"{len(BIG_USER)} of 6000 characters" in block
    for line in ("# User\n", "## Facts\n", PIN, PORTO.rstrip("\n")):
        assert line in block
    assert ACME not in block and "Fr1 " not in block
    total = len(BIG_USER.split("\n"))
    shown = 5  # the two headings, the pin, Porto and the empty end after the final newline
    note = (f"EXCERPT of USER.md: {shown} of {total} lines shown; the {total - shown} other lines "
            "are not shown: read_file(\"USER.md\") shows the whole file.")
    assert note in user
    assert setup.read("memory/MEMORY.md") in user  # a small file is still sent whole


def test_run_dream_reads_and_edits_a_line_outside_the_excerpt(setup: Setup) -> None:
    setup.write("USER.md", BIG_USER)
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [durable] My employer moved me to the Porto office")  # no Acme term
    new = "- Works at Acme Corp, in the Porto office\n"
    fake = FakeLLM()
    fake.enqueue_tool_calls([("read_file", {"path": "USER.md"})])
    fake.enqueue_tool_calls([("edit_file", {"path": "USER.md", "old_text": ACME, "new_text": new}),
                             finish("updated", "moved the job to Porto")])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)

    first, second = fake.requests
    assert ACME not in file_block(user_message(first), "USER.md")  # not in the excerpt ...
    assert second["messages"][-1]["role"] == "tool"
    assert second["messages"][-1]["content"] == BIG_USER  # ... read_file shows the whole file
    assert result.status == "committed" and result.accepted == 1
    expected = BIG_USER.replace(ACME, new)
    assert setup.ws.path("USER.md").read_bytes() == expected.encode()
    info = setup.store.show(result.commit)
    assert info.subject == "dream: entries 1-1: USER.md +1 -1"
    assert f"-{ACME}+{new}" in info.body  # the commit's diff holds the edit of that line
    fake.assert_all_consumed()


def test_run_dream_refuses_a_rewrite_of_an_excerpt_until_the_file_is_read(setup: Setup) -> None:
    setup.write("USER.md", BIG_USER)
    setup.store.commit_manual_if_dirty()
    setup.history.append("- [durable] Sold the flat in Porto")
    rewrite = BIG_USER.replace(PORTO, "- Sold the flat in Porto\n")
    fake = FakeLLM()
    fake.enqueue_tool_calls([("write_file", {"path": "USER.md", "content": HEAD + PIN})])
    fake.enqueue_tool_calls([("read_file", {"path": "USER.md"}),
                             ("write_file", {"path": "USER.md", "content": rewrite}), finish()])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert [r.reason for r in result.refused] == [
        "write_file: USER.md was shown as an excerpt; call read_file(USER.md) first, or change "
        "single lines with edit_file (a rewrite from the excerpt would drop the lines not shown)"]
    assert result.status == "committed" and result.accepted == 1  # read whole, then rewritten
    assert setup.ws.path("USER.md").read_bytes() == rewrite.encode()
    fake.assert_all_consumed()


# ---- one request per batch


def test_run_dream_ends_a_batch_with_edits_and_finish_in_one_request(setup: Setup) -> None:
    setup.history.append("- [durable] Lives in Porto")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Lives in Porto"), finish()])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.status == "committed" and result.accepted == 1
    assert len(fake.requests) == 1  # the edits' reply held finish: no second request
    assert "Send finish in the same reply as your edits" in user_message(fake.requests[0])
    fake.assert_all_consumed()


def test_run_dream_holds_back_a_finish_sent_beside_a_refused_edit_once(setup: Setup) -> None:
    setup.history.append("- [durable] Lives in Porto")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", "- Lives in Lisbon"), finish()])  # traceability
    fake.enqueue_tool_calls([add_fact("USER.md", "- Lives in Madrid"), finish()])  # again
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert len(fake.requests) == 2
    tools = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert tools[0]["content"].startswith("error: edit_file: traceability")
    assert tools[1]["content"] == FINISH_WAITS
    assert result.status == "no_changes"  # the second finish counts, refusal or not
    assert [r.reason.split(":")[1].strip() for r in result.refused] == ["traceability"] * 2
    fake.assert_all_consumed()


def test_run_dream_never_sends_back_a_secret_the_model_wrote(setup: Setup) -> None:
    secret = "sk-proj-Abc123def456ghi789jkl012mno345"
    setup.history.append("- [durable] Lives in Porto")
    fake = FakeLLM()
    fake.enqueue_tool_calls([add_fact("USER.md", f"- Key {secret}"), finish(note=secret)])
    fake.enqueue_tool_calls([finish()])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.refused[0].reason.startswith("edit_file: secrets:")
    second = fake.requests[1]["messages"]
    assert secret not in str(second) and "[REDACTED:openai-key]" in str(second[2])
    fake.assert_all_consumed()


class Counting:
    """The offline engine, counting the requests of each batch (a new batch: two messages)."""

    name = "offline"

    def __init__(self) -> None:
        self.inner = OfflineEngine(clock=lambda: NOW)
        self.per_batch: list[int] = []

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if len(request.messages) == 2:
            self.per_batch.append(0)
        self.per_batch[-1] += 1
        return await self.inner.complete(request)


def test_offline_dream_takes_one_request_per_batch(setup: Setup) -> None:
    setup.reconfigure(dream_batch_entries=2)
    for n in range(1, 6):
        setup.history.append(f"- [durable] Project P{n} is owned by team T{n}")
    engine = Counting()
    result = setup.dream(engine)
    assert result.status == "committed" and result.batches == 3
    assert engine.per_batch == [1, 1, 1]  # edits and finish in one reply (it took 2 before)
    memory = setup.read("memory/MEMORY.md")
    assert all(f"- Project P{n} is owned by team T{n}" in memory for n in range(1, 6))


# ---- batches cut by tokens


def test_run_dream_cuts_batches_by_tokens_not_at_20_entries(setup: Setup) -> None:
    setup.reconfigure(dream_batch_tokens=400)
    for n in range(1, 61):
        setup.history.append(f"- [durable] Task {n} is done")
    fake = FakeLLM()
    for _ in range(10):
        fake.enqueue_tool_calls([finish("no_changes_needed")])
    with provider_over("mock", fake) as engine:
        result = setup.dream(engine)
    assert result.status == "no_changes" and result.dream_cursor_after == 60
    assert result.batches == len(fake.requests) < 3  # 60 entries of ~6 tokens: not 3 batches of 20
    assert setup.config.dream_batch_entries == 100  # the count is a safety bound only
