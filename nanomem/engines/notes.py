"""Provider notes: what nanomem learned about an endpoint, kept in ``memory/.provider_notes.json``.

Per base URL and model: the fallback steps a refusal taught (see :mod:`nanomem.engines.refusals`),
the quirks seen (see :mod:`nanomem.engines.quirks`) and the context window the server reported::

    {"http://localhost:11434/v1": {"models": {"qwen2.5:7b": {
        "fallbacks": {"tool_choice=required": {"step": "set:auto", "reason": "..."}},
        "quirks": {"truncates_prompt": "reported 2048 prompt tokens for about 9000"},
        "context_window": {"tokens": 4096, "source": "ollama /api/show num_ctx"}}}}}

The file is rewritten atomically. Notes written by earlier versions
(``{base_url: {"refused": {field: message}}}``) still apply, to every model of that URL. To
let nanomem try a field again, for example after a server upgrade, delete the file.
No note ever holds the API key: every message is scrubbed before it is stored.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nanomem.store.fsutil import atomic_write
from nanomem.store.workspace import Workspace

log = logging.getLogger(__name__)

_LEGACY_STEPS = {
    "tool_choice": ("tool_choice=required", "tool_choice=function", "tool_choice=auto"),
    "temperature": ("temperature",),
    "max_tokens": ("max_tokens",),
}


def read_provider_notes(workspace: Workspace | Path) -> dict[str, Any]:
    """Endpoint notes of a workspace (``{}`` when none); ``nanomem status`` shows them."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    return read_notes(ws.provider_notes)


def read_notes(path: Path | None) -> dict[str, Any]:
    """The notes file as a dict; missing or unreadable gives ``{}`` (with a warning)."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.warning("%s: unreadable provider notes (%s); ignoring them", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _table(parent: Any, key: str) -> dict[str, Any]:
    value = parent.get(key) if isinstance(parent, Mapping) else None
    return dict(value) if isinstance(value, Mapping) else {}


class EndpointNotes:
    """The notes of one base URL and model, read once and written through on each change."""

    def __init__(self, path: Path | None, base_url: str, model: str) -> None:
        self.path, self.base_url, self.model = path, base_url, model
        entry = _table(read_notes(path), base_url)
        mine = _table(_table(entry, "models"), model)
        self.steps: dict[str, str] = {}
        for field, _message in _table(entry, "refused").items():
            if field == "tool_choice":  # an old note meant "never send it"
                self.steps.update(dict.fromkeys(_LEGACY_STEPS["tool_choice"], "omit"))
            elif field in _LEGACY_STEPS:
                self.steps[field] = "omit"
        for key, value in _table(mine, "fallbacks").items():
            step = value.get("step") if isinstance(value, Mapping) else None
            if isinstance(step, str):
                self.steps[key] = step
        self.quirks: dict[str, str] = {k: str(v) for k, v in _table(mine, "quirks").items()}
        window = _table(mine, "context_window")
        tokens = window.get("tokens")
        self.context_window: int | None = tokens if isinstance(tokens, int) and tokens > 0 else None

    def record_step(self, key: str, step: str, reason: str) -> None:
        """Remember a fallback ``step`` for ``key`` (see :func:`~nanomem.engines.refusals.step_key`)."""
        self.steps[key] = step
        self._update("fallbacks", key, {"step": step, "reason": reason})

    def record_quirk(self, kind: str, message: str) -> None:
        """Remember a quirk (written once per kind; later sightings only log)."""
        if self.quirks.get(kind) == message:
            return
        self.quirks[kind] = message
        self._update("quirks", kind, message)

    def record_context_window(self, tokens: int, source: str) -> None:
        """Remember the context window the server reported."""
        self.context_window = tokens
        self._write_model(lambda mine: mine.__setitem__("context_window",
                                                        {"tokens": tokens, "source": source}))

    def _update(self, table: str, key: str, value: Any) -> None:
        def change(mine: dict[str, Any]) -> None:
            mine[table] = {**_table(mine, table), key: value}
        self._write_model(change)

    def _write_model(self, change: Any) -> None:
        if self.path is None:
            return
        notes = read_notes(self.path)
        entry = _table(notes, self.base_url)
        models = _table(entry, "models")
        mine = _table(models, self.model)
        change(mine)
        models[self.model] = mine
        entry["models"] = models
        notes[self.base_url] = entry
        try:
            atomic_write(self.path, json.dumps(notes, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            log.warning("%s: cannot save provider notes (%s)", self.path, exc)


def render_notes(notes: Mapping[str, Any]) -> list[str]:
    """One line per remembered note, for ``nanomem status`` and ``/memory``.

    >>> render_notes({"http://h/v1": {"refused": {"tool_choice": "unsupported"}}})
    ['http://h/v1 refused `tool_choice` (unsupported); it is no longer sent']
    >>> render_notes({"http://h/v1": {"models": {"o3": {"fallbacks": {"max_tokens": {
    ...     "step": "rename:max_completion_tokens", "reason": "use max_completion_tokens"}}}}}})
    ['http://h/v1 o3: `max_tokens` is sent as `max_completion_tokens` (use max_completion_tokens)']
    """
    lines = []
    for url, note in notes.items():
        for field, message in _table(note, "refused").items():
            lines.append(f"{url} refused `{field}` ({message}); it is no longer sent")
        for model, mine in _table(note, "models").items():
            for key, value in _table(mine, "fallbacks").items():
                value = value if isinstance(value, Mapping) else {}
                lines.append(f"{url} {model}: {_describe(key, str(value.get('step')))} "
                             f"({value.get('reason', '')})")
            for kind, message in _table(mine, "quirks").items():
                lines.append(f"{url} {model}: {kind} ({message})")
            window = _table(mine, "context_window")
            if window.get("tokens"):
                lines.append(f"{url} {model}: context window {window['tokens']} tokens "
                             f"({window.get('source', 'reported')})")
    return lines


def _describe(key: str, step: str) -> str:
    field, _, kind = key.partition("=")
    shown = f"`{field}` {kind}" if kind else f"`{field}`"
    if step.startswith("rename:"):
        return f"{shown} is sent as `{step.split(':', 1)[1]}`"
    if step.startswith("set:"):
        return f"{shown} is replaced by {step.split(':', 1)[1]}"
    return f"{shown} is no longer sent"
