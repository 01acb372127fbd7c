"""Running the facade's coroutines: from sync code (:func:`run_sync`) and on a background
thread (:class:`DreamJob`, at most one a ``Memory``: :class:`DreamSlot`; see
:meth:`nanomem.memory.Memory.start_dream`)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from nanomem.dream.run import DreamResult
from nanomem.status import JobState

log = logging.getLogger(__name__)

T = TypeVar("T")


def local_now() -> datetime:
    return datetime.now().astimezone()


def run_sync(make_coro: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop.

    >>> async def two() -> int:
    ...     return 2
    >>> run_sync(two)
    2
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanomem-sync") as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result()


class DreamJob:
    """A Dream running on a background thread (see :meth:`Memory.start_dream`)."""

    def __init__(
        self, run: Callable[[], Any], on_done: Callable[["DreamJob"], None] | None
    ) -> None:
        self.started_at = local_now()
        self.result: DreamResult | None = None
        self.error: BaseException | None = None
        self._on_done = on_done
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._main, args=(run,), name="nanomem-dream", daemon=True
        )

    def _main(self, run: Callable[[], Any]) -> None:
        try:
            self.result = run()
        except Exception as exc:  # the job reports instead of dying silently
            log.exception("background Dream failed")
            self.error = exc
        finally:
            self._done.set()
        if self._on_done is not None:
            try:
                self._on_done(self)
            except Exception:
                log.exception("on_done callback of a background Dream failed")

    def done(self) -> bool:
        """Whether the Dream has finished (successfully or not)."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> DreamResult:
        """Block until done; return the ``DreamResult`` (re-raise the error of a failed job)."""
        if not self._done.wait(timeout):
            raise TimeoutError("the background Dream is still running")
        if self.error is not None:
            raise self.error
        assert self.result is not None  # done without an error means a result
        return self.result

    def state(self) -> JobState:
        """The job as a record for ``status()``: ``started_at`` (ISO), ``done``, and once done
        the result's ``status`` and ``commit``, or the ``error`` text."""
        started = self.started_at.isoformat()
        if not self.done():
            return JobState(started, False)
        if self.error is not None or self.result is None:
            return JobState(started, True, "failed", None, str(self.error))
        return JobState(started, True, self.result.status, self.result.commit)


class DreamSlot:
    """The background Dream of one ``Memory``: at most one runs at a time.

    >>> gate = threading.Event()
    >>> slot = DreamSlot()
    >>> first = slot.start(gate.wait, None)
    >>> slot.start(gate.wait, None) is first    # still running: the same job
    True
    >>> gate.set(); first.wait(timeout=10)
    True
    >>> slot.start(gate.wait, None) is first    # done: a new job
    False
    """

    def __init__(self) -> None:
        self.job: DreamJob | None = None  # the latest, running or done
        self._lock = threading.Lock()

    def start(self, run: Callable[[], Any], on_done: Callable[[DreamJob], None] | None) -> DreamJob:
        """Start ``run`` on a new :class:`DreamJob`, or return the one still running."""
        with self._lock:
            if self.job is not None and not self.job.done():
                return self.job
            job = DreamJob(run, on_done)
            self.job = job
        job._thread.start()
        return job
