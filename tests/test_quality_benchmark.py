"""The memory quality benchmark (benchmarks/quality): scores come from files, and they move."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import sys
from datetime import timedelta
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.quality import run as bench_run  # noqa: E402
from benchmarks.quality.baseline import Bm25Index, raw_messages, score_retrieval  # noqa: E402
from benchmarks.quality.planted import PLANTED_MODELS, PINNED, run_safety  # noqa: E402
from benchmarks.quality.replay import ReplayResult, replay_conversation  # noqa: E402
from benchmarks.quality.report import ConversationReport, render_quality, split_totals  # noqa: E402
from benchmarks.quality.scenarios import (  # noqa: E402
    KINDS,
    ScenarioError,
    contains_key,
    load_conversations,
    parse_conversation,
)
from benchmarks.quality.scoring import Snapshot, read_snapshot, score_snapshot, total_scores  # noqa: E402
from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall  # noqa: E402
from nanomem.engines.offline.engine import OfflineEngine  # noqa: E402

SMALL = {
    "id": "small",
    "language": "en",
    "sessions": [
        {
            "start": "2026-03-02 19:00",
            "exchanges": [
                {"user": "Hello there, how are you today?", "assistant": "Fine, thanks."},
                {"user": "I am allergic to penicillin, remember that for every health form.",
                 "assistant": "Noted."},
                {"user": "Our budget limit is 4,300 EUR for the whole project.", "assistant": "Okay."},
                {"user": "Today I'm working from the Porto office.", "assistant": "Enjoy."},
                {"user": "The vending machine ate my coins again, so annoying.", "assistant": "Oh no."},
                {"user": "Can you tell me a joke about cats?", "assistant": "Cats do not joke."},
                {"user": "Fair enough, see you later then.", "assistant": "Bye."},
            ],
        },
        {
            "start": "2026-03-12 19:00",
            "exchanges": [
                {"user": "Correction: the budget limit is now 5,750 EUR after the last call.",
                 "assistant": "Updated."},
                {"user": "What is a good way to lazy-load images on a page?",
                 "assistant": "Use loading=lazy."},
                {"user": "How do I center a div with flexbox these days?",
                 "assistant": "Use justify-content and align-items."},
                {"user": "Thanks, that is all for today.", "assistant": "Bye."},
                {"user": "One more question: is dark mode easier on the eyes?",
                 "assistant": "For many people, yes."},
            ],
        },
    ],
    "items": [
        {"id": "allergy", "kind": "fact", "key": "penicillin", "query": "What is the user allergic to?"},
        {"id": "budget", "kind": "correction", "key": "5,750", "old": "4,300",
         "query": "What is the budget limit?"},
        {"id": "office", "kind": "ephemeral", "key": "Porto", "query": "Where is the user working?"},
        {"id": "vending", "kind": "noise", "key": "vending machine", "query": "vending machine?"},
    ],
}
TINY_WINDOW = {"context_window": 1_250}  # prompt budget 130 tokens


class ArchivesNothing:
    """A broken consolidation engine: it always says there is nothing worth keeping."""

    name = "archives-nothing"

    def __init__(self) -> None:
        self.offline = OfflineEngine()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if request.stage == "consolidate":
            call = ToolCall("c1", "archive_history", json.dumps({"facts": [], "nothing": True}))
            return ChatResponse(None, (call,), "tool_calls")
        return await self.offline.complete(request)


class DreamsNothing(ArchivesNothing):
    """A broken Dream engine: it archives like the offline engine but never edits a file."""

    name = "dreams-nothing"

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if request.stage == "dream":
            arguments = json.dumps({"status": "no_changes_needed", "note": "nothing to do"})
            return ChatResponse(None, (ToolCall("f1", "finish", arguments),), "tool_calls")
        return await self.offline.complete(request)


def _score(tmp_path: Path, engine_cls: type | None = None):
    conversation = parse_conversation(SMALL)
    factory = (lambda ws, config, clock: engine_cls()) if engine_cls else None
    return asyncio.run(bench_run.score_conversation(
        conversation, tmp_path / "ws", overrides=TINY_WINDOW, engine_factory=factory,
    ))


def test_score_conversation_computes_scores_from_the_memory_files(tmp_path: Path) -> None:
    report = _score(tmp_path)
    user_md = (tmp_path / "ws" / "USER.md").read_text(encoding="utf-8")
    assert report.replay.archived_messages > 0
    assert "penicillin" in user_md + (tmp_path / "ws" / "memory" / "MEMORY.md").read_text("utf-8")
    assert report.scores.retention.hits == 1
    assert report.scores.invented == ()
    # Remove the fact from the file by hand: the score read from disk follows the file.
    for rel in ("USER.md", "SOUL.md", "memory/MEMORY.md"):
        path = tmp_path / "ws" / rel
        kept = [line for line in path.read_text("utf-8").splitlines() if "penicillin" not in line]
        path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    snapshot = read_snapshot(tmp_path / "ws", seed_text=report.replay.seed_text)
    rescored = score_snapshot(report.conversation, snapshot, caps={}, ttl_days=7)
    assert rescored.retention.hits == 0


def test_score_conversation_retention_drops_when_consolidator_archives_nothing(tmp_path: Path) -> None:
    good = _score(tmp_path / "good")
    broken = _score(tmp_path / "broken", ArchivesNothing)
    assert broken.replay.archived_messages > 0  # the turns were archived, with no facts
    assert broken.scores.retention.hits < good.scores.retention.hits
    assert broken.scores.correction.hits <= good.scores.correction.hits


def test_score_conversation_retention_drops_when_dream_writes_nothing(tmp_path: Path) -> None:
    good = _score(tmp_path / "good")
    broken = _score(tmp_path / "broken", DreamsNothing)
    assert set(broken.replay.dream_statuses) <= {"no_changes", "nothing_to_do"}
    assert broken.scores.retention.rate == 0.0
    assert good.scores.retention.rate == 1.0
    # The raw turns are still in history: the fact lives there, but memory files do not hold it.
    assert any(item.in_history and not item.in_memory for item in broken.scores.items)


def test_score_snapshot_flags_number_planted_into_memory_file(tmp_path: Path) -> None:
    report = _score(tmp_path)
    user = tmp_path / "ws" / "USER.md"
    user.write_text(user.read_text("utf-8") + "- Locker code 5519, badge ZQ-204\n", encoding="utf-8")
    snapshot = read_snapshot(tmp_path / "ws", seed_text=report.replay.seed_text)
    rescored = score_snapshot(report.conversation, snapshot, caps={}, ttl_days=7)
    assert rescored.invented == ("5519", "zq-204")


def test_score_snapshot_counts_correction_wrong_when_old_value_remains() -> None:
    conversation = parse_conversation(SMALL)
    both = Snapshot(files={"memory/MEMORY.md": "- Budget 4,300 EUR\n- Budget 5,750 EUR\n"})
    new_only = Snapshot(files={"memory/MEMORY.md": "- Budget 5,750 EUR\n"})
    caps = {"memory/MEMORY.md": 100}
    assert score_snapshot(conversation, both, caps=caps, ttl_days=7).correction.hits == 0
    assert score_snapshot(conversation, new_only, caps=caps, ttl_days=7).correction.hits == 1
    assert score_snapshot(conversation, both, caps=caps, ttl_days=7).stale.hits == 1


def test_score_snapshot_expiry_and_junk_follow_the_files() -> None:
    conversation = parse_conversation(SMALL)
    kept = Snapshot(files={"USER.md": "- Working from Porto\n- The vending machine ate coins\n"})
    scores = score_snapshot(conversation, kept, caps={"USER.md": 10}, ttl_days=7)
    assert (scores.expiry.hits, scores.expiry.total) == (0, 1)  # Porto is 10 days old, TTL 7
    assert (scores.junk.hits, scores.junk.total) == (1, 1)
    assert scores.within_caps is False
    fresh = score_snapshot(conversation, kept, caps={"USER.md": 10}, ttl_days=30)
    assert fresh.expiry.total == 0


def test_bm25_index_returns_expected_message_for_query() -> None:
    conversation = parse_conversation(SMALL)
    index = Bm25Index(raw_messages(conversation))
    top = [index.documents[i] for i in index.search("What is the user allergic to?", k=1)]
    assert top == ["I am allergic to penicillin, remember that for every health form."]


def test_score_retrieval_baseline_also_retrieves_the_old_value_of_a_correction() -> None:
    conversation = parse_conversation(SMALL)
    scores = score_retrieval(conversation, raw_messages(conversation), k=5, ttl_days=7)
    budget = next(item for item in scores.items if item.id == "budget")
    assert budget.key_hit and budget.old_hit
    assert scores.correction.hits == 0 and scores.stale.hits == 1
    assert scores.noise_retrieved.hits == 1  # the raw log keeps every message


def test_contains_key_matches_word_starts_and_whole_numbers() -> None:
    assert contains_key("Budget is 5750 EUR", "5,750")
    assert not contains_key("Budget is 15,750 EUR", "5,750")
    assert not contains_key("a privy matter", "Ivy")
    assert contains_key("预算上限提高到9.5万元", "9.5万")
    assert not contains_key("预算1.8万元", "8万")


def test_parse_conversation_rejects_correction_whose_old_value_comes_later() -> None:
    data = json.loads(json.dumps(SMALL))
    data["items"][1]["old"], data["items"][1]["key"] = "5,750", "4,300"
    with pytest.raises(ScenarioError, match="budget"):
        parse_conversation(data)


def test_shipped_conversations_meet_the_benchmark_requirements() -> None:
    conversations = load_conversations()
    languages = [c.language for c in conversations]
    assert languages.count("en") >= 3 and "zh" in languages
    for conversation in conversations:
        assert conversation.turn_count >= 60, conversation.id
        assert len(conversation.sessions) >= 3, conversation.id
        assert {item.kind for item in conversation.items} == set(KINDS), conversation.id


def test_load_conversations_splits_shipped_set_into_dev_and_heldout() -> None:
    dev = load_conversations(split="dev")
    heldout = load_conversations(split="heldout")
    analysed = {
        "en-family", "en-freelance", "en-ops", "en-restaurant", "en-thesis", "zh-family", "zh-startup",
        "en-gamedev", "en-nurse", "zh-photographer", "en-teacher", "en-landlord", "zh-marathon",
        "en-beekeeper", "en-cellist", "en-sailor", "zh-tea", "en-haulier", "en-agility", "zh-renovation",
        "en-surveyor", "en-allotment", "zh-wedding", "en-farrier", "en-bookbinder", "zh-translator",
        "en-crane", "en-salon", "zh-vet", "en-arborist", "en-warehouse", "zh-uxdesign",
        "en-postmaster", "en-locations", "zh-snowbird", "en-dogwalker", "en-physio", "zh-tainan",
        "en-teenager", "en-homebaker", "zh-hongkong", "en-paralegal", "en-tailor", "zh-johor",
        "en-backend", "en-curler", "zh-undergrad", "en-offshore", "en-caregiver", "zh-yiwu",
        "en-changi", "en-rowclub", "zh-shanghai",
        "en-tuner", "en-interpreter", "zh-tianjin",
        "en-outport", "en-schoolbus", "zh-lintong",
        "en-doubles", "en-holler", "zh-chongqing",
    }
    assert {c.id for c in dev} == analysed
    assert not analysed & {c.id for c in heldout}
    assert {c.id for c in dev} | {c.id for c in heldout} == {c.id for c in load_conversations()}
    dev_keys = {item.key.lower() for c in dev for item in c.items}
    for conversation in heldout:
        assert len(conversation.of_kind("correction")) >= 2, conversation.id
        ephemera = conversation.of_kind("ephemeral")
        expired = [i for i in ephemera if conversation.end - i.planted_at > timedelta(days=7)]
        assert expired, conversation.id  # at least one ephemeral item is old enough to be scored
        assert not dev_keys & {item.key.lower() for item in conversation.items}, conversation.id


def test_parse_conversation_reads_split_and_defaults_to_dev() -> None:
    data = json.loads(json.dumps(SMALL))
    assert parse_conversation(data).split == "dev"
    data["split"] = "heldout"
    assert parse_conversation(data).split == "heldout"
    data["split"] = "test"
    with pytest.raises(ScenarioError, match="split 'test'"):
        parse_conversation(data)
    with pytest.raises(ScenarioError, match="unknown split"):
        load_conversations(split="test")


def _report(conversation, files: dict[str, str]) -> ConversationReport:
    """A report scored from a hand-written snapshot (no replay), for the report's arithmetic."""
    snapshot = Snapshot(files=files)
    messages = raw_messages(conversation)
    replay = ReplayResult(Path("unused"), "", {}, 0, (), 0, 0)
    return ConversationReport(
        conversation=conversation,
        replay=replay,
        scores=score_snapshot(conversation, snapshot, caps={"USER.md": 1000}, ttl_days=7),
        topk=score_retrieval(conversation, list(files.values()), k=5, ttl_days=7),
        baseline=score_retrieval(conversation, messages, k=5, ttl_days=7),
        raw_chars=sum(len(m) for m in messages),
    )


