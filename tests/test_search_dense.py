"""Dense retrieval: embeddings fused with BM25, off by default, falling back to BM25 on failure."""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from nanomem.config import Config, load_config
from nanomem.engines.embeddings import EmbeddingsClient, make_embedder
from nanomem.errors import ConfigError
from nanomem.memory import Memory
from tests.fakellm import FakeLLM

KEY = "sk-dense-secret-0123456789"
PARAPHRASE = "Biscuit is what my boy answers to."  # no word of the query, none WordNet relates
TURNS = [
    "The neighbour's dog barks at night.",
    "There was a dog show on TV.",
    "We went to a pottery class on Saturday.",
    "The weather was grey all week.",
    "I bought new running shoes.",
    PARAPHRASE,
    "My sister lives in Lisbon.",
]


def _clock() -> datetime:
    return datetime(2026, 5, 9, 10, 0)


def _config(*, on: bool) -> Config:
    return dataclasses.replace(Config(), provider="openai", base_url=FakeLLM.base_url,
                               api_key=KEY, model="chat", embeddings=on,
                               embedding_model="embed-small")


def _fake() -> FakeLLM:
    fake = FakeLLM()
    fake.synonyms.update({"boy": "dog", "answers": "called"})
    return fake


def _memory(workspace: Path, fake: FakeLLM, *, on: bool) -> Memory:
    cfg = _config(on=on)
    client = make_embedder(dataclasses.replace(cfg, embeddings=True), transport=fake.transport(),
                           sleep=lambda _: None)
    mem = Memory(workspace, config=cfg, clock=_clock, embedder=client)
    for i, text in enumerate(TURNS):  # one session each: no turn is another's neighbour
        mem.archive.append_messages(
            [{"role": "user", "content": text, "timestamp": f"2026-05-08T09:{i:02d}:00"}],
            session_key=f"s{i}", start=0, chunk=f"c{i}")
    return mem


def _texts(mem: Memory, query: str, k: int = 4) -> list[str]:
    return [hit.text for hit in mem.search(query, k=k)]


def test_dense_search_finds_a_paraphrase_bm25_misses(workspace: Path) -> None:
    with _memory(workspace, _fake(), on=False) as mem:
        bm25 = _texts(mem, "what is my dog called", k=len(TURNS))
    fake = _fake()
    with _memory(workspace, fake, on=True) as mem:
        fused = _texts(mem, "what is my dog called")

    assert PARAPHRASE not in bm25 and len(bm25) == 2  # BM25 alone never finds it ...
    # ... fused, it follows what both rankings found
    assert set(fused[:2]) == set(bm25) and fused[2] == PARAPHRASE
    assert fake.embedding_requests[0].body["model"] == "embed-small"
    assert fake.embedding_requests[-1].body["input"] == ["what is my dog called"]
    assert fake.embedding_requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert fake.errors == []


def test_dense_search_ranks_a_close_paraphrase_above_weak_word_matches(workspace: Path) -> None:
    fake = _fake()
    with _memory(workspace, fake, on=True) as mem:
        for i in range(10):  # ten turns that share one word with the query, and little else
            mem.archive.append_messages(
                [{"role": "user", "content": f"a dog {' '.join(f'w{i}x{j}' for j in range(i + 3))}",
                  "timestamp": f"2026-05-07T10:{i:02d}:00"}], session_key=f"d{i}", start=0,
                chunk=f"d{i}")
        fused = _texts(mem, "what is my dog called", k=3)

    # Before, the vector ranking held every document of this small index, so each of the
    # twelve word matches won the fusion bonus and the paraphrase came 13th; now it ties with
    # the best match that only BM25 found (the vectors vote for their k nearest).
    assert PARAPHRASE in fused


def test_dense_search_embeds_only_new_documents_and_the_query(workspace: Path) -> None:
    fake = _fake()
    with _memory(workspace, fake, on=True) as mem:
        mem.search("dog", k=3)
        first = sum(len(r.body["input"]) for r in fake.embedding_requests)
        fake.embedding_requests.clear()
        mem.search("dog", k=3)

    assert first == len(TURNS) + 1
    assert [r.body["input"] for r in fake.embedding_requests] == [["dog"]]


def test_dense_search_sends_no_request_when_embeddings_are_off(workspace: Path) -> None:
    fake = _fake()
    with _memory(workspace, fake, on=False) as mem:
        hits = mem.search("what is my dog called", k=3)

    assert hits and fake.embedding_requests == []
    assert make_embedder(Config()) is None


