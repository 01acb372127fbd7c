"""Where the memory repository of a workspace lives, and its whitelist ``.gitignore``.

DESIGN §5: a workspace that is not inside another repository keeps its memory in
``<ws>/.git``, with a whitelist ``.gitignore`` (``/*`` then ``!SOUL.md`` …) merged into any
existing one. A workspace inside another repository, worktree or submodule gets a separate git
dir, ``<ws>/.nanomem.git``, so the enclosing repository is never touched and no nested ``.git``
appears. A root ``.git`` that already is a memory repository (nanobot's layout) is used as is.

>>> locate_git_dir(Path("/nonexistent/ws"), head_entries=lambda root: None)
(PosixPath('/nonexistent/ws/.git'), False)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

SEPARATE_GIT_DIR = ".nanomem.git"

WHITELIST: tuple[str, ...] = (
    "/*",
    "!SOUL.md",
    "!USER.md",
    "!memory/",
    "memory/*",
    "!memory/MEMORY.md",
    "!memory/PENDING.md",
)
WHITELIST_HEADER = "# nanomem: the memory repository tracks only the memory files"

# Top-level names a memory repository's HEAD tree may hold (nanobot also tracks .gitignore).
MEMORY_TOP_LEVEL = frozenset({"SOUL.md", "USER.md", "memory", ".gitignore"})

HeadEntries = Callable[[Path], "set[str] | None"]


def locate_git_dir(root: Path, *, head_entries: HeadEntries) -> tuple[Path, bool]:
    """``(git_dir, separate)`` for the workspace at ``root``.

    ``head_entries(root)`` returns the top-level names of the HEAD tree of ``root/.git``
    (``None`` for a repository without commits); the caller reads git, this module does not.
    ``separate`` is True for ``<root>/.nanomem.git`` (a bare repository, no work tree).
    """
    root = Path(root).absolute()
    separate = root / SEPARATE_GIT_DIR
    if separate.is_dir():
        return separate, True
    dot_git = root / ".git"
    if dot_git.is_dir():
        if is_memory_repo(root, head_entries):
            return dot_git, False
        return separate, True
    if dot_git.exists() or inside_other_repo(root):
        return separate, True
    return dot_git, False


def inside_other_repo(root: Path) -> bool:
    """Whether a parent directory holds a ``.git`` (directory, worktree or submodule file)."""
    return any((parent / ".git").exists() for parent in Path(root).resolve().parents)


def is_memory_repo(root: Path, head_entries: HeadEntries) -> bool:
    """A root ``.git`` is a memory repository when its ``.gitignore`` carries the whitelist,
    when it has no commits yet, or when HEAD holds nothing but memory files."""
    ignore = Path(root) / ".gitignore"
    if ignore.is_file():
        lines = {line.strip() for line in ignore.read_text("utf-8", "replace").splitlines()}
        if {"/*", "!SOUL.md"} <= lines:
            return True
    names = head_entries(Path(root))
    return names is None or names <= MEMORY_TOP_LEVEL


def merge_whitelist(existing: str) -> str:
    """Append the memory whitelist to a ``.gitignore`` unless its rules are already there, in order.

    Existing lines are kept as they are; the whitelist goes last so that it wins.

    >>> merge_whitelist("").splitlines()[1:3]
    ['/*', '!SOUL.md']
    >>> once = merge_whitelist("*.tmp\\n")
    >>> once.startswith("*.tmp\\n") and merge_whitelist(once) == once
    True
    """
    lines = [line.strip() for line in existing.splitlines()]
    position = -1
    for rule in WHITELIST:
        try:
            position = lines.index(rule, position + 1)
        except ValueError:
            break
    else:
        return existing
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    gap = "\n" if prefix else ""
    return prefix + gap + "\n".join((WHITELIST_HEADER, *WHITELIST)) + "\n"
