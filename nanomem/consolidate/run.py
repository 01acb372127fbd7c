"""The Consolidator (hot path, DESIGN §2): archive a session's oldest turns into history.

The request of one round and the check of the model's reply (the ``archive_history`` tool,
validated with jsonschema) are in :mod:`nanomem.consolidate.request`; the budget check and cut
planning in :mod:`nanomem.consolidate.budget`. This module is the thin I/O part,
:func:`consolidate`, which loads the session, calls the engine, archives the chunk's words,
appends to history and only then advances ``last_consolidated``.

>>> fingerprint([{"role": "user", "content": "hi"}])
'5aced9397fc4a6ba'
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.text import tokens
from nanomem.consolidate.budget import (
    CALIBRATION_KEY,
    ConsolidationPlan,
    check_budget,
    fixed_tokens,
    message_tokens,
    plan_consolidation,
    session_calibration,
)
from nanomem.consolidate.request import (
    ARCHIVE_TOOL,
    ArchiveReply,
    build_request,
    check_archive_reply,
    load_prompt,
    render_raw_entries,
    render_summary_entries,
)
from nanomem.engines.chat import ChatModel, engine_session
from nanomem.config import Config
from nanomem.errors import HistoryError, ProviderError
from nanomem.records import NOT_JSON
from nanomem.store.archive import Archive
from nanomem.store.sessions import (
    Session,
    format_messages,
    latest_message_time,
    load_session,
    save_session,
    session_lock,
    tool_spans,
)
from nanomem.store.sessiontally import SessionTally, read_session_tally

log = logging.getLogger(__name__)

MAX_FAILURES = 3
FAILURE_KEY = "consolidation_failure"


@dataclass(frozen=True)
class ConsolidationResult:
    """What :func:`consolidate` did. ``status`` is one of ``under_budget``, ``archived``,
    ``failed``, ``no_cut_point`` or ``skipped_internal``."""

    status: str
    rounds: int = 0
    archived_messages: int = 0
    cursors: tuple[int, ...] = ()
    reason: str | None = None
    estimate: int = 0
    estimate_after: int = 0
    budget: int = 0
    estimate_source: str = "estimate"
    raw_parts: int = 0
    failures: int = 0
    facts_capped: int = 0
    session: Session | None = field(default=None, repr=False, compare=False, metadata=NOT_JSON)
    # The session's message count and offset when ``session`` is None (nothing was archived,
    # read from the tally); the JSON output leaves them out, as it does the session.
    messages: int = field(default=0, repr=False, compare=False, metadata=NOT_JSON)
    last_consolidated: int = field(default=0, repr=False, compare=False, metadata=NOT_JSON)


def fingerprint(messages: Sequence[Mapping[str, Any]]) -> str:
    """A short hash identifying a chunk of messages (pure)."""
    data = json.dumps(list(messages), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


async def consolidate(
    session: Path | str | Session, *, history: Any, engine: ChatModel, config: Config,
    system_prompt: str = "", memory_context: str = "", tools: Sequence[dict[str, Any]] = (),
    clock: Callable[[], datetime] | None = None, calibration: tokens.Calibration | None = None,
    archive: Archive | None = None,
) -> ConsolidationResult:
    """Archive the oldest turns of a session when its prompt exceeds ``config.budget``.

    ``session`` is a session file (read, then saved atomically after each archived chunk) or a
    loaded :class:`Session` (nothing is saved: read the advanced session from the returned
    ``result.session``). ``history`` is a :class:`nanomem.store.history.History`. ``calibration``
    defaults to the one learned from this session's earlier requests (its metadata).
    ``archive`` (a :class:`nanomem.store.archive.Archive`) receives each archived chunk's
    messages verbatim, before the history entries and before ``last_consolidated`` moves.

        result = await consolidate(ws / "sessions/cli.jsonl", history=history,
                                   engine=OfflineEngine(), config=config)
        result.status        # 'under_budget', 'archived', 'failed', ...
    """
    if not isinstance(session, Session):  # under budget: read only what the turn appended
        tally = read_session_tally(Path(session))
        plan, source = check_budget(
            tally, config=config, system_prompt=system_prompt, memory_context=memory_context,
            tools=tools, calibration=calibration,
        )
        if tally.internal or not plan.over_budget:
            return _quick_result(tally, plan, source, config)
    runner = _Run(session, history=history, engine=engine, config=config, clock=clock or datetime.now,
                  archive=archive)
    if calibration is not None:
        runner.calibration = calibration
    async with engine_session(engine):  # one connection for every round
        result = await runner.run(system_prompt, memory_context, tools)
    if result.cursors and hasattr(history, "compact"):  # off the append path (docs/history.md)
        try:
            history.compact()
        except HistoryError as exc:  # the archive itself succeeded; the next one retries
            log.warning("history compaction after consolidation failed: %s", exc)
    return result


def _quick_result(
    tally: SessionTally, plan: ConsolidationPlan, source: str, config: Config
) -> ConsolidationResult:
    """The result of a call that archived nothing, from the session's tally alone."""
    if tally.internal:
        return ConsolidationResult(
            "skipped_internal", budget=config.budget, messages=tally.messages,
            last_consolidated=tally.last_consolidated,
            reason=f"session {tally.key!r} is internal (Dream's own); never archived",
        )
    return ConsolidationResult(
        "under_budget", estimate=plan.estimate, estimate_after=plan.estimate,
        budget=config.budget, estimate_source=source, messages=tally.messages,
        last_consolidated=tally.last_consolidated,
    )


