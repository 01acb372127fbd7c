"""``nanomem watch``: version a person's edits and Dream on a schedule or when idle.

Three small pieces, so the logic is testable without a file-system observer:

- :func:`classify_path` (pure) says what a changed path means: ``"memory"`` for the files the
  memory repository versions (the three memory files and ``memory/PENDING.md``), ``"history"``
  for ``memory/history.jsonl``, ``None`` for everything else: the git dir, atomic-write temp
  files, cursor files, locks, the audit, ``memory/MOVED.md``, sessions. nanomem's own
  unversioned bookkeeping therefore never triggers anything.
- :class:`WatchScheduler` (pure, times injected) decides when a debounced ``manual:`` commit
  is due and when Dream is due: every ``dream_interval_minutes``, or after
  ``dream_idle_minutes`` without new history, in both cases only while entries are pending.
- :class:`Watcher` runs the loop. The watchdog observer thread only notes events in the
  scheduler; all work (commit, Dream) happens on the loop thread, one step at a time. An error
  is logged and the loop keeps watching. SIGINT/SIGTERM set a stop flag; the step in progress
  finishes (every write is atomic), then the loop exits.

>>> s = WatchScheduler(debounce_seconds=2, interval_minutes=0, idle_minutes=1, now=0)
>>> s.note("memory", now=10); s.commit_due(11), s.commit_due(12)
(False, True)
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from nanomem.errors import DreamError, OversizedFileError
from nanomem.store.workspace import VERSIONED_FILES, Workspace

log = logging.getLogger(__name__)

Clock = Callable[[], float]


def classify_path(workspace: Workspace, path: str | Path) -> str | None:
    """``"memory"``, ``"history"`` or ``None`` (ignored) for a changed absolute path. A hand
    edit of ``memory/PENDING.md`` is ``"memory"``: it is versioned with the memory files, so it
    is committed as ``manual:`` like them.

    >>> ws = Workspace(Path("/w"))
    >>> [classify_path(ws, p) for p in ("/w/USER.md", "/w/memory/history.jsonl",
    ...                                 "/w/memory/.cursor", "/w/.USER.md.x1.tmp", "/w/.git/index",
    ...                                 "/w/memory/PENDING.md")]
    ['memory', 'history', None, None, None, 'memory']
    """
    try:
        rel = Path(path).absolute().relative_to(workspace.root).as_posix()
    except ValueError:
        return None
    if rel in VERSIONED_FILES:
        return "memory"
    if rel == "memory/history.jsonl":
        return "history"
    return None


class WatchScheduler:
    """When to commit hand edits and when to Dream; every method takes ``now`` in seconds.

    A burst of edits is committed once, ``debounce_seconds`` after the last one (at the latest
    ``max(10 * debounce, 30)`` seconds after the first, so constant typing cannot postpone it
    forever). Dream is due on the interval (0 turns it off), or when the history has been
    quiet for ``idle_minutes`` since it last changed after the previous Dream attempt.
    """

    def __init__(
        self,
        *,
        debounce_seconds: float,
        interval_minutes: float,
        idle_minutes: float,
        now: float,
    ) -> None:
        self.debounce = float(debounce_seconds)
        self.max_delay = max(10 * self.debounce, 30.0)
        self.interval = float(interval_minutes) * 60
        self.idle = float(idle_minutes) * 60
        self._first_edit: float | None = None
        self._last_edit: float | None = None
        self._history_at: float | None = now  # pending entries at start count as fresh
        self._last_dream = now
        self._dream_attempted = False

    def note(self, kind: str, now: float) -> None:
        """Record an event of kind ``"memory"`` or ``"history"``."""
        if kind == "memory":
            if self._first_edit is None:
                self._first_edit = now
            self._last_edit = now
        elif kind == "history":
            self._history_at = now

    def commit_due(self, now: float) -> bool:
        """Whether the debounced ``manual:`` commit check should run now."""
        if self._last_edit is None or self._first_edit is None:
            return False
        return now - self._last_edit >= self.debounce or now - self._first_edit >= self.max_delay

    def committed(self) -> None:
        """The commit check ran (events after this re-arm it)."""
        self._first_edit = self._last_edit = None

    def dream_reason(self, now: float) -> str | None:
        """``"interval"``, ``"idle"`` or ``None``; the caller still checks pending entries."""
        if self.interval > 0 and now - self._last_dream >= self.interval:
            return "interval"
        fresh = self._history_at is not None and (
            not self._dream_attempted or self._history_at > self._last_dream
        )
        if self.idle > 0 and fresh and now - (self._history_at or now) >= self.idle:
            return "idle"
        return None

    def dreamed(self, now: float) -> None:
        """A due Dream was handled (run, failed, or skipped as nothing was pending): restart
        both timers, so a failing endpoint is retried on the next interval or new history."""
        self._last_dream = now
        self._dream_attempted = True


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: "Watcher") -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path:
                self.watcher.on_path(path if isinstance(path, str) else path.decode())


class Watcher:
    """The watch loop of one :class:`~nanomem.memory.Memory`.

    >>> watcher = Watcher(Memory("ws"))     # doctest: +SKIP
    >>> watcher.run()  # until SIGINT/SIGTERM or watcher.stop()  # doctest: +SKIP
    """

    def __init__(self, memory: Any, *, clock: Clock = time.monotonic, tick: float = 0.2) -> None:
        self.memory = memory
        self.clock = clock
        self.tick = tick
        cfg = memory.config
        self.scheduler = WatchScheduler(
            debounce_seconds=cfg.watch_debounce_seconds,
            interval_minutes=cfg.dream_interval_minutes,
            idle_minutes=cfg.dream_idle_minutes,
            now=clock(),
        )
        self.scheduler.note("memory", clock())  # pick up edits made while nobody watched
        self.noted: list[str] = []  # workspace-relative paths of the events that counted
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def on_path(self, path: str) -> None:
        """Called from the observer thread for every changed path."""
        kind = classify_path(self.memory.workspace, path)
        if kind is None:
            return
        with self._lock:
            rel = Path(path).absolute().relative_to(self.memory.workspace.root)
            self.noted.append(rel.as_posix())
            self.scheduler.note(kind, self.clock())

    def step(self) -> list[str]:
        """Do whatever is due now; return what was done (``"commit"``, ``"dream"``).

        Errors are logged, never raised: the watcher keeps watching.
        """
        done: list[str] = []
        now = self.clock()
        with self._lock:
            commit_due = self.scheduler.commit_due(now)
            if commit_due:
                self.scheduler.committed()
            reason = self.scheduler.dream_reason(now)
        try:
            if commit_due and self._commit_hand_edits(now):
                done.append("commit")
            if reason is not None:
                with self._lock:
                    self.scheduler.dreamed(now)
            if reason is not None and self.memory.history.pending_count() > 0:
                log.info("starting Dream (%s)", reason)
                result = self.memory.dream()
                log.info("Dream finished: %s %s", result.status, (result.commit or "")[:7])
                done.append("dream")
        except Exception:  # the watch loop survives anything (STYLE: top of the loop)
            log.exception("watch step failed; still watching")
        return done

    def _commit_hand_edits(self, now: float) -> bool:
        """Commit hand edits unless a Dream (maybe another process) is mid-write: then retry."""
        try:
            info = self.memory.commit_hand_edits()
        except DreamError:  # a Dream or a restore (maybe another process) is writing the files
            with self._lock:
                self.scheduler.note("memory", now)  # try again after the debounce
            return False
        except OversizedFileError as exc:  # a pasted file: said once per change, not retried
            log.warning("hand edits not committed: %s", exc)
            return False
        if info is not None:
            log.info("committed hand edits as %s (%s)", info.sha[:7], info.subject)
        return info is not None

    def stop(self) -> None:
        """Ask the loop to finish its current step and return."""
        self._stop.set()

    def run(
        self, *, on_ready: Callable[[], None] | None = None, install_signals: bool = True
    ) -> None:
        """Watch until :meth:`stop`, SIGINT or SIGTERM."""
        ws = self.memory.workspace
        ws.memory_dir.mkdir(parents=True, exist_ok=True)
        observer = Observer()
        handler = _Handler(self)
        observer.schedule(handler, str(ws.root), recursive=False)
        observer.schedule(handler, str(ws.memory_dir), recursive=False)
        previous = self._install_signals() if install_signals else {}
        observer.start()
        try:
            if on_ready is not None:
                on_ready()
            while not self._stop.wait(self.tick):
                self.step()
        finally:
            observer.stop()
            observer.join(timeout=5)
            for signum, old in previous.items():
                signal.signal(signum, old)

    def _install_signals(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        previous: dict[int, Any] = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.getsignal(signum)
            signal.signal(signum, lambda *_: self._stop.set())
        return previous


def run_watch(memory: Any, *, on_ready: Callable[[], None] | None = None) -> None:
    """Run the watch daemon of ``memory`` in the foreground (``nanomem watch``)."""
    Watcher(memory).run(on_ready=on_ready)
