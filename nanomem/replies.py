"""The reply texts nanomem shows a person, for chat (slash commands) and the CLI (pure).

The facade (:mod:`nanomem.memory`) returns records; the faces (:mod:`nanomem.commands`,
:mod:`nanomem.cli`, :mod:`nanomem.watch`) turn them into text here. Replies are short
markdown: what happened, the short sha, the files, and what to type next. This module holds
the replies about Dream, versions, questions and commands, and the pieces every reply shares
(:func:`short`, :func:`render_time`); what ``/memory``, ``status`` and ``doctor`` say is in
:mod:`nanomem.statusreplies`, what search, ``/recall`` and forget say in
:mod:`nanomem.recallreplies`.

>>> render_no_dream()
'No Dream commit yet. Run `/dream` to process the history.'
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from nanomem.errors import CommandError, NanomemError, ShaError

if TYPE_CHECKING:
    from nanomem.consolidate.run import ConsolidationResult
    from nanomem.dream.run import DreamResult
    from nanomem.jobs import DreamJob
    from nanomem.versions.commits import CommitInfo, RestoreResult

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
    lines = [f"**`{sha}`** {info.subject}", f"{render_time(info.time)} · {_files(info.files)}"]
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
    lines += [f"- `{short(c.sha)}` {render_time(c.time)} {c.subject}" for c in commits]
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


def render_sha_error(exc: ShaError) -> str:
    """Friendly text for an unknown or ambiguous sha (the message lists the candidates)."""
    if getattr(exc, "candidates", ()):
        return f"**{exc}**\nType more hex digits to pick one; nothing was changed."
    return f"**{exc}**\nList recent versions with `/dream-restore`."


def render_command_error(exc: CommandError) -> str:
    """Friendly text for a known command with bad arguments."""
    return f"**{exc}**"


def render_time(value: Any, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``2026-11-30 16:40`` from a datetime or an ISO-8601 string (other text unchanged)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime):
        return value.strftime(fmt)
    return str(value)


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


def render_not_a_command(text: str, usages: Sequence[str]) -> str:
    """The error of ``nanomem command`` for text that is no nanomem command."""
    return f"{text!r} is not a nanomem command; use one of " + ", ".join(
        f"`{usage}`" for usage in usages
    )


def render_moved(old: str, new: str) -> str:
    """The note for an old sha that a forget rewrote.

    >>> render_moved("a" * 40, "b" * 40)
    '`aaaaaaa` was rewritten by a forget; it is now `bbbbbbb`.'
    """
    return f"`{short(old)}` was rewritten by a forget; it is now `{short(new)}`."
