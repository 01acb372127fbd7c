"""Tools a host hands to its model, so the agent can search its memory by itself.

:data:`AGENT_TOOLS` are OpenAI-format tool definitions; :func:`run_agent_tool` runs one call.
Arguments are checked with jsonschema before anything runs, and every outcome is a string the
host sends back as the tool result: a JSON object with the hits, or ``{"error": …}`` naming what
was wrong. It never raises for bad input from the model::

    tools = mem.agent_tools()                        # pass as `tools=` to chat/completions
    result = mem.call_agent_tool(call.name, call.arguments)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

>>> names = [tool["function"]["name"] for tool in AGENT_TOOLS]
>>> names
['memory_search']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jsonschema

from nanomem.errors import NanomemError
from nanomem.search.rank import SOURCES, Hit

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
)
_VALIDATOR = jsonschema.Draft202012Validator(SEARCH_SCHEMA)

Search = Callable[..., Sequence[Hit]]


def check_arguments(arguments: str | Mapping[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """``(arguments, None)`` when valid, else ``(None, reason)`` (pure).

    >>> check_arguments('{"query": "tea", "k": 0}')[1]
    'memory_search k: 0 is less than the minimum of 1'
    >>> check_arguments('{"query": "tea"}')[0]
    {'query': 'tea'}
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            return None, f"memory_search arguments are not valid JSON ({exc.msg})"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return None, "memory_search arguments must be a JSON object"
    data = dict(arguments)
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "arguments"
        return None, f"memory_search {where}: {error.message}"
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


def run_agent_tool(search: Search, name: str, arguments: str | Mapping[str, Any] | None) -> str:
    """Run one tool call against ``search`` (``Memory.search``); always returns a string."""
    if name != "memory_search":
        known = ", ".join(tool["function"]["name"] for tool in AGENT_TOOLS)
        return render_error(f"unknown tool {name!r}; the memory tools are: {known}")
    data, reason = check_arguments(arguments)
    if data is None:
        return render_error(f"{reason}; fix the arguments and call memory_search again")
    try:
        hits = search(data["query"], k=data.get("k", 8), since=data.get("since"),
                      until=data.get("until"), sources=data.get("sources"))
    except (NanomemError, ValueError) as exc:
        return render_error(f"memory_search failed: {exc}")
    return render_result(data["query"], hits)
