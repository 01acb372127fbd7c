"""The chat-completions records that every engine speaks (OpenAI protocol, as data).

Both engines implement :class:`ChatModel`: the HTTP client in :mod:`nanomem.engines.openai` and
the deterministic engine in :mod:`nanomem.engines.offline.engine`. The stages (consolidator, dream) build a
:class:`ChatRequest`, get a :class:`ChatResponse`, and validate tool-call arguments with
jsonschema themselves; they never parse prose.

``ChatRequest.task`` carries the structured input of the stage (for example the messages to
archive, or the Dream batch and the staged files). It is **never sent over HTTP**; only the
offline engine reads it, because a rule-based engine has no use for a rendered prompt.
``ChatRequest.stage`` (``"consolidate"`` or ``"dream"``) says which stage asks: the offline
engine dispatches on it and the HTTP client picks the stage's model by it.

>>> call = ToolCall(id="c1", name="finish", arguments='{"status": "no_changes_needed", "note": ""}')
>>> ChatResponse(content=None, tool_calls=(call,), finish_reason="tool_calls").tool_calls[0].name
'finish'
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: The stages that send requests; ``ChatRequest.stage`` is one of these (or ``None``).
STAGES: tuple[str, ...] = ("consolidate", "dream")


@dataclass(frozen=True)
class ToolCall:
    """One tool call as the model sent it; ``arguments`` is the raw JSON string."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    """Token counts the endpoint reported for one request."""

    prompt_tokens: int
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions request.

    ``messages`` and ``tools`` are OpenAI-format dicts. ``tool_choice`` is ``None`` (let the
    endpoint decide), ``"auto"``, ``"required"`` or ``{"type": "function", "function":
    {"name": ...}}``. ``task`` is stage data for the offline engine only (see module doc);
    ``stage`` names the stage that asks (one of :data:`STAGES`). ``parallel_tool_calls``
    ``False`` asks for at most one tool call per reply (``None``: not sent).
    """

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: str | dict[str, Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    task: Any = field(default=None, compare=False)
    stage: str | None = None
    parallel_tool_calls: bool | None = None


@dataclass(frozen=True)
class ChatResponse:
    """One reply: text and/or tool calls, why it stopped, and reported usage.

    ``reasoning_content`` is the thinking text a reasoning server (DeepSeek) sent beside the
    answer; :meth:`assistant_message` sends it back on a tool-call turn, as those servers need.
    """

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    reasoning_content: str | None = None

    def assistant_message(self) -> dict[str, Any]:
        """The reply as an OpenAI ``assistant`` message, to append to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
            if self.reasoning_content is not None:
                message["reasoning_content"] = self.reasoning_content
        return message


@runtime_checkable
class ChatModel(Protocol):
    """What the consolidator and Dream need from an engine."""

    name: str

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send one request; raise :class:`nanomem.errors.ProviderError` on failure."""
        ...


@contextlib.asynccontextmanager
async def engine_session(engine: ChatModel) -> AsyncIterator[ChatModel]:
    """Hold ``engine``'s connection open for one run (one Dream, one consolidation).

    An engine with ``__aenter__``/``__aexit__`` (the HTTP client) keeps one connection pool for
    the whole block and closes it on exit; nested blocks share the outer one. Any other engine
    is used as it is.
    """
    enter = getattr(engine, "__aenter__", None)
    if enter is None:
        yield engine
        return
    async with engine:  # type: ignore[attr-defined]
        yield engine
