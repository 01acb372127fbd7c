"""Tools a host hands to its model, so the agent searches and remembers by itself.

:data:`AGENT_TOOLS` are OpenAI-format tool definitions (``memory_search``, ``memory_remember``);
:func:`run_agent_tool` runs one call. Arguments are checked with jsonschema before anything
runs, and every outcome is a string the host sends back as the tool result: a JSON object with
the hits or the remembered entry, or ``{"error": …}`` naming what was wrong. It never raises for
bad input from the model::

    tools = mem.agent_tools()                        # pass as `tools=` to chat/completions
    result = mem.call_agent_tool(call.name, call.arguments)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

>>> names = [tool["function"]["name"] for tool in AGENT_TOOLS]
>>> names
['memory_search', 'memory_remember']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jsonschema

from nanomem.errors import NanomemError
from nanomem.search.rank import SOURCES, Hit
from nanomem.vocab import FACT_MARKS

MAX_K = 20
_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2})?$"
SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "pattern": r"\S",
                  "description": "words to look for, e.g. 'dentist appointment' or '北京 出差'"},
        "k": {"type": "integer", "minimum": 1, "maximum": MAX_K,
              "description": f"how many results (1-{MAX_K}, default 8)"},
        "since": {"type": "string", "pattern": _DATE,
                  "description": "only what was said on or after this date (YYYY-MM-DD)"},
        "until": {"type": "string", "pattern": _DATE,
                  "description": "only what was said on or before this date (YYYY-MM-DD)"},
        "sources": {"type": "array", "uniqueItems": True, "minItems": 1,
                    "items": {"type": "string", "enum": list(SOURCES)},
                    "description": "file: memory-file lines; history: distilled entries; "
                                   "archive: past conversation turns word for word"},
    },
    "required": ["query"],
    "additionalProperties": False,
}
REMEMBER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1,
                 "description": "the fact, one sentence, e.g. 'Allergic to peanuts.'"},
        "mark": {"type": "string", "enum": list(FACT_MARKS),
                 "description": "how long it holds (default durable)"},
    },
    "required": ["text"],
    "additionalProperties": False,
}
AGENT_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "type": "function",
        "function": {
            "name": "memory_search",
            "description": (
                "Search everything remembered about past conversations: the memory files, the "
                "history and every archived turn, with dates and speakers. Use it when the "
                "answer may lie in an earlier conversation (what was said, when, by whom)."
            ),
            "parameters": SEARCH_SCHEMA,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "memory_remember",
            "description": (
                "Remember one fact about the user or the work for later conversations: it is "
                "kept now and filed into long-term memory by the next Dream. Mark it permanent "
                "(stable, e.g. an allergy), durable (the default), ephemeral (true for a few "
                "days) or correction (replaces what was remembered before)."
            ),
            "parameters": REMEMBER_SCHEMA,
        },
    },
)
_VALIDATORS = {tool["function"]["name"]: jsonschema.Draft202012Validator(tool["function"]["parameters"])
               for tool in AGENT_TOOLS}

Search = Callable[..., Sequence[Hit]]
Remember = Callable[..., Any]


def check_arguments(
    arguments: str | Mapping[str, Any] | None, name: str = "memory_search"
) -> tuple[dict[str, Any] | None, str | None]:
    """``(arguments, None)`` when valid for tool ``name``, else ``(None, reason)`` (pure).

    >>> check_arguments('{"query": "tea", "k": 0}')[1]
    'memory_search k: 0 is less than the minimum of 1'
    >>> check_arguments('{"query": "tea"}')[0]
    {'query': 'tea'}
    >>> check_arguments({"text": "Likes tea.", "mark": "forever"}, "memory_remember")[1]
    "memory_remember mark: 'forever' is not one of ['permanent', 'durable', 'ephemeral', 'correction']"
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            return None, f"{name} arguments are not valid JSON ({exc.msg})"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return None, f"{name} arguments must be a JSON object"
    data = dict(arguments)
    error = jsonschema.exceptions.best_match(_VALIDATORS[name].iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "arguments"
        return None, f"{name} {where}: {error.message}"
    return data, None


def render_result(query: str, hits: Sequence[Hit]) -> str:
    """The tool result: the hits as a JSON object, short enough for a prompt (pure)."""
    rows = []
    for hit in hits:
        row = {"id": hit.id, "source": hit.source, "when": hit.timestamp or None,
               "speaker": hit.speaker, "text": hit.text}
        if hit.source == "file":
            row["where"] = f"{hit.path}:{hit.line}"
        rows.append({key: value for key, value in row.items() if value is not None})
    return json.dumps({"query": query, "hits": rows}, ensure_ascii=False)


def render_error(reason: str) -> str:
    """A tool error the model can act on.

    >>> render_error("unknown tool 'x'")
    '{"error": "unknown tool \\'x\\'"}'
    """
    return json.dumps({"error": reason}, ensure_ascii=False)


def render_remembered(result: Any) -> str:
    """The tool result of ``memory_remember`` for a ``RememberResult`` (pure)."""
    return json.dumps({"remembered": {"cursor": result.cursor, "mark": result.mark,
                                      "text": result.text},
                       "note": "kept; the next Dream files it into long-term memory"},
                      ensure_ascii=False)


def run_agent_tool(search: Search, name: str, arguments: str | Mapping[str, Any] | None,
                   *, remember: Remember | None = None) -> str:
    """Run one tool call against ``search`` (``Memory.search``) or ``remember``
    (``Memory.remember``); always returns a string."""
    if name not in _VALIDATORS or (name == "memory_remember" and remember is None):
        known = ", ".join(tool["function"]["name"] for tool in AGENT_TOOLS)
        return render_error(f"unknown tool {name!r}; the memory tools are: {known}")
    data, reason = check_arguments(arguments, name)
    if data is None:
        return render_error(f"{reason}; fix the arguments and call {name} again")
    try:
        if name == "memory_remember" and remember is not None:
            return render_remembered(remember(data["text"], mark=data.get("mark")))
        hits = search(data["query"], k=data.get("k", 8), since=data.get("since"),
                      until=data.get("until"), sources=data.get("sources"))
    except (NanomemError, ValueError) as exc:
        return render_error(f"{name} failed: {exc}")
    return render_result(data["query"], hits)
