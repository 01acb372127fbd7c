"""The ``nanomem`` command line: a pure function of argv (``main(argv) -> exit code``).

Exit codes (DESIGN §8): 0 success or nothing to do; 1 a failed run; 2 a usage or
configuration error (argparse errors and every :class:`NanomemError` with ``exit_code`` 2).
This is the only module that prints. User mistakes get one line on stderr, never a
traceback; ``--debug`` shows the traceback of an unexpected error. The grammar (every
command, its options and examples) is :func:`nanomem.cliparser.build_parser`; this module runs
what it parses: one handler per command, the output forms and the logging of one run.

>>> main(["--version"])  # doctest: +SKIP
nanomem 0.1.0
0
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from nanomem import recallreplies, replies, statusreplies
from nanomem.cliparser import build_parser as build_parser  # the grammar; re-exported
from nanomem.config import load_config
from nanomem.errors import CommandError, NanomemError
from nanomem.records import to_json
from nanomem.text.sanitize import sanitize_json, sanitize_terminal

if TYPE_CHECKING:  # each command imports what it needs: `nanomem status` never loads dulwich
    from nanomem.memory import Memory

_Handler = Callable[[argparse.Namespace, TextIO, TextIO], int]


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the CLI; return the exit code (never raises, never calls ``sys.exit``)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version or a usage error
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with _cli_logging(args, err):
            return _HANDLERS[args.command_name](args, out, err)
    except NanomemError as exc:
        print(sanitize_terminal(f"nanomem {args.command_name}: error: {exc}"), file=err)
        return exc.exit_code
    except KeyboardInterrupt:
        print("nanomem: interrupted", file=err)
        return 130
    except BrokenPipeError:  # `nanomem log | head`: the reader left; stop quietly like git
        _silence_stdout(out)
        return 141
    except Exception as exc:  # the one catch-all (STYLE: only at the top of main)
        if args.debug:
            traceback.print_exc(file=err)
        print(
            f"nanomem {args.command_name}: internal error: {type(exc).__name__}: {exc}; "
            "rerun with --debug for the traceback and please report it",
            file=err,
        )
        return 1


def _silence_stdout(out: TextIO) -> None:
    if out is sys.stdout:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass


class _TerminalFormatter(logging.Formatter):
    """Log lines for the terminal: a record may quote a model or a server, so every control
    character but newline and tab is escaped (``nanomem.text.sanitize``)."""

    def format(self, record: logging.LogRecord) -> str:
        return sanitize_terminal(super().format(record))


@contextlib.contextmanager
def _cli_logging(args: argparse.Namespace, err: TextIO) -> Iterator[None]:
    """Send nanomem's log records to ``err`` for the duration of one command, then undo it."""
    level = logging.DEBUG if args.debug else (
        logging.INFO if args.command_name == "watch" else logging.WARNING
    )
    logger = logging.getLogger("nanomem")
    handler = logging.StreamHandler(err)
    handler.setLevel(level)
    handler.setFormatter(_TerminalFormatter("nanomem: %(levelname)s %(message)s"))
    old_level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > level:
        logger.setLevel(level)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def _root(args: argparse.Namespace) -> Path:
    return Path(getattr(args, "workspace", None) or ".").expanduser()


def _workspace_dir(args: argparse.Namespace) -> Path:
    root = _root(args)
    if not root.is_dir():
        raise CommandError(f"{root}: no such workspace directory; run `nanomem init {root}`")
    return root


def _memory(args: argparse.Namespace, overrides: dict[str, Any] | None = None) -> Memory:
    from nanomem.memory import Memory

    root = _workspace_dir(args)
    return Memory(root, config=load_config(root, overrides=overrides))


def _print_json(record: Any, out: TextIO) -> None:
    """``--json``: the one JSON form of a result record (:func:`nanomem.records.to_json`)."""
    text = json.dumps(to_json(record), ensure_ascii=False, indent=2, sort_keys=True)
    print(sanitize_json(text), file=out)


def _show(text: str, out: TextIO) -> None:
    """Print a reply that may quote model text or memory files: no control character reaches
    the terminal except newlines and tabs (``nanomem.text.sanitize``)."""
    print(sanitize_terminal(text), file=out)


def _print_record(args: argparse.Namespace, record: Any, render: Callable[[], str],
                  out: TextIO) -> None:
    """A command's result: its JSON form with ``--json``, else the reply ``render()`` writes."""
    if args.json:
        _print_json(record, out)
    else:
        _show(render(), out)


