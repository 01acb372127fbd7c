"""The one reader and writer of the memory files, with the one symlink policy (DESIGN §5).

Every part of nanomem that reads or writes ``SOUL.md``, ``USER.md`` or ``memory/MEMORY.md``
comes here: the prompt block (``Memory.context``), Dream (dry run and real), restore and the
``manual:`` commits. A memory file that is a symlink is read and versioned by its **content**
when the link resolves inside the workspace and not to one of nanomem's own files
(:func:`nanomem.vocab.check_link_target`: history, cursors, audit, sessions, archive, index,
``.git``, ``.nanomem.git``, ``nanomem.toml``, ``prompts/``); any other link is refused with a
:class:`~nanomem.errors.GitStoreError` that says what to do, and nothing is ever read or
written through it. Writes go through an allowed link to its target (the link stays a link),
atomically, and every link is checked before anything is written::

    files = read_memory_files(ws)             # {"SOUL.md": b"...", "USER.md": b"...", ...}
    write_memory_files(ws, files, ["USER.md"])

Credentials a person typed into a memory file are redacted on disk here, once, before the
files are versioned or shown to a model (:func:`redact_memory_files`), and the memory files'
single writer lock (``memory/.dream.lock``: Dream, restore and ``manual:`` commits) is taken
here (:func:`memory_lock`, :func:`try_lock_memory`).

**The read ceiling.** The search index and the prompt block read at most
:func:`read_ceiling` bytes of one memory file (:data:`CEILING_PER_CAP` bytes per character of
its cap: 96,000 bytes of ``USER.md`` at the default cap), cut back to the last whole line
(:func:`plan_head`); a file over it is named in one warning per process and in ``status``, and
the rest of it stays on disk, untouched, for the person to deal with: Dream refuses such a
file, and so does every run that scans and versions the hand edits first
(:func:`refuse_over_ceiling`: restore, forget, an answer, a ``manual:`` commit)::

    head = read_memory_head(ws, "USER.md", read_ceiling(6_000))   # MemoryHead(data, size)
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from nanomem.errors import GitStoreError, OversizedFileError, UnusableFileError
from nanomem.store.fsutil import FileLock, atomic_write
from nanomem.store.workspace import Workspace
from nanomem.text.redact import find_secrets, redact
from nanomem.vocab import MEMORY_FILES, PENDING, check_link_target

log = logging.getLogger(__name__)

#: Bytes the search index and the prompt block read of a memory file, per character of its cap:
#: four times the cap in the widest UTF-8 (4 bytes a character), sixteen times in ASCII.
CEILING_PER_CAP = 16
_warned: set[tuple[str, int, int]] = set()  # (file, size, mtime_ns) already warned of
_warned_lock = threading.Lock()


class MemoryHead(NamedTuple):
    """What a bounded reader gets of one memory file: its first bytes (whole lines, at most
    the ceiling) and the size of the whole file."""

    data: bytes
    size: int

    @property
    def cut(self) -> bool:
        """Whether the file goes on past ``data``."""
        return self.size > len(self.data)


def read_ceiling(cap: int) -> int:
    """Bytes the search index and the prompt block read of a file with a cap of ``cap``
    characters.

    >>> read_ceiling(6_000)
    96000
    """
    return CEILING_PER_CAP * max(1, cap)


def plan_head(data: bytes, limit: int) -> bytes:
    """The first whole lines of ``data`` within ``limit`` bytes; a first line longer than the
    limit is cut at the last whole UTF-8 character before it.

    >>> plan_head(b"one\\ntwo\\nthree\\n", 9), plan_head(b"one\\n", 9)
    (b'one\\ntwo\\n', b'one\\n')
    >>> plan_head("aé".encode(), 2)
    b'a'
    """
    if len(data) <= limit:
        return data
    end = data.rfind(b"\n", 0, limit) + 1
    if end:
        return data[:end]
    end = limit
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: inside a character
        end -= 1
    return data[:end]


def memory_lock(workspace: Workspace) -> FileLock:
    """The memory files' writer lock (``memory/.dream.lock``), not yet taken: ``with
    memory_lock(ws):`` waits for it (up to the lock timeout); Dream, restore, ``manual:``
    commits and forget all take this one lock, and only through this module."""
    return FileLock(workspace.dream_lock)


def try_lock_memory(workspace: Workspace) -> FileLock | None:
    """Take the memory files' writer lock without waiting; the held lock, or None when another
    writer (a Dream, a restore, a ``manual:`` commit, maybe in another process) holds it.

    >>> import tempfile
    >>> ws = Workspace(Path(tempfile.mkdtemp())); ws.memory_dir.mkdir()
    >>> lock = try_lock_memory(ws); lock is not None
    True
    >>> lock.release()
    """
    lock = memory_lock(workspace)
    return lock if lock.acquire(blocking=False) else None


def memory_file_path(workspace: Workspace, rel: str) -> Path:
    """Where the bytes of memory file ``rel`` live: the file itself, or the target of an
    allowed link. Raises :class:`GitStoreError` for a link the policy refuses."""
    path = workspace.path(rel)
    if not path.is_symlink() and not path.parent.is_symlink():
        return path  # the common case: a plain file (or none) in a plain folder
    if rel not in MEMORY_FILES:  # memory/PENDING.md: nanomem's own file, never a link
        raise UnusableFileError(f"{rel}: is a symlink; nanomem keeps this file itself and never "
                                "reads or writes through a link. Replace the link with a file")
    try:
        real = Path(os.path.realpath(path, strict=False))
        os.stat(path)  # realpath does not report a loop unless strict; stat does
    except FileNotFoundError:
        pass  # a dangling link: reported by the reader, written through by the writer
    except (OSError, RuntimeError) as exc:  # a link loop
        raise UnusableFileError(
            f"{rel}: is a symlink that cannot be followed ({getattr(exc, 'strerror', exc)}); "
            "replace it with a file"
        ) from exc
    where = check_link_target(str(real), os.path.realpath(workspace.root))
    if where is not None:
        raise GitStoreError(
            f"{rel}: is a symlink that leads {where}; nanomem neither reads, versions nor "
            "writes through it. Replace the link with a copy of the file"
        )
    return real


def read_memory_files(
    workspace: Workspace, *, refused: dict[str, str] | None = None
) -> dict[str, bytes]:
    """Bytes of each existing memory file, keyed by relative path, in ``MEMORY_FILES`` order.

    A file the symlink policy refuses raises :class:`GitStoreError`; with ``refused`` (a
    dict to fill) it is left out instead and its reason recorded there, so that a reader such
    as the prompt block can go on without it.

    >>> read_memory_files(Workspace(Path("/nonexistent")))
    {}
    """
    files: dict[str, bytes] = {}
    for rel in MEMORY_FILES:
        try:
            data = read_memory_file(workspace, rel)
        except GitStoreError as exc:
            if refused is None:
                raise
            refused[rel] = str(exc)
            continue
        if data is not None:
            files[rel] = data
    return files


def read_versioned_files(workspace: Workspace) -> dict[str, bytes]:
    """:func:`read_memory_files` and ``memory/PENDING.md`` (the questions): every file the
    memory repository versions (a link as ``PENDING.md`` raises :class:`UnusableFileError`)."""
    files = read_memory_files(workspace)
    pending = read_memory_file(workspace, PENDING)
    if pending is not None:
        files[PENDING] = pending
    return files


def read_memory_file(workspace: Workspace, rel: str) -> bytes | None:
    """The bytes of one memory file (None when absent), under the symlink policy."""
    path = workspace.path(rel)
    if not path.exists() and not path.is_symlink():
        return None
    real = memory_file_path(workspace, rel)
    if not real.exists():
        raise GitStoreError(
            f"{rel}: is a symlink to {real}, which does not exist; "
            "restore the target or replace the link with a file"
        )
    if not real.is_file():
        raise GitStoreError(f"{rel}: is not a regular file; replace it with a markdown file")
    return real.read_bytes()


def memory_file_size(workspace: Workspace, rel: str) -> int | None:
    """The size in bytes of one memory file (None when absent), without reading it; the
    symlink policy applies as in :func:`read_memory_file` (a refused link raises)."""
    path = workspace.path(rel)
    if not path.exists() and not path.is_symlink():
        return None
    real = memory_file_path(workspace, rel)
    if not real.is_file():  # a missing target, a folder: read_memory_file raises the reason
        data = read_memory_file(workspace, rel)
        return None if data is None else len(data)
    return real.stat().st_size


def read_memory_head(workspace: Workspace, rel: str, cap: int) -> MemoryHead | None:
    """At most :func:`read_ceiling` of ``cap`` bytes of one memory file, in whole lines
    (:func:`plan_head`), and its size; None when absent. The symlink policy applies as in
    :func:`read_memory_file`; a file over the ceiling is warned of once per process (and again
    when it changes), with :func:`render_over_ceiling`."""
    path = workspace.path(rel)
    if not path.exists() and not path.is_symlink():
        return None
    real = memory_file_path(workspace, rel)
    if not real.is_file():  # a missing target, a folder: read_memory_file raises the reason
        data = read_memory_file(workspace, rel)
        return None if data is None else MemoryHead(data, len(data))
    limit = read_ceiling(cap)
    with open(real, "rb") as handle:
        stat = os.fstat(handle.fileno())
        data = handle.read(limit + 1)
    if len(data) <= limit:
        return MemoryHead(data, len(data))
    head = MemoryHead(plan_head(data, limit), max(stat.st_size, len(data)))
    with _warned_lock:
        first = (str(real), stat.st_size, stat.st_mtime_ns) not in _warned
        _warned.add((str(real), stat.st_size, stat.st_mtime_ns))
    if first:
        log.warning("%s", render_over_ceiling(rel, head.size, cap))
    return head


def render_over_ceiling(rel: str, size: int, cap: int) -> str:
    """What ``status`` and the warning say of a memory file over its read ceiling: the file,
    its size, the ceiling and the fix.

    >>> print(render_over_ceiling("USER.md", 20_000_000, 6_000))  # doctest: +NORMALIZE_WHITESPACE
    USER.md is 20,000,000 bytes, over the 96,000 that search and the prompt block read of it
    (16 per character of its cap of 6,000); they use its first lines up to that size and the
    rest stays in the file, untouched. Move the rest out of USER.md, or raise [caps] "USER.md"
    in nanomem.toml
    """
    return (f"{_over_its_ceiling(rel, size, cap, 'that search and the prompt block read of it')}; "
            "they use its first lines up to that size and the rest stays in the file, untouched. "
            f'Move the rest out of {rel}, or raise [caps] "{rel}" in nanomem.toml')


def _over_its_ceiling(rel: str, size: int, cap: int, reader: str) -> str:
    """The phrase :func:`render_over_ceiling` and :func:`render_ceiling_refusal` share: the
    file, its size, the ceiling (what ``reader`` reads of it) and the cap it comes from."""
    return (f"{rel} is {size:,} bytes, over the {read_ceiling(cap):,} {reader} "
            f"({CEILING_PER_CAP} per character of its cap of {cap:,})")


class OverCeiling(NamedTuple):
    """A memory file over its read ceiling: its size in bytes and its cap in characters."""

    path: str
    size: int
    cap: int


def plan_over_ceiling(sizes: Mapping[str, int | None], caps: Mapping[str, int]) -> list[OverCeiling]:
    """The files whose size is over their read ceiling, in the order of ``sizes``.

    >>> plan_over_ceiling({"USER.md": 100_000, "SOUL.md": 10}, {"USER.md": 6_000, "SOUL.md": 4_000})
    [OverCeiling(path='USER.md', size=100000, cap=6000)]
    """
    return [OverCeiling(rel, size, caps[rel]) for rel, size in sizes.items()
            if size is not None and rel in caps and size > read_ceiling(caps[rel])]


def find_over_ceiling(workspace: Workspace, cap_for: Callable[[str], int]) -> list[OverCeiling]:
    """The memory files over their read ceiling, found by ``stat`` (no file is read);
    ``cap_for`` is :meth:`nanomem.config.Config.cap_for`."""
    return plan_over_ceiling({rel: memory_file_size(workspace, rel) for rel in MEMORY_FILES},
                             {rel: cap_for(rel) for rel in MEMORY_FILES})


def render_ceiling_refusal(over: Sequence[OverCeiling], works_on: str, outcome: str,
                           again: str) -> str:
    """Why a run refused files over their read ceiling: each file, its size, the ceiling, the
    cap, ``outcome`` and the fix, then ``again``.

    >>> print(render_ceiling_refusal([OverCeiling("USER.md", 20_000_000, 6_000)], "X works on",
    ...                              "X did not run", "try again"))  # doctest: +NORMALIZE_WHITESPACE
    USER.md is 20,000,000 bytes, over the 96,000 X works on (16 per character of its cap of
    6,000); X did not run. Move what you want to keep out of USER.md (nanomem never cuts a file
    you wrote), or raise [caps] "USER.md" in nanomem.toml; then try again
    """
    files = "; ".join(_over_its_ceiling(o.path, o.size, o.cap, works_on) for o in over)
    names = ", ".join(o.path for o in over)
    caps = ", ".join(f'"{o.path}"' for o in over)
    return (f"{files}; {outcome}. Move what you want to keep out of {names} (nanomem never cuts "
            f"a file you wrote), or raise [caps] {caps} in nanomem.toml; then {again}")


def refuse_over_ceiling(workspace: Workspace, cap_for: Callable[[str], int], action: str) -> None:
    """Raise :class:`~nanomem.errors.OversizedFileError` when a memory file is over its read
    ceiling, before ``action`` (a restore, a forget, an answer, a ``manual:`` commit) versions
    the hand edits: each is scanned for credentials whole (:func:`redact_memory_files`) and
    committed first, which a pasted file of megabytes makes a matter of seconds, and none of
    them would fit it back under its cap. Found by ``stat``; nothing is read or written.

    >>> refuse_over_ceiling(Workspace(Path("/nonexistent")), lambda rel: 6_000, "restore")
    """
    over = find_over_ceiling(workspace, cap_for)
    if over:
        raise OversizedFileError(render_ceiling_refusal(
            over, "nanomem scans for credentials and versions as a hand edit",
            f"{action} did not run: no file was changed", "try again"))


def redact_memory_files(workspace: Workspace) -> dict[str, bytes]:
    """Read the memory files and redact the secrets a person typed into them, on disk: the one
    place this happens, before the files are versioned or shown to a model.

    Returns the files' bytes after redaction; each affected file is rewritten atomically
    (through allowed links) and a warning names the file, the lines and the kinds. Non-UTF-8
    bytes elsewhere in the file are kept as they were.

    >>> redact_memory_files(Workspace(Path("/nonexistent")))
    {}
    """
    files = read_memory_files(workspace)
    out = dict(files)
    changed = []
    for rel, data in files.items():
        text = data.decode("utf-8", "surrogateescape")
        found = find_secrets(text)
        if not found:
            continue
        lines = sorted({text.count("\n", 0, match.start) + 1 for match in found})
        kinds = sorted({match.kind for match in found})
        out[rel] = redact(text).text.encode("utf-8", "surrogateescape")
        changed.append(rel)
        log.warning(
            "%s line %s: redacted %s before committing; the memory files are sent to the model "
            "and versioned in git, so keep credentials elsewhere",
            rel, ", ".join(map(str, lines)), ", ".join(kinds),
        )
    if changed:
        write_memory_files(workspace, out, changed)
    return out


def write_memory_files(
    workspace: Workspace, wanted: Mapping[str, bytes], changed: Iterable[str]
) -> None:
    """Give each file in ``changed`` the bytes in ``wanted``, or remove it when absent there.
    Every link is checked against the policy before anything is written."""
    targets = {rel: memory_file_path(workspace, rel) for rel in changed}
    for rel, target in targets.items():
        if rel in wanted:
            atomic_write(target, wanted[rel])
        else:
            workspace.path(rel).unlink(missing_ok=True)
