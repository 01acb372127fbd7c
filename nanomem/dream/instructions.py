"""The Dream instructions: ``prompts/dream.md`` when a person wrote one, else the built-in prompt
shipped as ``nanomem/prompts/dream.md``; and ``/dream-prompt init``, which copies the built-in
one out for editing without ever overwriting a person's file."""

from __future__ import annotations

from importlib import resources

from nanomem.store.fsutil import atomic_write
from nanomem.store.workspace import Workspace

CUSTOM = "prompts/dream.md"
BUILT_IN = "built-in"


def builtin_instructions() -> str:
    """The built-in prompt shipped as ``nanomem/prompts/dream.md``."""
    return resources.files("nanomem").joinpath("prompts/dream.md").read_text(encoding="utf-8")


def read_instructions(workspace: Workspace) -> tuple[str, str]:
    """``(text, source)``: ``prompts/dream.md`` when present and not blank, else built in."""
    custom = workspace.dream_prompt
    if custom.is_file():
        text = custom.read_text(encoding="utf-8", errors="replace")
        if text.strip():
            return text, CUSTOM
    return builtin_instructions(), BUILT_IN


def write_instructions(workspace: Workspace) -> tuple[str, bool]:
    """Copy the built-in instructions to ``prompts/dream.md`` unless a non-empty one exists;
    returns ``("prompts/dream.md", created)``."""
    if read_instructions(workspace)[1] == CUSTOM:
        return CUSTOM, False
    atomic_write(workspace.dream_prompt, builtin_instructions())
    return CUSTOM, True