def cmd_init(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from nanomem.store.workspace import init_workspace
    from nanomem.versions.gitstore import GitStore, locate_git_dir

    root = Path(args.dir).expanduser() if args.dir else _root(args)
    created = init_workspace(root)
    config = load_config(root)
    existed = locate_git_dir(root.absolute())[0].is_dir()
    store = GitStore.open(root, config)
    try:
        head = store.head()
        git_dir = store.git_dir
    finally:
        store.close()
    print(replies.render_init(root, created, existed, git_dir, head), file=out)
    return 0


def cmd_status(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from nanomem.status import read_workspace_status  # Memory.status without the facade

    root = _workspace_dir(args)
    status = read_workspace_status(root, load_config(root))
    if args.json:
        _print_json(status, out)
        return 0
    _show(statusreplies.render_status_text(status), out)
    return 0


def cmd_append(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not args.text.strip():
        raise CommandError("TEXT is empty; give the text of the history entry, e.g. "
                           "nanomem append \"- [durable] User prefers metric units.\"")
    with _memory(args) as mem:
        cursor = mem.history.append(args.text, session_key=args.session_key)
    print(cursor, file=out)
    return 0


def cmd_consolidate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    path = Path(args.session).expanduser()
    if not path.is_file():
        raise CommandError(f"{path}: no such session file; give the path of a sessions/*.jsonl")
    with _memory(args) as mem:
        result = mem.consolidate(path, context_window=args.context_window)
    _print_record(args, result, lambda: replies.render_consolidation(result), out)
    return 1 if result.status == "failed" else 0


def cmd_doctor(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import asyncio

    from nanomem.doctor import run_doctor  # lazy: only this command probes an endpoint

    root = _root(args)
    if not root.is_dir():
        raise CommandError(f"{root}: no such workspace directory; run `nanomem init {root}`")
    report = asyncio.run(run_doctor(load_config(root), root))
    _print_record(args, report, lambda: statusreplies.render_doctor(report), out)
    return 0 if report.ok else 1


def cmd_dream(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    overrides = {"provider": args.provider, "base_url": args.base_url, "model": args.model}
    progress = _progress_printer(err) if _is_tty(err) else None
    with _memory(args, overrides) as mem:
        result = mem.dream(dry_run=args.dry_run, replay_sha=args.replay, progress=progress)
    _print_record(args, result, lambda: replies.render_dream(result), out)
    return 1 if result.status == "failed" else 0


def cmd_log(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _memory(args) as mem:
        info = mem.log(args.sha)
    _print_record(args, info,
                  lambda: replies.render_log(info) if info else replies.render_no_dream(), out)
    return 0


def cmd_restore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _memory(args) as mem:
        if args.sha is None:
            versions = mem.versions()
            _print_record(args, versions, lambda: replies.render_versions(versions), out)
            return 0
        result = mem.restore(args.sha)
    _print_record(args, result, lambda: replies.render_restore(result), out)
    return 0


def cmd_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from nanomem import commands

    command = commands.parse_command(args.text)
    if command is None:
        raise CommandError(replies.render_not_a_command(args.text, list(commands.COMMANDS.values())))
    with _memory(args) as mem:
        reply = mem.handle_command(args.text)
    _show(reply or "", out)
    return 0


def cmd_watch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from nanomem.watch import run_watch

    with _memory(args) as mem:
        run_watch(mem, on_ready=lambda: print(
            f"nanomem: watching {mem.workspace.root} (Ctrl-C to stop)", file=err, flush=True))
    print("nanomem: watch stopped", file=err)
    return 0


def cmd_forget(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _memory(args) as mem:
        receipt = mem.forget(args.pattern, regex=args.regex, dry_run=args.dry_run,
                             keep_sessions=args.keep_sessions, include_pinned=args.include_pinned)
    if args.json:
        _print_json(receipt, out)
    else:
        print(recallreplies.render_forget(receipt), file=out)
    if receipt.status == "refused":
        return 2
    return 0 if receipt.ok else 1


def cmd_mcp(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        import mcp.server.lowlevel  # noqa: F401  (the optional extra)
    except ImportError as exc:
        raise CommandError(
            f"the MCP server needs the optional mcp SDK ({exc.name or 'mcp'} is not installed); "
            "install it with: pip install 'nanomem[mcp]'"
        ) from exc
    from nanomem.mcp_server import serve

    with _memory(args) as mem:
        serve(mem)
    return 0


def cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from nanomem.demo import run_demo

    return run_demo(out, keep=args.keep)


def cmd_pending(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if (args.answer is None) != (args.number is None) or (args.number is not None and args.number < 1):
        raise CommandError("give both the answer and the question's number, e.g. "
                           "`nanomem pending yes 1`, or neither to list the questions")
    with _memory(args) as mem:
        if args.answer is None:
            questions = mem.pending_questions()
            _print_record(args, list(questions), lambda: replies.render_questions(questions), out)
            return 0
        result = mem.answer(args.number, yes=args.answer == "yes")
    _print_record(args, result, lambda: replies.render_answer(result), out)
    return {"applied": 0, "dropped": 0, "not_found": 2}.get(result.status, 1)


def cmd_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with _memory(args) as mem:
        try:
            hits = mem.search(args.query, k=args.k, since=args.since, until=args.until,
                              sources=args.source)
        except ValueError as exc:  # a bad -k, --since or --until: a usage error
            raise CommandError(str(exc)) from exc
    if args.json:
        _print_json(hits, out)
        return 0
    print(recallreplies.render_hits(args.query, hits) if hits else
          f"nothing found for {args.query!r}", file=out)
    return 0


_HANDLERS: dict[str, _Handler] = {
    "init": cmd_init,
    "status": cmd_status,
    "append": cmd_append,
    "consolidate": cmd_consolidate,
    "dream": cmd_dream,
    "log": cmd_log,
    "restore": cmd_restore,
    "command": cmd_command,
    "watch": cmd_watch,
    "doctor": cmd_doctor,
    "mcp": cmd_mcp,
    "demo": cmd_demo,
    "forget": cmd_forget,
    "search": cmd_search,
    "pending": cmd_pending,
}


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _progress_printer(err: TextIO) -> Callable[..., None]:
    def progress(*event: Any, **fields: Any) -> None:
        text = " ".join(str(part) for part in event)
        if fields:
            text += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        print(sanitize_terminal(f"  dream: {text}"), file=err, flush=True)

    return progress
