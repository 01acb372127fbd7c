"""The operations of ``benchmarks/faults.py``: each one's workspace, command, recovery and
invariants.

A template workspace is built once per operation (from one shared base: ``nanomem init``, an
append, a committed Dream, two more appends) and copied for each trial. Its *facts* (the
acknowledged cursors, the ``manual:`` commits it already has, a snapshot of what the forget must
keep) are written beside it, never inside it: a forget's sweep would find its pattern there.

The operations that rewrite state beyond append, consolidate, dream and restore, and what is
checked after a kill and the recovery the design specifies:

* ``forget`` (``nanomem forget Porto``, the word in a memory file, history, the archive, a
  session, the audit, the index and git). Recovery: the same forget again (docs/forget.md:
  "running the same forget again finishes the job"), then a Dream. ``forget_gone``: no
  workspace file holds the word (the git dir's raw files and the index included), nor any git
  object (``git log -p --all``, ``git cat-file --batch-all-objects``); ``forget_kept``: every
  history cursor, archive record and session message of the template is still there, every line
  of them without the word too, and so is every memory-file line without it; a search for a
  turn's words finds it, and one for the word finds nothing.
* ``answer-yes`` / ``answer-no`` (``nanomem pending yes|no 1``, a pinned line's correction).
  Recovery: a Dream. ``answer_once``: at most one ``confirm:`` commit; the question is open
  exactly when there is none; ``USER.md`` holds the new line exactly when a yes was committed;
  one audit event per ``confirm:`` commit; an answer not committed can be given again, and is
  then committed once.
* ``consolidate`` also writes ``memory/archive`` (the words of each archived turn). Recovery:
  the consolidation again (the host's next turn), then a Dream. ``archive``: every message
  before the session's ``last_consolidated`` is archived exactly once; a search for the newest
  archived turn's words finds it.
* ``compact`` (a Dream with nothing to do once ``max_history_entries`` is lowered: it moves
  processed entries into ``history.compacted-*``). Recovery: a Dream. ``compaction``: every
  cursor of the template is still read, exactly once, as ``iter_entries`` reads segments (a
  segment's name range is authoritative).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FORGOTTEN = "Porto"
MEMORY_FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
PINNED = "- Lives in Lisbon <!-- pin -->"
PINNED_NEW = "- I moved to Porto last month. <!-- pin -->"
_SEGMENT = re.compile(r"^history\.(?:compacted|overflow)-(\d+)-(\d+)\.jsonl$")

Facts = dict[str, Any]


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("NANOMEM_", "GIT_"))}
    out.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Faults", GIT_AUTHOR_EMAIL="f@example.com",
               GIT_COMMITTER_NAME="Faults", GIT_COMMITTER_EMAIL="f@example.com",
               PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    return out


def nanomem(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanomem", "-w", str(ws), *args],
                          capture_output=True, text=True, env=env(), timeout=120)


def git_dir(ws: Path) -> Path:
    return ws / ".nanomem.git" if (ws / ".nanomem.git").is_dir() else ws / ".git"


def git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", f"--git-dir={git_dir(ws)}", *args], capture_output=True,
                          text=True, env=env(), errors="replace")


def subjects(ws: Path) -> list[str]:
    return git(ws, "log", "--format=%s").stdout.splitlines()


def _append(ws: Path, text: str) -> int:
    return int(nanomem(ws, "append", text).stdout.strip())


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stderr[-500:]


def _session(ws: Path) -> Path:
    """A session of 40 turns (about 10k tokens), each holding a distinct fact; turn 3 also
    names the forgotten word."""
    lines = [json.dumps({"_type": "metadata", "key": "cli:faults", "created_at":
                         "2026-11-30T10:00:00", "updated_at": "2026-11-30T10:00:00",
                         "metadata": {}, "last_consolidated": 0})]
    for n in range(40):
        said = f" I sailed from {FORGOTTEN} that day." if n == 3 else ""
        lines.append(json.dumps({"role": "user", "content": f"Remember that crate {n} holds "
                                 f"{n * 7} bolts.{said} " + "filler " * 90}))
        lines.append(json.dumps({"role": "assistant", "content": f"Noted: crate {n}."}))
    path = ws / "sessions" / "faults.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _consolidate_args(ws: Path) -> tuple[str, ...]:
    return ("consolidate", str(ws / "sessions" / "faults.jsonl"), "--context-window", "6000")


def _base(root: Path) -> tuple[Path, list[int]]:
    ws = root / "template-base"
    if not ws.exists():
        _ok(nanomem(ws, "init", str(ws)))
        cursors = [_append(ws, "- [durable] User keeps crate A in Lyon.")]
        _ok(nanomem(ws, "dream"))
        cursors += [_append(ws, f"- [durable] User keeps crate B in {FORGOTTEN}."),
                    _append(ws, "- [durable] User keeps crate C in Oslo.")]
        (root / "template-base.json").write_text(json.dumps(cursors))
    return ws, json.loads((root / "template-base.json").read_text())


def _build(operation: str, ws: Path, acknowledged: list[int]) -> None:
    """Turn a copy of the base into ``operation``'s template (in place)."""
    if operation == "restore":  # a Dream of all three, to undo
        _ok(nanomem(ws, "dream"))
    elif operation == "consolidate":
        _session(ws)
    elif operation == "forget":  # the word in every place: files, history, archive, index, git
        _session(ws)
        _ok(nanomem(ws, *_consolidate_args(ws)))
        _ok(nanomem(ws, "dream"))
        _ok(nanomem(ws, "search", "bolts"))
    elif operation.startswith("answer-"):  # question 1: a correction of a pinned line
        with (ws / "USER.md").open("a", encoding="utf-8") as user:
            user.write(PINNED + "\n")
        acknowledged.append(_append(ws, f"- [correction] Actually I moved to {FORGOTTEN} "
                                        "last month."))
        _ok(nanomem(ws, "dream"))
        assert "USER.md: change a pinned line?" in nanomem(ws, "pending").stdout
    elif operation == "compact":  # processed entries that a lowered limit moves into a segment
        acknowledged += [_append(ws, f"- [durable] User keeps box {n} in hall {n + 20}.")
                         for n in range(3)]
        _ok(nanomem(ws, "dream"))  # 6 entries processed; keeping 1, the next run moves 1-5
        with (ws / "nanomem.toml").open("a", encoding="utf-8") as toml:
            toml.write("\n[history]\nmax_history_entries = 1\n")


