"""Every reply text nanomem shows a person, for chat (slash commands) and the CLI (pure).

The facade (:mod:`nanomem.memory`) returns records; the faces (:mod:`nanomem.commands`,
:mod:`nanomem.cli`, :mod:`nanomem.watch`) turn them into text here. Replies are short
markdown: what happened, the short sha, the files, and what to type next.

>>> render_no_dream()
'No Dream commit yet. Run `/dream` to process the history.'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from nanomem.errors import CommandError, NanomemError, ShaError
from nanomem.text.sanitize import sanitize_line
from nanomem.vocab import MOVED_MD

if TYPE_CHECKING:
    from nanomem.consolidate.run import ConsolidationResult
    from nanomem.doctor import DoctorReport
    from nanomem.dream.run import DreamResult
    from nanomem.jobs import DreamJob
    from nanomem.versions.commits import CommitInfo, RestoreResult
    from nanomem.status import JobState, MemoryStatus

SHORT = 7


def short(sha: str | None) -> str:
    """The short form of a sha.

    >>> short("0123456789abcdef0123456789abcdef01234567")
    '0123456'
    """
    return (sha or "")[:SHORT]


def _files(files: Sequence[str]) -> str:
    return ", ".join(f"`{f}`" for f in files) if files else "no files"


def _diff_block(diff: str, limit: int = 4000) -> str:
    if not diff.strip():
        return ""
    text = diff.rstrip("\n")
    if len(text) > limit:
        cut = text[:limit].rsplit("\n", 1)[0]
        hidden = text.count("\n") - cut.count("\n")
        text = f"{cut}\n… {hidden} more diff lines; see the full diff with `nanomem log`"
    return f"\n```diff\n{text}\n```"


def _refusals(refused: Sequence[Any]) -> str:
    if not refused:
        return ""
    lines = [f"- refused `{r.tool}` on `{r.path or '-'}`: {r.reason}" for r in refused[:10]]
    if len(refused) > 10:
        lines.append(f"- … {len(refused) - 10} more in `memory/dream-audit.jsonl`")
    return "\n" + "\n".join(lines)


def render_dream(result: DreamResult) -> str:
    """Reply for a :class:`~nanomem.dream.run.DreamResult`."""
    status = result.status
    before, after = result.dream_cursor_before, result.dream_cursor_after
    accepted = result.accepted if isinstance(result.accepted, int) else len(result.accepted)
    refused = tuple(result.refused)
    counts = f"{accepted} edit(s) accepted, {len(refused)} refused"
    facts = getattr(result, "ledger_summary", "")
    if facts:
        counts = f"facts: {facts}; {counts}"
    recall = getattr(result, "recall", None)
    if recall is not None and recall.checked:
        counts += f"; recall health {recall.found}/{recall.checked}"
    if status == "committed":
        sha = short(result.commit)
        return (
            f"**Dream committed `{sha}`** (entries up to cursor {after}; {counts})."
            f"{_refusals(refused)}{_asked(result)}\n"
            f"See the diff with `/dream-log {sha}`; undo with `/dream-restore {sha}`."
        )
    if status == "no_changes":
        return (
            f"**Dream found nothing to change** in the memory files; cursor {before} → {after}, "
            f"no commit ({counts}).{_refusals(refused)}"
        )
    if status == "nothing_to_do":
        return f"**Nothing to dream about**: no new history after cursor {before}."
    if status == "dry_run":
        return (
            f"**Dry run**: nothing was written ({counts}). Dream would commit:"
            f"{_diff_block(result.diff) or ' no changes.'}{_refusals(refused)}\n"
            "Apply it with `/dream`."
        )
    if status == "already_running":
        return "**Dream is already running**; type `/memory` in a moment to see the result."
    reason = getattr(result, "reason", None) or "unknown error"
    return (
        f"**Dream failed**: {reason}. Nothing was changed; the cursor stays at {before}. "
        "Try again with `/dream`."
    )


def _asked(result: Any) -> str:
    """The line a Dream reply adds when the run asked questions (memory/PENDING.md)."""
    asked = getattr(result, "questions", ())
    if not asked:
        return ""
    numbers = ", ".join(str(q.number) for q in asked)
    return (f"\nIt asks you {len(asked)} question(s) ({numbers}): `/memory pending` lists them; "
            "answer with `/memory yes N` or `/memory no N`.")


def render_no_dream() -> str:
    """Reply of ``/dream-log`` before the first Dream."""
    return "No Dream commit yet. Run `/dream` to process the history."


def render_log(info: CommitInfo) -> str:
    """Reply for one commit (:class:`~nanomem.versions.gitstore.CommitInfo`)."""
    sha = short(info.sha)
    body = (info.body or "").split("\nDiff:\n", 1)[0].strip()  # the diff is shown below
    lines = [f"**`{sha}`** {info.subject}", f"{_time(info.time)} · {_files(info.files)}"]
    if info.moved_from:
        lines.insert(0, render_moved(info.moved_from, info.sha))
    if body:
        lines.append("")
        lines.append(body)
    text = "\n".join(lines) + _diff_block(info.diff)
    return text + f"\nUndo with `/dream-restore {sha}`."


def render_versions(commits: Sequence[CommitInfo]) -> str:
    """Reply of ``/dream-restore`` without a sha: recent versions to choose from."""
    if not commits:
        return "No versions yet. Memory is versioned from the first `nanomem init` or `/dream`."
    lines = ["**Recent versions** (newest first):"]
    lines += [f"- `{short(c.sha)}` {_time(c.time)} {c.subject}" for c in commits]
    lines.append(
        f"Restore the files to before one with `/dream-restore {short(commits[0].sha)}`."
    )
    return "\n".join(lines)


def render_restore(result: RestoreResult) -> str:
    """Reply for a :class:`~nanomem.versions.gitstore.RestoreResult`."""
    target = short(result.target)
    manual = result.manual
    saved = (
        f"Your unsaved hand edits were kept first as `{short(manual.sha)}`.\n" if manual else ""
    )
    if result.status == "nothing_to_do":
        return "There is no Dream commit to undo; list versions with `/dream-restore`."
    if result.status != "restored" or result.commit is None:
        return saved + f"Memory already matches the state before `{target}`; nothing to restore."
    commit = short(result.commit.sha)
    if result.moved_from and result.target:
        saved = render_moved(result.moved_from, result.target) + "\n" + saved
    return (
        f"**Restored** the memory files to before `{target}` as commit `{commit}`; "
        f"changed {_files(result.files)}.\n{saved}"
        f"Undo this restore with `/dream-restore {commit}`. The dream cursor is unchanged; "
        f"re-process that batch with `nanomem dream --replay {target}`."
    )


def render_prompt(text: str, source: str) -> str:
    """Reply of ``/dream-prompt``."""
    hint = (
        "Edit it to change how Dream works."
        if source != "built-in"
        else "Type `/dream-prompt init` to make an editable copy in `prompts/dream.md`."
    )
    return f"**Dream instructions** ({source}):\n\n{text.strip()}\n\n{hint}"


def render_prompt_init(path: str, created: bool) -> str:
    """Reply of ``/dream-prompt init``."""
    if created:
        return f"Created `{path}` from the built-in instructions; edit it, Dream uses it next run."
    return f"`{path}` already exists and was left unchanged; edit it directly."


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
        since = f" since {_time(health.skipped_since)}" if health.skipped_since else ""
        lines.append(f"- **warning**: `{rel}` is over 90% of its cap; "
                     f"{health.skipped_for_cap} fact(s) skipped for a full file{since}, "
                     f"{health.moved_out} moved out; merge or trim it by hand, or raise its cap")
    if health.moved_out:
        lines.append(f"- `{MOVED_MD}`: {health.moved_out} line(s) moved out of full files since "
                     f"{health.moved_since}; search still finds them. Newest:")
        lines += [f"  - {sanitize_line(text)}" for text in health.moved_newest]
    if health.skipped_for_cap and not health.near_cap:
        lines.append(f"- {health.skipped_for_cap} fact(s) skipped for a full file since "
                     f"{_time(health.skipped_since)}; search finds them in the history")
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
        sha, when = short(last.sha), _time(last.time)
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


def render_questions(questions: Sequence[Any]) -> str:
    """Reply of ``/memory pending`` (and ``nanomem pending``): one line per open question.

    >>> from nanomem.store.pending import Question
    >>> print(render_questions([Question(1, "pinned", "USER.md", "- A <!-- pin -->\\n", "- B <!-- pin -->\\n", "why")]))
    **Questions for you** (memory/PENDING.md)
    1. USER.md: change a pinned line? `- A <!-- pin -->` -> `- B <!-- pin -->`
       why: why
    Answer with `/memory yes N` (apply it) or `/memory no N` (drop it).
    """
    from nanomem.store.pending import render_question_line  # the one rendering of a question

    if not questions:
        return "**No open questions.** Dream asks here when only you can decide a change."
    lines = ["**Questions for you** (memory/PENDING.md)"]
    for q in questions:
        lines += [render_question_line(q), f"   why: {q.reason}"]
    lines.append("Answer with `/memory yes N` (apply it) or `/memory no N` (drop it).")
    return "\n".join(lines)


def render_answer(result: Any) -> str:
    """Reply of ``/memory yes N`` / ``/memory no N`` for an
    :class:`~nanomem.dream.answer.AnswerResult`."""
    left = f" {result.open_questions} question(s) still open." if result.open_questions else ""
    if result.status == "applied":
        return (f"**Applied question {result.number}** to `{result.question.path}` "
                f"(commit `{short(result.commit)}`; undo with `/dream-restore {short(result.commit)}`)."
                + left)
    if result.status == "dropped":
        return f"**Dropped question {result.number}**; nothing in the files changed (commit `{short(result.commit)}`)." + left
    if result.status == "not_found":
        return f"**No open question {result.number}.** `/memory pending` lists the open ones."
    return f"**Question {result.number} was not applied:** {result.reason}"


def render_remembered(result: Any) -> str:
    """Reply of ``/remember`` for a :class:`~nanomem.consolidate.facts.RememberResult`.

    >>> from types import SimpleNamespace as R
    >>> print(render_remembered(R(cursor=12, mark="permanent", text="Allergic to peanuts.")))
    **Remembered** as history entry 12: `[permanent]` Allergic to peanuts.
    The next Dream files it into memory; type `/dream` to run it now.
    """
    return (
        f"**Remembered** as history entry {result.cursor}: `[{result.mark}]` {result.text}\n"
        "The next Dream files it into memory; type `/dream` to run it now."
    )


def render_provider_notes(notes: Mapping[str, Any]) -> list[str]:
    """One line per remembered endpoint note (see :func:`nanomem.engines.notes.render_notes`).

    >>> render_provider_notes({"http://h/v1": {"refused": {"tool_choice": "unsupported"}}})
    ['http://h/v1 refused `tool_choice` (unsupported); it is no longer sent']
    """
    from nanomem.engines.notes import render_notes  # the notes' shape has one home

    return render_notes(notes)


def render_sha_error(exc: ShaError) -> str:
    """Friendly text for an unknown or ambiguous sha (the message lists the candidates)."""
    if getattr(exc, "candidates", ()):
        return f"**{exc}**\nType more hex digits to pick one; nothing was changed."
    return f"**{exc}**\nList recent versions with `/dream-restore`."


def render_command_error(exc: CommandError) -> str:
    """Friendly text for a known command with bad arguments."""
    return f"**{exc}**"


def _not_found(health: Any, shown: int = 3) -> str:
    """``; not found: A, B, C and 2 more``: the recall self-test's failing facts, by name."""
    failures = [sanitize_line(f) for f in health.recall_failures]
    missing = (health.recall_checked or 0) - (health.recall_found or 0)
    if not failures or missing <= 0:
        return ""
    more = missing - min(shown, len(failures))
    return "; not found: " + ", ".join(failures[:shown]) + (f" and {more} more" if more > 0 else "")