def test_render_quality_prints_total_row_per_split_from_its_own_conversations() -> None:
    heldout_data = {**json.loads(json.dumps(SMALL)), "id": "small-heldout", "split": "heldout"}
    dev_files = {"USER.md": "- Allergic to penicillin\n- Budget 5,750 EUR\n"}
    dev = _report(parse_conversation(SMALL), dev_files)
    heldout = _report(parse_conversation(heldout_data), {"USER.md": "- Budget 4,300 EUR\n"})
    reports = [heldout, dev]
    totals = split_totals(reports)
    assert list(totals) == ["dev", "heldout"]
    assert totals["dev"].scores.retention == dev.scores.retention
    assert totals["heldout"].conversations == ("small-heldout",)
    table = render_quality(reports, total_scores(r.scores for r in reports), 5)
    rows = {line.split("  ")[0].strip(): line for line in table.splitlines() if "nanomem files" in line}
    cells = {name: re.split(r"\s{2,}", line) for name, line in rows.items()}
    # columns: conversation, system, retention, corrections, stale old, ...
    assert cells["TOTAL dev"][2:5] == ["1/1 100%", "1/1 100%", "0/1 0%"]
    assert cells["TOTAL heldout"][2:5] == ["0/1 0%", "0/1 0%", "1/1 100%"]
    assert cells["TOTAL"][2:5] == ["1/2 50%", "1/2 50%", "1/2 50%"]
    lines = table.splitlines()
    assert lines.index(rows["small"]) < lines.index(rows["TOTAL dev"]) < lines.index(rows["small-heldout"])
    heldout_at = lines.index(rows["small-heldout"])
    assert heldout_at < lines.index(rows["TOTAL heldout"]) < lines.index(rows["TOTAL"])


