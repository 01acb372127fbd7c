"""``nanomem mcp``: the workspace's memory as an MCP server over stdio (a face, like the CLI).

Any MCP host (Claude Desktop, Claude Code, Cursor, nanobot's MCP client …) starts it as a
subprocess and gets these tools, each with a JSON schema and a plain-text result::

    memory_search(query, k, …)     ranked hits from the memory files, the history and past turns
    memory_context(budget, query)  the memory block for a prompt, within a token budget
    memory_remember(text, mark)    append one fact to the history now, for the next Dream
    dream(dry_run)                 run Dream (single-flight: a second one answers "already running")
    dream_log(sha)                 the latest Dream commit, or any commit by sha
    dream_restore(sha)             list versions, or restore the files to before <sha>
    memory_status()                cursors, pending entries, file sizes, the last Dream

and the three memory files as read-only resources (``nanomem://SOUL.md``, ``nanomem://USER.md``,
``nanomem://memory/MEMORY.md``). Arguments are checked with jsonschema; a bad argument, an
unknown sha or any nanomem error comes back as an MCP tool error carrying the same one-line
message as the CLI. The server never crashes on a request.

The dispatch (:func:`call_tool`, :func:`read_resource`) needs only a :class:`Memory`; the
official ``mcp`` SDK, an optional extra (``pip install 'nanomem[mcp]'``), is imported only by
:func:`build_server` and :func:`serve`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from nanomem import __version__, recallreplies, replies, statusreplies
from nanomem.errors import CommandError, NanomemError
from nanomem.memory import Memory
from nanomem.search.tools import REMEMBER_SCHEMA, SEARCH_SCHEMA
from nanomem.vocab import MEMORY_FILES

log = logging.getLogger(__name__)

URI_SCHEME = "nanomem://"
INSTALL_HINT = "pip install 'nanomem[mcp]'"


@dataclass(frozen=True)
class ToolReply:
    """The plain-text result of one tool call; ``is_error`` makes it an MCP tool error."""

    text: str
    is_error: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its name, what it does (for the model) and its JSON schema."""

    name: str
    description: str
    schema: Mapping[str, Any]


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


_SHA = {"type": "string", "minLength": 1, "maxLength": 64,
        "description": "a commit sha: any unique prefix of 4 or more hex digits"}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "memory_search",
        "Search everything remembered: the memory files, the history and every archived "
        "conversation turn, word for word, with dates and speakers. Use it when the answer may "
        "lie in an earlier conversation (what was said, when, by whom).",
        SEARCH_SCHEMA,
    ),
    ToolSpec(
        "memory_context",
        "The memory block to put in a system prompt, within `budget` tokens: pinned lines, the "
        "memory-file lines most relevant to `query`, pending facts, recalled turns with their "
        "dates; every cut is announced.",
        _schema({"budget": {"type": "integer", "minimum": 1, "maximum": 1_000_000,
                            "default": 1500, "description": "token budget of the block"},
                 "query": {"type": "string",
                           "description": "what the conversation is about (optional)"}}),
    ),
    ToolSpec(
        "memory_remember",
        "Remember one fact now: it is appended to the history and the next Dream files it into "
        "the memory files. Mark it permanent (never expires), durable (the default), ephemeral "
        "(short-lived) or correction (replaces an earlier fact).",
        REMEMBER_SCHEMA,
    ),
    ToolSpec(
        "dream",
        "Run Dream: turn the pending history into edits of the memory files, checked by code, "
        "and commit them. With dry_run, show the diff it would commit and change nothing.",
        _schema({"dry_run": {"type": "boolean", "default": False}}),
    ),
    ToolSpec(
        "dream_log",
        "Show the latest Dream commit (what changed and what was refused), or any commit by sha.",
        _schema({"sha": _SHA}),
    ),
    ToolSpec(
        "dream_restore",
        "Without sha, list recent versions of the memory files; with sha, restore the files to "
        "their state just before that commit (recorded as a new commit, itself restorable).",
        _schema({"sha": _SHA}),
    ),
    ToolSpec(
        "memory_status",
        "Memory status: cursors, pending history entries, file sizes against their caps, the "
        "last Dream, the provider.",
        _schema({}),
    ),
)
_BY_NAME = {spec.name: spec for spec in TOOLS}
_VALIDATORS = {spec.name: jsonschema.Draft202012Validator(spec.schema) for spec in TOOLS}


def check_arguments(name: str, arguments: Any) -> dict[str, Any]:
    """The arguments of a call to tool ``name``, checked against its schema, or
    :class:`~nanomem.errors.CommandError` saying what is wrong (pure).

    >>> check_arguments("memory_remember", {"text": "Prefers tea.", "mark": "durable"})
    {'text': 'Prefers tea.', 'mark': 'durable'}
    >>> check_arguments("memory_context", {"budget": 0})
    Traceback (most recent call last):
    ...
    nanomem.errors.CommandError: bad arguments at budget: 0 is less than the minimum of 1; see the tool's input schema
    """
    if name not in _BY_NAME:
        raise CommandError(
            f"unknown tool {name!r}; the tools are {', '.join(spec.name for spec in TOOLS)}"
        )
    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, dict):
        raise CommandError(f"arguments must be an object, not {type(arguments).__name__}")
    error = jsonschema.exceptions.best_match(_VALIDATORS[name].iter_errors(arguments))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        raise CommandError(
            f"bad arguments{f' at {where}' if where else ''}: {error.message}; "
            "see the tool's input schema"
        )
    return arguments


