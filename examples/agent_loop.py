"""A small, complete chat agent with nanomem memory, over any OpenAI-compatible endpoint.

The model searches and remembers by itself: it gets nanomem's agent tools
(``Memory.agent_tools()``: ``memory_search``, ``memory_remember``) and every call it makes is
run by ``Memory.call_agent_tool``. Each turn:

1. a slash command (``/remember``, ``/recall``, ``/dream``, ``/memory`` …) goes to
   ``Memory.handle_command``; anything it does not know (``None``) is a normal message;
2. the system prompt is your instructions plus ``Memory.context(budget, query=text)``: the
   memory most relevant to what the user just said, within the budget, every cut announced;
3. the model answers (plain httpx, ``POST {base_url}/chat/completions`` with the tools), calling
   memory tools as it likes; their results go back to it until it answers in text;
4. ``Memory.record_turn`` saves the whole turn (the user message, the tool calls, their results,
   the answer) to the session and archives the oldest turns into the history only when the next
   prompt would overflow. Dream (``/dream``, ``nanomem dream`` or ``nanomem watch``) later turns
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
from typing import Any

import httpx

from nanomem import Memory

INSTRUCTIONS = (
    "You are a helpful assistant with long-term memory. Use what you remember about the user. "
    "When the user tells you something worth keeping, call memory_remember. When the answer may "
    "lie in an earlier conversation, call memory_search."
)
MEMORY_BUDGET_TOKENS = 1500
MAX_TOOL_ROUNDS = 4


def ask(client: httpx.Client, base_url: str, model: str, messages: list[dict[str, Any]],
        tools: list[dict[str, Any]]) -> dict[str, Any]:
    """One chat-completions request; returns the assistant message."""
    reply = client.post(f"{base_url.rstrip('/')}/chat/completions",
                        json={"model": model, "messages": messages, "tools": tools})
    reply.raise_for_status()
    message: dict[str, Any] = reply.json()["choices"][0]["message"]
    return message


def answer(memory: Memory, client: httpx.Client, args: argparse.Namespace,
           prompt: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ask until the model answers in text; returns the turn's new assistant and tool messages."""
    turn: list[dict[str, Any]] = []
    for _ in range(MAX_TOOL_ROUNDS):
        message = ask(client, args.base_url, args.model, prompt + turn, tools)
        calls = message.get("tool_calls") or []
        if not calls:
            turn.append({"role": "assistant", "content": message.get("content") or ""})
            return turn
        turn.append({"role": "assistant", "content": message.get("content"), "tool_calls": calls})
        for call in calls:
            result = memory.call_agent_tool(call["function"]["name"],
                                            call["function"].get("arguments"))
            turn.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    turn.append({"role": "assistant", "content": "(I gave up after too many memory lookups.)"})
    return turn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("-w", "--workspace", default=".", help="nanomem workspace")
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint, …/v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--session", default="cli", help="session key, e.g. cli:ana")
    args = parser.parse_args(argv)

    memory = Memory(args.workspace)
    tools = memory.agent_tools()
    conversation: list[dict[str, Any]] = []  # this run's turns not yet archived
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
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
            context = memory.context(MEMORY_BUDGET_TOKENS, query=text)
            system = {"role": "system", "content": f"{INSTRUCTIONS}\n\n# Memory\n{context}"}
            user = {"role": "user", "content": text}
            try:
                turn = answer(memory, client, args, [system, *conversation, user], tools)
            except httpx.HTTPError as exc:
                print(f"(the model endpoint failed: {exc}; try again)", flush=True)
                continue
            print(turn[-1]["content"], flush=True)
            result = memory.record_turn(args.session, [user, *turn], system_prompt=INSTRUCTIONS,
                                        memory_context=context, tools=tools)
            conversation = [*conversation, user, *turn]
            unarchived = result.messages - result.last_consolidated
            conversation = conversation[len(conversation) - min(unarchived, len(conversation)):]
    return 0


if __name__ == "__main__":
    sys.exit(main())
