"""Slash commands for chat integrations: parse (pure) -> library call -> reply text (pure).

One router serves every host (DESIGN §8)::

    /dream [--dry-run]       run Dream now (or show what it would commit)
    /dream-log [sha]         the latest Dream commit, or any commit by sha
    /dream-restore [sha]     list recent versions, or restore the files to before <sha>
    /dream-prompt [init]     show the active Dream instructions, or make an editable copy
    /memory                  status: cursors, pending entries, file sizes, last Dream, questions
    /memory pending          the open questions of memory/PENDING.md
    /memory moved            every line Dream moved out of a full file (memory/MOVED.md)
    /memory yes N | no N     answer question N: apply its edit, or drop it (``confirm:``)
    /remember [mark] TEXT    append a fact to history now, for the next Dream
    /forget [--dry-run] TEXT remove every line holding TEXT everywhere, git history included
    /recall QUERY            search everything remembered: memory files, history, past turns

Anything else, plain text and unknown slash commands alike, parses to ``None`` so that the
host agent handles it:

>>> parse_command("/dream-log ABC1")
Command(name='dream-log', sha='abc1', dry_run=False, init=False, text=None, number=None)
>>> parse_command("hello") is None, parse_command("/help") is None
(True, True)

The reply texts live in :mod:`nanomem.replies`. Errors a person can fix (an unknown sha, a bad
flag) come back as friendly text, never as a traceback. :func:`run_command` and
:func:`handle_command` are the only parts that do I/O, through the ``Memory`` facade; the facade
itself never renders (``Memory.handle_command`` is this module's :func:`handle_command`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from nanomem import recallreplies, replies, statusreplies
from nanomem.errors import CommandError, NanomemError, ShaError
from nanomem.jobs import DreamJob, run_sync
from nanomem.memory import Memory
from nanomem.movedlist import render_moved_list

COMMANDS: Mapping[str, str] = {
    "dream": "/dream [--dry-run]",
    "dream-log": "/dream-log [sha]",
    "dream-restore": "/dream-restore [sha]",
    "dream-prompt": "/dream-prompt [init]",
    "memory": "/memory [pending | moved | yes N | no N]",
    "remember": "/remember [permanent|durable|ephemeral|correction] TEXT",
    "forget": "/forget [--dry-run] TEXT",
    "recall": "/recall QUERY",
}
_SHA = re.compile(r"^[0-9a-f]{4,40}$")
RECALL_K = 8


@dataclass(frozen=True)
class Command:
    """A parsed slash command."""

    name: str
    sha: str | None = None
    dry_run: bool = False
    init: bool = False
    text: str | None = None
    number: int | None = None  # the question of ``/memory yes N`` / ``/memory no N``


def parse_command(text: str) -> Command | None:
    """Parse one chat message; ``None`` when it is not one of nanomem's commands.

    A known command with bad arguments raises :class:`CommandError` with its usage.
    ``/dream@mybot`` (Telegram style) is accepted as ``/dream``.

    >>> parse_command("/dream --dry-run")
    Command(name='dream', sha=None, dry_run=True, init=False, text=None, number=None)
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
    if name == "remember":
        rest = text.strip()[len(words[0]):].strip()
        if not rest:
            raise CommandError(f"`/remember` needs the fact to remember; {usage}, "
                               "e.g. `/remember [permanent] Allergic to peanuts.`")
        return Command(name, text=rest)
    if name == "forget":
        dry_run = bool(args) and args[0] == "--dry-run"
        text = " ".join(args[1:] if dry_run else args)
        if not text.strip():
            raise CommandError(f"`/forget` needs the text to forget; {usage}, e.g. "
                               "`/forget my old address`")
        return Command(name, dry_run=dry_run, text=text)
    if name == "recall":
        if not args:
            raise CommandError(f"`/recall` needs something to look for; {usage}, e.g. "
                               "`/recall dentist appointment`")
        return Command(name, text=text.strip().split(None, 1)[1])
    if name == "dream-prompt":
        if args not in ([], ["init"]):
            raise CommandError(f"`/dream-prompt` takes only `init`; {usage}")
        return Command(name, init=bool(args))
    return _parse_memory(args, usage)