async def call_tool(memory: Memory, name: str, arguments: Any) -> ToolReply:
    """Run one tool call; never raises: every failure is a :class:`ToolReply` error whose text
    is the CLI's one-line message (``<tool>: error: <what failed and what to do>``)."""
    try:
        args = check_arguments(name, arguments)
        return await _HANDLERS[name](memory, args)
    except NanomemError as exc:
        return ToolReply(f"{name}: error: {exc}", is_error=True)
    except Exception as exc:  # the server must outlive any request (like cli.main's catch-all)
        log.exception("MCP tool %s failed", name)
        return ToolReply(
            f"{name}: internal error: {type(exc).__name__}: {exc}; please report it",
            is_error=True,
        )


async def _search(memory: Memory, args: dict[str, Any]) -> ToolReply:
    hits = memory.search(args["query"], k=args.get("k", 8), since=args.get("since"),
                         until=args.get("until"), sources=args.get("sources"))
    return ToolReply(recallreplies.render_hits(args["query"], hits))


async def _context(memory: Memory, args: dict[str, Any]) -> ToolReply:
    return ToolReply(memory.context(args.get("budget", 1500), query=args.get("query") or None))


async def _remember(memory: Memory, args: dict[str, Any]) -> ToolReply:
    return ToolReply(replies.render_remembered(memory.remember(args["text"], mark=args.get("mark"))))


async def _dream(memory: Memory, args: dict[str, Any]) -> ToolReply:
    result = await memory.adream(dry_run=bool(args.get("dry_run", False)))
    return ToolReply(replies.render_dream(result), is_error=result.status == "failed")


async def _log(memory: Memory, args: dict[str, Any]) -> ToolReply:
    info = memory.log(args.get("sha"))
    return ToolReply(replies.render_log(info) if info is not None else replies.render_no_dream())


async def _restore(memory: Memory, args: dict[str, Any]) -> ToolReply:
    if args.get("sha") is None:
        return ToolReply(replies.render_versions(memory.versions()))
    return ToolReply(replies.render_restore(memory.restore(args["sha"])))


async def _status(memory: Memory, args: dict[str, Any]) -> ToolReply:
    return ToolReply(statusreplies.render_status(memory.status()))


_HANDLERS: dict[str, Callable[[Memory, dict[str, Any]], Awaitable[ToolReply]]] = {
    "memory_search": _search,
    "memory_context": _context,
    "memory_remember": _remember,
    "dream": _dream,
    "dream_log": _log,
    "dream_restore": _restore,
    "memory_status": _status,
}


def resource_uris() -> dict[str, str]:
    """``{uri: relative path}`` of the memory files served as resources."""
    return {f"{URI_SCHEME}{rel}": rel for rel in MEMORY_FILES}


def read_resource(memory: Memory, uri: str) -> str:
    """The text of one memory file (empty when it does not exist yet), as the prompt block
    reads it; :class:`~nanomem.errors.CommandError` for a URI that is not one of the three."""
    rel = resource_uris().get(uri)
    if rel is None:
        raise CommandError(
            f"unknown resource {uri!r}; the resources are {', '.join(resource_uris())}"
        )
    return memory.read_files().get(rel, "")


def build_server(memory: Memory) -> Any:
    """The MCP ``Server`` (the SDK's low-level server) wired to ``memory``."""
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name=spec.name, description=spec.description,
                       input_schema=dict(spec.schema))
            for spec in TOOLS
        ])

    async def on_call(ctx: Any, params: Any) -> Any:
        reply = await call_tool(memory, params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=reply.text)],
                                    is_error=reply.is_error)

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[
            types.Resource(name=rel, uri=uri, mime_type="text/markdown",
                           description=f"{rel}, read-only (Dream and people edit it)")
            for uri, rel in resource_uris().items()
        ])

    async def on_read(ctx: Any, params: Any) -> Any:
        try:
            text = read_resource(memory, str(params.uri))
        except CommandError as exc:
            raise MCPError(types.INVALID_PARAMS, f"resources/read: error: {exc}") from exc
        except NanomemError as exc:
            raise MCPError(types.INTERNAL_ERROR, f"resources/read: error: {exc}") from exc
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=str(params.uri), mime_type="text/markdown", text=text)
        ])

    return Server(
        "nanomem", version=__version__,
        instructions="Long-term memory of this workspace: search it, remember facts, run and undo Dream.",
        on_list_tools=list_tools, on_call_tool=on_call,
        on_list_resources=list_resources, on_read_resource=on_read,
    )


def serve(memory: Memory) -> None:
    """Serve ``memory`` over stdin/stdout until the client closes the connection."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(memory)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
