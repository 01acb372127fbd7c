"""Every file name and path of a workspace, and ``init`` from the template.

A workspace is a plain directory (DESIGN §1)::

    SOUL.md, USER.md, memory/MEMORY.md       the Dream-managed memory files
    memory/history.jsonl                     the append-only archive
    memory/.cursor, memory/.dream_cursor     the write cursor and the dream cursor
    sessions/<name>.jsonl                    optional session store (see Workspace.session_path)
    memory/archive/archive-NNNNNN.jsonl      the verbatim archive of every archived turn
    memory/index.sqlite3                     the derived search index (rebuildable)
    memory/MOVED.md                          lines Dream moved out of a full memory file
    prompts/dream.md                         optional Dream instructions
    nanomem.toml                             optional configuration

>>> ws = Workspace(Path("/tmp/w"))
>>> ws.history.relative_to(ws.root).as_posix()
'memory/history.jsonl'
"""

from __future__ import annotations

import base64
import functools
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from nanomem import vocab
from nanomem.errors import WorkspaceError
from nanomem.vocab import MEMORY_FILES, VERSIONED_FILES

__all__ = ["MEMORY_FILES", "VERSIONED_FILES", "Workspace", "init_workspace", "template_dir"]

_PACKAGE_DIR = Path(__file__).resolve().parent.parent
_UNSAFE_NAME = re.compile(r'[<>:"/\\|?*]')


def template_dir() -> Path:
    """The workspace template: packaged copy in a wheel, ``workspace_template/`` in a checkout."""
    for candidate in (_PACKAGE_DIR / "_template", _PACKAGE_DIR.parent / "workspace_template"):
        if candidate.is_dir():
            return candidate
    raise WorkspaceError("workspace template not found; reinstall nanomem (pip install -e .)")


@dataclass(frozen=True)
class Workspace:
    """Paths of one workspace. Holds no state besides ``root``."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).expanduser().absolute())

    def path(self, rel: str) -> Path:
        """Absolute path of a workspace-relative POSIX path such as ``memory/MEMORY.md``."""
        return self.root.joinpath(*rel.split("/"))

    @property
    def memory_dir(self) -> Path:
        return self.path(vocab.MEMORY_DIR)

    @property
    def soul(self) -> Path:
        return self.path(vocab.SOUL_MD)

    @property
    def user(self) -> Path:
        return self.path(vocab.USER_MD)

    @property
    def memory_md(self) -> Path:
        return self.path(vocab.MEMORY_MD)

    @property
    def history(self) -> Path:
        return self.path(vocab.HISTORY)

    @property
    def cursor(self) -> Path:
        return self.path(vocab.CURSOR)

    @property
    def dream_cursor(self) -> Path:
        return self.path(vocab.DREAM_CURSOR)

    @property
    def legacy_history(self) -> Path:
        return self.path(vocab.LEGACY_HISTORY)

    @property
    def audit(self) -> Path:
        """Full record of refused Dream tool calls (one JSON object per line)."""
        return self.path(vocab.AUDIT)

    @property
    def history_lock(self) -> Path:
        """Lock shared by appends, cursor writes and compaction."""
        return self.path(vocab.HISTORY_LOCK)

    @property
    def dream_lock(self) -> Path:
        """Single-flight lock of Dream runs (and restores)."""
        return self.path(vocab.DREAM_LOCK)

    @property
    def provider_notes(self) -> Path:
        """Endpoint quirks remembered by the provider (e.g. ``tool_choice`` refused)."""
        return self.path(vocab.PROVIDER_NOTES)

    @property
    def archive_dir(self) -> Path:
        """The verbatim archive's segments (``archive-000001.jsonl`` …)."""
        return self.memory_dir / "archive"

    @property
    def archive_lock(self) -> Path:
        """Lock of archive appends."""
        return self.archive_dir / ".lock"

    @property
    def index(self) -> Path:
        """The derived search index (SQLite FTS5); rebuilt from the files when missing."""
        return self.memory_dir / "index.sqlite3"

    @property
    def sessions_dir(self) -> Path:
        return self.path(vocab.SESSIONS_DIR)

    def session_path(self, key: str) -> Path:
        """The session file of ``key``, named as nanobot 0.3.5 names it, so that nanobot finds
        it: ``sessions/<urlsafe base64 of the key, unpadded>.jsonl``. A file under the older
        name (nanobot before 0.3 and earlier nanomem: the key with ``:`` and ``/`` replaced by
        ``_``) is used instead when only it exists, so an existing conversation continues.

        >>> ws = Workspace(Path("/tmp/w"))
        >>> ws.session_path("cli:direct").name, ws.session_path("cli").name
        ('Y2xpOmRpcmVjdA.jsonl', 'Y2xp.jsonl')
        """
        if not isinstance(key, str) or not key.strip():
            raise WorkspaceError(f"session key {key!r} is empty; give a key such as 'cli:direct'")
        name = base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii").rstrip("=")
        if len(name) > 240:
            raise WorkspaceError(
                f"session key {key[:40]!r}… is too long for a file name; use at most 180 bytes"
            )
        current = self.sessions_dir / f"{name}.jsonl"
        legacy = self.sessions_dir / f"{_UNSAFE_NAME.sub('_', key.replace(':', '_')).strip()}.jsonl"
        if not current.exists() and legacy.name != ".jsonl" and legacy.is_file():
            return legacy
        return current

    @property
    def prompts_dir(self) -> Path:
        return self.path(vocab.PROMPTS_DIR)

    @property
    def dream_prompt(self) -> Path:
        return self.path(vocab.DREAM_PROMPT)

    @property
    def config_file(self) -> Path:
        return self.path(vocab.CONFIG_FILE)

    def memory_paths(self) -> dict[str, Path]:
        """``{"SOUL.md": Path, "USER.md": Path, "memory/MEMORY.md": Path}``."""
        return {rel: self.path(rel) for rel in MEMORY_FILES}


@functools.lru_cache(maxsize=1)
def template_lines() -> frozenset[str]:
    """The explanatory lines the template's memory files hold for people ("Dream keeps this
    file…"), stripped; headings and blank lines excluded. They never go into a prompt or the
    search index. Empty when the template cannot be found."""
    try:
        source = template_dir()
    except WorkspaceError:
        return frozenset()
    lines: set[str] = set()
    for rel in MEMORY_FILES:
        path = source.joinpath(*rel.split("/"))
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    lines.add(line.strip())
    return frozenset(lines)


def init_workspace(root: Path) -> list[str]:
    """Copy the template into ``root`` without overwriting anything; return what was created.

    Idempotent: a second call creates nothing and returns ``[]``.
    """
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise WorkspaceError(f"{root}: exists and is not a directory; choose another path")
    source = template_dir()
    created: list[str] = []
    for item in sorted(source.rglob("*")):
        rel = item.relative_to(source)
        target = root / rel
        if item.is_dir():
            if not target.exists():
                target.mkdir(parents=True)
                created.append(rel.as_posix() + "/")
            continue
        if item.name == ".keep":
            continue
        if target.exists() or target.is_symlink():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item, target)
        created.append(rel.as_posix())
    for directory in ("memory", "sessions", "prompts"):
        if not (root / directory).exists():
            (root / directory).mkdir(parents=True)
            created.append(directory + "/")
    return created