def _parse_memory(args: list[str], usage: str) -> Command:
    """``/memory``, ``/memory pending``, ``/memory moved``, ``/memory yes N``, ``/memory no N``.

    >>> _parse_memory(["yes", "3"], "").number, _parse_memory(["pending"], "").text
    (3, 'pending')
    """
    if not args:
        return Command("memory")
    word = args[0].lower()
    if word in ("pending", "moved") and len(args) == 1:
        return Command("memory", text=word)
    if word in ("yes", "no") and len(args) == 2 and args[1].isdigit() and int(args[1]) >= 1:
        return Command("memory", text=word, number=int(args[1]))
    if word in ("yes", "no"):
        raise CommandError(f"`/memory {word}` needs the number of a question; {usage}, e.g. "
                           f"`/memory {word} 1` (`/memory pending` lists them)")
    raise CommandError(f"`/memory` takes `pending`, `moved`, `yes N` or `no N`; {usage}")


async def run_command(memory: Memory, command: Command) -> str:
    """Execute ``command`` through ``memory`` and render the reply; user errors become text."""
    try:
        if command.name == "dream":
            return replies.render_dream(await memory.adream(dry_run=command.dry_run))
        if command.name == "dream-log":
            info = memory.log(command.sha)
            return replies.render_log(info) if info is not None else replies.render_no_dream()
        if command.name == "dream-restore":
            if command.sha is None:
                return replies.render_versions(memory.versions())
            return replies.render_restore(memory.restore(command.sha))
        if command.name == "forget":
            return recallreplies.render_forget(memory.forget(command.text or "",
                                                       dry_run=command.dry_run))
        if command.name == "dream-prompt":
            if command.init:
                path, created = memory.init_dream_prompt()
                return replies.render_prompt_init(path, created)
            text, source = memory.dream_prompt()
            return replies.render_prompt(text, source)
        if command.name == "recall" and command.text is not None:
            return recallreplies.render_hits(command.text, memory.search(command.text, k=RECALL_K))
        if command.name == "remember":
            return replies.render_remembered(memory.remember(command.text or ""))
        if command.text == "pending":
            return replies.render_questions(memory.pending_questions())
        if command.text == "moved":
            return render_moved_list(memory.moved_lines())
        if command.number is not None:
            return replies.render_answer(memory.answer(command.number, yes=command.text == "yes"))
        return statusreplies.render_status(memory.status(), usages=list(COMMANDS.values()))
    except ShaError as exc:
        return replies.render_sha_error(exc)
    except NanomemError as exc:
        return replies.render_command_failure(command.name, exc)


async def ahandle_command(memory: Memory, text: str) -> str | None:
    """Route one chat message; ``None`` when ``text`` is not one of nanomem's commands.

    ``/dream`` is awaited to the end here; run it as a task to keep chatting meanwhile.
    """
    try:
        command = parse_command(text)
    except CommandError as exc:
        return replies.render_command_error(exc)
    if command is None:
        return None
    return await run_command(memory, command)


def handle_command(
    memory: Memory,
    text: str,
    *,
    background: bool = False,
    on_done: Callable[[str], None] | None = None,
) -> str | None:
    """Sync :func:`ahandle_command`. With ``background=True`` a ``/dream`` starts on a
    background thread and returns at once; ``on_done(reply)`` gets the final reply."""
    if background:
        try:
            command = parse_command(text)
        except CommandError as exc:
            return replies.render_command_error(exc)
        if command is not None and command.name == "dream" and not command.dry_run:
            notify = None
            if on_done is not None:
                def notify(job: DreamJob, _send: Callable[[str], None] = on_done) -> None:
                    _send(replies.render_job(job))
            return replies.render_job_started(memory.start_dream(on_done=notify))
    return run_sync(lambda: ahandle_command(memory, text))