class _Run:
    """One :func:`consolidate` call: rounds of plan → model → append → advance."""

    def __init__(
        self, session: Path | str | Session, *, history: Any, engine: ChatModel,
        config: Config, clock: Callable[[], datetime], archive: Archive | None = None,
    ) -> None:
        if isinstance(session, Session):
            self.path: Path | None = None
            self.session = session
        else:
            self.path = Path(session)
            self.session = load_session(self.path)
        self.history = history
        self.archive = archive
        self.engine = engine
        self.config = config
        self.clock = clock
        self.cursors: list[int] = []
        self.archived = 0
        self.raw_parts = 0
        self.facts = self.facts_capped = 0
        self.fixed = 0
        self.calibration = session_calibration(self.session)
        self.learned: tokens.Calibration | None = None
        self.chunk_tag: str | None = None

    async def run(
        self, system_prompt: str, memory_context: str, tools: Sequence[dict[str, Any]]
    ) -> ConsolidationResult:
        config, session = self.config, self.session
        if session.internal:
            return self._result(
                "skipped_internal", 0, None,
                reason=f"session {session.key!r} is internal (Dream's own); never archived",
            )
        first, self.source = check_budget(
            session, config=config, system_prompt=system_prompt,
            memory_context=memory_context, tools=tools, calibration=self.calibration,
        )
        if not first.over_budget:
            return self._result("under_budget", 0, first)
        fixed = self.fixed = self._scale(fixed_tokens(system_prompt, memory_context, tools))
        chunk_limit = max(1, config.budget - request_overhead())
        rounds, plan, status, reason, failures = 0, first, "archived", None, 0
        while rounds < config.max_consolidate_rounds:
            messages = self.session.messages
            plan = plan_consolidation(
                [self._scale(n) for n in message_tokens(messages)],
                roles=[str(m.get("role")) for m in messages],
                start=self.session.last_consolidated,
                fixed_tokens=fixed,
                budget=config.budget,
                ratio=config.consolidate_ratio,
                tool_spans=tool_spans(messages),
                chunk_limit=chunk_limit,
                triggered=True,
            )
            if not plan.over_budget:
                break
            retry = self._previous_failure()  # a failed chunk is retried exactly as it was
            span = retry or ((plan.start, plan.end, 0) if plan.end else None)
            if span is None:
                if rounds == 0:
                    status = "no_cut_point"
                    reason = "no user-turn boundary to cut at; the session is one long turn"
                break
            rounds += 1
            outcome = await self._round(*span)
            if outcome is not None:
                status, reason, failures = "failed", outcome[0], outcome[1]
                break
        return self._result(status, rounds, first, plan=plan, reason=reason, failures=failures)

    async def _round(self, start: int, end: int, failed_before: int) -> tuple[str, int] | None:
        """Archive ``[start, end)``; return ``(reason, failure_count)`` when the round failed."""
        done = self._archived_before(start)
        if done is not None:  # a kill came between the history append and the session save
            end, cursors = done
            log.warning("session %s: messages %d-%d are already in history (cursors %s); "
                        "advancing without archiving them again", self.session.key, start, end,
                        list(cursors))
            if not self._commit(start, end, fingerprint(self.session.messages[start:end])):
                return "the session file changed during consolidation; run it again", 0
            self.cursors.extend(cursors)
            self.archived += end - start
            return None
        chunk = self.session.messages[start:end]
        mark = fingerprint(chunk)
        self.chunk_tag = f"{mark}/{end - start}"
        request = build_request(chunk, session_key=self.session.key, config=self.config)
        try:
            response = await self.engine.complete(request)
        except ProviderError as exc:
            reply = ArchiveReply(reason=f"provider error: {exc}")
        else:
            reply = check_archive_reply(response)
            if response.usage is not None:  # learn the ratio for the next check
                sent = tokens.estimate_messages(request.messages) + tokens.estimate_tools(request.tools)
                base = self.learned or self.calibration
                self.learned = base.observe(sent, response.usage.prompt_tokens)
        if reply.reason is None:
            entries, kind = render_summary_entries(self._capped(reply.facts)), "summary"
        else:
            count = failed_before + 1
            log.warning(
                "session %s: archiving messages %d-%d failed (%d of %d): %s",
                self.session.key, start, end, count, MAX_FAILURES, reply.reason,
            )
            if count < MAX_FAILURES:
                failure = {"start": start, "end": end, "fingerprint": mark, "count": count,
                           "reason": reply.reason}
                if not self._commit(start, end, mark, failure=failure):
                    return "the session file changed during consolidation; run it again", count
                return reply.reason, count
            entries, kind = render_raw_entries(format_messages(chunk)), "raw"
            self.raw_parts += len(entries)
        if not self._commit(start, end, mark, entries=entries, kind=kind):
            return "the session file changed during consolidation; run it again", 0
        self.archived += end - start
        return None

    def _capped(self, facts: Sequence[tuple[str, str]]) -> Sequence[tuple[str, str]]:
        """The facts within ``max_facts_per_reply`` and ``max_facts_per_run``; the rest are
        counted (``facts_capped``) and logged, never archived: a reply cannot grow history
        without bound."""
        cfg = self.config
        room = max(0, min(cfg.max_facts_per_reply, cfg.max_facts_per_run - self.facts))
        kept, over = facts[:room], max(0, len(facts) - room)
        self.facts += len(kept)
        if over:
            self.facts_capped += over
            log.warning("session %s: %d facts of one reply were not archived (caps: "
                        "max_facts_per_reply %d, max_facts_per_run %d); %d kept",
                        self.session.key, over, cfg.max_facts_per_reply, cfg.max_facts_per_run,
                        len(kept))
        return kept

    def _commit(
        self, start: int, end: int, mark: str, *, entries: Sequence[str] = (),
        kind: str = "summary", failure: dict[str, Any] | None = None,
    ) -> bool:
        """Append ``entries``, then advance (or record ``failure``). False on a conflict."""
        if self.path is None:
            self.session = self._advance(self.session, end, entries, kind, failure)
            return True
        with session_lock(self.path):
            disk = load_session(self.path)
            if (
                disk.last_consolidated != start
                or len(disk.messages) < end
                or fingerprint(disk.messages[start:end]) != mark
            ):
                log.warning("%s: changed during consolidation; nothing archived", self.path)
                return False
            self.session = self._advance(disk, end, entries, kind, failure)
            save_session(self.path, self.session)
        return True

    def _advance(
        self, session: Session, end: int, entries: Sequence[str], kind: str,
        failure: dict[str, Any] | None,
    ) -> Session:
        stamp = self.clock().isoformat(timespec="seconds")
        if self.learned is not None:
            session = session.with_metadata(**{CALIBRATION_KEY: self.learned.to_dict()})
        if failure is not None:
            return replace(session, updated_at=stamp).with_metadata(**{FAILURE_KEY: failure})
        if self.archive is not None:  # the words themselves, before anything moves
            start = session.last_consolidated
            self.archive.append_messages(session.messages[start:end], session_key=session.key,
                                         start=start, chunk=fingerprint(session.messages[start:end]))
        if entries:  # the append must succeed before the offset moves
            said = latest_message_time(session.messages[session.last_consolidated:end])
            self.cursors.extend(self.history.append_many(
                list(entries), session_key=session.key, kind=kind, chunk=self.chunk_tag,
                said_at=said))
        advanced = replace(session, last_consolidated=end, updated_at=stamp)
        return advanced.with_metadata(**{FAILURE_KEY: None})

    def _archived_before(self, start: int) -> tuple[int, tuple[int, ...]] | None:
        """``(end, cursors)`` when history's newest chunk of this session is the one starting at
        ``start`` (its tag is ``<fingerprint>/<message count>``)."""
        find = getattr(self.history, "find_chunk", None)
        record = find(self.session.key) if find is not None else None
        if record is None:
            return None
        mark, _, count = record.tag.rpartition("/")
        end = start + int(count) if count.isdigit() else -1
        messages = self.session.messages
        if start < end <= len(messages) and fingerprint(messages[start:end]) == mark:
            return end, record.cursors
        return None

    def _previous_failure(self) -> tuple[int, int, int] | None:
        """``(start, end, count)`` of the recorded failed chunk, if it is still the next one."""
        record = self.session.metadata.get(FAILURE_KEY)
        if not isinstance(record, dict):
            return None
        start, end, count = record.get("start"), record.get("end"), record.get("count")
        messages = self.session.messages
        if (
            start == self.session.last_consolidated
            and type(end) is int and type(count) is int
            and start < end <= len(messages)
            and fingerprint(messages[start:end]) == record.get("fingerprint")
        ):
            return start, end, count
        return None

    def _result(
        self, status: str, rounds: int, first: ConsolidationPlan | None, *,
        plan: ConsolidationPlan | None = None, reason: str | None = None, failures: int = 0,
    ) -> ConsolidationResult:
        after = first.estimate if first else 0
        if plan is not None:
            after = self.fixed + sum(self._scale(n) for n in message_tokens(self.session.unconsolidated))
        return ConsolidationResult(
            status=status,
            rounds=rounds,
            archived_messages=self.archived,
            cursors=tuple(self.cursors),
            reason=reason,
            estimate=first.estimate if first else 0,
            estimate_after=after,
            budget=self.config.budget,
            raw_parts=self.raw_parts,
            facts_capped=self.facts_capped,
            failures=failures,
            estimate_source=getattr(self, "source", tokens.ESTIMATE),
            session=self.session,
        )

    def _scale(self, count: int) -> int:
        return self.calibration.apply(count).value


_OVERHEAD: list[int] = []


def request_overhead() -> int:
    """Tokens of a consolidation request besides the chunk (prompt, tool, wrapper)."""
    if not _OVERHEAD:
        _OVERHEAD.append(tokens.estimate_text(load_prompt()) + tokens.estimate_tools([ARCHIVE_TOOL]) + 64)
    return _OVERHEAD[0]

