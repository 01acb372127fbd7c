"""The OpenAI-compatible embeddings client over httpx (dense retrieval, docs/recall.md).

``POST {base_url}/embeddings`` with ``{"model": ..., "input": [texts]}``, in batches of
:data:`BATCH`; the reply's ``data[i].embedding`` (ordered by ``index``) is one vector per text.
It follows :class:`~nanomem.engines.openai.OpenAIProvider`'s conventions: the endpoint of
``[search] embedding_base_url``, else the provider's (its API key, auth header, headers and
query, see :func:`make_embedder`); a timeout; bounded retries with
exponential backoff on 429 (honouring ``Retry-After``), 5xx and transport errors. httpx
exceptions become :class:`~nanomem.errors.ProviderError` here and nowhere else, and no message
or log record contains the API key or a secret header value.

It is synchronous: search is (``Memory.search`` is called from plain code and from tools).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from nanomem.config import Config
from nanomem.engines.wire import error_text, parse_retry_after, render_headers, scrub
from nanomem.errors import ProviderError

log = logging.getLogger(__name__)

BATCH = 64  # texts per request: small enough for every server's input limit
RETRY_AFTER_CAP = 60.0
BACKOFF_BASE = 0.5
BACKOFF_CAP = 20.0


class EmbeddingsClient:
    """Turns texts into vectors through one OpenAI-compatible endpoint.

        client = EmbeddingsClient("http://localhost:11434/v1", None, "nomic-embed-text")
        vectors = client.embed(["a text", "another"])
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        headers: Mapping[str, str] | None = None,
        query: Mapping[str, str] | None = None,
        auth_header: str = "authorization",
        secrets: Sequence[str] = (),
        batch: int = BATCH,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/embeddings"
        self.model = model
        self.max_retries = max(0, int(max_retries))
        self.batch = max(1, int(batch))
        self._api_key = api_key or None
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, 10.0))
        self._transport = transport
        self._sleep = sleep
        self._clock = clock
        self._headers = dict(headers or {})
        self._query = dict(query or {})
        self._auth_header = auth_header.lower()
        self._secrets = tuple(s for s in (api_key, *secrets) if s)

    def __repr__(self) -> str:  # never shows the key
        return f"EmbeddingsClient({self.base_url!r}, model={self.model!r})"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order; raise :class:`ProviderError` when the server fails."""
        vectors: list[list[float]] = []
        if not texts:
            return vectors
        with self._new_client() as client:
            for start in range(0, len(texts), self.batch):
                part = list(texts[start:start + self.batch])
                vectors.extend(self._post(client, part))
        return vectors

    def _new_client(self) -> httpx.Client:
        headers = render_headers(self._api_key, self._auth_header, self._headers)
        return httpx.Client(timeout=self._timeout, headers=headers, params=self._query,
                            transport=self._transport)

    def _post(self, client: httpx.Client, texts: list[str]) -> list[list[float]]:
        body = {"model": self.model, "input": texts}
        for attempt in range(self.max_retries + 1):
            try:
                reply = client.post(self.url, json=body)
            except httpx.HTTPError as exc:
                what = f"POST {self.url}: {type(exc).__name__}"
                if attempt < self.max_retries:
                    self._wait(attempt, None, what)
                    continue
                raise ProviderError(self._scrub(f"{what} after {attempt + 1} attempts; "
                                                "check that the server is up")) from None
            status = reply.status_code
            if status == 429 or status >= 500:
                what = f"POST {self.url}: HTTP {status}"
                if attempt < self.max_retries:
                    self._wait(attempt, parse_retry_after(reply.headers, now=self._clock()), what)
                    continue
                raise ProviderError(self._scrub(f"{what} after {attempt + 1} attempts; "
                                                "wait and retry later"))
            payload = _json_or_none(reply)
            if status >= 400:
                detail = error_text(payload) or reply.text[:200]
                raise ProviderError(self._scrub(
                    f"POST {self.url}: HTTP {status} ({detail}); check the embeddings base URL and "
                    f"[search] embedding_model {self.model!r}"))
            return self._parse(payload, len(texts))
        raise AssertionError("unreachable")  # pragma: no cover

    def _parse(self, payload: Any, count: int) -> list[list[float]]:
        data = payload.get("data") if isinstance(payload, dict) else None
        try:
            rows = sorted(data or [], key=lambda row: int(row.get("index", 0)))
            vectors = [[float(x) for x in row["embedding"]] for row in rows]
        except (AttributeError, KeyError, TypeError, ValueError):
            vectors = []
        if len(vectors) != count or not all(vectors) or len({len(v) for v in vectors}) != 1:
            raise ProviderError(f"POST {self.url}: the reply does not hold {count} embeddings "
                                "of one size; check that the model is an embedding model")
        return vectors

    def _wait(self, attempt: int, retry_after: float | None, what: str) -> None:
        delay = min(BACKOFF_BASE * 2**attempt, BACKOFF_CAP) if retry_after is None else retry_after
        delay = min(delay, RETRY_AFTER_CAP)
        log.warning("%s; retry %d/%d in %.1fs", self._scrub(what), attempt + 1,
                    self.max_retries, delay)
        self._sleep(delay)

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)


def make_embedder(config: Config, *, transport: httpx.BaseTransport | None = None,
                  sleep: Callable[[float], None] = time.sleep) -> EmbeddingsClient | None:
    """The embeddings client of ``config``, or ``None`` when ``[search] embeddings`` is off.

    On the provider's own endpoint it sends the provider's key (unless ``[search]
    embedding_api_key_env`` names another), auth header, headers and query. Another server
    (``[search] embedding_base_url``) gets only the embeddings key, as a bearer token: the
    provider's credentials never leave for a server they were not written for.
    """
    url = config.embeddings_endpoint
    if not config.embeddings or not url or not config.embedding_model:
        return None
    same = config.provider == "openai" and url.rstrip("/") == (config.base_url or "").rstrip("/")
    return EmbeddingsClient(
        url, config.embedding_api_key or (config.api_key if same else None),
        config.embedding_model, timeout=config.request_timeout,
        max_retries=config.max_retries, transport=transport, sleep=sleep,
        headers=config.headers if same else None, query=config.query if same else None,
        auth_header=config.auth_header if same else "authorization", secrets=config.secrets,
    )


def _json_or_none(reply: httpx.Response) -> Any:
    try:
        return reply.json()
    except ValueError:
        return None
