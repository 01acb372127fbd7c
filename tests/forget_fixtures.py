"""Helpers of the forget tests: plant a fact in every place it can live, and look for it.

:func:`plant` makes one fact reach the memory files, 20 commits of git history (blobs and
messages), every history segment, the archive, the derived index, a session and the Dream audit,
next to other facts that must survive. :func:`byte_hits` and :func:`object_hits` look for it
without nanomem's own sweep: a raw byte search of every file, and every git object decompressed.
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
import zlib
from pathlib import Path

from dulwich.repo import Repo

from nanomem.config import Config
from nanomem.memory import Memory
from nanomem.store.workspace import Workspace
from nanomem.versions.gitstore import GitStore, locate_git_dir
from tests.gitstore_fixtures import StepClock

FACT = "Zanzibar Quokka"
OTHER = "Prefers green tea"
CONFIG = Config(author_name="Memory Bot", author_email="bot@example.com")


def plant(ws: Path, *, depth: int = 20, fact: str = FACT) -> dict[str, object]:
    """Make ``fact`` reach every place; return the old shas (oldest first) and the other lines."""
    clock = StepClock()
    store = GitStore.open(ws, CONFIG, clock=clock)
    user = ws / "USER.md"
    user.write_text(user.read_text("utf-8") + f"- {OTHER}\n- Cousin is {fact}, born 1990\n", "utf-8")
    store.commit(f"manual: USER.md ({fact.upper()} added)")
    for i in range(depth):
        user.write_text(user.read_text("utf-8") + f"- note {i}\n", "utf-8")
        store.commit(f"dream: entries {i}-{i}: USER.md +1 -0", f"Diff:\n+- note {i}\n",
                     {"Dream-Cursor": i + 1, "Batch": f"{i}-{i}"})
    memory_md = ws / "memory" / "MEMORY.md"
    memory_md.write_text(memory_md.read_text("utf-8") + "- Project KX-7731 ships in May\n", "utf-8")
    store.commit("dream: entries 21-21: memory/MEMORY.md +1 -0",
                 f"Diff:\n+- {fact} knows about KX-7731\n", {"Dream-Cursor": 21, "Batch": "21-21"})
    shas = [c.sha for c in reversed(store.log(depth + 10))]
    store.close()
    memory = ws / "memory"
    _write_lines(memory / "history.overflow-1-2.jsonl", [
        {"cursor": 1, "timestamp": "2026-03-01 09:00", "content": f"- [durable] {fact} is a cousin"},
        {"cursor": 2, "timestamp": "2026-03-01 09:00", "content": f"- [durable] {OTHER}"}])
    _write_lines(memory / "history.compacted-3-3.jsonl", [
        {"cursor": 3, "timestamp": "2026-03-01 09:01",
         "content": f"- [durable] {OTHER}\n- [permanent] {fact.lower()} lives in Leeds"}])
    _write_lines(memory / "history.jsonl", [
        {"cursor": 4, "timestamp": "2026-03-01 09:02", "content": f"- [durable] {fact}",
         "kind": "summary"},
        {"cursor": 5, "timestamp": "2026-03-01 09:03", "content": f"- [durable] {OTHER}"},
        {"cursor": 6, "timestamp": "2026-03-01 09:04",
         "content": "- [durable] " + _full_width(fact.upper()).replace(" ", "  ")}])
    (memory / ".cursor").write_text("21\n")
    (memory / ".dream_cursor").write_text("21\n")  # the last dream: commit's Dream-Cursor
    with Memory(Workspace(ws), config=CONFIG, clock=clock) as mem:  # the real archive and index
        mem.archive.append_messages(
            [{"role": "user", "content": f"My cousin is {fact}.", "timestamp": "2026-03-01T09:00:00"},
             {"role": "assistant", "content": "Noted.", "timestamp": "2026-03-01T09:00:05"}],
            session_key="cli", start=0)
        assert mem.search(fact.split()[0]), "the index holds the fact"
    session = ws / "sessions" / "cli.jsonl"
    session.parent.mkdir(exist_ok=True)
    _write_lines(session, [
        {"_type": "metadata", "key": "cli", "last_consolidated": 2, "created_at": "", "updated_at": ""},
        {"role": "user", "content": f"My cousin is {fact}.", "timestamp": "2026-03-01T09:00:00"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "note", "arguments": json.dumps({"who": fact})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": f"{OTHER}."}])
    _write_lines(memory / "dream-audit.jsonl", [
        {"time": "2026-03-01T09:05:00", "tool": "edit_file", "path": "USER.md",
         "arguments": {"old_text": "x", "new_text": f"- {fact} again"}, "reason": "duplicate"},
        {"time": "2026-03-01T09:05:00", "tool": "write_file", "path": "SOUL.md",
         "arguments": {"content": "be terse"}, "reason": "size"}])
    return {"shas": shas}


def _full_width(text: str) -> str:
    """``ＺＡＮＺＩＢＡＲ``: the same text after NFKC folding, other bytes on disk."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _write_lines(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")


def byte_hits(root: Path, needles: tuple[bytes, ...] = (b"zanzibar", b"quokka")) -> list[str]:
    """Files under ``root`` whose bytes (lower-cased; loose git objects decompressed) hold a
    needle: a search that shares no code with nanomem's sweep."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                continue
            data = path.read_bytes()
            if "/objects/" in path.as_posix() and len(name) == 38:
                data = zlib.decompress(data)
            lowered = unicodedata.normalize("NFKC", data.decode("utf-8", "replace")).lower()
            if any(n.decode() in lowered for n in needles):
                found.append(path.relative_to(root).as_posix())
    return found


def object_hits(ws: Path, needles: tuple[bytes, ...] = (b"zanzibar", b"quokka")) -> list[str]:
    """Every object of the memory repository (loose and packed) that holds a needle."""
    repo = Repo(str(locate_git_dir(ws)[0]))
    try:
        hits = []
        for sha in repo.object_store:
            _, data = repo.object_store.get_raw(sha)
            if any(n in data.lower() for n in needles):
                hits.append(sha.decode())
        return hits
    finally:
        repo.close()


def tree_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (what "no byte changed" compares)."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
        out.update({(Path(folder) / d).relative_to(root).as_posix() + "/": "dir" for d in dirs})
    return out


OPENED: list[Memory] = []


def memory(ws: Path) -> Memory:
    """A ``Memory`` of ``ws`` with a stepping clock, closed by :func:`close_opened`."""
    mem = Memory(Workspace(ws), config=CONFIG, clock=StepClock())
    OPENED.append(mem)
    return mem


def close_opened() -> None:
    while OPENED:
        OPENED.pop().close()
