"""Dream, the cold path: the ONE place the Dream sequence is written (DESIGN §3).

:func:`run_dream` is used by the CLI, the slash command, the watcher and the Python API alike::

    result = await run_dream(ws, config=cfg, history=history, store=store, engine=engine)
    result.status   # committed | no_changes | nothing_to_do | dry_run | failed | already_running

The sequence:

1. take the memory files' writer lock without waiting (:func:`nanomem.store.memfiles.try_lock_memory`;
   held: ``already_running``, nothing changed); unless this is a dry run, repair what a killed
   run left (:func:`nanomem.dream.recovery.recover_before_run`: stale git locks, the dream
   cursor file), and redact credentials typed into the memory files on disk
   (:func:`nanomem.store.memfiles.redact_memory_files`);
   a memory file over its read ceiling refuses the run before anything is read whole or
   written (:mod:`nanomem.dream.limits`: ``failed``, the cursor stays, nothing audited);
2. read the entries after the dream cursor, leave out of what the engine is shown each line
   whose fact is too long for any file (:func:`nanomem.dream.limits.screen_entries`; the
   ledger skips those facts with that reason), and cut them into batches
   (:mod:`nanomem.dream.prompt`);
3. for each batch, run the tool loop (:mod:`nanomem.dream.batchloop`) against ONE staged copy
   shared by the whole run: every call goes through
   :func:`nanomem.dream.tools.execute_tool_call` (jsonschema, then the gates); a batch
   completes only through ``finish``, which may come in the same reply as the edits (one request
   per batch); a ``finish`` beside a refused call waits one round, once per batch, so the model
   hears the refusal; text alone gets one nudge, then the run fails;
4. when every batch completed: commit hand edits of the memory files as ``manual:`` (the
   staged copy started from them), then write the changed files and commit ``dream:`` (a
   machine-made body, the ``Dream-Cursor``/``Batch`` trailers) as one journaled unit
   (:func:`nanomem.versions.journaled.commit_journaled`: a file is written only while it
   still holds the bytes the run started from, so a hand edit saved meanwhile fails the run
   and is kept), and only then advance the dream cursor; no change advances the cursor
   without a commit;
   Before that write, the lines the run removed outright are appended to
   ``memory/MOVED.md`` (:mod:`nanomem.dream.moves`, a ``moved`` ledger entry each), and the
   recall self-test runs against the files as the run leaves them (its lines go in the body);
5. append refusals, the ledger and the recall self-test to ``memory/dream-audit.jsonl`` and
   compact the history.

The run is atomic: any failure (provider error, iteration limit, missing ``finish``) leaves
the memory files, the repository and the dream cursor exactly as they were, because nothing is
written before every batch has completed; a run killed while writing left a journal that the
next run completes (committed as ``dream:``, not redone) or rolls back first.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.dream import audit
from nanomem.dream.audit import Refusal
from nanomem.dream.batchloop import BatchLoop, Tally
from nanomem.dream.ledger import LedgerEntry, parse_ledger_facts, plan_ledger, summarize_ledger
from nanomem.dream.moves import plan_moved_entries, plan_moves, plan_reinforced
from nanomem.dream.selftest import RecallHealth, check_recall, render_recall_lines
from nanomem.engines.chat import ChatModel, engine_session
from nanomem.config import Config
from nanomem.dream.recovery import recover_before_run
from nanomem.dream.instructions import read_instructions
from nanomem.dream.limits import plan_fact_room, render_refusal, screen_entries
from nanomem.dream.prompt import Batch, DreamTask, Segment, plan_batches
from nanomem.dream.questions import render_question_audit
from nanomem.errors import (EditConflictError, GitStoreError, HistoryError, NanomemError,
                            ShaError, WorkspaceError)
from nanomem.store.pending import Question, add_questions, parse_pending, read_pending_text, render_pending
from nanomem.store.memfiles import (find_over_ceiling, read_memory_files, redact_memory_files,
                                    try_lock_memory)
from nanomem.store.journal import WriteJournal
from nanomem.store.moved import read_moved_text, write_moved_text
from nanomem.versions.journaled import commit_journaled
from nanomem.dream.tools import StagedFiles
from nanomem.store.workspace import MEMORY_FILES, Workspace
from nanomem.vocab import PENDING

__all__ = ["DreamResult", "DreamTask", "Refusal", "run_dream"]

log = logging.getLogger(__name__)

_SHA_ROOM = 40  # per audit line: a commit sha in place of its null

# search(query, k, files) -> hits with .text; ``files`` holds the new bytes of changed files
Search = Callable[[str, int, Mapping[str, bytes]], Sequence[Any]]


@dataclass(frozen=True)
class DreamResult:
    """The outcome of one run; its fields are the stable ``dream --json`` form (DESIGN §8),
    through :func:`nanomem.records.to_json`.

    ``accepted`` counts accepted ``edit_file``/``write_file`` calls; ``refused`` lists every
    refused call. ``batch`` is the ``first-last`` span of the entries processed.
    """

    status: str
    dream_cursor_before: int
    dream_cursor_after: int
    commit: str | None = None
    accepted: int = 0
    refused: tuple[Refusal, ...] = ()
    diff: str = ""
    reason: str | None = None
    batches: int = 0
    batch: str | None = None
    note: str | None = None
    manual_commit: str | None = None
    refused_more: int = 0
    ledger: tuple[LedgerEntry, ...] = ()
    recall: RecallHealth | None = None  # the recall self-test, run before the commit
    questions: tuple[Question, ...] = ()  # asked of the person in memory/PENDING.md

    JSON_PROPERTIES = ("ledger_summary",)

    @property
    def ledger_summary(self) -> str:
        """``3 kept, 1 corrected, 2 skipped (file full), 1 question`` (empty: no ledger)."""
        return summarize_ledger(self.ledger) if self.ledger else ""

    @property
    def ok(self) -> bool:
        """False for ``failed`` and ``already_running`` (the CLI exits 1 on ``failed``)."""
        return self.status not in ("failed", "already_running")


async def run_dream(
    workspace: Workspace | Path | str,
    *,
    config: Config,
    history: Any,
    store: Any,
    engine: ChatModel,
    dry_run: bool = False,
    replay_sha: str | None = None,
    clock: Callable[[], datetime] | None = None,
    progress: Callable[[str], None] | None = None,
    search: Search | None = None,
) -> DreamResult:
    """Run Dream once over the pending history (or, with ``replay_sha``, over the batch of that
    ``dream:`` commit again). Never raises for a model or provider failure: that is a ``failed``
    result with a ``reason`` and nothing changed. Raises :class:`nanomem.errors.ShaError` or
    :class:`nanomem.errors.ShaError` for a replay sha that is unknown or not a Dream's.

    With ``search``, a completed run (not a dry run) runs the recall self-test before its
    commit (:mod:`nanomem.dream.selftest`): its lines go into the commit body, its share into
    ``result.recall`` and the audit.
    """
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    run = _Run(ws, config, history, store, engine, dry_run, clock, progress)
    run.search = search
    replay = _replay_span(store, replay_sha) if replay_sha else None
    lock = try_lock_memory(ws)
    if lock is None:
        cursor = history.read_dream_cursor()
        run.say("another Dream is running; nothing changed")
        return DreamResult(
            "already_running", cursor, cursor,
            reason=f"another Dream run holds {ws.dream_lock}; try again when it ends",
        )
    try:
        refusal = _refuse_oversized_files(ws, config, history)
        if refusal is not None:  # before anything is read whole or written
            return refusal
        if not dry_run:
            recover_before_run(ws, history, store)
            redact_memory_files(ws)  # a credential typed into a file never reaches the model
        async with engine_session(engine):  # one connection for every request of the run
            return await run.execute(replay)
    finally:
        lock.release()


def _refuse_oversized_files(ws: Workspace, config: Config, history: Any) -> DreamResult | None:
    """A ``failed`` result, with nothing read whole, written or audited, when a memory file is
    over its read ceiling (:mod:`nanomem.dream.limits`); None when every file is within it."""
    over = find_over_ceiling(ws, config.cap_for)
    if not over:
        return None
    cursor = history.read_dream_cursor()
    reason = render_refusal(over, cursor)
    log.warning("dream refused: %s", reason)
    return DreamResult("failed", cursor, cursor, reason=reason)


@dataclass(frozen=True)
class _Replay:
    sha: str
    first: int
    last: int


def _replay_span(store: Any, sha: str) -> _Replay:
    info = store.show(sha)  # raises ShaError for unknown or ambiguous prefixes
    span = info.trailers.get("Batch", "") if info.kind == "dream" else ""
    first, _, last = span.partition("-")
    if not (first.strip().isdigit() and last.strip().isdigit()):
        raise ShaError(
            f"commit {info.short} ({info.subject}) is not a dream: commit with a Batch trailer; "
            "replay takes the sha of a dream: commit (see `nanomem log`)"
        )
    return _Replay(info.sha, int(first), int(last))


class _Run:
    """One run's collaborators and state; :meth:`execute` is the sequence of the module doc."""

    def __init__(self, ws: Workspace, config: Config, history: Any, store: Any, engine: ChatModel,
                 dry_run: bool, clock: Callable[[], datetime] | None,
                 progress: Callable[[str], None] | None) -> None:
        self.ws, self.config, self.history, self.store, self.engine = ws, config, history, store, engine
        self.dry_run = dry_run
        self.clock = clock or (lambda: datetime.now().astimezone())
        self.progress = progress
        self.tally = Tally()
        self.replay: _Replay | None = None
        self.before = 0
        self.batches: list[Batch] = []
        self.entries: dict[int, Any] = {}  # cursor -> the entry as the history holds it
        self.manual_sha: str | None = None
        self.ledger: tuple[LedgerEntry, ...] = ()
        self.search: Search | None = None
        self.recall: RecallHealth | None = None
        self.reinforced: dict[str, str] = {}
        self.moved_text: str | None = None  # the new memory/MOVED.md when the run moves lines

    def say(self, message: str) -> None:
        log.debug("%s", message)
        if self.progress is not None:
            self.progress(message)

    @property
    def span(self) -> str | None:
        return f"{self.batches[0].first}-{self.batches[-1].last}" if self.batches else None

    async def execute(self, replay: _Replay | None) -> DreamResult:
        self.replay = replay
        self.before = before = self.history.read_dream_cursor()
        self.batches = batches = self._plan()
        if not batches:
            if replay is not None:
                return self._failed(f"entries {replay.first}-{replay.last} of dream {replay.sha[:7]} "
                                    "are no longer in history.jsonl (compacted); nothing to replay")
            self.say(f"nothing to do: no history entries after cursor {before}")
            self._commit_manual()
            self._compact()
            return DreamResult("nothing_to_do", before, before, manual_commit=self.manual_sha)
        self.say(f"{sum(len(b.segments) for b in batches)} segments of entries {self.span} "
                 f"in {len(batches)} batch{'es' if len(batches) != 1 else ''}")
        originals, existed = self._read_files()
        staged = StagedFiles(originals)
        self.reinforced = plan_reinforced(audit.read_audit_tail(self.ws.audit))
        instructions, _ = read_instructions(self.ws)
        loop = BatchLoop(self.engine, self.config, self.ws.root, self.tally,
                         reinforced=self.reinforced, clock=self.clock, say=self.say)
        for index, batch in enumerate(batches, 1):
            failure = await loop.run(batch, index, len(batches), staged, instructions)
            if failure is not None:
                return self._failed(failure)
        after = self._cursor_after()
        try:
            asked = self._plan_questions()
        except WorkspaceError as exc:
            return self._failed(f"{exc}; then run Dream again (this run asks questions)")
        self.ledger = self._ledger(originals, staged.current)
        self._plan_moves(originals, staged.current)
        files_before, files_after = dict(originals), dict(staged.current)
        if asked is not None:  # memory/PENDING.md is written and committed with the files
            files_before[PENDING], files_after[PENDING], existed[PENDING] = asked
        changes = audit.summarize_changes(files_before, files_after)
        diff = audit.render_diff(files_before, files_after, existed)
        if self.dry_run:
            self.say(f"dry run: {len(changes)} file(s) would change; nothing written")
            return self._result("dry_run", before, diff=diff)
        if self._read_files()[0] != originals:
            return self._failed("the memory files were edited during the run; nothing was "
                                "written; run Dream again")
        self._commit_manual()
        if not changes:
            self._check_recall({})
            if after != before:
                self.history.write_dream_cursor(after)
            self._audit("no_changes")
            self._compact()
            self.say(f"no changes; dream cursor {before} -> {after}")
            return self._result("no_changes", after, diff=diff)
        try:
            if self.moved_text is not None:  # durable before the commit that removes the lines
                write_moved_text(self.ws, self.moved_text)
        except OSError as exc:
            return self._failed(f"writing memory/MOVED.md failed: {exc}")
        self._check_recall({rel: audit.encode(files_after[rel]) for rel in changes if rel in MEMORY_FILES})
        try:  # one journaled unit: compare-and-swap per file, then commit exactly those bytes
            lines = self._audit_text("committed")  # "commit": null, filled in by the journal
            self._rotate_audit_for(lines)
            info = commit_journaled(self.store, self._journal(files_before, files_after,
                                                              existed, changes, diff, after,
                                                              lines))
        except EditConflictError as exc:  # a hand edit landed after the manual: commit; kept
            return self._failed(str(exc))
        except (GitStoreError, OSError) as exc:  # the files were put back: the run changes nothing
            return self._failed(f"writing or committing failed: {exc}")
        sha = info.sha if info is not None else None
        if sha is None:  # git saw no difference (cannot happen after a staged change)
            log.warning("dream commit was empty although %s changed", ", ".join(changes))
        self.history.write_dream_cursor(after)
        self._compact()
        self.say(f"committed {sha[:7] if sha else '-'}; dream cursor {before} -> {after}")
        return self._result("committed" if sha else "no_changes", after, diff=diff, commit=sha)

    def _ledger(self, before: Mapping[str, str], after: Mapping[str, str]) -> tuple[LedgerEntry, ...]:
        """Where each fact of the run's batches ended up, from the batches, the diff and the
        refusals (:mod:`nanomem.dream.ledger`), never from what the model says. Each entry
        is read whole, as the history holds it: a split entry's facts are its lines, not its
        parts', and a line the engine was not shown (too long for any file) is a fact too."""
        now = self.clock()
        cursors = dict.fromkeys(seg.cursor for batch in self.batches for seg in batch.segments)
        whole = [Segment(self.entries[c], str(self.entries[c].content)) for c in cursors]
        facts = parse_ledger_facts(whole, default_day=now.date().isoformat())
        caps = {rel: self.config.cap_for(rel) for rel in MEMORY_FILES}
        return plan_ledger(facts, before, after, refusals=self.tally.refusals, today=now.date(),
                           ttl_days=self.config.ephemeral_ttl_days, caps=caps,
                           pending={q.number: q.new_text for q in self.tally.questions})

    def _plan_questions(self) -> tuple[str, str, bool] | None:
        """Number the run's questions against ``memory/PENDING.md``: its text now, its text
        with them, whether it exists; None when the run asks nothing new. Raises
        :class:`WorkspaceError` for a malformed file (the run then fails, nothing lost)."""
        if not self.tally.questions:
            return None
        text = read_pending_text(self.ws)
        stamp = self.clock().strftime("%Y-%m-%d %H:%M")
        book, numbered = add_questions(parse_pending(text),
                                       [replace(q, asked=stamp) for q in self.tally.questions])
        self.tally.questions = numbered
        new = render_pending(book)
        return None if new == text else (text, new, self.ws.path(PENDING).exists())

    def _plan_moves(self, before: Mapping[str, str], after: Mapping[str, str]) -> None:
        """Add a ``moved`` ledger entry per line the run removed outright, and plan the new
        ``memory/MOVED.md`` that keeps them (:mod:`nanomem.dream.moves`)."""
        now = self.clock()
        moves = plan_moves(before, after, ledger=self.ledger, today=now.date(),
                           ttl_days=self.config.ephemeral_ttl_days)
        if not moves:
            return
        self.moved_text, entries = plan_moved_entries(moves, read_moved_text(self.ws),
                                                      now.date().isoformat())
        self.ledger += entries
        self.say(f"moved {len(moves)} line(s) to make room: {', '.join(sorted({r for r, _ in moves}))}")

    def _check_recall(self, files: Mapping[str, bytes]) -> None:
        """The recall self-test over the files as the run leaves them: a measurement, never a
        gate; a search that fails is logged and the run goes on without it."""
        if self.search is None or not self.ledger:
            return
        search = self.search
        try:
            self.recall = check_recall(self.ledger, lambda query, k: search(query, k, files))
        except (NanomemError, OSError, sqlite3.Error) as exc:
            log.warning("recall self-test of Dream failed: %s", exc)
            return
        if self.recall.failures:
            log.info("recall self-test: %s; not found: %s", self.recall.summary,
                     "; ".join(self.recall.failures))

    def _commit_manual(self) -> None:
        """Commit hand edits as ``manual:`` so the ``dream:`` commit holds only Dream's change.
        Done once the run has succeeded, so a failed run leaves the repository untouched."""
        manual = self.store.commit_manual_if_dirty()
        if manual is not None:
            self.manual_sha = manual.sha
            self.say(f"committed hand edits first: {manual.short} {manual.subject}")

    def _plan(self) -> list[Batch]:
        cfg, replay = self.config, self.replay
        if replay is not None:
            wanted = replay.last - replay.first + 1
            entries = [e for e in self.history.read_since(replay.first - 1, limit=wanted)
                       if e.cursor <= replay.last]
            max_batches = max(1, len(entries))  # a replay redoes the whole span
        else:
            limit = cfg.dream_batch_entries * cfg.dream_max_batches  # enough for every batch
            entries = self.history.read_since(self.before, limit=max(1, limit))
            max_batches = cfg.dream_max_batches
        # the ledger reads each entry whole, as the history holds it; the engine is shown it
        # without the lines too long for any file (nanomem.dream.limits)
        self.entries = {int(e.cursor): e for e in entries}
        room = plan_fact_room({rel: cfg.cap_for(rel) for rel in MEMORY_FILES})
        return plan_batches(screen_entries(entries, room), max_entries=cfg.dream_batch_entries,
                            max_tokens=cfg.dream_batch_tokens, max_batches=max_batches)

    def _read_files(self) -> tuple[dict[str, str], dict[str, bool]]:
        files = read_memory_files(self.ws)  # the one reader: refuses a link the policy refuses
        originals = {rel: audit.decode(files[rel]) if rel in files else "" for rel in MEMORY_FILES}
        return originals, {rel: rel in files for rel in MEMORY_FILES}

    def _cursor_after(self) -> int:
        replay, before = self.replay, self.before
        if replay is not None:  # never backwards, and never past entries that were not processed
            return max(before, replay.last) if replay.first - 1 <= before else before
        return max([before, *(b.completes for b in self.batches if b.completes is not None)])

    def _body(self, changes: Mapping[str, tuple[int, int]], diff: str) -> str:
        return audit.render_body(span=self.span or "", batches=len(self.batches), changes=changes,
                                 accepted=self.tally.accepted, refusals=self.tally.refusals,
                                 diff=diff, replay_of=self.replay.sha[:7] if self.replay else None,
                                 ledger=self.ledger,
                                 refused_more=self.tally.refused_more,
                                 quote=self.config.quote_max_chars,
                                 recall=render_recall_lines(self.recall) if self.recall else ())

    def _journal(self, originals: Mapping[str, str], current: Mapping[str, str],
                 existed: Mapping[str, bool], changes: Mapping[str, tuple[int, int]], diff: str,
                 after: int, audit_lines: str) -> WriteJournal:
        """The run's write as a journal: the bytes each changed file had and gets, the commit,
        and the audit lines appended once it is made (by this run or by the recovery of a
        killed one, exactly once)."""
        return WriteJournal(
            "dream", self.store.head(), audit.render_subject(changes, self.span or ""),
            self._body(changes, diff), {"Dream-Cursor": str(after), "Batch": self.span or ""},
            before={rel: audit.encode(originals[rel]) if existed[rel] else None for rel in changes},
            after={rel: audit.encode(current[rel]) for rel in changes}, audit=audit_lines)

    def _result(self, status: str, after: int, **extra: Any) -> DreamResult:
        notes = [n.strip() for n in self.tally.notes if n.strip()]
        return DreamResult(
            status, self.before, after, accepted=self.tally.accepted,
            refused=tuple(self.tally.refusals), batches=len(self.batches), batch=self.span,
            note=" | ".join(notes) if notes else None, manual_commit=self.manual_sha,
            ledger=self.ledger, refused_more=self.tally.refused_more, recall=self.recall,
            questions=tuple(self.tally.questions), **extra,
        )

    def _failed(self, reason: str) -> DreamResult:
        log.warning("dream failed: %s", reason)
        self.say(f"failed: {reason}")
        if not self.dry_run:
            self._audit("failed")
        return self._result("failed", self.before, reason=reason)

    def _audit(self, outcome: str) -> None:
        """Append the audit lines of a run that made no commit (``no_changes``, ``failed``)."""
        audit.append_audit(self.ws.audit, self._audit_text(outcome),
                           max_bytes=self.config.audit_max_bytes, keep=self.config.audit_keep)

    def _rotate_audit_for(self, lines: str) -> None:
        """Rotate the audit log first if ``lines``, their commit filled in, would overflow it."""
        if self.config.audit_max_bytes is not None and lines:
            adding = len(lines.encode("utf-8", "surrogatepass")) + _SHA_ROOM * lines.count("\n")
            audit.rotate_audit(self.ws.audit, adding, self.config.audit_max_bytes,
                               self.config.audit_keep)

    def _audit_text(self, outcome: str) -> str:
        """The run's audit lines, each with ``"commit": null`` (a committing run's journal
        fills in the sha)."""
        replay_of = self.replay.sha if self.replay else None
        text = audit.render_audit_lines(self.tally.refusals, time=self.clock(), outcome=outcome,
                                        commit=None, replay_of=replay_of,
                                        refused_more=self.tally.refused_more,
                                        quote=self.config.quote_max_chars)
        if outcome != "failed" and self.ledger:  # a failed run leaves its facts to the next one
            text += audit.render_ledger_line(self.ledger, time=self.clock(), batch=self.span or "",
                                             outcome=outcome, commit=None, replay_of=replay_of)
        if outcome != "failed":
            text += "".join(render_question_audit(q, event="asked", time=self.clock(), commit=None)
                            for q in self.tally.questions)
        if outcome != "failed" and self.recall is not None:
            text += audit.render_recall_line(self.recall, time=self.clock(), batch=self.span or "",
                                             commit=None)
        return text

    def _compact(self) -> None:
        if self.dry_run:
            return
        try:
            dropped = self.history.compact()
        except HistoryError as exc:  # the run itself succeeded; compaction retries next time
            log.warning("history compaction after Dream failed: %s", exc)
            return
        if dropped:
            self.say(f"compacted history: dropped {dropped} processed entries")
