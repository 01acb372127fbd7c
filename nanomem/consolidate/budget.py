"""The prompt budget check and cut planning (DESIGN §2, §9): pure.

:func:`check_budget` is the cheap check run every turn (each message is estimated once and
cached); :func:`plan_consolidation` picks where the next chunk to archive ends: at a user turn
that splits no tool call from its result. :mod:`nanomem.consolidate.run` runs the rounds.

>>> plan = plan_consolidation([1000] * 8, roles=["user", "assistant"] * 4, start=0,
...                           fixed_tokens=500, budget=6000, ratio=0.5)
>>> (plan.over_budget, plan.start, plan.end, plan.estimate_after)
(True, 0, 6, 2500)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nanomem.text import tokens
from nanomem.config import Config
from nanomem.errors import ConfigError
from nanomem.store.sessions import Session
from nanomem.store.sessiontally import SessionTally

CALIBRATION_KEY = "token_calibration"


@dataclass(frozen=True)
class ConsolidationPlan:
    """Where the next chunk starts and ends; ``end is None`` when no cut point exists."""

    over_budget: bool
    estimate: int
    budget: int
    target: int
    start: int
    end: int | None
    estimate_after: int



def with_context_window(config: Config, context_window: int | None) -> Config:
    """``config`` for one run with another context window (``--context-window``), unchanged
    when ``context_window`` is None; raises ``ConfigError`` when it leaves no prompt budget.

    >>> with_context_window(Config(), 8192).budget  # 8192 - 4096 completion - 1024 buffer
    3072
    """
    if context_window is None:
        return config
    config = dataclasses.replace(config, context_window=context_window)
    if config.budget <= 0:
        raise ConfigError(
            f"context window {context_window} leaves no prompt budget after "
            f"max_completion_tokens {config.max_completion_tokens} and safety_buffer "
            f"{config.safety_buffer}; give a larger --context-window"
        )
    return config

def allowed_cuts(roles: Sequence[str], tool_spans: Sequence[tuple[int, int]], start: int) -> list[int]:
    """Cut indices after ``start``: a user message that splits no tool call from its result.

    ``tool_spans`` are ``(call_index, result_index)`` pairs. Cutting at ``i`` archives
    ``[start, i)``; the last message is never archived (it is the turn being answered).

    >>> allowed_cuts(["user", "assistant", "tool", "user", "user"], [(1, 2)], 0)
    [3, 4]
    """
    blocked = {i for call, result in tool_spans for i in range(call + 1, result + 1)}
    return [
        i for i in range(start + 1, len(roles)) if roles[i] == "user" and i not in blocked
    ]


def plan_consolidation(
    tokens: Sequence[int],
    *,
    roles: Sequence[str],
    start: int,
    fixed_tokens: int,
    budget: int,
    ratio: float,
    tool_spans: Sequence[tuple[int, int]] = (),
    chunk_limit: int | None = None,
    triggered: bool = False,
) -> ConsolidationPlan:
    """Plan one round (pure). ``tokens[i]`` is message i's estimate.

    Triggers when ``fixed_tokens + sum(tokens[start:])`` exceeds ``budget`` (or when
    ``triggered``, for later rounds), then picks the earliest cut that brings the estimate to
    ``ratio * budget``; if the chunk would exceed ``chunk_limit`` it takes the latest cut that
    fits, and at least the first cut.
    """
    estimate = fixed_tokens + sum(tokens[start:])
    target = int(budget * ratio)
    over = estimate > budget or (triggered and estimate > target)
    if not over:
        return ConsolidationPlan(False, estimate, budget, target, start, None, estimate)
    cuts = allowed_cuts(roles, tool_spans, start)
    chosen: int | None = None
    archived = 0
    for cut in cuts:
        archived_here = sum(tokens[start:cut])
        if chosen is not None and chunk_limit is not None and archived_here > chunk_limit:
            break
        chosen, archived = cut, archived_here
        if estimate - archived <= target:
            break
    return ConsolidationPlan(True, estimate, budget, target, start, chosen, estimate - archived)



# The under-budget check must cost almost nothing (DESIGN §9): each message is estimated once
# and remembered by identity (the dict object itself is kept, so its id cannot be reused), and
# the fixed parts of the prompt are remembered by value. Messages are treated as immutable.
_MESSAGE_CACHE: dict[int, tuple[dict[str, Any], int, int]] = {}
_TEXT_CACHE: dict[str, int] = {}
_TOOLS_CACHE: dict[int, tuple[Any, int]] = {}
_CACHE_LIMIT = 20_000  # entries keep their message alive: bound the memory


def message_tokens(messages: Sequence[dict[str, Any]]) -> list[int]:
    """Estimated tokens of each message, from the cache when the same message was seen."""
    if len(_MESSAGE_CACHE) > _CACHE_LIMIT:
        _MESSAGE_CACHE.clear()
    out = []
    cache = _MESSAGE_CACHE
    for message in messages:
        content = message.get("content")
        size = len(content) if content is not None else -1
        hit = cache.get(id(message))
        if hit is not None and hit[0] is message and hit[1] == size:
            out.append(hit[2])
            continue
        count = tokens.estimate_message(message)
        cache[id(message)] = (message, size, count)
        out.append(count)
    return out


def fixed_tokens(system_prompt: str, memory_context: str, tools: Sequence[dict[str, Any]]) -> int:
    """Estimated tokens of the parts of the prompt that do not change per turn (cached)."""
    total = tokens.REPLY_PRIMING + (tokens.PER_MESSAGE if system_prompt or memory_context else 0)
    for text in (system_prompt, memory_context):
        if text:
            count = _TEXT_CACHE.get(text)
            if count is None:
                if len(_TEXT_CACHE) > 256:
                    _TEXT_CACHE.clear()
                count = _TEXT_CACHE[text] = tokens.estimate_text(text)
            total += count
    if tools:
        hit = _TOOLS_CACHE.get(id(tools))
        if hit is None or hit[0] is not tools:
            if len(_TOOLS_CACHE) > 256:
                _TOOLS_CACHE.clear()
            hit = _TOOLS_CACHE[id(tools)] = (tools, tokens.estimate_tools(list(tools)))
        total += hit[1]
    return total


def check_budget(
    session: Session | SessionTally, *, config: Config, system_prompt: str = "", memory_context: str = "",
    tools: Sequence[dict[str, Any]] = (), calibration: tokens.Calibration | None = None,
) -> tuple[ConsolidationPlan, str]:
    """The cheap check run every turn: the estimate, whether it exceeds ``config.budget``, and
    the estimate's source (``estimate`` or ``calibrated``, see :mod:`nanomem.text.tokens`).

    ``calibration`` defaults to the one stored in the session's metadata. A
    :class:`SessionTally` (the running count read from the file) gives the same figures as the
    loaded session without estimating any message.
    """
    if isinstance(session, SessionTally):
        counted = session.tokens
    else:
        counted = sum(message_tokens(session.unconsolidated))
    fixed = fixed_tokens(system_prompt, memory_context, tools)
    calibration = calibration or session_calibration(session)
    estimate, source = calibration.apply(fixed + counted)
    target = int(config.budget * config.consolidate_ratio)
    over = estimate > config.budget
    return ConsolidationPlan(over, estimate, config.budget, target, session.last_consolidated,
                             None, estimate), source


def session_calibration(session: Session | SessionTally) -> tokens.Calibration:
    """The calibration learned from this session's consolidation requests (metadata)."""
    return tokens.Calibration.from_dict(session.metadata.get(CALIBRATION_KEY))
