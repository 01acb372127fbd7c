"""Slash commands for chat integrations: parse (pure) -> library call -> reply text (pure).

One router serves every host (DESIGN §8)::

    /dream [--dry-run]       run Dream now (or show what it would commit)
    /dream-log [sha]         the latest Dream commit, or any commit by sha
    /dream-restore [sha]     list recent versions, or restore the files to before <sha>
    /dream-prompt [init]     show the active Dream instructions, or make an editable copy
    /memory                  status: cursors, pending entries, file sizes, last Dream

Anything else, plain text and unknown slash commands alike, parses to ``None`` so that the
host agent handles it:

>>> parse_command("/dream-log ABC1")
Command(name='dream-log', sha='abc1', dry_run=False, init=False)
>>> parse_command("hello") is None, parse_command("/help") is None
(True, True)

Replies are short markdown: what happened, the short sha, the files, and what to type next.
Errors a person can fix (an unknown sha, a bad flag) come back as friendly text, never as a
traceback. :func:`run_command` is the only part that does I/O, through the ``Memory`` facade.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from nanomem.errors import CommandError, NanomemError, ShaError

if TYPE_CHECKING:  # pragma: no cover
    from nanomem.memory import Memory

COMMANDS: Mapping[str, str] = {
    "dream": "/dream [--dry-run]",
    "dream-log": "/dream-log [sha]",
    "dream-restore": "/dream-restore [sha]",
    "dream-prompt": "/dream-prompt [init]",
    "memory": "/memory",
}
_SHA = re.compile(r"^[0-9a-f]{4,40}$")
SHORT = 7


@dataclass(frozen=True)
class Command:
    """A parsed slash command."""

    name: str
    sha: str | None = None
    dry_run: bool = False
    init: bool = False


def parse_command(text: str) -> Command | None:
    """Parse one chat message; ``None`` when it is not one of nanomem's commands.

    A known command with bad arguments raises :class:`CommandError` with its usage.
    ``/dream@mybot`` (Telegram style) is accepted as ``/dream``.

    >>> parse_command("/dream --dry-run")
    Command(name='dream', sha=None, dry_run=True, init=False)
    >>> parse_command("/dream-prompt init").init
    True
    """
    if not isinstance(text, str):
        return None
    words = text.strip().split()
    if not words or not words[0].startswith("/"):
        return None
    name = words[0][1:].split("@", 1)[0].lower()
    if name not in COMMANDS:
        return None
    args = words[1:]
    usage = f"usage: `{COMMANDS[name]}`"
    if name == "dream":
        if args not in ([], ["--dry-run"]):
            raise CommandError(f"`/dream` takes only `--dry-run`; {usage}")
        return Command(name, dry_run=bool(args))
    if name in ("dream-log", "dream-restore"):
        if len(args) > 1:
            raise CommandError(f"`/{name}` takes at most one sha; {usage}")
        if not args:
            return Command(name)
        sha = args[0].lower()
        if not _SHA.match(sha):
            raise CommandError(
                f"`{args[0]}` is not a sha (4 to 40 hex digits); {usage}, e.g. `/{name} abc1`"
            )
        return Command(name, sha=sha)
    if name == "dream-prompt":
        if args not in ([], ["init"]):
            raise CommandError(f"`/dream-prompt` takes only `init`; {usage}")
        return Command(name, init=bool(args))
    if args:
        raise CommandError(f"`/memory` takes no arguments; {usage}")
    return Command(name)


async def run_command(memory: "Memory", command: Command) -> str:
    """Execute ``command`` through ``memory`` and render the reply; user errors become text."""
    try:
        if command.name == "dream":
            result = await memory.adream(dry_run=command.dry_run)
            return render_dream(result)
        if command.name == "dream-log":
            info = memory.log(command.sha)
            return render_log(info) if info is not None else render_no_dream()
        if command.name == "dream-restore":
            if command.sha is None:
                return render_versions(memory.versions())
            return render_restore(memory.restore(command.sha))
        if command.name == "dream-prompt":
            if command.init:
                path, created = memory.init_dream_prompt()
                return render_prompt_init(path, created)
            text, source = memory.dream_prompt()
            return render_prompt(text, source)
        return render_status(memory.status())
    except ShaError as exc:
        return render_sha_error(exc)
    except NanomemError as exc:
        return f"**Could not run `/{command.name}`:** {exc}"


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


def render_dream(result: Any) -> str:
    """Reply for a :class:`~nanomem.dream.run.DreamResult`."""
    status = result.status
    before, after = result.dream_cursor_before, result.dream_cursor_after
    accepted = result.accepted if isinstance(result.accepted, int) else len(result.accepted)
    refused = tuple(result.refused)
    counts = f"{accepted} edit(s) accepted, {len(refused)} refused"
    if status == "committed":
        sha = short(result.commit)
        return (
            f"**Dream committed `{sha}`** (entries up to cursor {after}; {counts})."
            f"{_refusals(refused)}\n"
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


def render_no_dream() -> str:
    """Reply of ``/dream-log`` before the first Dream."""
    return "No Dream commit yet. Run `/dream` to process the history."


def render_log(info: Any) -> str:
    """Reply for one commit (:class:`~nanomem.versions.gitstore.CommitInfo`)."""
    sha = short(info.sha)
    body = (info.body or "").split("\nDiff:\n", 1)[0].strip()  # the diff is shown below
    lines = [f"**`{sha}`** {info.subject}", f"{_time(info.time)} · {_files(info.files)}"]
    if body:
        lines.append("")
        lines.append(body)
    text = "\n".join(lines) + _diff_block(info.diff)
    return text + f"\nUndo with `/dream-restore {sha}`."


def render_versions(commits: Sequence[Any]) -> str:
    """Reply of ``/dream-restore`` without a sha: recent versions to choose from."""
    if not commits:
        return "No versions yet. Memory is versioned from the first `nanomem init` or `/dream`."
    lines = ["**Recent versions** (newest first):"]
    lines += [f"- `{short(c.sha)}` {_time(c.time)} {c.subject}" for c in commits]
    lines.append(
        f"Restore the files to before one with `/dream-restore {short(commits[0].sha)}`."
    )
    return "\n".join(lines)


def render_restore(result: Any) -> str:
    """Reply for a :class:`~nanomem.versions.gitstore.RestoreResult`."""
    target = short(result.target)
    manual = getattr(result, "manual", None)
    saved = (
        f"Your unsaved hand edits were kept first as `{short(manual.sha)}`.\n" if manual else ""
    )
    if result.status != "restored" or result.commit is None:
        return saved + f"Memory already matches the state before `{target}`; nothing to restore."
    commit = short(result.commit.sha)
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


def render_status(status: Mapping[str, Any]) -> str:
    """Reply of ``/memory`` for :meth:`Memory.status`."""
    lines = [
        "**Memory status**",
        f"- history: cursor {status['cursor']}, dream cursor {status['dream_cursor']}, "
        f"{status['pending']} pending",
    ]
    for rel, size in status.get("files", {}).items():
        flag = " **over cap**" if size["chars"] > size["cap"] else ""
        lines.append(f"- `{rel}` {size['chars']:,}/{size['cap']:,} chars{flag}")
    if status.get("uncommitted"):
        files = ", ".join(f"`{rel}`" for rel in status["uncommitted"])
        lines.append(f"- hand edits not yet versioned: {files}")
    last = status.get("last_dream")
    if last:
        sha, when = short(last["sha"]), _time(last["time"])
        lines.append(f"- last Dream: `{sha}` {when} {last['subject']}")
    else:
        lines.append("- last Dream: none yet")
    running = status.get("dream_running")
    if running:
        lines.append("- a Dream is running now")
    job = status.get("background_dream")
    if job:
        lines.append(f"- background Dream: {job}")
    model = f" ({status['model']})" if status.get("model") else ""
    lines.append(f"- provider: {status['provider']}{model}")
    for line in render_provider_notes(status.get("provider_notes") or {}):
        lines.append(f"- provider note: {line}")
    lines.append(f"- git: `{status['git_dir']}` HEAD `{short(status['head']) or 'none'}`")
    if status["pending"]:
        lines.append("Type `/dream` to process the pending entries.")
    return "\n".join(lines)


def render_provider_notes(notes: Mapping[str, Any]) -> list[str]:
    """One line per remembered endpoint quirk (``{base_url: {"refused": {field: message}}}``).

    >>> render_provider_notes({"http://h/v1": {"refused": {"tool_choice": "unsupported"}}})
    ['http://h/v1 refused `tool_choice` (unsupported); it is no longer sent']
    """
    lines = []
    for url, note in notes.items():
        refused = note.get("refused", {}) if isinstance(note, Mapping) else {}
        for field, message in refused.items():
            lines.append(f"{url} refused `{field}` ({message}); it is no longer sent")
    return lines


def render_sha_error(exc: ShaError) -> str:
    """Friendly text for an unknown or ambiguous sha (the message lists the candidates)."""
    if getattr(exc, "candidates", ()):
        return f"**{exc}**\nType more hex digits to pick one; nothing was changed."
    return f"**{exc}**\nList recent versions with `/dream-restore`."


def render_command_error(exc: CommandError) -> str:
    """Friendly text for a known command with bad arguments."""
    return f"**{exc}**"


def _time(value: Any) -> str:
    """``2026-11-30 16:40`` from a datetime or an ISO-8601 string (other text unchanged)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)