def _time(value: Any, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``2026-11-30 16:40`` from a datetime or an ISO-8601 string (other text unchanged)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime):
        return value.strftime(fmt)
    return str(value)


def render_job_state(job: JobState) -> str:
    """One line for ``/memory`` about a background Dream (``Memory.dream_job.state()``).

    >>> from nanomem.status import JobState
    >>> render_job_state(JobState("2026-11-30T16:40:00", False))
    'running since 16:40:00'
    >>> render_job_state(JobState("2026-11-30T16:40:00", True, "committed", "0123456789"))
    'started 16:40:00, finished: committed `0123456`'
    """
    since = _time(job.started_at, "%H:%M:%S")
    if not job.done:
        return f"running since {since}"
    if job.error:
        outcome = f"failed: {job.error}"
    elif job.commit:
        outcome = f"{job.status} `{short(job.commit)}`"
    else:
        outcome = str(job.status)
    return f"started {since}, finished: {outcome}"


def render_job(job: DreamJob) -> str:
    """The reply a background Dream (:class:`~nanomem.jobs.DreamJob`) ends with."""
    if job.error is not None or job.result is None:
        return f"**Dream failed**: {job.error}. Nothing was changed."
    return render_dream(job.result)


def render_job_started(job: DreamJob) -> str:
    """The immediate reply of ``/dream`` run in the background."""
    return (
        f"**Dream started** in the background at {job.started_at:%H:%M:%S}; "
        "I'll report when it is done (or type `/memory`)."
    )


