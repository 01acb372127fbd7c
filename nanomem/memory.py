"""``Memory(workspace)``: the one object an agent holds; :mod:`nanomem.wiring` holds its parts.

Async at the core, with thin sync wrappers for scripts::

    >>> from nanomem import Memory                                   # doctest: +SKIP
    >>> mem = Memory("~/agent-ws")                                    # doctest: +SKIP
    >>> mem.history.append("- [durable] User prefers metric units.")  # doctest: +SKIP
    7
    >>> system_prompt = "You are helpful.\\n\\n" + mem.context(1500)   # doctest: +SKIP
    >>> mem.consolidate("cli")      # after each turn: sessions/cli.jsonl  # doctest: +SKIP
    >>> mem.handle_command("/dream-log")                              # doctest: +SKIP
    '**`4f1c2ab`** dream: USER.md ...'

Sync wrappers (``consolidate``, ``dream``, ``handle_command``) use :func:`asyncio.run`. Called
from inside a running event loop they run the coroutine on a worker thread with its own loop
and block the caller until it finishes; async hosts should ``await`` the ``a*`` variants.

A long Dream need not block a chat loop: :meth:`Memory.start_dream` runs it on a background
thread and returns a :class:`DreamJob` at once; its ``on_done`` callback receives the finished
job, and ``/memory`` shows the job while it runs and its result afterwards.

The facade renders nothing: it returns records, and the faces (:mod:`nanomem.commands`,
:mod:`nanomem.cli`) turn them into text with :mod:`nanomem.replies`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem import revisions
from nanomem.consolidate.budget import with_context_window
from nanomem.consolidate.facts import RememberResult, parse_fact, render_fact
from nanomem.consolidate.run import ConsolidationResult, consolidate
from nanomem.consolidate.turn import TurnResult, record_turn
from nanomem.dream.answer import AnswerResult
from nanomem.dream.instructions import read_instructions, write_instructions
from nanomem.dream.run import DreamResult, run_dream
from nanomem.forget.receipt import ForgetReceipt
from nanomem.forget.run import ForgetOptions, run_forget
from nanomem.jobs import DreamJob, run_sync
from nanomem.wiring import MemoryParts
from nanomem.search.rank import Hit
from nanomem.search.recall import check_search_args
from nanomem.search.tools import AGENT_TOOLS, run_agent_tool
from nanomem.status import MemoryStatus, read_status
from nanomem.store.moved import MovedLine, parse_moved, read_moved_text
from nanomem.store.pending import Question
from nanomem.versions.commits import CommitInfo, RestoreResult


class Memory(MemoryParts):
    """File-based long-term memory of one workspace.

    ``config`` defaults to :func:`nanomem.config.load_config` of the workspace; ``engine``
    (a :class:`~nanomem.engines.chat.ChatModel`) defaults to :func:`nanomem.engines.registry.make_engine`,
    created on first use; ``clock`` returns the current time (injected in tests); ``embedder``
    (a :class:`~nanomem.search.vectors.Embedder`, default
    :func:`nanomem.engines.embeddings.make_embedder`) is used only when ``[search] embeddings``
    is on.
    """

    def search(
        self,
        query: str,
        *,
        k: int = 8,
        since: str | None = None,
        until: str | None = None,
        sources: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The ``k`` best matches for ``query`` among the memory-file lines, the history and
        the archived turns, best first (docs/recall.md has the ranking).

        ``since`` / ``until`` (``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM``, inclusive) keep only what
        was said in that span (memory-file lines have no date and drop out); ``sources`` picks
        among ``file``, ``history`` and ``archive``. The index is updated first, in proportion
        to what is new; a missing or damaged index is rebuilt with a warning.

        >>> [h.text for h in Memory("ws").search("support group", k=1)]  # doctest: +SKIP
        ['I went to a support group yesterday.']
        """
        check_search_args(query, k=k, since=since, until=until, sources=sources)
        return self.index.search(query, k=k, since=since, until=until, sources=sources)

    def agent_tools(self) -> list[dict[str, Any]]:
        """OpenAI-format tool definitions (``memory_search``, ``memory_remember``) to hand to
        the host's model, so that it searches and remembers by itself.

        >>> [t["function"]["name"] for t in Memory("ws").agent_tools()]  # doctest: +SKIP
        ['memory_search', 'memory_remember']
        """
        return copy.deepcopy(list(AGENT_TOOLS))

    def call_agent_tool(self, name: str, arguments: str | Mapping[str, Any] | None) -> str:
        """Run one tool call of the model (``arguments`` as the JSON string the model sent, or
        a dict); returns the tool result text. Bad arguments or an unknown tool give a JSON
        ``{"error": …}`` the model can act on, never an exception."""
        return run_agent_tool(self.search, name, arguments, remember=self.remember)

    async def aconsolidate(
        self,
        session: str | Path | Any,
        *,
        system_prompt: str = "",
        memory_context: str | None = None,
        tools: tuple[dict[str, Any], ...] | list[dict[str, Any]] = (),
        context_window: int | None = None,
    ) -> ConsolidationResult:
        """Archive the oldest turns of ``session`` if its prompt nears the token budget.

        ``session`` is a path to a session ``.jsonl`` file, a session key (``"cli"`` means
        ``sessions/cli.jsonl``) or a loaded ``Session``. ``memory_context`` is the memory block
        your prompt carries (default: :meth:`context` at the full budget). Cheap when under
        budget; returns the ``ConsolidationResult``.
        """
        config = with_context_window(self.config, context_window)
        if memory_context is None:
            memory_context = self.context(config.budget)
        return await consolidate(
            self._session_arg(session),
            history=self.history,
            engine=self.engine,
            config=config,
            system_prompt=system_prompt,
            memory_context=memory_context,
            tools=tuple(tools),
            clock=self.clock,
            archive=self.archive,
        )

    def consolidate(self, session: str | Path | Any, **kwargs: Any) -> ConsolidationResult:
        """Sync wrapper of :meth:`aconsolidate`."""
        return run_sync(lambda: self.aconsolidate(session, **kwargs))

    async def arecord_turn(
        self,
        session_key: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        now: datetime | None = None,
        system_prompt: str = "",
        memory_context: str | None = None,
        tools: Sequence[dict[str, Any]] = (),
    ) -> TurnResult:
        """Record one turn: append ``messages`` (OpenAI chat messages, tool calls included) to
        the session of ``session_key`` and archive its oldest turns into history when the next
        prompt would exceed the budget. The one call an agent makes after each turn.

        ``now`` stamps messages that carry no ``timestamp`` (default: the clock).
        ``system_prompt``, ``memory_context`` (default: :meth:`context` at the full budget) and
        ``tools`` are what the next request sends besides the messages; the budget check counts
        them. The file is ``sessions/<name>.jsonl`` (see
        :meth:`~nanomem.store.workspace.Workspace.session_path`), in nanobot's format.

        >>> Memory("ws").record_turn("cli:ana", [{"role": "user", "content": "hi"},
        ...     {"role": "assistant", "content": "hello"}]).status          # doctest: +SKIP
        'recorded'
        """
        path = self.workspace.session_path(session_key)
        if memory_context is None:
            memory_context = self.context(self.config.budget)
        clock = (lambda: now) if now is not None else self.clock
        return await record_turn(
            path, session_key, messages, history=self.history, engine=self.engine,
            config=self.config, clock=clock, system_prompt=system_prompt,
            memory_context=memory_context, tools=tuple(tools), archive=self.archive,
        )

    def record_turn(
        self, session_key: str, messages: Sequence[Mapping[str, Any]], **kwargs: Any
    ) -> TurnResult:
        """Sync wrapper of :meth:`arecord_turn`."""
        return run_sync(lambda: self.arecord_turn(session_key, messages, **kwargs))

    def remember(
        self, text: str, *, mark: str | None = None, session_key: str | None = None
    ) -> RememberResult:
        """Append one fact to the history now, as ``- [mark] text``, for the next Dream.

        ``text`` may start with its mark (``[permanent] Allergic to peanuts.``); ``mark`` gives
        it apart (``permanent``, ``durable``, ``ephemeral`` or ``correction``); without either
        the fact is durable. Secrets are redacted as in every history entry. Raises
        ``HistoryError`` for an empty or over-long text or an unknown mark.

        >>> Memory("ws").remember("[permanent] Allergic to peanuts.").cursor  # doctest: +SKIP
        13
        """
        mark, fact = parse_fact(text, mark)
        cursor = self.history.append(render_fact(mark, fact), session_key=session_key)
        return RememberResult("remembered", cursor, mark, fact)

    async def adream(
        self,
        dry_run: bool = False,
        replay_sha: str | None = None,
        progress: Callable[..., None] | None = None,
    ) -> DreamResult:
        """Run Dream once; returns the ``DreamResult`` (status ``committed``, ``no_changes``,
        ``nothing_to_do``, ``dry_run``, ``failed`` or ``already_running``).

        >>> Memory("ws").dream().status  # doctest: +SKIP
        'committed'
        """
        result = await run_dream(
            self.workspace,
            config=self.config,
            history=self.history,
            store=self.store,
            engine=self.engine,
            dry_run=dry_run,
            replay_sha=replay_sha,
            clock=self.clock,
            progress=progress,
            search=lambda query, k, files: self.index.search(query, k=k, files=files),
        )
        return result

    def dream(self, dry_run: bool = False, replay_sha: str | None = None,
              progress: Callable[..., None] | None = None) -> DreamResult:
        """Sync wrapper of :meth:`adream`."""
        return run_sync(lambda: self.adream(dry_run, replay_sha, progress))

    def start_dream(
        self, *, dry_run: bool = False, on_done: Callable[[DreamJob], None] | None = None
    ) -> DreamJob:
        """Start Dream on a background thread and return at once.

        ``on_done(job)`` is called on that thread with the finished :class:`DreamJob` (its
        ``result`` or ``error``). If a background Dream of this ``Memory`` is still running,
        that job is returned instead.

        >>> job = Memory("ws").start_dream(on_done=print)  # doctest: +SKIP
        >>> job.wait().status                               # doctest: +SKIP
        'committed'
        """
        return self._dreams.start(lambda: self.dream(dry_run=dry_run), on_done)

    @property
    def dream_job(self) -> DreamJob | None:
        """The latest background Dream job, if any."""
        return self._dreams.job

    def log(self, sha: str | None = None) -> CommitInfo | None:
        """The commit ``sha`` (any unique prefix of 4+ hex digits), or the latest ``dream:``
        commit when ``sha`` is None (None before the first Dream). Raises ``ShaError``.
        Reading never writes: without a memory repository nothing is created.
        """
        return revisions.read_commit(self, sha)

    def versions(self, limit: int = 10) -> list[CommitInfo]:
        """The newest ``limit`` commits of the memory repository, newest first (``[]`` when
        there is no repository yet; none is created)."""
        if not self.has_repository():
            return []
        return self.store.log(limit)

    def commit_hand_edits(self) -> CommitInfo | None:
        """Commit hand edits of the memory files as ``manual:`` (credentials redacted first);
        the ``CommitInfo``, or None when the files are clean. Raises ``DreamError`` while a
        Dream or a restore holds the memory files (retry when it ends)."""
        return revisions.commit_hand_edits(self)

    def restore(self, sha: str | None = None) -> RestoreResult:
        """Restore the memory files to their state just before commit ``sha`` and record a
        ``restore:`` commit; ``sha=None`` undoes the latest Dream. Hand edits are committed
        first. The dream cursor is not rewound (re-process with ``dream(replay_sha=...)``).

        Status ``nothing_to_do`` when ``sha`` is None and no Dream was committed yet. Raises
        ``DreamError`` while a Dream runs, ``ShaError`` for an unknown sha.
        """
        return revisions.restore_files(self, sha)

    def pending_questions(self) -> tuple[Question, ...]:
        """The open questions of ``memory/PENDING.md``, oldest first (docs/pending.md); raises
        ``WorkspaceError`` naming the line of a malformed file. Never writes."""
        return revisions.read_questions(self)

    def moved_lines(self) -> tuple[MovedLine, ...]:
        """The lines Dream moved out of full files into ``memory/MOVED.md``, in file order (oldest
        first); empty when there are none. Never writes."""
        return tuple(parse_moved(read_moved_text(self.workspace)))

    def answer(self, number: int, *, yes: bool) -> AnswerResult:
        """Answer question ``number``: ``yes`` applies its edit through the gates (the person's
        confirmation stands in for the pin and correction gates), no drops it; both commit
        ``confirm:`` and are audited. Status ``applied``, ``dropped``, ``not_found``,
        ``stale`` or ``refused`` (nothing written). Raises ``DreamError`` while a Dream runs.

        >>> Memory("ws").answer(1, yes=True).status  # doctest: +SKIP
        'applied'
        """
        return revisions.answer(self, number, yes=yes)

    def forget(
        self,
        pattern: str,
        *,
        regex: bool = False,
        dry_run: bool = False,
        keep_sessions: bool = False,
        include_pinned: bool = False,
        on_step: Callable[[str], None] | None = None,
    ) -> ForgetReceipt:
        """Remove every line that holds ``pattern`` from every place it lives: the memory
        files, history (a tombstone keeps each cursor), the archive and index, the sessions
        (unless ``keep_sessions``), the Dream audit and the whole git history; then sweep the
        workspace and every git object for it (docs/forget.md).

        ``dry_run`` shows what would change and writes nothing. Pinned lines are refused
        (status ``refused``, nothing changed) unless ``include_pinned``. The receipt never holds
        the text; status ``incomplete`` lists where the sweep still found it.

        >>> Memory("ws").forget("Alice Smith").status     # doctest: +SKIP
        'forgotten'
        """
        options = ForgetOptions(regex=regex, dry_run=dry_run, keep_sessions=keep_sessions,
                                include_pinned=include_pinned)
        self.close()  # the rewrite repacks the repository: reopen it afterwards
        try:
            return run_forget(self.workspace, pattern, options, config=self.config,
                              clock=self.clock, on_step=on_step)
        finally:
            self.close()

    def read_files(self) -> dict[str, str]:
        """Text of each memory file by relative path, in prompt order, up to its read ceiling
        (as the prompt block reads it). A file the symlink policy refuses is left out."""
        return self._block.read_files()

    def context(self, budget_tokens: int, query: str | None = None) -> str:
        """The memory block for a system prompt, at most ``budget_tokens`` tokens.

        Each file sits under a header like ``## USER.md 640/6,000 chars``, followed by the
        history entries Dream has not processed yet, the open questions of ``memory/PENDING.md``
        (one line each, for the agent to ask) and, with a ``query`` (what the person is
        asking now), the turns recalled for it as ``[2026-05-08] user: …``. What does not fit
        is announced; the priority is pinned lines, the file lines most relevant to ``query``
        (file order without one), pending entries newest first, then recalled turns
        (docs/recall.md). Without a query the search index is not opened.

        >>> print(Memory("ws").context(800, query="when is the dentist?"))  # doctest: +SKIP
        ## SOUL.md 212/4,000 chars
        ...
        """
        return self._block.render(
            budget_tokens, query,
            search=lambda text, k: self.index.search(text, k=k, collapse=False))

    def dream_prompt(self) -> tuple[str, str]:
        """The active Dream instructions and where they come from
        (``prompts/dream.md`` when present and non-empty, else ``built-in``)."""
        return read_instructions(self.workspace)

    def init_dream_prompt(self) -> tuple[str, bool]:
        """Copy the built-in instructions to ``prompts/dream.md`` unless a non-empty one exists.

        Returns ``("prompts/dream.md", created)``; never overwrites a person's file.
        """
        return write_instructions(self.workspace)

    def status(self) -> MemoryStatus:
        """Cursors, pending entries, repository, provider and file sizes; never creates files
        (:func:`nanomem.status.read_status`). The API key is never included."""
        job = self._dreams.job.state() if self._dreams.job is not None else None
        opener = (lambda: self.store) if self.has_repository() else None
        return read_status(self.workspace, self.config, self.history, opener, job)

    async def ahandle_command(self, text: str) -> str | None:
        """Route a slash command; ``None`` when ``text`` is not one of nanomem's.

        The chat face :func:`nanomem.commands.ahandle_command` does the work; ``/dream`` is
        awaited to the end here; run it as a task to keep chatting meanwhile.
        """
        from nanomem import commands  # the face; the facade itself renders nothing

        return await commands.ahandle_command(self, text)

    def handle_command(
        self,
        text: str,
        *,
        background: bool = False,
        on_done: Callable[[str], None] | None = None,
    ) -> str | None:
        """Sync :meth:`ahandle_command`. With ``background=True`` a ``/dream`` starts on a
        background thread and returns at once; ``on_done(reply)`` gets the result.

        >>> Memory("ws").handle_command("/memory").startswith("**Memory status**")  # doctest: +SKIP
        True
        >>> Memory("ws").handle_command("hello") is None                            # doctest: +SKIP
        True
        """
        from nanomem import commands  # the face; the facade itself renders nothing

        return commands.handle_command(self, text, background=background, on_done=on_done)