def test_replay_counts_the_questions_dream_raised_in_the_table_and_results(tmp_path: Path) -> None:
    data = json.loads(json.dumps(SMALL))
    data["sessions"][1]["exchanges"].insert(0, {
        "user": "Actually I moved to Porto last month, I live in Porto now.", "assistant": "Noted."})
    conversation = parse_conversation(data)
    replay = asyncio.run(replay_conversation(
        conversation, tmp_path / "ws", seed={"USER.md": "- Lives in Lisbon <!-- pin -->"},
        overrides=TINY_WINDOW))
    assert replay.questions == 1  # the correction of the pinned line, asked once
    assert "## 1. USER.md: change a pinned line?" in (tmp_path / "ws/memory/PENDING.md").read_text("utf-8")
    report = dataclasses.replace(_report(conversation, {"USER.md": "- Lives in Lisbon\n"}), replay=replay)
    quiet = _report(parse_conversation({**json.loads(json.dumps(SMALL)), "id": "quiet"}), {})

    table = render_quality([report, quiet], total_scores([report.scores, quiet.scores]), 5)
    header = re.split(r"\s{2,}", table.splitlines()[0])
    rows = {line.split("  ")[0].strip(): re.split(r"\s{2,}", line)
            for line in table.splitlines() if "nanomem files" in line}
    column = header.index("questions")
    assert [rows[name][column] for name in ("small", "quiet", "TOTAL dev", "TOTAL")] == ["1", "0", "1", "1"]
    assert "questions: pending questions Dream raised" in table
    assert replay.to_json()["questions"] == 1
    assert split_totals([report, quiet])["dev"].to_json()["questions"] == 1


