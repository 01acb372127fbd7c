"""What ``/memory``, ``nanomem status`` and ``nanomem doctor`` say (pure): the state of a
memory, of its background Dream, of its provider. The pieces every reply shares (the short
sha, the time) are in :mod:`nanomem.replies`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nanomem.movedlist import MAX_LINES as MOVED_LIST_MAX
from nanomem.replies import render_time, short
from nanomem.text.sanitize import sanitize_line
from nanomem.vocab import MOVED_MD

CHAT_MOVED_SHOWN = 3  # the newest moved lines the `/memory` reply names; `/memory moved` lists all

if TYPE_CHECKING:
    from nanomem.doctor import DoctorReport
    from nanomem.status import JobState, MemoryStatus


def render_status(status: MemoryStatus, usages: Sequence[str] = ()) -> str:
    """Reply of ``/memory`` for :meth:`Memory.status`; ``usages`` lists the chat commands."""
    lines = [
        "**Memory status**",
        f"- history: cursor {status.cursor}, dream cursor {status.dream_cursor}, "
        f"{status.pending} pending",
    ]
    for rel, size in status.files.items():
        flag = " **over cap**" if size.chars > size.cap else ""
        lines.append(f"- `{rel}` {size.chars:,}/{size.cap:,} chars{flag}")
    health = status.health
    for rel in health.near_cap:
        since = f" since {render_time(health.skipped_since)}" if health.skipped_since else ""
        lines.append(f"- **warning**: `{rel}` is over 90% of its cap; "
                     f"{health.skipped_for_cap} fact(s) skipped for a full file{since}, "
                     f"{health.moved_out} moved out; merge or trim it by hand, or raise its cap")
    lines += [f"- **warning**: {text}" for text in health.over_ceiling]
    if health.moved_out:
        lines.append(f"- `{MOVED_MD}`: {health.moved_out} line(s) moved out of full files since "
                     f"{health.moved_since}; search still finds them; `/memory moved` lists all. Newest:")
        lines += [f"  - {sanitize_line(text)}" for text in health.moved_newest[:CHAT_MOVED_SHOWN]]
    if health.skipped_for_cap and not health.near_cap:
        lines.append(f"- {health.skipped_for_cap} fact(s) skipped for a full file since "
                     f"{render_time(health.skipped_since)}; search finds them in the history")
    if health.recall_checked:
        lines.append(f"- recall health of the last Dream: {health.recall_found}/"
                     f"{health.recall_checked} facts found by search{_not_found(health)}")
    if status.questions_problem:
        lines.append(f"- **questions**: {status.questions_problem}")
    elif status.questions:
        lines.append(f"- questions for you: {status.questions} open; `/memory pending` lists them")
    if status.uncommitted:
        files = ", ".join(f"`{rel}`" for rel in status.uncommitted)
        lines.append(f"- hand edits not yet versioned: {files}")
    last = status.last_dream
    if last:
        sha, when = short(last.sha), render_time(last.time)
        lines.append(f"- last Dream: `{sha}` {when} {last.subject}")
    else:
        lines.append("- last Dream: none yet")
    if status.background_dream:
        lines.append(f"- background Dream: {render_job_state(status.background_dream)}")
    model = f" ({status.model})" if status.model else ""
    lines.append(f"- provider: {status.provider}{model}")
    for line in render_provider_notes(status.provider_notes or {}):
        lines.append(f"- provider note: {line}")
    lines.append(f"- git: `{status.git_dir}` HEAD `{short(status.head) or 'none'}`")
    if status.pending:
        lines.append("Type `/dream` to process the pending entries.")
    if usages:
        lines.append("Commands: " + ", ".join(f"`{usage}`" for usage in usages))
    return "\n".join(lines)


def render_provider_notes(notes: Mapping[str, Any]) -> list[str]:
    """One line per remembered endpoint note (see :func:`nanomem.engines.notes.render_notes`).

    >>> render_provider_notes({"http://h/v1": {"refused": {"tool_choice": "unsupported"}}})
    ['http://h/v1 refused `tool_choice` (unsupported); it is no longer sent']
    """
    from nanomem.engines.notes import render_notes  # the notes' shape has one home

    return render_notes(notes)


def _not_found(health: Any, shown: int = 3) -> str:
    """``; not found: A, B, C and 2 more``: the recall self-test's failing facts, by name."""
    failures = [sanitize_line(f) for f in health.recall_failures]
    missing = (health.recall_checked or 0) - (health.recall_found or 0)
    if not failures or missing <= 0:
        return ""
    more = missing - min(shown, len(failures))
    return "; not found: " + ", ".join(failures[:shown]) + (f" and {more} more" if more > 0 else "")


