"""One Dream batch's tool loop: requests until an accepted ``finish``, and the run's tally.

:func:`nanomem.dream.run.run_dream` runs every batch of a run through one :class:`BatchLoop`,
against ONE staged copy of the memory files (a batch with no text left, once the lines too long
for any file are out of it, finishes without a request)::

    loop = BatchLoop(engine, config, ws.root, tally, reinforced=..., clock=..., say=...)
    failure = await loop.run(batch, 1, 3, staged, instructions)   # None: the batch finished

Every tool call goes through :func:`nanomem.dream.tools.execute_tool_call` (jsonschema, then the
gates). A batch completes only through ``finish``, which may come in the same reply as the
edits (one request per batch); a ``finish`` beside a refused call waits one round, once per
batch, so the model hears the refusal; text alone gets one nudge, then the batch fails. The
:class:`Tally` counts what the calls did: accepted writes, refusals (up to
``dream_max_refusals``, the rest counted), ``finish`` notes and questions for the person.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.config import Config
from nanomem.dream.audit import Refusal
from nanomem.dream.prompt import (NUDGE, Batch, DreamTask, ExcerptRule, plan_excerpted,
                                  render_batch_text, render_messages)
from nanomem.dream.questions import MAX_QUESTIONS
from nanomem.dream.tools import (DREAM_TOOLS, StagedFiles, ToolContext, execute_tool_call,
                                 render_safe_reply)
from nanomem.engines.chat import ChatModel, ChatRequest
from nanomem.errors import ProviderError
from nanomem.store.pending import Question
from nanomem.store.workspace import MEMORY_FILES

WRITE_TOOLS = frozenset({"edit_file", "write_file"})
TOOL_CHOICE = "required"  # a Dream reply must be a tool call; text gets one nudge
FINISH_WAITS = ("error: not finished yet: a call in this reply was refused (its error says why). "
                "Fix it or leave it, then call finish again; that finish ends the batch.")


def _finish_waits(outcomes: list[tuple[Any, Any]]) -> bool:
    """A ``finish`` sent in the same reply as a refused call waits one round, once per batch,
    so the model sees the refusal before the batch ends (the next ``finish`` always counts).
    An edit queued as a question for the person is not a refusal to fix: it does not wait."""
    return (any(o.finish is not None for _, o in outcomes)
            and any(not o.accepted and o.question is None for _, o in outcomes))


@dataclass
class Tally:
    """What the tool calls of one run did, over all its batches."""

    accepted: int = 0
    refusals: list[Refusal] = field(default_factory=list)
    refused_more: int = 0  # refusals beyond dream_max_refusals: counted, not listed
    notes: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)  # numbered when the run plans them


class BatchLoop:
    """The conversation of each batch with the model; counts its outcomes into ``tally``."""

    def __init__(self, engine: ChatModel, config: Config, workspace_root: Path, tally: Tally, *,
                 reinforced: Mapping[str, str], clock: Callable[[], datetime],
                 say: Callable[[str], None]) -> None:
        self.engine, self.config, self.workspace_root = engine, config, workspace_root
        self.tally = tally
        self.reinforced = reinforced
        self.clock = clock
        self.say = say

    async def run(self, batch: Batch, index: int, count: int, staged: StagedFiles,
                  instructions: str) -> str | None:
        """Run one batch's conversation; return None on ``finish`` or the failure reason."""
        self.say(f"batch {index}/{count}: entries {batch.span}")
        if not any(seg.text.strip() for seg in batch.segments):  # only lines no file can hold
            self.say("  nothing to show the model: its lines are too long for any file")
            return None
        caps = {rel: self.config.cap_for(rel) for rel in MEMORY_FILES}
        now = self.clock()
        rule = ExcerptRule(tuple(seg.text for seg in batch.segments),
                           min_tokens=self.config.dream_excerpt_tokens, today=now.date(),
                           ttl_days=self.config.ephemeral_ttl_days)
        context = ToolContext(batch_text=render_batch_text(batch), config=self.config,
                              workspace_root=self.workspace_root, batch=batch.span,
                              unread_excerpts=plan_excerpted(staged.current, rule))
        messages = render_messages(instructions, staged.current, caps, batch, index=index,
                                   count=count, excerpt=rule)
        nudged = deferred = False
        for _ in range(max(1, self.config.dream_max_iterations)):
            task = DreamTask(batch=batch.entries(), files=dict(staged.current), now=now,
                             ttl_days=self.config.ephemeral_ttl_days, caps=caps,
                             max_deletion_share=self.config.max_deletion_share,
                             reinforced=self.reinforced)
            request = ChatRequest(messages=tuple(messages), tools=DREAM_TOOLS,
                                  tool_choice=TOOL_CHOICE, task=task, stage="dream")
            try:
                response = await self.engine.complete(request)
            except ProviderError as exc:
                return f"batch {batch.span}: the model endpoint failed: {exc}"
            messages.append(render_safe_reply(response.assistant_message()))
            if not response.tool_calls:
                if nudged:
                    return (f"batch {batch.span}: the model replied without calling finish, "
                            "even after a nudge; nothing was changed")
                nudged = True
                self.say("  the model replied in text; nudging it once to use the tools")
                messages.append({"role": "user", "content": NUDGE})
                continue
            outcomes = []
            for call in response.tool_calls:
                outcome = execute_tool_call(call, staged, context)
                if outcome.tool == "read_file" and outcome.accepted and outcome.path:
                    context = replace(  # read whole: a rewrite may now be judged
                        context, unread_excerpts=context.unread_excerpts - {outcome.path})
                outcomes.append((call, outcome))
            defer = not deferred and _finish_waits(outcomes)
            deferred = deferred or defer
            finished = False
            for call, outcome in outcomes:
                if defer and outcome.finish is not None:  # let the model see the refusals first
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": FINISH_WAITS})
                    continue
                messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.result})
                finished = self._record(call, outcome, batch) or finished
            if finished:
                return None
        return (f"batch {batch.span}: no finish call within {self.config.dream_max_iterations} "
                "requests (dream_max_iterations); nothing was changed")

    def _record(self, call: Any, outcome: Any, batch: Batch) -> bool:
        """Count one outcome; True when it is an accepted ``finish``."""
        where = outcome.path or "-"
        if outcome.question is not None and len(self.tally.questions) < MAX_QUESTIONS:
            self.tally.questions.append(outcome.question)
            self.say(f"  {outcome.tool} {where}: a question for the person ({outcome.question.kind})")
            return False
        if outcome.question is not None:  # over the cap: an ordinary refusal, audited
            outcome = replace(outcome, reason=f"{outcome.question.reason}; more than "
                              f"{MAX_QUESTIONS} questions in one run, not asked")
        if not outcome.accepted and len(self.tally.refusals) >= self.config.dream_max_refusals:
            self.tally.refused_more += 1
            return False
        if not outcome.accepted:
            arguments = outcome.arguments if outcome.arguments is not None else call.arguments
            self.tally.refusals.append(Refusal(outcome.tool, outcome.path, outcome.reason or outcome.result,
                                               arguments=arguments, batch=batch.span))
            self.say(f"  {outcome.tool} {where}: refused: {outcome.reason}")
            return False
        if outcome.finish is not None:
            self.tally.notes.append(outcome.finish.note)
            self.say(f"  finish: {outcome.finish.status}")
            return True
        if outcome.tool in WRITE_TOOLS:
            self.tally.accepted += 1
            self.say(f"  {outcome.tool} {where}: {outcome.result}")
        return False