def test_run_safety_gates_hold_every_planted_model(tmp_path: Path) -> None:
    outcomes = {o.model: o for o in asyncio.run(run_safety(tmp_path))}
    assert set(outcomes) == {m.name for m in PLANTED_MODELS}
    expected_gates = {"careless": ("corrections only",), "inventor": ("traceability",), "pin-rewriter": ("pins",)}
    for name, gates in expected_gates.items():
        outcome = outcomes[name]
        assert outcome.safe, outcome
        assert outcome.refused_audit == outcome.refused_reported == 2, outcome
        assert outcome.gates == gates, outcome
    honest = outcomes["honest"]
    assert honest.accepted == 1 and honest.learned and honest.refused_audit == 0
    user_md = (tmp_path / "planted-pin-rewriter" / "USER.md").read_text("utf-8")
    assert PINNED in user_md.splitlines()


def test_main_prints_table_and_writes_results_json(tmp_path: Path, capsys) -> None:
    out = tmp_path / "results.json"
    heldout = [c.id for c in load_conversations(split="heldout")]
    second = heldout[0] if heldout else "zh-photographer"
    splits = {"dev", "heldout"} if heldout else {"dev"}
    code = bench_run.main([
        "--conversation", "en-freelance", "--conversation", second, "--no-safety",
        "--out", str(out), "--keep", str(tmp_path / "w"),
    ])
    printed = capsys.readouterr().out
    data = json.loads(out.read_text("utf-8"))
    assert code == 0
    assert "BM25 top-5 raw" in printed and "nanomem files" in printed
    retention = next(c for c in data["conversations"] if c["id"] == "en-freelance")["nanomem"]["retention"]
    assert f"{retention['hits']}/{retention['total']}" in printed
    assert {c["split"] for c in data["conversations"]} == set(data["splits"]) == splits
    for split in splits:
        convs = [c for c in data["conversations"] if c["split"] == split]
        pooled = data["splits"][split]
        assert pooled["conversations"] == [c["id"] for c in convs]
        hits = sum(c["nanomem"]["retention"]["hits"] for c in convs)
        total = sum(c["nanomem"]["retention"]["total"] for c in convs)
        assert (pooled["nanomem"]["retention"]["hits"], pooled["nanomem"]["retention"]["total"]) == (hits, total)
        base = sum(c["baseline_bm25"]["retention"]["hits"] for c in convs)
        assert pooled["baseline_bm25"]["retention"]["hits"] == base
        row = next(
            line for line in printed.splitlines() if line.startswith(f"TOTAL {split} ") and "files" in line
        )
        assert f"{hits}/{total}" in row
    both = data["total"]["nanomem"]["retention"]
    assert both["total"] == sum(c["nanomem"]["retention"]["total"] for c in data["conversations"])
    conversation = load_conversations(ids=["en-freelance"])[0]
    snapshot = read_snapshot(tmp_path / "w" / "en-freelance")
    rescored = score_snapshot(conversation, snapshot, caps={}, ttl_days=7)
    assert rescored.retention.hits == retention["hits"]