def render_job_state(job: JobState) -> str:
    """One line for ``/memory`` about a background Dream (``Memory.dream_job.state()``).

    >>> from nanomem.status import JobState
    >>> render_job_state(JobState("2026-11-30T16:40:00", False))
    'running since 16:40:00'
    >>> render_job_state(JobState("2026-11-30T16:40:00", True, "committed", "0123456789"))
    'started 16:40:00, finished: committed `0123456`'
    """
    since = render_time(job.started_at, "%H:%M:%S")
    if not job.done:
        return f"running since {since}"
    if job.error:
        outcome = f"failed: {job.error}"
    elif job.commit:
        outcome = f"{job.status} `{short(job.commit)}`"
    else:
        outcome = str(job.status)
    return f"started {since}, finished: {outcome}"


def render_status_text(status: MemoryStatus) -> str:
    """What ``nanomem status`` prints (the ``--json`` form is ``to_json(status)``)."""
    lines = [
        f"workspace     {status.workspace}",
        f"cursor        {status.cursor}",
        f"dream cursor  {status.dream_cursor}  ({status.pending} pending)",
        f"git dir       {status.git_dir or 'none (run nanomem init)'}",
        f"HEAD          {status.head or 'none'}",
    ]
    model = f" ({status.model} at {status.base_url})" if status.model else ""
    lines.append(f"provider      {status.provider}{model}")
    for rel, size in status.files.items():
        flag = "" if size.exists else "  (missing)"
        over = "  OVER CAP" if size.chars > size.cap else ""
        lines.append(f"  {rel:<18}{size.chars:>7,} / {size.cap:,} chars{flag}{over}")
    health = status.health
    lines += [f"warning       {rel} is over 90% of its cap" for rel in health.near_cap]
    lines += [f"warning       {text}" for text in health.over_ceiling]
    if health.moved_out:
        lines += _moved_text(health)
    if health.skipped_for_cap:
        lines.append(f"skipped       {health.skipped_for_cap} fact(s) for a full file since "
                     f"{render_time(health.skipped_since)} (search finds them in the history)")
    if health.recall_checked:
        lines.append(f"recall        {health.recall_found}/{health.recall_checked} facts found by "
                     f"search (last Dream){_not_found(health)}")
    if status.questions or status.questions_problem:
        lines.append(f"questions     {status.questions_problem or f'{status.questions} open (nanomem pending)'}")
    if status.uncommitted:
        lines.append(f"uncommitted   {', '.join(status.uncommitted)} (hand edits; the next "
                     "Dream, restore or watch commits them as manual:)")
    last = status.last_dream
    if last:
        lines.append(f"last dream    {short(last.sha)} {last.time} {last.subject}")
    for line in render_provider_notes(status.provider_notes or {}):
        lines.append(f"provider note {line}")
    return "\n".join(lines)


def _moved_text(health: Any) -> list[str]:
    """The ``moved out`` lines of ``nanomem status``: the total, the newest lines, and where
    to see the others when some are not shown."""
    shown = health.moved_newest
    lines = [f"moved out     {health.moved_out} line(s) to {MOVED_MD} since {health.moved_since}; "
             f"newest {len(shown)}:"]
    lines += [f"              {sanitize_line(text)}" for text in shown]
    rest = health.moved_out - len(shown)
    if rest > 0:
        listed = (f"all {health.moved_out}" if health.moved_out <= MOVED_LIST_MAX else
                  f"the newest {MOVED_LIST_MAX}; {MOVED_MD} holds all {health.moved_out}")
        lines.append(f"              … and {rest} older: nanomem command \"/memory moved\" lists {listed}")
    return lines


def render_doctor(report: DoctorReport) -> str:
    """The text of ``nanomem doctor``.

    >>> from nanomem.doctor import DoctorReport, StageProbe
    >>> print(render_doctor(DoctorReport("offline", None, {
    ...     "dream": StageProbe("dream", "offline", True, "fine")},
    ...     configured_context_window=65536)))
    provider: offline
    - dream (offline): works: fine
    context window: not reported by the server (configured: 65536)
    both stages can run
    """
    where = f" at {report.base_url}" if report.base_url else ""
    lines = [f"provider: {report.provider}{where}"]
    for stage in report.stages.values():
        state = "works" if stage.ok else "FAILS"
        lines.append(f"- {stage.stage} ({stage.model}): {state}: {stage.detail}")
        for key, step in stage.fallbacks.items():
            lines.append(f"  fallback: {key} -> {step}")
        for kind, message in stage.quirks.items():
            lines.append(f"  quirk: {kind} ({message})")
        for advice in stage.advice:
            lines.append(f"  fix: {advice}")
    window = report.context_window
    configured = report.configured_context_window
    lines.append(f"context window: {window.tokens} tokens ({window.source}; configured: "
                 f"{configured})" if window else
                 f"context window: not reported by the server (configured: {configured})")
    lines.extend(f"warning: {w}" for w in report.warnings)
    lines.append("both stages can run" if report.ok else
                 "a stage cannot run; see the fix lines above")
    return "\n".join(lines)
