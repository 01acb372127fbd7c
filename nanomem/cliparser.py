"""The grammar of the ``nanomem`` command line: the argparse tree of every command (DESIGN §8),
with each command's examples and exit codes in its ``--help``.

Pure: it builds a parser and runs nothing; :mod:`nanomem.cli` parses argv with it and runs the
command.

>>> build_parser().parse_args(["-w", "ws", "search", "dentist", "-k", "3"]).k
3
"""

from __future__ import annotations

import argparse

from nanomem import __version__
from nanomem.config import PROVIDERS

_EXAMPLES = {
    "init": "examples:\n  nanomem init ~/agent-ws\n  nanomem init          # the current directory",
    "status": "examples:\n  nanomem status\n  nanomem -w ~/agent-ws status --json",
    "append": 'examples:\n  nanomem append "- [durable] User prefers metric units."',
    "consolidate": (
        "examples:\n  nanomem consolidate sessions/cli.jsonl\n"
        "  nanomem consolidate sessions/cli.jsonl --context-window 8192"
    ),
    "dream": (
        "examples:\n  nanomem dream\n  nanomem dream --dry-run\n"
        "  nanomem dream --replay 4f1c2ab      # re-process the batch of that Dream commit\n"
        "  nanomem dream --provider openai --base-url http://localhost:11434/v1 --model qwen2.5:7b"
    ),
    "doctor": (
        "examples:\n  nanomem doctor\n  nanomem doctor --json\n"
        "exit codes: 0 both stages can run, 1 a stage cannot (the output says why and what to fix)"
    ),
    "log": (
        "examples:\n  nanomem log            # the latest Dream commit\n"
        "  nanomem log 4f1c --json"
    ),
    "restore": (
        "examples:\n  nanomem restore        # list recent versions\n"
        "  nanomem restore 4f1c   # files back to their state before 4f1c"
    ),
    "command": (
        'examples:\n  nanomem command "/dream-log abc1"\n  nanomem command "/memory"\n'
        '  nanomem command "/dream-prompt init"'
    ),
    "watch": (
        "examples:\n  nanomem -w ~/agent-ws watch     # Ctrl-C or SIGTERM stops it cleanly\n"
        "settings: [watch] debounce_seconds, dream_interval_minutes, dream_idle_minutes"
    ),
    "demo": "examples:\n  nanomem demo\n  nanomem demo --keep    # keep the demo workspace",
    "forget": (
        'examples:\n  nanomem forget "Alice Smith" --dry-run   # where it is, nothing changed\n'
        '  nanomem forget "Alice Smith"\n  nanomem forget --regex "KX-[0-9]{4}" --json\n'
        "exit codes: 0 forgotten (the sweep found nothing), 1 the sweep still finds it, "
        "2 refused or usage error"
    ),
    "mcp": (
        "examples:\n  nanomem -w ~/agent-ws mcp     # started by an MCP host, speaks on stdin/stdout\n"
        "needs the optional SDK: pip install 'nanomem[mcp]'; see docs/integrations.md"
    ),
    "pending": (
        "examples:\n  nanomem pending            # the open questions of memory/PENDING.md\n"
        "  nanomem pending --json\n  nanomem pending yes 2      # apply question 2 (confirm: commit)\n"
        "  nanomem pending no 2       # drop it\n"
        "exit codes: 0 answered or listed, 1 not applied (stale or refused), 2 no such question"
    ),
    "search": (
        'examples:\n  nanomem search "support group"\n  nanomem search 北京 -k 3 --json\n'
        '  nanomem search "dentist" --since 2026-05-01 --source archive'
    ),
}


def build_parser() -> argparse.ArgumentParser:
    """The argparse tree of every command (DESIGN §8)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-w", "--workspace", default=argparse.SUPPRESS, metavar="DIR",
        help="workspace directory (default: the current directory)",
    )
    parser = argparse.ArgumentParser(
        prog="nanomem",
        description="File-based long-term memory for LLM agents, versioned with git.",
        epilog="examples:\n  nanomem init ~/agent-ws\n  nanomem -w ~/agent-ws status\n"
        "  nanomem demo\nexit codes: 0 success or nothing to do, 1 failed run, 2 usage error",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-w", "--workspace", default=None, metavar="DIR",
                        help="workspace directory (default: the current directory)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    parser.add_argument("--version", action="version", version=f"nanomem {__version__}")
    sub = parser.add_subparsers(dest="command_name", metavar="COMMAND", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name, help=help_text, description=help_text, parents=[common],
            epilog=_EXAMPLES[name], formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    p = add("init", "copy workspace_template, create the memory repository")
    p.add_argument("dir", nargs="?", metavar="DIR", help="workspace to create (default: -w)")
    p = add("status", "cursors, pending entries, git dir, HEAD, sizes, provider")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("append", "append one history entry (prints the cursor)")
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--session-key", default=None, help="session key stored with the entry")
    p = add("consolidate", "archive old turns of a session file when near the token budget")
    p.add_argument("session", metavar="SESSION.jsonl")
    p.add_argument("--context-window", type=int, default=None, metavar="N")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("dream", "process pending history into the memory files and commit")
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--replay", metavar="SHA", default=None,
                   help="re-process the batch of a Dream commit")
    p.add_argument("--provider", choices=PROVIDERS, default=None,
                   help="engine for this run (default: nanomem.toml / NANOMEM_PROVIDER / offline)")
    p.add_argument("--base-url", default=None, metavar="URL",
                   help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    p.add_argument("--model", default=None, metavar="M", help="model name at that endpoint")
    p = add("log", "show the latest Dream commit, or any commit (same as /dream-log)")
    p.add_argument("sha", nargs="?", metavar="SHA")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("restore", "list versions, or restore files to before SHA (same as /dream-restore)")
    p.add_argument("sha", nargs="?", metavar="SHA")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("search", "search the memory files, the history and every archived turn")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("-k", type=int, default=8, metavar="N", help="how many results (default 8)")
    p.add_argument("--since", default=None, metavar="YYYY-MM-DD", help="said on or after")
    p.add_argument("--until", default=None, metavar="YYYY-MM-DD", help="said on or before")
    p.add_argument("--source", action="append", default=None, choices=("file", "history", "archive"),
                   help="only this source (repeatable)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("pending", "list the questions that wait for you, or answer one (yes N / no N)")
    p.add_argument("answer", nargs="?", choices=("yes", "no"), help="apply (yes) or drop (no)")
    p.add_argument("number", nargs="?", type=int, metavar="N", help="the question's number")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("command", "route any slash command and print its reply")
    p.add_argument("text", metavar='"/command args"')
    add("watch", "daemon: version manual edits, Dream on schedule or idle")
    p = add("doctor", "probe the configured endpoint once per stage and say what works")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p = add("forget", "remove a text from every place it lives, git history included")
    p.add_argument("pattern", metavar="PATTERN", help="the text (case and width ignored)")
    p.add_argument("--regex", action="store_true", help="PATTERN is a regular expression")
    p.add_argument("--dry-run", action="store_true", help="show what would change, change nothing")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--keep-sessions", action="store_true", help="leave sessions/ as they are")
    p.add_argument("--include-pinned", action="store_true",
                   help="forget pinned lines too (refused otherwise)")
    add("mcp", "MCP server over stdio: memory tools and the memory files for any MCP host")
    p = add("demo", "end-to-end run in a temporary workspace, offline")
    p.add_argument("--keep", action="store_true", help="keep the demo workspace afterwards")
    return parser