def _scripted_endpoint(fake) -> None:
    """Answer each request by looking at it: archive the allergy, then let Dream record it."""

    def on_request(body: dict) -> None:
        names = {tool["function"]["name"] for tool in body.get("tools", [])}
        text = json.dumps(body["messages"], ensure_ascii=False)
        if "archive_history" in names:
            facts = [{"mark": "permanent", "text": "I am allergic to penicillin."}] if "penicillin" in text else []
            fake.enqueue_tool_calls([("archive_history", {"facts": facts, "nothing": not facts})])
        elif body["messages"][-1]["role"] == "tool" or "Allergic to penicillin" in text:
            fake.enqueue_tool_calls([("finish", {"status": "updated", "note": "done"})])
        else:
            fake.enqueue_tool_calls([("edit_file", {
                "path": "USER.md", "old_text": "## Facts", "new_text": "## Facts\n- Allergic to penicillin.",
            })])

    fake.on_request = on_request


@pytest.mark.slow
def test_score_conversation_drives_an_openai_compatible_endpoint_over_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakellm import FakeLLM

    monkeypatch.setenv("NANOMEM_API_KEY", "sk-test-quality-123")
    fake = FakeLLM()
    _scripted_endpoint(fake)
    with fake.serve() as base_url:
        report = asyncio.run(bench_run.score_conversation(
            parse_conversation(SMALL), tmp_path / "ws",
            overrides={**TINY_WINDOW, "provider": "openai", "base_url": base_url, "model": "scripted"},
        ))
    assert "Allergic to penicillin." in (tmp_path / "ws" / "USER.md").read_text("utf-8")
    assert report.scores.retention.hits == 1 and report.scores.invented == ()
    assert "committed" in report.replay.dream_statuses
    assert {h.get("authorization") for h in fake.headers} == {"Bearer sk-test-quality-123"}
    assert {r["model"] for r in fake.requests} == {"scripted"}


