"""Reply text that is not the answer: ``<think>`` blocks, and tool calls written into ``content``.

Some servers put thinking text into ``content`` (``<think>…</think>``, DeepSeek-R1 distills on
Ollama and llama.cpp), and some chat templates return tool calls as text instead of
``tool_calls`` (LM Studio and llama.cpp with Hermes/Qwen templates write
``<tool_call>{"name": …, "arguments": …}</tool_call>``; Mistral templates write
``[TOOL_CALLS][…]``; Llama 3 writes ``<|python_tag|>{…}`` or a bare JSON object). Pure.

A text tool call is accepted only when it parses as JSON, names one of the request's tools and
its arguments validate against that tool's JSON schema. Prose is never parsed: a reply that
merely talks about a tool stays a text reply.

>>> strip_think("<think>The user wants tea.</think>Noted.")
'Noted.'
>>> tools = ({"type": "function", "function": {"name": "finish", "parameters": {
...     "type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}}},)
>>> calls = parse_text_tool_calls('<tool_call>{"name": "finish", "arguments": {"status": "ok"}}'
...                               '</tool_call>', tools)
>>> [(c.name, c.arguments) for c in calls]
[('finish', '{"status": "ok"}')]
>>> parse_text_tool_calls('I would call finish with {"status": "ok"}', tools)
()
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema

from nanomem.engines.chat import ToolCall

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"^\s*<think>.*\Z", re.DOTALL | re.IGNORECASE)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(\{.*?\})\s*</function>", re.DOTALL)
_MISTRAL = re.compile(r"^\s*\[TOOL_CALLS\]\s*(.*)\Z", re.DOTALL)
_PYTHON_TAG = re.compile(r"^\s*<\|python_tag\|>\s*(.*?)\s*(?:<\|eom_id\|>|<\|eot_id\|>)?\s*\Z", re.DOTALL)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*\Z", re.DOTALL)
_ALNUM = string.ascii_letters + string.digits
#: Tool-call ids every server accepts: Mistral wants exactly 9 letters or digits.
ID_PATTERN = re.compile(r"^[A-Za-z0-9]{9}$")


def strip_think(text: str | None) -> str | None:
    """``text`` without ``<think>…</think>`` blocks (an unclosed leading one is dropped too;
    a lone ``</think>`` drops what comes before it, as templates that open the block themselves
    leave it)."""
    if text is None:
        return None
    if "</think>" in text and "<think>" not in text:
        text = text.split("</think>", 1)[1]
    stripped = _OPEN_THINK.sub("", _THINK.sub("", text))
    return stripped.strip() if stripped != text else text


def make_call_id(seed: str) -> str:
    """A 9-character alphanumeric id derived from ``seed`` (accepted by every server).

    >>> make_call_id("reply-1/0"), bool(ID_PATTERN.match(make_call_id("x")))
    ('WdYKDTIsZ', True)
    """
    number = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")
    chars = []
    for _ in range(9):
        number, rest = divmod(number, len(_ALNUM))
        chars.append(_ALNUM[rest])
    return "".join(chars)


def parse_text_tool_calls(
    content: str | None, tools: Sequence[Mapping[str, Any]], *, seed: str = ""
) -> tuple[ToolCall, ...]:
    """The tool calls written into ``content`` in a known text format, or ``()``.

    All of them must check out (JSON, a known tool, arguments valid against its schema);
    one that does not makes the whole reply a text reply, as the model wrote it.
    """
    if not content or not tools:
        return ()
    schemas = _schemas(tools)
    candidates = _candidates(content)
    if not candidates:
        return ()
    calls = []
    for index, raw in enumerate(candidates):
        call = _check(raw, schemas)
        if call is None:
            return ()
        name, arguments = call
        calls.append(ToolCall(make_call_id(f"{seed}/{index}/{name}/{arguments}"), name, arguments))
    return tuple(calls)


def _schemas(tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for tool in tools:
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            schemas[fn["name"]] = fn.get("parameters") or {"type": "object"}
    return schemas


def _candidates(content: str) -> list[Any]:
    """The JSON values a known text format carries (``[]`` when the text is in none)."""
    text = strip_think(content) or ""
    tagged = _TAGGED.findall(text)
    if tagged:
        return [_loads(t) for t in tagged]
    functions = _FUNCTION_TAG.findall(text)
    if functions and not _FUNCTION_TAG.sub("", text).strip():
        return [{"name": name, "arguments": _loads(args)} for name, args in functions]
    for pattern in (_MISTRAL, _PYTHON_TAG, _FENCE):
        match = pattern.match(text)
        if match:
            text = match.group(1)
            break
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return []
    value = _loads(stripped)
    if isinstance(value, list):
        return value
    return [value] if isinstance(value, dict) else []


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None


def _check(raw: Any, schemas: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(name, arguments JSON)`` when ``raw`` is a valid call of a known tool."""
    if not isinstance(raw, dict):
        return None
    if isinstance(raw.get("function"), dict):  # {"type": "function", "function": {...}}
        raw = raw["function"]
    name = raw.get("name")
    arguments = raw.get("arguments", raw.get("parameters"))
    if isinstance(arguments, str):
        arguments = _loads(arguments)
    if not isinstance(name, str) or name not in schemas or not isinstance(arguments, dict):
        return None
    try:
        jsonschema.validate(arguments, schemas[name])
    except (jsonschema.ValidationError, jsonschema.SchemaError):
        return None
    return name, json.dumps(arguments, ensure_ascii=False)
