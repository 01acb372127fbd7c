"""The Dream tools: what the model may call, executed against a staged copy of the memory files.

Dream (DESIGN §3 step 4) offers the model four tools, :data:`DREAM_TOOLS`:
``read_file(path)``, ``edit_file(path, old_text, new_text)``, ``write_file(path, content)`` and
``finish(status, note)``. :func:`execute_tool_call` parses one call, validates its arguments
with jsonschema (Draft 2020-12), applies it to :class:`StagedFiles` when every gate of
:mod:`nanomem.dream.gates.checks` accepts it, and returns a :class:`ToolOutcome`. A bad call is never an
exception: it is a refused outcome whose ``result`` (``"error: <reason>"``) goes back to the
model as the tool message, and whose ``reason`` goes to the commit body and the audit.

>>> staged = StagedFiles({"USER.md": "# User\\n\\n## Facts\\n"})
>>> ctx = ToolContext(batch_text="- [durable] Lives in Porto", config=Config())
>>> call = ToolCall("c1", "edit_file", json.dumps({"path": "USER.md",
...     "old_text": "## Facts\\n", "new_text": "## Facts\\n- Lives in Porto\\n"}))
>>> execute_tool_call(call, staged, ctx).result
'ok: edited USER.md (+1 -0 lines; 34/6,000 characters)'
>>> wrong = ToolCall("c2", "edit_file", json.dumps({"path": "USER.md",
...     "old_text": "## Notes\\n", "new_text": "## Notes\\n- Lives in Porto\\n"}))
>>> execute_tool_call(wrong, staged, ctx).reason
'edit_file: old_text matches 0 times in USER.md; it must match exactly once. Copy it exactly from read_file (whitespace and <!-- marks --> included)'
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from nanomem.dream.gates import checks as gates
from nanomem.dream.questions import plan_ask
from nanomem.store.pending import Question
from nanomem.engines.chat import ToolCall
from nanomem.config import Config
from nanomem.text.redact import redact, redact_for_model
from nanomem.text.sanitize import sanitize_line
from nanomem.text.units import count_overlapping
from nanomem.store.workspace import MEMORY_FILES

logger = logging.getLogger(__name__)

FINISH_STATUSES: tuple[str, ...] = ("updated", "no_changes_needed")

_PATH_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 256}

TOOL_ARG_SCHEMAS: Mapping[str, dict[str, Any]] = MappingProxyType(
    {
        "read_file": {
            "type": "object",
            "properties": {"path": _PATH_SCHEMA},
            "required": ["path"],
            "additionalProperties": False,
        },
        "edit_file": {
            "type": "object",
            "properties": {
                "path": _PATH_SCHEMA,
                "old_text": {"type": "string", "minLength": 1},
                "new_text": {"type": "string"},
                "uncertain": {"type": "boolean"},
                "question": {"type": "string", "minLength": 1, "maxLength": 300},
            },
            "required": ["path", "old_text", "new_text"],  # uncertain, question: optional
            "additionalProperties": False,
        },
        "write_file": {
            "type": "object",
            "properties": {"path": _PATH_SCHEMA, "content": {"type": "string"}},
            "required": ["path", "content"],
            "additionalProperties": False,
        },
        "finish": {
            "type": "object",
            "properties": {
                "status": {"type": "string", "enum": list(FINISH_STATUSES)},
                "note": {"type": "string"},
            },
            "required": ["status", "note"],
            "additionalProperties": False,
        },
    }
)

_DESCRIPTIONS = {
    "read_file": (
        "Read the whole current text of one memory file (SOUL.md, USER.md or memory/MEMORY.md), "
        "including the edits you made in this run and the lines an excerpt did not show."
    ),
    "edit_file": (
        "Replace old_text with new_text in one memory file. old_text must occur exactly once; "
        "copy it exactly, whitespace and <!-- marks --> included. To add a fact, put the line "
        "it goes after (for example the '## Facts' heading) in old_text and repeat it in new_text. "
        "Set uncertain when the edit is an inference you are not sure of: it is not made but "
        "asked of the person, who answers yes or no. A correction of a pinned line or of a "
        "permanent fact without a matching [correction] is asked the same way."
    ),
    "write_file": (
        "Replace the whole content of one memory file. Meant for an empty or new file; a "
        "rewrite of an existing file must keep pinned lines and permanent facts and stay within "
        "the deletion limit."
    ),
    "finish": (
        "Call exactly once when you are done. status 'updated' if you changed any file, "
        "'no_changes_needed' if the batch holds nothing new; note: one sentence for the log."
    ),
}

_PARAM_DESCRIPTIONS = {
    "path": "SOUL.md, USER.md or memory/MEMORY.md",
    "old_text": "the exact text to replace; it must occur exactly once in the file",
    "new_text": "the replacement text",
    "uncertain": "true when you are not sure: the edit waits for the person's yes instead",
    "question": "with uncertain: the question to ask the person, in one short sentence",
    "content": "the complete new content of the file",
    "status": "'updated' or 'no_changes_needed'",
    "note": "one sentence saying what changed and why",
}


def _tool_definition(name: str) -> dict[str, Any]:
    schema = TOOL_ARG_SCHEMAS[name]
    properties = {
        key: {**value, "description": _PARAM_DESCRIPTIONS[key]}
        for key, value in schema["properties"].items()
    }
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": _DESCRIPTIONS[name],
            "parameters": {**schema, "properties": properties},
        },
    }


DREAM_TOOLS: tuple[dict[str, Any], ...] = tuple(
    _tool_definition(name) for name in ("read_file", "edit_file", "write_file", "finish")
)

_VALIDATORS = {name: Draft202012Validator(schema) for name, schema in TOOL_ARG_SCHEMAS.items()}


@dataclass(frozen=True)
class Finish:
    """The model's explicit completion signal (the only thing that completes a run)."""

    status: str
    note: str


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call did.

    ``result`` is the tool message sent back to the model (``"ok: …"``, the file text for
    ``read_file``, or ``"error: <reason>"``). ``reason`` is set when the call was refused.
    ``arguments`` are the parsed arguments with any secret redacted (safe for the audit), or
    ``None`` when they were not a JSON object. ``question`` is set (and nothing applied) when
    the edit waits for the person instead (:mod:`nanomem.dream.questions`).
    """

    tool: str
    path: str | None
    accepted: bool
    result: str
    reason: str | None = None
    finish: Finish | None = None
    arguments: Mapping[str, Any] | None = None
    question: Question | None = None


class StagedFiles:
    """The copy of the memory files that a Dream run mutates; it remembers the originals.

    >>> staged = StagedFiles({"USER.md": "a\\n"})
    >>> staged.write("USER.md", "b\\n")
    >>> (staged.originals["USER.md"], staged.read("USER.md"), staged.changed_paths())
    ('a\\n', 'b\\n', ['USER.md'])
    """

    def __init__(self, originals: Mapping[str, str]) -> None:
        self._originals = dict(originals)
        self._current = dict(originals)

    def read(self, path: str) -> str:
        """Staged text of ``path`` (``""`` for a file that does not exist yet)."""
        return self._current.get(path, "")

    def write(self, path: str, text: str) -> None:
        """Replace the staged text of ``path``; nothing touches the disk."""
        self._current[path] = text

    @property
    def originals(self) -> Mapping[str, str]:
        """The texts at the start of the run (read-only view)."""
        return MappingProxyType(self._originals)

    @property
    def current(self) -> Mapping[str, str]:
        """The staged texts now (read-only view)."""
        return MappingProxyType(self._current)

    def changed_paths(self) -> list[str]:
        """Paths whose staged text differs from the original, memory files first."""
        order = {path: index for index, path in enumerate(MEMORY_FILES)}
        changed = [
            path
            for path in self._current
            if self._current[path] != self._originals.get(path, "")
        ]
        return sorted(changed, key=lambda path: (order.get(path, len(order)), path))


@dataclass(frozen=True)
class ToolContext:
    """What the tools need besides the call: the batch (for traceability and corrections),
    the config (caps, deletion share) and, optionally, the workspace root for the symlink
    check. Without a root no disk lookup happens at all. ``unread_excerpts`` names the files
    the model saw only as an excerpt in this batch: ``write_file`` of one is refused until it
    has been read whole (a rewrite from the excerpt would drop the lines not shown)."""

    batch_text: str
    config: Config
    workspace_root: Path | None = None
    batch: str = ""  # the batch's ``first-last`` span, for the questions it asks
    unread_excerpts: frozenset[str] = frozenset()


def execute_tool_call(call: ToolCall, staged: StagedFiles, context: ToolContext) -> ToolOutcome:
    """Run one Dream tool call against ``staged``; never raises for a bad call.

    >>> staged = StagedFiles({"USER.md": ""})
    >>> call = ToolCall("c1", "delete_file", "{}")
    >>> execute_tool_call(call, staged, ToolContext("", Config())).result
    "error: unknown tool 'delete_file'; use read_file, edit_file, write_file or finish"
    """
    tool = call.name
    if tool not in TOOL_ARG_SCHEMAS:
        shown = gates.safe_text(str(tool)[:60])
        return _refuse(
            shown, None, None,
            f"unknown tool '{shown}'; use read_file, edit_file, write_file or finish",
        )
    raw = call.arguments or "{}"
    if not isinstance(raw, str):
        return _refuse(tool, None, None, f"{tool}: arguments are not a JSON string; "
                       "send one JSON object")
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _refuse(tool, None, None, f"{tool}: arguments are not valid JSON ({exc.msg}); "
                       "send one JSON object")
    safe_args = _redacted(arguments) if isinstance(arguments, dict) else None
    problem = _schema_problem(tool, arguments)
    if problem is not None:
        return _refuse(tool, None, safe_args, f"{tool}: invalid arguments: {problem}")
    if tool == "finish":
        finish = Finish(arguments["status"], sanitize_line(redact(arguments["note"]).text))
        return ToolOutcome(tool, None, True, f"ok: finished ({finish.status})",
                           finish=finish, arguments=safe_args)
    raw_path = arguments["path"]
    path = gates.normalise_path(raw_path)
    reason = gates.check_path(raw_path) or _symlink_reason(path, context)
    if reason is not None:
        return _refuse(tool, gates.safe_text(raw_path[:120]), safe_args, f"{tool}: {reason}")
    if tool == "read_file":
        text = redact_for_model(staged.read(path))
        return ToolOutcome(tool, path, True, text if text else f"({path} is empty)",
                           arguments=safe_args)
    before = staged.read(path)
    if tool == "edit_file":
        after_or_reason = _apply_edit(path, before, arguments["old_text"], arguments["new_text"])
        if after_or_reason[1] is not None:
            return _refuse(tool, path, safe_args, f"{tool}: {after_or_reason[1]}")
        after = after_or_reason[0]
    else:
        after = arguments["content"]
        if path in context.unread_excerpts:
            return _refuse(tool, path, safe_args,
                           f"{tool}: {path} was shown as an excerpt; call read_file({path}) "
                           "first, or change single lines with edit_file (a rewrite from the "
                           "excerpt would drop the lines not shown)")
        if after == before:
            return _refuse(tool, path, safe_args,
                           f"{tool}: no change: the content equals the current text of {path}")
    gate_context = gates.GateContext(
        batch_text=context.batch_text,
        original_files=staged.originals,
        staged_files=staged.current,
        config=context.config,
    )
    proposal = gates.Proposal(path=path, before=before, after=after)
    if tool == "edit_file":
        ask, reason = plan_ask(proposal, gate_context, old_text=arguments["old_text"],
                               new_text=arguments["new_text"], batch=context.batch,
                               uncertain=bool(arguments.get("uncertain")),
                               question=redact(arguments.get("question", "")).text)
        if ask is not None:
            return ToolOutcome(tool, path, False, f"queued: this edit is not made; it waits for "
                               f"the person as a question ({ask.reason}). Do not retry it; go on "
                               "with the rest of the batch", arguments=safe_args, question=ask)
    else:
        reason = gates.check_all(proposal, gate_context)
    if reason is not None:
        return _refuse(tool, path, safe_args, f"{tool}: {reason}")
    staged.write(path, after)
    verb = "edited" if tool == "edit_file" else "wrote"
    added, removed = _line_delta(before, after)
    result = (
        f"ok: {verb} {path} (+{added} -{removed} lines; "
        f"{len(after):,}/{context.config.cap_for(path):,} characters)"
    )
    logger.debug("dream tool %s accepted for %s", tool, path)
    return ToolOutcome(tool, path, True, result, arguments=safe_args)


def _apply_edit(path: str, before: str, old: str, new: str) -> tuple[str, str | None]:
    """``(after, None)`` or ``("", reason)`` for one exact-once replacement."""
    if old == new:
        return "", "no change: old_text and new_text are equal; send a real change or call finish"
    count = count_overlapping(before, old)
    if count != 1:
        hint = (
            f"{path} is empty; use write_file to create it"
            if not before.strip()
            else "Copy it exactly from read_file (whitespace and <!-- marks --> included)"
            if count == 0
            else "Include more surrounding text so that it matches only once"
        )
        return "", (
            f"old_text matches {count} times in {path}; it must match exactly once. {hint}"
        )
    return before.replace(old, new, 1), None



def _line_delta(before: str, after: str) -> tuple[int, int]:
    old, new = Counter(before.splitlines()), Counter(after.splitlines())
    return sum((new - old).values()), sum((old - new).values())


def _symlink_reason(path: str, context: ToolContext) -> str | None:
    """The one disk lookup of the tools: resolve links, then let the pure gate judge."""
    if context.workspace_root is None:
        return None
    root = Path(context.workspace_root)
    resolved = os.path.realpath(root.joinpath(*path.split("/")))
    return gates.check_symlink(path, resolved, os.path.realpath(root))


def _schema_problem(tool: str, arguments: Any) -> str | None:
    errors = sorted(_VALIDATORS[tool].iter_errors(arguments), key=_error_order)
    if not errors:
        return None
    return "; ".join(_describe(error) for error in errors[:3])


def _error_order(error: ValidationError) -> tuple[int, str]:
    return (len(error.path), str(error.validator))


def _describe(error: ValidationError) -> str:
    """A schema error in words, never echoing a value (it could hold a secret)."""
    where = f"'{error.path[-1]}'" if error.path else "the arguments"
    kind = error.validator
    if kind == "type":
        return f"{where} must be of type {error.validator_value}"
    if kind == "enum":
        values = error.validator_value if isinstance(error.validator_value, list) else []
        choices = " or ".join(f"'{value}'" for value in values)
        return f"{where} must be {choices}"
    if kind == "minLength":
        return f"{where} must not be empty"
    if kind == "maxLength":
        return f"{where} is longer than {error.validator_value} characters"
    if kind in ("required", "additionalProperties"):
        return gates.safe_text(error.message)
    return f"{where} fails the '{kind}' rule"


def render_safe_reply(message: Mapping[str, Any]) -> dict[str, Any]:
    """The model's reply as it goes back into the conversation: its text and every tool call's
    string arguments with secrets redacted, so no later request of the batch carries a secret
    the model wrote (arguments without one keep their exact JSON).

    >>> reply = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
    ...     "type": "function", "function": {"name": "edit_file",
    ...     "arguments": '{"new_text": "key sk-proj-Abc123def456ghi789jkl012mno345"}'}}]}
    >>> render_safe_reply(reply)["tool_calls"][0]["function"]["arguments"]
    '{"new_text": "key [REDACTED:openai-key]"}'
    """
    out = dict(message)
    if isinstance(out.get("content"), str):
        out["content"] = redact_for_model(out["content"])
    calls = []
    for call in out.get("tool_calls") or []:
        function = dict(call.get("function") or {})
        raw = function.get("arguments")
        try:
            parsed = json.loads(raw) if isinstance(raw, str) else None
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            clean = dict(_redacted(parsed))
            if clean != parsed:
                function["arguments"] = json.dumps(clean, ensure_ascii=False)
        elif isinstance(raw, str):
            function["arguments"] = redact_for_model(raw)
        calls.append({**call, "function": function})
    if "tool_calls" in out:
        out["tool_calls"] = calls
    return out


def _redacted(arguments: dict[str, Any]) -> Mapping[str, Any]:
    clean = {
        key: redact(value).text if isinstance(value, str) else value
        for key, value in arguments.items()
    }
    return MappingProxyType(clean)


def _refuse(
    tool: str, path: str | None, arguments: Mapping[str, Any] | None, reason: str
) -> ToolOutcome:
    """A refused call; the tool name, path and reason are redacted and made one safe line
    (they quote the model and reach the commit body, the audit, logs and the terminal)."""
    tool = sanitize_line(gates.safe_text(tool))
    path = None if path is None else sanitize_line(gates.safe_text(path))
    reason = sanitize_line(gates.safe_text(reason))
    logger.info("dream tool call refused: %s", reason)
    return ToolOutcome(tool, path, False, f"error: {reason}", reason=reason, arguments=arguments)