def prepare(root: Path, operation: str) -> tuple[Path, Facts]:
    """``operation``'s template workspace and its facts, made once per root."""
    ws, facts_path = root / f"template-{operation}", root / f"template-{operation}.json"
    if not ws.exists():
        base, acknowledged = _base(root)
        shutil.copytree(base, ws, symlinks=True)
        _build(operation, ws, acknowledged)
        facts: Facts = {"acknowledged": acknowledged,
                        "manual": sum(s.startswith("manual:") for s in subjects(ws))}
        if operation == "forget":
            facts["kept"] = snapshot(ws)
        facts_path.write_text(json.dumps(facts))
    return ws, json.loads(facts_path.read_text())


def operation_args(ws: Path, operation: str) -> tuple[str, ...]:
    if operation == "append":
        return ("append", "- [durable] User keeps crate Z in Oslo.")
    if operation == "consolidate":
        return _consolidate_args(ws)
    if operation in ("dream", "compact"):
        return ("dream",)
    if operation == "forget":
        return ("forget", FORGOTTEN)
    if operation.startswith("answer-"):
        return ("pending", operation.removeprefix("answer-"), "1")
    return ("restore", git(ws, "log", "-1", "--format=%H").stdout.strip())


def recover(ws: Path, operation: str) -> list[str]:
    """What the design says comes after a kill, before the next Dream: the same forget again,
    the consolidation again (the host's next turn). Returns the broken ``recovers`` lines."""
    if operation == "forget":
        proc = nanomem(ws, "forget", FORGOTTEN)
    elif operation == "consolidate":
        proc = nanomem(ws, *_consolidate_args(ws))
    else:
        return []
    if proc.returncode != 0:
        return [f"recovers: {operation} again: rc {proc.returncode}: {proc.stderr.strip()[-200:]}"]
    return []


