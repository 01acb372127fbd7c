"""The sweep: after a forget, look for the text in every file and every git object.

Every file under the workspace root is read as bytes and searched in folded form (JSON lines
also in their decoded form, so ``\\u00e9`` escapes are seen). The memory repository's object
files are not searched as bytes (they are compressed): every object in it, loose or packed,
reachable or not, is decompressed and searched instead, as ``git cat-file --batch-all-objects
--batch`` would show it. A hit is named by file and line, or by object id and type.

>>> sweep_text("a\\nAlice\\n", Matcher.literal("alice"), json_lines=False)
[2]
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nanomem.forget.match import Matcher
from nanomem.store.workspace import Workspace
from nanomem.versions import rewrite


def sweep(workspace: Workspace, matcher: Matcher, git_dir: Path | None) -> list[str]:
    """Where the text still is: ``USER.md line 3``, ``git object 1a2b3c4 (blob)``; [] if nowhere."""
    hits = sweep_files(workspace, matcher, skip=_objects_dir(git_dir))
    if git_dir is not None and git_dir.is_dir():
        hits += sweep_objects(git_dir, matcher)
    return hits


def sweep_files(workspace: Workspace, matcher: Matcher, *, skip: Path | None = None) -> list[str]:
    """Every regular file under the workspace root (links are not followed)."""
    root = workspace.root
    hits: list[str] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if skip is not None and here == skip.parent:
            dirs[:] = [d for d in dirs if here / d != skip]
        dirs.sort()
        for name in sorted(files):
            path = here / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                hits.append(f"{path.relative_to(root).as_posix()} (unreadable: {exc.strerror})")
                continue
            text = data.decode("utf-8", "replace")
            lines = sweep_text(text, matcher, json_lines=name.endswith((".jsonl", ".json")))
            rel = path.relative_to(root).as_posix()
            hits += [f"{rel} line {n}" for n in lines]
    return hits


def sweep_text(text: str, matcher: Matcher, *, json_lines: bool) -> list[int]:
    """1-based numbers of the lines of ``text`` that hold the pattern."""
    if not matcher.matches(text) and not (json_lines and "\\" in text):
        return []
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if matcher.matches(line):
            found.append(number)
        elif json_lines and "\\" in line:
            try:
                decoded = json.dumps(json.loads(line), ensure_ascii=False)
            except ValueError:
                continue
            if matcher.matches(decoded):
                found.append(number)
    if not found and matcher.matches(text):  # a match across lines
        found.append(1)
    return found


def sweep_objects(git_dir: Path, matcher: Matcher) -> list[str]:
    """Every object of the repository at ``git_dir``, decompressed."""
    repo = rewrite.open_repo(git_dir)
    try:
        return [f"git object {sha[:10]} ({kind})" for sha, kind, data in rewrite.iter_objects(repo)
                if matcher.matches(data.decode("utf-8", "replace"))]
    finally:
        repo.close()


def _objects_dir(git_dir: Path | None) -> Path | None:
    return None if git_dir is None else git_dir / "objects"
