"""A small, complete chat agent with nanomem memory, over any OpenAI-compatible endpoint.

Each turn:
1. a slash command (``/dream``, ``/dream-log``, ``/memory`` …) goes to ``Memory.handle_command``;
   anything it does not know (``None``) is treated as a normal message;
2. the system prompt is your instructions plus ``Memory.context(budget)``: the memory files,
   each with its size against its cap, cut to the budget with a visible note;
3. the model answers (plain httpx, ``POST {base_url}/chat/completions``);
4. the user and assistant messages are saved to ``sessions/<key>.jsonl``;
5. ``Memory.consolidate`` archives the oldest turns into ``memory/history.jsonl`` once the prompt
   nears its token budget. Dream (``/dream``, ``nanomem dream`` or ``nanomem watch``) later turns
   that history into memory.

Run it::

    nanomem init ~/agent-ws
    OPENAI_API_KEY=... python examples/agent_loop.py -w ~/agent-ws \\
        --base-url https://api.openai.com/v1 --model gpt-4o-mini
    # or a local model: --base-url http://localhost:11434/v1 --model qwen2.5:7b

Type ``exit`` (or Ctrl-D) to leave.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path

import httpx

from nanomem import Memory
from nanomem.store.sessions import append_messages, load_session

INSTRUCTIONS = "You are a helpful assistant. Use what you remember about the user."
MEMORY_BUDGET_TOKENS = 1500


def ask(client: httpx.Client, base_url: str, model: str, messages: list[dict]) -> str:
    """One chat-completions request; returns the assistant's text."""
    reply = client.post(f"{base_url.rstrip('/')}/chat/completions",
                        json={"model": model, "messages": messages})
    reply.raise_for_status()
    return reply.json()["choices"][0]["message"].get("content") or ""


def history_messages(session_path: Path) -> list[dict]:
    """The session's not-yet-archived messages, as the endpoint expects them."""
    if not session_path.exists():
        return []
    session = load_session(session_path)
    return [{"role": m["role"], "content": m.get("content") or ""} for m in session.unconsolidated]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-w", "--workspace", default=".", help="nanomem workspace")
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint, …/v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--session", default="cli", help="session key (sessions/<key>.jsonl)")
    args = parser.parse_args(argv)

    memory = Memory(args.workspace)
    session_path = memory.workspace.sessions_dir / f"{args.session}.jsonl"
    headers = {"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"} if os.environ.get(
        "OPENAI_API_KEY") else {}
    with httpx.Client(headers=headers, timeout=120) as client, memory:
        print("nanomem agent ready; /memory shows what I remember, exit to leave.", flush=True)
        for line in sys.stdin:
            text = line.strip()
            if not text:
                continue
            if text in ("exit", "quit"):
                break
            reply = memory.handle_command(text)  # None: not a nanomem command
            if reply is not None:
                print(reply, flush=True)
                continue
            context = memory.context(MEMORY_BUDGET_TOKENS)
            system = f"{INSTRUCTIONS}\n\n# Memory\n{context}"
            messages = [{"role": "system", "content": system},
                        *history_messages(session_path),
                        {"role": "user", "content": text}]
            try:
                answer = ask(client, args.base_url, args.model, messages)
            except httpx.HTTPError as exc:
                print(f"(the model endpoint failed: {exc}; try again)", flush=True)
                continue
            print(answer, flush=True)
            append_messages(session_path, [{"role": "user", "content": text},
                                           {"role": "assistant", "content": answer}],
                            key=args.session, clock=datetime.now)
            memory.consolidate(session_path, system_prompt=INSTRUCTIONS, memory_context=context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