def render_command_failure(name: str, exc: NanomemError) -> str:
    """Friendly text for a library error while running ``/<name>``."""
    return f"**Could not run `/{name}`:** {exc}"


def render_consolidation(result: ConsolidationResult) -> str:
    """One line for ``nanomem consolidate``.

    >>> from nanomem.consolidate.run import ConsolidationResult
    >>> render_consolidation(ConsolidationResult("under_budget", estimate=120, budget=800))
    'under budget: the prompt is ~120 tokens of 800; nothing to archive'
    """
    if result.status == "under_budget":
        return (f"under budget: the prompt is ~{result.estimate} tokens of "
                f"{result.budget}; nothing to archive")
    if result.status == "archived":
        text = (f"archived {result.archived_messages} messages into history cursors "
                f"{list(result.cursors)} in {result.rounds} round(s); prompt "
                f"~{result.estimate} -> ~{result.estimate_after} tokens "
                f"(budget {result.budget})")
        if result.estimate_after > result.budget:
            text += "; still over budget: run it again"
        return text
    return f"{result.status}: {result.reason or 'see --json for details'}"


def render_init(root: Any, created: Sequence[str], existed: bool, git_dir: Any,
                head: str | None) -> str:
    """What ``nanomem init`` prints."""
    lines = [
        f"Created {len(created)} item(s) in {root}: {', '.join(created)}" if created
        else f"{root} already holds a workspace; nothing copied",
        f"Memory repository {'found' if existed else 'created'} at {git_dir} "
        f"(HEAD {short(head) or 'none'})",
    ]
    if not existed:
        lines.append(f"Next: nanomem -w {root} status")
    return "\n".join(lines)


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
    if health.moved_out:
        lines.append(f"moved out     {health.moved_out} line(s) to {MOVED_MD} since {health.moved_since}")
        lines += [f"              {sanitize_line(text)}" for text in health.moved_newest]
    if health.skipped_for_cap:
        lines.append(f"skipped       {health.skipped_for_cap} fact(s) for a full file since "
                     f"{_time(health.skipped_since)} (search finds them in the history)")
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