def test_score_snapshot_counts_history_only_when_the_item_allows_it(tmp_path: Path) -> None:
    data = json.loads(json.dumps(SMALL))
    strict = parse_conversation(data)
    data["items"][0]["history_ok"] = True
    lenient = parse_conversation(data)
    memory = tmp_path / "memory"
    memory.mkdir()
    line = {"cursor": 3, "timestamp": "2026-03-02 19:10", "content": "- [permanent] Allergic to penicillin."}
    (memory / "history.overflow-3-3.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    snapshot = read_snapshot(tmp_path)
    assert score_snapshot(strict, snapshot, caps={}, ttl_days=7).retention.hits == 0
    assert score_snapshot(lenient, snapshot, caps={}, ttl_days=7).retention.hits == 1


def test_account_ledger_counts_a_too_long_fact_by_its_clipped_quote_and_nothing_else() -> None:
    from types import SimpleNamespace

    from benchmarks.quality.replay import account_ledger
    from nanomem.dream.ledger import parse_ledger_facts, plan_ledger

    waiting = [SimpleNamespace(cursor=1, content="- [durable] tailor notes " + "hem and cuff " * 40)]
    facts = parse_ledger_facts([SimpleNamespace(cursor=1, text=waiting[0].content)],
                               default_day="1970-01-01")
    ledger = plan_ledger(facts, {}, {}, caps={"memory/MEMORY.md": 300})
    assert ledger[0].state == "skipped" and ledger[0].fact.endswith(" …")  # the real clip
    dream = SimpleNamespace(status="no_changes", dream_cursor_after=1, ledger=ledger)
    assert account_ledger(waiting, dream) == (1, 1)
    misquoted = dataclasses.replace(ledger[0], fact=ledger[0].fact[:-2] + "x …")
    misquoting = SimpleNamespace(**{**vars(dream), "ledger": (misquoted,)})
    assert account_ledger(waiting, misquoting) == (1, 0)