# --- reading the workspace as nanomem's readers do -------------------------------------------

def _jsonl(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def history_entries(ws: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every entry as ``History.iter_entries`` reads it (segments by their name range, lowest
    first, then ``history.jsonl`` above them), and the lines that do not parse or go backwards."""
    memory = ws / "memory"
    segments = sorted((int(m[1]), int(m[2]), p) for p in memory.glob("history.*.jsonl")
                      if (m := _SEGMENT.match(p.name)))
    files = [(p, last) for _, last, p in segments] + [(memory / "history.jsonl", None)]
    entries: list[dict[str, Any]] = []
    problems: list[str] = []
    floor = 0
    for path, last in files:
        if not path.exists():
            continue
        cursors = []
        for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                problems.append(f"{path.name} line {number} does not parse")
                continue
            cursor = entry.get("cursor")
            cursors.append(cursor)
            if isinstance(cursor, int) and cursor > floor and (last is None or cursor <= last):
                entries.append(entry)
        if cursors != sorted(set(cursors)):
            problems.append(f"{path.name}: cursors not unique and increasing")
        floor = max([floor, *(e["cursor"] for e in entries)])
    return entries, problems


def _archive(ws: Path) -> list[dict[str, Any]]:
    return [r for p in sorted((ws / "memory" / "archive").glob("archive-*.jsonl"))
            for r in _jsonl(p)]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _without(lines: list[str], word: str) -> list[str]:
    return [line for line in lines if word.lower() not in line.lower()]


def snapshot(ws: Path) -> Facts:
    """What a forget must keep: every history cursor and archive record, each session's
    message count, and the lines of each (and of each memory file)."""
    entries, _ = history_entries(ws)
    files = {rel: _lines((ws / rel).read_text("utf-8", "replace"))
             for rel in MEMORY_FILES if (ws / rel).exists()}
    return {
        "history": {str(e["cursor"]): _lines(str(e.get("content", ""))) for e in entries},
        "archive": {f"{r.get('id')}/{r.get('part')}": _lines(str(r.get("text", "")))
                    for r in _archive(ws)},
        "sessions": {p.name: len(_jsonl(p)) for p in sorted((ws / "sessions").glob("*.jsonl"))},
        "files": files,
    }


def _search(ws: Path, query: str, *sources: str) -> list[dict[str, Any]] | None:
    proc = nanomem(ws, "search", query, "-k", "5", "--json",
                   *(arg for s in sources for arg in ("--source", s)))
    return json.loads(proc.stdout) if proc.returncode == 0 else None


# --- the invariants of each operation ---------------------------------------------------------

def _forget_invariants(ws: Path, facts: Facts) -> list[str]:
    broken: list[str] = []
    word = FORGOTTEN.lower().encode()
    held = [str(p.relative_to(ws)) for p in sorted(ws.rglob("*"))
            if p.is_file() and not p.is_symlink() and word in p.read_bytes().lower()]
    if held:
        broken.append(f"forget_gone: {len(held)} workspace file(s) hold it: {held[:4]}")
    if word.decode() in git(ws, "log", "-p", "--all").stdout.lower():
        broken.append("forget_gone: `git log -p --all` shows it")
    objects = git(ws, "cat-file", "--batch-all-objects", "--batch")
    if word.decode() in objects.stdout.lower():
        broken.append("forget_gone: an object in the store holds it (unpruned)")
    kept, now = facts["kept"], snapshot(ws)
    for place in ("history", "archive"):
        for key, lines in kept[place].items():
            if key not in now[place]:
                broken.append(f"forget_kept: {place} {key} is gone")
            elif not set(_without(lines, FORGOTTEN)) <= set(now[place][key]):
                broken.append(f"forget_kept: {place} {key} lost a line without the word")
    if now["sessions"] != kept["sessions"]:
        broken.append(f"forget_kept: session messages {kept['sessions']} -> {now['sessions']}")
    for rel, lines in kept["files"].items():
        if not set(_without(lines, FORGOTTEN)) <= set(now["files"].get(rel, [])):
            broken.append(f"forget_kept: {rel} lost a line without the word")
    hits = _search(ws, "28 bolts")
    if hits is None or not any("crate 4 holds 28 bolts" in h.get("text", "") for h in hits):
        broken.append("forget_kept: a search for `28 bolts` no longer finds crate 4")
    if _search(ws, FORGOTTEN) != []:
        broken.append("forget_gone: a search for it still finds something")
    return broken


def _answer_state(ws: Path, answer: str) -> tuple[int, bool, str, int]:
    confirms = sum(s.startswith("confirm:") for s in subjects(ws))
    listed = nanomem(ws, "pending", "--json")
    is_open = listed.returncode != 0 or any(q.get("number") == 1 for q in json.loads(listed.stdout))
    user = (ws / "USER.md").read_text("utf-8", "replace")
    audit = ws / "memory" / "dream-audit.jsonl"
    events = sum(r.get("kind") == "question" and r.get("event") == answer
                 for r in (_jsonl(audit) if audit.exists() else []))
    return confirms, is_open, user, events


def _answered_once(ws: Path, answer: str) -> list[str]:
    broken: list[str] = []
    confirms, is_open, user, events = _answer_state(ws, answer)
    if confirms > 1:
        broken.append(f"answer_once: {confirms} confirm: commits (applied twice)")
    if is_open != (confirms == 0):
        broken.append(f"answer_once: question open {is_open} with {confirms} confirm: commits")
    applied = answer == "yes" and confirms > 0
    if (PINNED_NEW in user) != applied or (PINNED in user) == applied:
        broken.append(f"answer_once: USER.md {'lacks' if applied else 'has'} the yes's line")
    if events != confirms:
        broken.append(f"answer_once: {events} audit '{answer}' events for {confirms} confirm: commits")
    return broken


def _answer_invariants(answer: str) -> Callable[[Path, Facts], list[str]]:
    def invariants(ws: Path, facts: Facts) -> list[str]:
        broken = _answered_once(ws, answer)
        if not broken and sum(s.startswith("confirm:") for s in subjects(ws)) == 0:
            again = nanomem(ws, "pending", answer, "1")
            if again.returncode != 0:
                broken.append(f"answer_once: answering again: rc {again.returncode}: "
                              f"{again.stderr.strip()[-200:]}")
            broken += [f"{b} (answered again)" for b in _answered_once(ws, answer)]
        return broken
    return invariants


def _archive_invariants(ws: Path, facts: Facts) -> list[str]:
    broken: list[str] = []
    session = _jsonl(ws / "sessions" / "faults.jsonl")
    done = int(session[0].get("last_consolidated", 0))
    records = _archive(ws)
    keys = [(r.get("session_key"), r.get("index"), str(r.get("part"))) for r in records]
    if len(keys) != len(set(keys)):
        broken.append(f"archive: {len(keys) - len(set(keys))} turn record(s) archived twice")
    lost = sorted(set(range(done)) - {r.get("index") for r in records})
    if lost:
        broken.append(f"archive: turns {lost[:6]} consolidated but not archived")
    newest = max((n for n in range(done) if session[1 + n].get("role") == "user"), default=None)
    if newest is not None:
        bolts = f"{newest // 2 * 7} bolts"
        hits = _search(ws, f"crate {newest // 2} holds {bolts}", "archive")
        if hits is None or not any(f"crate {newest // 2} holds {bolts}" in h.get("text", "")
                                   for h in hits):
            broken.append(f"archive: a search for `{bolts}` misses the archived turn {newest}")
    return broken


def _compaction_invariants(ws: Path, facts: Facts) -> list[str]:
    entries, _ = history_entries(ws)
    cursors = [e.get("cursor") for e in entries]
    broken = []
    lost = sorted(set(facts["acknowledged"]) - set(cursors))
    if lost:
        broken.append(f"compaction: cursors {lost[:6]} are read nowhere")
    if len(cursors) != len(set(cursors)):
        broken.append("compaction: a cursor is read twice")
    return broken


INVARIANTS: dict[str, Callable[[Path, Facts], list[str]]] = {
    "forget": _forget_invariants,
    "answer-yes": _answer_invariants("yes"),
    "answer-no": _answer_invariants("no"),
    "consolidate": _archive_invariants,
    "compact": _compaction_invariants,
}