def render_not_a_command(text: str, usages: Sequence[str]) -> str:
    """The error of ``nanomem command`` for text that is no nanomem command."""
    return f"{text!r} is not a nanomem command; use one of " + ", ".join(
        f"`{usage}`" for usage in usages
    )



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


def render_moved(old: str, new: str) -> str:
    """The note for an old sha that a forget rewrote.

    >>> render_moved("a" * 40, "b" * 40)
    '`aaaaaaa` was rewritten by a forget; it is now `bbbbbbb`.'
    """
    return f"`{short(old)}` was rewritten by a forget; it is now `{short(new)}`."


_FORGET_HEADLINES = {
    "forgotten": "**Forgotten.**",
    "incomplete": "**Forget incomplete:** the sweep still finds the text.",
    "nothing_found": "**Nothing to forget:** no place holds the text.",
    "dry_run": "**Dry run:** nothing was changed. A real run would remove:",
    "refused": "**Refused:** a pinned line holds the text; nothing was changed.",
}


def render_forget(receipt: Any, limit: int = 20) -> str:
    """Reply for a :class:`~nanomem.forget.receipt.ForgetReceipt`; never shows the text.

    >>> from nanomem.forget.receipt import ForgetReceipt
    >>> print(render_forget(ForgetReceipt("dry_run", {"files": 1}, {"files": ("USER.md line 3",)})))
    **Dry run:** nothing was changed. A real run would remove:
    - files: 1 line
      - USER.md line 3
    """
    lines = [_FORGET_HEADLINES.get(receipt.status, receipt.status)]
    for place, count in receipt.counts.items():
        unit = "file" if place == "index" else "line"  # the derived index goes whole
        lines.append(f"- {place}: {count} {unit}{'s' if count != 1 else ''}")
        lines += _capped(receipt.where.get(place, ()), limit, "  - ")
    git = receipt.where.get("git")
    if git:
        lines.append(f"- git: {git[0]}")
        lines += _capped(git[1:], limit, "  - ")
    if receipt.refused:
        lines.append("Pinned lines that hold it (forget them too with `--include-pinned`):")
        lines += _capped(receipt.refused, limit, "- ")
    if receipt.commit:
        lines.append(f"Receipt: commit `{short(receipt.commit)}` and memory/forget-log.jsonl.")
    if receipt.sha_map:
        first = next(iter(receipt.sha_map.items()))
        lines.append(f"{len(receipt.sha_map)} commits have new shas (e.g. `{short(first[0])}` → "
                     f"`{short(first[1])}`); `/dream-log <old sha>` still finds them.")
    if receipt.status == "incomplete":
        lines.append("Still found in:")
        lines += _capped(receipt.hits, limit, "- ")
    elif receipt.status == "forgotten":
        lines.append("Sweep: every workspace file and every git object searched, zero hits. "
                     "Copies outside this workspace (backups, remotes, logs of a model "
                     "provider) are out of reach.")
    return "\n".join(lines)


