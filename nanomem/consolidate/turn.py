"""Record one turn in one call: append it to the session, then the under-budget check, and the
Consolidator only when the prompt would overflow (DESIGN §1 Sessions, §2).

:func:`check_turn` validates the turn's OpenAI chat messages (pure); :func:`record_turn`
appends them to the session file under the session lock, in nanobot's format, then runs
:func:`nanomem.consolidate.run.consolidate`, which costs almost nothing under budget. The
messages are durable before the Consolidator starts: a failed archive is retried on a later turn
and never loses the turn.

>>> check_turn([{"role": "user", "content": "hi"}, {"role": "assistant", "content": None,
...     "tool_calls": [{"id": "c1", "type": "function",
...                     "function": {"name": "memory_search", "arguments": "{}"}}]},
...     {"role": "tool", "tool_call_id": "c1", "content": "no hits"}])[2]["tool_call_id"]
'c1'
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.config import Config
from nanomem.store.archive import Archive
from nanomem.consolidate.run import ConsolidationResult, consolidate
from nanomem.engines.chat import ChatModel
from nanomem.errors import WorkspaceError
from nanomem.store.sessions import append_turn
from nanomem.store.sessiontally import read_session_tally

log = logging.getLogger(__name__)

ROLES = ("system", "developer", "user", "assistant", "tool")


@dataclass(frozen=True)
class TurnResult:
    """What :func:`record_turn` did.

    ``status`` is ``recorded`` (the messages were appended and nothing needed archiving, or
    nothing could be: see ``reason``), ``archived`` (the Consolidator also archived the oldest
    turns into history: ``cursors``) or ``failed`` (the messages were appended, the archive
    failed and is retried on a later turn: ``reason``). ``consolidation`` is the
    Consolidator's own status (``under_budget``, ``archived``, ``failed``, ``no_cut_point``,
    ``skipped_internal``), or ``none`` when the turn was empty.
    """

    status: str
    session_key: str
    path: str
    recorded: int
    messages: int
    last_consolidated: int
    archived_messages: int = 0
    cursors: tuple[int, ...] = ()
    estimate: int = 0
    budget: int = 0
    consolidation: str = "none"
    reason: str | None = None


def check_turn(messages: Any) -> list[dict[str, Any]]:
    """The turn as plain JSON objects, or :class:`WorkspaceError` naming the message (pure).

    Each message needs a ``role`` (system, developer, user, assistant, tool); ``content`` is
    text, a list of parts or null; ``tool_calls`` a list; a ``tool`` message answers a call
    with its ``tool_call_id``. Everything must be JSON (tuples become lists).
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise WorkspaceError(
            f"record_turn takes a list of chat messages, not {type(messages).__name__}; "
            'e.g. [{"role": "user", "content": "hi"}]'
        )
    turn = []
    for number, message in enumerate(messages, start=1):
        where = f"record_turn message {number}"
        if not isinstance(message, Mapping):
            raise WorkspaceError(f"{where}: expected a dict, got {type(message).__name__}")
        role = message.get("role")
        if role not in ROLES:
            raise WorkspaceError(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise WorkspaceError(
                f"{where}: content must be text, a list of parts or null, "
                f"not {type(content).__name__}"
            )
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, (list, tuple)):
            raise WorkspaceError(f"{where}: tool_calls must be a list")
        if role == "tool" and not isinstance(message.get("tool_call_id"), str):
            raise WorkspaceError(f"{where}: a tool message needs the tool_call_id it answers")
        try:
            plain = json.loads(json.dumps(dict(message), ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise WorkspaceError(f"{where}: not JSON-serialisable ({exc})") from exc
        turn.append(plain)
    return turn


async def record_turn(
    path: Path,
    session_key: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    history: Any,
    engine: ChatModel,
    config: Config,
    clock: Callable[[], datetime],
    system_prompt: str = "",
    memory_context: str = "",
    tools: Sequence[dict[str, Any]] = (),
    archive: Archive | None = None,
) -> TurnResult:
    """Append ``messages`` to the session file ``path`` (created with key ``session_key``),
    then consolidate it when its next prompt would exceed ``config.budget``.

    Safe across processes: the append and the Consolidator's save share the session lock, and
    the Consolidator archives a chunk only if the file still holds it unarchived. ``archive``
    receives the archived chunks verbatim (see :func:`~nanomem.consolidate.run.consolidate`).
    """
    turn = check_turn(messages)
    if not turn:  # nothing to do: no file is touched
        known = read_session_tally(path) if path.exists() else None
        return TurnResult("recorded", session_key, str(path), 0,
                          known.messages if known else 0,
                          known.last_consolidated if known else 0)
    append_turn(path, turn, key=session_key, clock=clock)
    result: ConsolidationResult = await consolidate(
        path, history=history, engine=engine, config=config, system_prompt=system_prompt,
        memory_context=memory_context, tools=tools, clock=clock, archive=archive,
    )
    after = result.session
    count = len(after.messages) if after is not None else result.messages
    offset = after.last_consolidated if after is not None else result.last_consolidated
    status = {"archived": "archived", "failed": "failed"}.get(result.status, "recorded")
    if result.status == "failed":
        log.warning("session %s: the turn is saved; archiving failed: %s", session_key,
                    result.reason)
    return TurnResult(
        status=status,
        session_key=session_key,
        path=str(path),
        recorded=len(turn),
        messages=count,
        last_consolidated=offset,
        archived_messages=result.archived_messages,
        cursors=tuple(result.cursors),
        estimate=result.estimate,
        budget=result.budget,
        consolidation=result.status,
        reason=result.reason,
    )
