"""Commits as text: messages, trailers, unified diffs and the records ``nanomem log`` shows.

Nothing here touches git or the disk; :mod:`nanomem.versions.gitstore` feeds it bytes.

>>> render_message("dream: 2 files", "USER.md +1", {"Dream-Cursor": "42", "Batch": "30-42"})
'dream: 2 files\\n\\nUSER.md +1\\n\\nDream-Cursor: 42\\nBatch: 30-42\\n'
>>> parse_trailers("dream: x\\n\\nbody\\n\\nDream-Cursor: 42\\nBatch: 30-42\\n")
{'Dream-Cursor': '42', 'Batch': '30-42'}
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from dataclasses import dataclass, field
from typing import ClassVar

COMMIT_KINDS: tuple[str, ...] = ("init", "dream", "manual", "restore", "forget", "confirm")

_TRAILER_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
_TRAILER_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*): (.*)$")


def render_message(
    subject: str, body: str = "", trailers: Mapping[str, object] | None = None
) -> str:
    """Build a git commit message: subject, blank line, body, blank line, trailer block.
    A subject or trailer that git would misread is a bug of the caller: ``ValueError``.

    >>> render_message("manual: USER.md")
    'manual: USER.md\\n'
    """
    subject = subject.strip()
    if not subject or "\n" in subject or "\r" in subject:
        raise ValueError(
            f"commit subject {subject!r} must be one non-empty line; put details in the body"
        )
    parts = [subject]
    if body.strip():
        parts.append(body.strip("\n"))
    if trailers:
        lines = []
        for key, value in trailers.items():
            text = str(value)
            if not _TRAILER_KEY.match(key) or "\n" in text:
                raise ValueError(
                    f"trailer {key!r}: {text!r} is not a valid git trailer; "
                    "use Word-Key: one-line value"
                )
            lines.append(f"{key}: {text}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def split_message(message: str) -> tuple[str, str, dict[str, str]]:
    """Split a commit message into ``(subject, body, trailers)``; the body excludes the trailers.

    >>> split_message("restore: to abc1\\n\\nwhy\\n")
    ('restore: to abc1', 'why', {})
    """
    text = message.replace("\r\n", "\n").strip("\n")
    subject, _, rest = text.partition("\n")
    paragraphs = [p for p in re.split(r"\n\s*\n", rest.strip("\n")) if p.strip()]
    trailers: dict[str, str] = {}
    if paragraphs:
        last = paragraphs[-1].splitlines()
        matches = [_TRAILER_LINE.match(line) for line in last]
        if all(matches):
            trailers = {m.group(1): m.group(2).strip() for m in matches if m}
            paragraphs = paragraphs[:-1]
    return subject.strip(), "\n\n".join(paragraphs), trailers


def parse_trailers(message: str) -> dict[str, str]:
    """The git trailer block (last paragraph of ``Key: value`` lines) of a message."""
    return split_message(message)[2]


def commit_kind(subject: str) -> str | None:
    """The kind of a nanomem commit subject (``init``, ``dream``, ``manual``, ``restore``).

    >>> commit_kind("dream: 3 facts"), commit_kind("fix typo")
    ('dream', None)
    """
    head = subject.split(":", 1)[0].strip()
    return head if ":" in subject and head in COMMIT_KINDS else None


def decode_for_display(data: bytes) -> str:
    """UTF-8 text; undecodable bytes shown as ``\\xNN`` so the result is always printable JSON."""
    return data.decode("utf-8", errors="backslashreplace")


def render_file_diff(path: str, old: bytes | None, new: bytes | None) -> str:
    """A git-style unified diff of one file; ``None`` means absent. Empty when unchanged.

    Non-UTF-8 bytes appear as ``\\xNN``; content with NUL bytes is reported as binary, as git does.

    >>> print(render_file_diff("USER.md", b"a\\n", b"a\\nb\\n"), end="")
    diff --git a/USER.md b/USER.md
    --- a/USER.md
    +++ b/USER.md
    @@ -1 +1,2 @@
     a
    +b
    """
    if old == new:
        return ""
    header = [f"diff --git a/{path} b/{path}"]
    if old is None:
        header.append("new file mode 100644")
    elif new is None:
        header.append("deleted file mode 100644")
    from_name = "/dev/null" if old is None else f"a/{path}"
    to_name = "/dev/null" if new is None else f"b/{path}"
    if b"\0" in (old or b"") or b"\0" in (new or b""):
        header.append(f"Binary files {from_name} and {to_name} differ")
        return "\n".join(header) + "\n"
    old_lines = _lines(old)
    new_lines = _lines(new)
    body = list(difflib.unified_diff(old_lines, new_lines, from_name, to_name, lineterm=""))
    out = header + [line for line in body]
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def _lines(data: bytes | None) -> list[str]:
    if not data:
        return []
    lines = decode_for_display(data).splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def summarize_files(files: list[str]) -> str:
    """``manual: USER.md, memory/MEMORY.md``-style list of files for a subject line.

    >>> summarize_files(["USER.md", "SOUL.md"])
    'SOUL.md, USER.md'
    """
    return ", ".join(sorted(files))


@dataclass(frozen=True)
class CommitInfo:
    """One commit of the memory history, as shown by ``nanomem log``."""

    sha: str
    subject: str
    body: str
    time: str
    files: tuple[str, ...]
    diff: str
    trailers: Mapping[str, str] = field(default_factory=dict)
    parents: tuple[str, ...] = ()
    moved_from: str | None = None  # the old sha a forget rewrote into this commit

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def kind(self) -> str | None:
        """``init``, ``dream``, ``manual``, ``restore`` or ``None`` for a foreign commit."""
        return commit_kind(self.subject)



@dataclass(frozen=True)
class RestoreResult:
    """Outcome of a restore: ``restored`` (with the new commit), ``already`` (the files match
    already) or ``nothing_to_do`` (``Memory.restore()`` with no Dream commit to undo)."""

    status: str
    target: str | None
    files: tuple[str, ...]
    commit: CommitInfo | None = None
    manual: CommitInfo | None = None
    moved_from: str | None = None  # the old sha a forget rewrote into ``target``

    # ``restore --json`` (DESIGN §8) also gives the new commit's sha, subject, time and diff.
    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("sha", "subject", "time", "diff")

    @property
    def sha(self) -> str | None:
        """The ``restore:`` commit made (None unless ``restored``)."""
        return self.commit.sha if self.commit else None

    @property
    def subject(self) -> str | None:
        return self.commit.subject if self.commit else None

    @property
    def time(self) -> str | None:
        return self.commit.time if self.commit else None

    @property
    def diff(self) -> str:
        return self.commit.diff if self.commit else ""


def parse_commit_header(sha: str, message: bytes, commit_time: int, commit_timezone: int,
                        parents: Sequence[str]) -> CommitInfo:
    """A :class:`CommitInfo` from what a commit object itself holds (``files`` and ``diff``
    empty: no tree is read)."""
    subject, body, trailers = split_message(message.decode("utf-8", "replace"))
    tz = timezone(timedelta(seconds=commit_timezone))
    when = datetime.fromtimestamp(commit_time, tz).isoformat()
    return CommitInfo(sha=sha, subject=subject, body=body, time=when, files=(), diff="",
                      trailers=trailers, parents=tuple(parents))