def test_dense_search_falls_back_to_bm25_when_the_endpoint_fails(
        workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    with _memory(workspace, _fake(), on=False) as mem:
        bm25 = _texts(mem, "what is my dog called")
    (workspace / "memory" / "index.sqlite3").unlink()
    fake = _fake()
    fake.fail_embeddings(503, times=100)
    with caplog.at_level(logging.DEBUG), _memory(workspace, fake, on=True) as mem:
        fallback = _texts(mem, "what is my dog called")

    assert fallback == bm25
    assert len(fake.embedding_requests) == 4  # the first try and max_retries (3) more
    assert "ranking by BM25 only" in caplog.text and "HTTP 503" in caplog.text
    assert KEY not in caplog.text and all(KEY not in str(r.args) for r in caplog.records)


def test_dense_search_rebuilds_a_damaged_vector_table(
        workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    fake = _fake()
    with _memory(workspace, fake, on=True) as mem:
        mem.search("dog", k=3)
        db = sqlite3.connect(workspace / "memory" / "index.sqlite3")
        db.execute("UPDATE vectors SET vec = x'010203' WHERE rowid = 1")
        db.commit()
        db.close()
        with caplog.at_level(logging.WARNING):
            fused = _texts(mem, "what is my dog called")

    assert "embedding every document again" in caplog.text
    assert PARAPHRASE in fused


def test_embeddings_client_never_puts_the_key_in_an_error(workspace: Path) -> None:
    fake = FakeLLM()
    fake.fail_embeddings(401)
    client = EmbeddingsClient(FakeLLM.base_url, KEY, "embed-small", transport=fake.transport(),
                              max_retries=0)
    with pytest.raises(Exception) as caught:
        client.embed(["hello"])

    assert "HTTP 401" in str(caught.value) and KEY not in str(caught.value)
    assert KEY not in repr(client)


def test_config_rejects_embeddings_without_a_model_naming_the_line(workspace: Path) -> None:
    (workspace / "nanomem.toml").write_text(
        '[provider]\nname = "openai"\nbase_url = "http://x/v1"\nmodel = "m"\n\n'
        "[search]\nembeddings = true\n", "utf-8")

    with pytest.raises(ConfigError, match=r"nanomem.toml line 7: \[search\] 'embeddings'"):
        load_config(workspace, environ={})


def test_config_reads_the_search_section(workspace: Path) -> None:
    (workspace / "nanomem.toml").write_text(
        '[provider]\nname = "openai"\nbase_url = "http://x/v1"\nmodel = "m"\n\n'
        '[search]\nembeddings = true\nembedding_model = "nomic-embed-text"\n', "utf-8")

    cfg = load_config(workspace, environ={"NANOMEM_API_KEY": KEY})

    assert cfg.embeddings and cfg.embedding_model == "nomic-embed-text"
    assert Config().embeddings is False


class _BlindEmbedder:
    """Vectors that vote for nothing: every document points one way, the query another, so no
    document is near it (the cosine is 0) and the vector ranking is empty."""

    model = "blind"

    def __init__(self, query: str) -> None:
        self.query = query

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[0.0, 1.0] if text == self.query else [1.0, 0.0] for text in texts]


def test_dense_search_with_an_empty_vector_ranking_keeps_the_bm25_order(workspace: Path) -> None:
    query = "garden fence"  # no turn says exactly this
    results = []
    for on in (False, True):
        cfg = _config(on=on)
        with Memory(workspace, config=cfg, clock=_clock, embedder=_BlindEmbedder(query)) as mem:
            if not on:  # older turns say more about the query; newer ones less (recency pulls)
                for i in range(24):
                    words = " ".join(f"w{i}y{j}" for j in range(i % 7))
                    text = f"the garden fence {'fence ' * (i % 3)}{words}".strip()
                    day = 1 + (i * 11) % 28
                    mem.archive.append_messages(
                        [{"role": "user", "content": text,
                          "timestamp": f"2026-{1 + i % 5:02d}-{day:02d}T09:00:00"}],
                        session_key=f"g{i}", start=0, chunk=f"g{i}")
            results.append([hit.id for hit in mem.search(query, k=10)])

    bm25, fused = results
    assert len(bm25) == 10
    assert fused == bm25  # before, fusing replaced BM25 by 1 / (60 + rank) and recency reordered it


EMBED_KEY = "sk-embed-only-9876543210"
EMBED_URL = "http://embeddings.test/v1"  # another server than the provider's


def _recording(fake: FakeLLM, urls: list[str]) -> httpx.MockTransport:
    """The fake's transport, noting the full URL of every request."""
    inner = fake.transport()

    def handle(request: httpx.Request) -> httpx.Response:
        urls.append(str(request.url))
        return inner.handle_request(request)

    return httpx.MockTransport(handle)


def test_dense_search_with_the_offline_engine_posts_to_its_own_endpoint(workspace: Path) -> None:
    (workspace / "nanomem.toml").write_text(
        f'[search]\nembeddings = true\nembedding_model = "embed-small"\n'
        f'embedding_base_url = "{EMBED_URL}"\nembedding_api_key_env = "EMBED_KEY"\n', "utf-8")
    cfg = load_config(workspace, environ={"EMBED_KEY": EMBED_KEY})
    fake, urls = _fake(), []
    client = make_embedder(cfg, transport=_recording(fake, urls), sleep=lambda _: None)

    with Memory(workspace, config=cfg, clock=_clock, embedder=client) as mem:
        for i, text in enumerate(TURNS):
            mem.archive.append_messages(
                [{"role": "user", "content": text, "timestamp": f"2026-05-08T09:{i:02d}:00"}],
                session_key=f"s{i}", start=0, chunk=f"c{i}")
        fused = _texts(mem, "what is my dog called")
        engine = mem.engine.name

    assert cfg.provider == "offline" and engine == "offline"
    assert PARAPHRASE in fused  # only the vectors find it
    assert urls and set(urls) == {f"{EMBED_URL}/embeddings"}
    assert fake.embedding_requests[0].headers["authorization"] == f"Bearer {EMBED_KEY}"
    assert fake.recorded == []  # no chat request: the offline engine needs no server
    assert EMBED_KEY not in repr(cfg) and EMBED_KEY in cfg.secrets


def test_make_embedder_sends_the_provider_credentials_only_to_the_provider(
        workspace: Path) -> None:
    provider = dataclasses.replace(
        _config(on=True), headers={"x-gateway-token": "gw-secret"}, query={"api-version": "1"})
    fake, urls = FakeLLM(), []
    for cfg in (provider, dataclasses.replace(provider, embedding_base_url=EMBED_URL)):
        client = make_embedder(cfg, transport=_recording(fake, urls))
        assert client is not None
        client.embed(["hello"])

    own, other = fake.embedding_requests
    assert own.headers["authorization"] == f"Bearer {KEY}"
    assert own.headers["x-gateway-token"] == "gw-secret"
    assert urls[0] == f"{FakeLLM.base_url}/embeddings?api-version=1"
    assert "authorization" not in other.headers and "x-gateway-token" not in other.headers
    assert urls[1] == f"{EMBED_URL}/embeddings"


def test_make_embedder_uses_the_embeddings_key_on_the_provider_endpoint(workspace: Path) -> None:
    cfg = dataclasses.replace(_config(on=True), embedding_api_key=EMBED_KEY)
    fake = FakeLLM()
    client = make_embedder(cfg, transport=fake.transport())
    assert client is not None
    client.embed(["hello"])

    assert fake.embedding_requests[0].headers["authorization"] == f"Bearer {EMBED_KEY}"


def test_config_rejects_offline_embeddings_without_an_endpoint_naming_the_line(
        workspace: Path) -> None:
    (workspace / "nanomem.toml").write_text(
        '[search]\nembeddings = true\nembedding_model = "nomic-embed-text"\n', "utf-8")

    with pytest.raises(ConfigError) as caught:
        load_config(workspace, environ={})

    message = str(caught.value)
    assert "nanomem.toml line 2: [search] 'embeddings'" in message
    assert "provider 'offline' has none" in message and "embedding_base_url" in message


def test_config_rejects_an_embedding_key_variable_that_is_not_set(workspace: Path) -> None:
    (workspace / "nanomem.toml").write_text(
        f'[search]\nembeddings = true\nembedding_model = "m"\nembedding_base_url = "{EMBED_URL}"\n'
        'embedding_api_key_env = "EMBED_KEY"\n', "utf-8")

    with pytest.raises(ConfigError, match=r"line 5: \[search\] 'embedding_api_key_env' reads "
                                          r"the environment variable 'EMBED_KEY', which is not set"):
        load_config(workspace, environ={})


def test_config_takes_the_provider_endpoint_for_embeddings_by_default(workspace: Path) -> None:
    assert _config(on=True).embeddings_endpoint == FakeLLM.base_url
    assert Config().embeddings_endpoint is None
    own = dataclasses.replace(Config(), embedding_base_url=EMBED_URL)
    assert own.embeddings_endpoint == EMBED_URL