def _capped(items: Sequence[str], limit: int, prefix: str) -> list[str]:
    shown = [prefix + item for item in items[:limit]]
    if len(items) > limit:
        shown.append(f"{prefix}… and {len(items) - limit} more")
    return shown
def render_hit(hit: Any, width: int = 300) -> str:
    """One search hit on one line: when, who or where, and the text (cut to ``width``).

    >>> from nanomem.search.rank import Hit
    >>> render_hit(Hit("a:1", "archive", "We painted\\na sunrise.", 1.0, "2026-05-08 14:03", role="user"))
    '[2026-05-08 14:03] user: We painted a sunrise.'
    >>> render_hit(Hit("f:1", "file", "- Lives in Porto", 2.0, path="USER.md", line=4))
    'USER.md:4: - Lives in Porto'
    """
    text = " ".join(hit.text.split())
    if len(text) > width:
        text = text[: width - 1] + "…"
    if hit.source == "file":
        return f"{hit.path}:{hit.line}: {text}"
    when = f"[{hit.timestamp}] " if hit.timestamp else ""
    who = f"history #{hit.cursor}" if hit.source == "history" else hit.speaker
    return f"{when}{who}: {text}"


def render_hits(query: str, hits: Sequence[Any]) -> str:
    """The reply of ``/recall QUERY``."""
    if not hits:
        return (f"**Nothing found for** `{query}`.\nTry other words; names, places and dates "
                "work best.")
    lines = [f"**Recall** `{query}`: {len(hits)} best {'match' if len(hits) == 1 else 'matches'}"]
    lines.extend(f"- {render_hit(hit)}" for hit in hits)
    return "\n".join(lines)

