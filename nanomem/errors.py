"""The one exception tree of nanomem.

Every error knows the exit code the CLI returns for it::

    NanomemError (1)
    ├── ConfigError (2)        bad nanomem.toml, environment or flags
    ├── WorkspaceError (2)     missing or malformed workspace files
    │   └── OversizedFileError (2) a memory file over its read ceiling (nothing changed)
    ├── CommandError (2)       bad slash-command or CLI usage
    ├── HistoryError (1)       history.jsonl or cursor files cannot be read or written
    │   ├── LockError (2)      a lock timed out (names the holder's pid) or cannot be opened
    │   └── StoreFileError (2) a history or cursor file is unusable (loop, permissions, full disk)
    ├── ProviderError (1)      the model endpoint failed (network, HTTP status, bad reply)
    ├── GitStoreError (1)      the memory repository cannot be read or written
    │   ├── ShaError (2)       a sha given by a person: unknown, ambiguous or the wrong kind
    │   ├── EditConflictError (1) a memory file was edited while nanomem was writing it
    │   └── UnusableFileError (2) a file the repository needs is unusable (HEAD, a link loop)
    ├── DreamError (1)         a Dream run could not complete
    └── ForgetError (2)        a forget cannot start: a pattern too short or too broad, or
                               another forget left unfinished; or a file it must write is not
                               writable (it finishes from its journal when rerun)

A message says what failed, where, and what to do, for example
``history.jsonl line 41: cursor 'abc' is not an integer; remove or repair the line``.
Third-party exceptions are translated once, where they enter (httpx in ``engines/openai.py``,
dulwich in ``versions/gitstore.py``), and chained with ``raise ... from exc``.

Only the faces (``cli``, ``commands``, ``mcp_server``) raise ``CommandError``. A tool call
that Dream's gates refuse is not an exception: the reason goes back to the model as the tool result. A caller's
bug (a bad argument to a pure function, a ``KeyError`` in nanomem's own code) is a plain
``ValueError``/``KeyError``, never reported as a damaged file or repository.
"""

from __future__ import annotations


class NanomemError(Exception):
    """Base class of every error nanomem raises on purpose."""

    exit_code = 1


class ConfigError(NanomemError):
    """Configuration (flags, environment, nanomem.toml) is invalid."""

    exit_code = 2


class WorkspaceError(NanomemError):
    """The workspace is missing or one of its files is malformed."""

    exit_code = 2


class OversizedFileError(WorkspaceError):
    """A memory file is over its read ceiling (a paste of megabytes), so a run that would
    scan and version it as a hand edit first refused; no file was changed, and the message
    names the file, its size, the ceiling, its cap and the fix."""


class CommandError(NanomemError):
    """A slash command or CLI invocation was used wrongly."""

    exit_code = 2


class HistoryError(NanomemError):
    """The history log or a cursor file cannot be read or written."""


class LockError(HistoryError):
    """A lock file timed out (the message names the holder's pid) or cannot be opened."""

    exit_code = 2


class StoreFileError(HistoryError):
    """A history or cursor file cannot be used as it is (a symlink loop, a directory, no
    permission, an immutable file, a full disk); the message names the file and the fix."""

    exit_code = 2


class ProviderError(NanomemError):
    """The model endpoint failed; the message never contains the API key."""


class GitStoreError(NanomemError):
    """The memory repository cannot be read or written."""


class ShaError(GitStoreError):
    """A sha given by a person is unknown, ambiguous or not the kind of commit asked for."""

    exit_code = 2

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


class EditConflictError(GitStoreError):
    """A memory file was edited (by a person's editor) between nanomem's check and its write;
    nothing was written, the edit is kept on disk, and the command can be run again."""


class UnusableFileError(GitStoreError):
    """A file the memory repository needs is unusable (a HEAD that points outside the
    repository, a memory file that is a symlink loop); the message names it and the fix."""

    exit_code = 2


class DreamError(NanomemError):
    """A Dream run could not complete; nothing was changed."""


class ForgetError(NanomemError):
    """A forget cannot start: its pattern is unusable, or another forget is unfinished."""

    exit_code = 2
