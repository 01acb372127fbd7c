"""Where an agent feels it: the hot paths of issue 15, each beside its floor, as ratios in one run.

    python benchmarks/hotpath.py           # about a minute
    python benchmarks/hotpath.py --quick   # smaller repository and session sizes

Rows (medians of repeated calls; one process unless said):
- record a turn (``Memory.record_turn``, two messages, under budget) at 50 and 5,000 messages;
  floor: one ``write`` + ``fsync`` of a line in the same directory;
- the under-budget check through the facade (``Memory.consolidate`` on a session under budget)
  at 500 and 5,000 messages; floor: the pure ``check_budget`` on a loaded session;
- ``Memory.context(1500)`` with full files, unchanged and changed, and with 20 pending entries
  over a 10,000-turn archive (their said times), unchanged and after one more consolidation
  (only the ``context`` call is timed); floor: reading the files;
- ``python -m nanomem status`` (whole process, bytecode cached) against ``python -c pass`` and
  ``python -c "import nanomem"``, and the same status with the status stamp removed (dulwich);
- ``GitStore.log(20)`` on a 10,000-commit history (2,000 with ``--quick``), built as objects
  and packed; floor: 20 commit object lookups;
- the git directory after 1,000 Dream-sized commits (200 with ``--quick``) against a copy
  after ``git gc``;
- the peak RSS (``VmHWM``) of a fresh process that runs one Dream (offline engine, default batch
  settings) over 10,000 and 100,000 pending entries (``--dream-entries 1000000`` adds 1M), and
  the ratio between the sizes; floor: the same process that imports Dream and reads one batch;
- Dream prompt tokens per processed entry with the memory files full and empty (the offline
  engine, from ``benchmarks/dream.py``); floor: the entries' own tokens.

nanobot 0.3.5's figures are quoted from issue 15's measurement (same machine class, 2 cores),
not measured here; they are labelled ``quoted``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nanomem.config import Config
from nanomem.consolidate.budget import check_budget
from nanomem.memory import Memory
from nanomem.store.sessions import load_session, new_session, append_to, save_session
from nanomem.store.workspace import MEMORY_FILES, init_workspace
from nanomem.versions.gitstore import GitStore
from datetime import datetime

NOW = datetime(2026, 11, 30, 12, 0)
QUOTED = {  # nanobot-ai 0.3.5, from issue 15 (measured at 1a0240f), in ms unless said
    "turn": "45 (quoted)", "check": "190 (quoted)", "context": "0.14 (quoted)",
    "status": "-", "log": "2.5 (quoted)", "repo": "22 MB (quoted)",
    "dream_full": "951 (quoted)", "dream_empty": "506 (quoted)",
}


def median_ms(fn: Callable[[], Any], repeat: int, warm: int = 2) -> float:
    for _ in range(warm):
        fn()
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return 1000 * statistics.median(times)


def message(i: int) -> dict[str, Any]:
    role = "user" if i % 2 == 0 else "assistant"
    return {"role": role, "content": f"message {i}: the project budget and the Lisbon trip " * 2,
            "timestamp": "2026-11-30T12:00:00"}


def workspace(base: Path, name: str, *, full_files: bool = False) -> Path:
    root = base / name
    init_workspace(root)
    if full_files:
        config = Config()
        for rel in MEMORY_FILES:
            cap = config.cap_for(rel)
            lines = [f"- fact {n} about the project budget, Lisbon and tea" for n in range(cap // 52)]
            (root / rel).write_text("# " + rel + "\n\n" + "\n".join(lines) + "\n", "utf-8")
    return root


def big_config() -> Config:
    return Config(context_window=10_000_000, provider="offline")


def session_of(root: Path, key: str, n: int, *, consolidated: int = 0) -> Path:
    session = append_to(new_session(key, now=NOW), [message(i) for i in range(n)], now=NOW)
    session = session.__class__(**{**session.__dict__, "last_consolidated": consolidated})
    path = root / "sessions" / f"{key}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    save_session(path, session)
    return path


def floor_fsync(directory: Path, repeat: int) -> float:
    path = directory / "floor.jsonl"
    line = (json.dumps(message(1)) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        def once() -> None:
            os.write(fd, line)
            os.fsync(fd)
        return median_ms(once, repeat)
    finally:
        os.close(fd)


Row = tuple[str, str, str, str, str]


def row(name: str, quoted: str, ours: float, floor: float, unit: str = "ms") -> Row:
    ratio = f"{ours / floor:.1f}x" if floor > 0 else "-"
    return (name, quoted, f"{ours:.3f} {unit}", f"{floor:.3f} {unit}", ratio)


def bench_turn(base: Path, rows: list[Row], repeat: int) -> None:
    root = workspace(base, "turn")
    config = big_config()
    with Memory(root, config=config) as mem:
        floor = floor_fsync(root, repeat)
        figures = {}
        for n in (50, 5000):
            key = f"t{n}"
            session_of(root, key, n)
            turn = [message(0), message(1)]
            figures[n] = median_ms(lambda: mem.record_turn(key, turn, memory_context=""), repeat)
        rows.append(row("record_turn, 50 messages", "-", figures[50], floor))
        rows.append(row("record_turn, 5,000 messages", QUOTED["turn"], figures[5000], floor))
        rows.append(("  5,000 vs 50 messages", "", f"{figures[5000] / figures[50]:.2f}x", "", ""))


def bench_check(base: Path, rows: list[Row], repeat: int) -> None:
    root = workspace(base, "check")
    config = big_config()
    with Memory(root, config=config) as mem:
        for n in (500, 5000):
            key = f"c{n}"
            path = session_of(root, key, n)
            ours = median_ms(lambda: mem.consolidate(key, memory_context=""), repeat)
            loaded = load_session(path)
            floor = median_ms(lambda: check_budget(loaded, config=config), repeat)
            quoted = QUOTED["check"] if n == 5000 else "-"
            rows.append(row(f"under-budget check, {n:,} messages", quoted, ours, floor))


def bench_context(base: Path, rows: list[Row], repeat: int) -> None:
    root = workspace(base, "context", full_files=True)
    paths = [root / rel for rel in MEMORY_FILES]
    floor = median_ms(lambda: [p.read_bytes() for p in paths], repeat)
    with Memory(root, config=big_config()) as mem:
        same = median_ms(lambda: mem.context(1500), repeat)
        toggle = [0]

        def changed() -> None:
            toggle[0] += 1
            with open(paths[-1], "a", encoding="utf-8") as fh:
                fh.write(f"- one more fact {toggle[0]}\n")
            mem.context(1500)

        after = median_ms(changed, max(5, repeat // 4))
    rows.append(row("context(1500), files unchanged", QUOTED["context"], same, floor))
    rows.append(row("context(1500), a file changed", "-", after, floor))
    bench_context_pending(base, rows, repeat, floor)


def bench_context_pending(base: Path, rows: list[Row], repeat: int, floor: float) -> None:
    """The same block with 20 pending entries dated from a 10,000-turn archive (their chunks'
    said times), unchanged and after one more consolidation (a chunk and its entry)."""
    root = workspace(base, "context_pending", full_files=True)
    with Memory(root, config=big_config(), clock=lambda: NOW) as mem:
        for n in range(1000):
            tag = f"{n:016x}"
            mem.archive.append_messages([message(i) for i in range(10)], session_key="cli",
                                        start=10 * n, chunk=tag)
            if n >= 980:
                mem.history.append(f"- [durable] decision {n} about the Lisbon trip",
                                   session_key="cli", chunk=f"{tag}/10")
        same = median_ms(lambda: mem.context(1500), repeat)
        count = [1000]

        def consolidated() -> None:
            tag = f"{count[0]:016x}"
            mem.archive.append_messages([message(i) for i in range(10)], session_key="cli",
                                        start=10 * count[0], chunk=tag)
            mem.history.append(f"- [durable] decision {count[0]}", session_key="cli",
                               chunk=f"{tag}/10")
            count[0] += 1
            began = time.perf_counter()
            mem.context(1500)
            spent.append(time.perf_counter() - began)

        spent: list[float] = []
        for _ in range(max(5, repeat // 4)):
            consolidated()
        after = 1000 * statistics.median(spent)
    rows.append(row("context(1500), 20 pending, 10k archived", "-", same, floor))
    rows.append(row("  after one more consolidation", "-", after, floor))


def bench_status(base: Path, rows: list[Row], repeat: int) -> None:
    """Whole processes, with bytecode cached (``PYTHONPYCACHEPREFIX`` in the scratch folder,
    written by the warm-up run) as an installed package has it; the status stamp matches HEAD
    unless the row says it was removed (then dulwich reads the repository)."""
    root = workspace(base, "status")
    GitStore.open(root).close()
    stale = base / "status-nostamp"
    shutil.copytree(root, stale, symlinks=True)
    (stale / ".git" / "nanomem-status.json").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")

    fastest: dict[str, float] = {}

    def wall(name: str, args: list[str], cwd: Path = root) -> float:
        times: list[float] = []

        def once() -> None:
            began = time.perf_counter()
            subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=cwd,
                           env=env)
            times.append(time.perf_counter() - began)
        median = median_ms(once, repeat, warm=1)
        fastest[name] = 1000 * min(times[1:])
        return median

    bare = wall("python", ["-c", "pass"])
    imported = wall("import", ["-c", "import nanomem"])
    status = wall("status", ["-m", "nanomem", "-w", str(root), "status"])
    fallback = wall("dulwich", ["-m", "nanomem", "-w", str(stale), "status"], stale)
    rows.append(row("nanomem status (process)", QUOTED["status"], status, bare))
    rows.append(row("  the same, stamp removed (dulwich)", "-", fallback, bare))
    rows.append(("  python -c 'import nanomem'", "", f"{imported:.1f} ms", f"{bare:.1f} ms",
                 f"{imported / bare:.1f}x"))
    rows.append(("  fastest of the runs (a loaded machine)", "",
                 f"status {fastest['status']:.0f}, dulwich {fastest['dulwich']:.0f}, import "
                 f"{fastest['import']:.0f} ms", f"{fastest['python']:.0f} ms",
                 f"{fastest['status'] / fastest['python']:.1f}x"))


def build_commits(root: Path, count: int) -> GitStore:
    store = GitStore.open(root)
    target = root / "memory" / "MEMORY.md"
    for n in range(count):
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(f"- fact {n} learned in a dream\n")
        store.commit(f"dream: {n}", trailers={"Dream-Cursor": n})
    return store


def build_chain(root: Path, count: int) -> GitStore:
    """``count`` dream commits on top of the init commit, written as objects directly into one
    pack (each with its own tree: MEMORY.md gains a line per commit)."""
    from dulwich.objects import Blob, Commit, Tree

    store = GitStore.open(root)
    repo = store.repo
    head = repo[repo.head()]
    base = repo[head.tree]
    memory_dir = repo[base[b"memory"][1]]
    text = b""
    objects = []
    parent = head.id
    for n in range(count):
        text += f"- fact {n} learned in a dream\n".encode()
        blob = Blob.from_string(text)
        sub = Tree()
        for name, mode, sha in memory_dir.iteritems():
            sub.add(name, mode, sha)
        sub.add(b"MEMORY.md", 0o100644, blob.id)
        tree = Tree()
        for name, mode, sha in base.iteritems():
            tree.add(name, mode, sha)
        tree.add(b"memory", 0o040000, sub.id)
        commit = Commit()
        commit.tree, commit.parents = tree.id, [parent]
        commit.author = commit.committer = b"nanomem <nanomem@localhost>"
        commit.author_time = commit.commit_time = head.commit_time + n + 1
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = f"dream: {n}\n\nDream-Cursor: {n}\n".encode()
        objects += [(blob, None), (sub, None), (tree, None), (commit, None)]
        parent = commit.id
    repo.object_store.add_objects(objects)  # one pack, as a repacked repository holds them
    repo.refs[b"HEAD"] = parent
    return store


def bench_log(base: Path, rows: list[Row], commits: int, repeat: int) -> None:
    root = workspace(base, "log")
    store = build_chain(root, commits)
    ours = median_ms(lambda: store.log(20), repeat)
    repo = store.repo

    def lookups() -> None:
        sha = repo.head()
        for _ in range(20):
            commit = repo[sha]
            if not commit.parents:
                break
            sha = commit.parents[0]

    floor = median_ms(lookups, repeat)
    rows.append(row(f"log(20), {commits:,} commits", QUOTED["log"], ours, floor))
    store.close()
    return None


def dir_size(path: Path) -> tuple[int, int]:
    total = files = 0
    for item in path.rglob("*"):
        if item.is_file():
            total += item.stat().st_size
            files += 1
    return total, files


def bench_repo(base: Path, rows: list[Row], commits: int) -> None:
    root = workspace(base, "repo")
    store = build_commits(root, commits)
    git_dir = store.git_dir
    store.close()
    ours, ours_files = dir_size(git_dir)
    copy = base / "repo-gc"
    shutil.copytree(root, copy, symlinks=True)
    copy_git = copy / git_dir.relative_to(root)
    floor = floor_files = 0
    if shutil.which("git"):
        subprocess.run(["git", "--git-dir", str(copy_git), "gc", "-q"], check=True)
        floor, floor_files = dir_size(copy_git)
    rows.append((f"git dir after {commits:,} commits", QUOTED["repo"],
                 f"{ours / 1e6:.2f} MB, {ours_files} files",
                 f"{floor / 1e6:.2f} MB, {floor_files} files (git gc)",
                 f"{ours / floor:.1f}x" if floor else "-"))


DREAM_CHILD = """
import asyncio, json, sys, time
from datetime import datetime
from pathlib import Path
from nanomem.config import Config
from nanomem.dream.run import run_dream
from nanomem.engines.offline.engine import OfflineEngine
from nanomem.store.history import History
from nanomem.store.workspace import Workspace
from nanomem.versions.gitstore import GitStore
root, mode = Path(sys.argv[1]), sys.argv[2]
now = datetime(2026, 11, 30, 12, 0)
ws, config = Workspace(root), Config()
history = History(ws, config, clock=lambda: now)
began = time.perf_counter()
if mode == "dream":
    store = GitStore.open(ws, config)
    result = asyncio.run(run_dream(ws, config=config, history=history, store=store,
                                   engine=OfflineEngine(clock=lambda: now), clock=lambda: now))
    store.close()
    out = [result.status, result.batches]
else:  # the floor: one batch read
    out = ["read", len(history.read_since(history.read_dream_cursor(),
                                          limit=config.dream_batch_entries))]
seconds = time.perf_counter() - began
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")]
print(json.dumps({"s": seconds, "peak_mb": int(hwm[0].split()[1]) / 1024, "out": out}))
"""


def pending_workspace(base: Path, entries: int) -> Path:
    """A workspace with a repository and ``entries`` pending history entries, written directly."""
    root = workspace(base, f"dream-{entries}")
    GitStore.open(root).close()
    with open(root / "memory" / "history.jsonl", "w", encoding="utf-8") as handle:
        chunk: list[str] = []
        for cursor in range(1, entries + 1):
            chunk.append(json.dumps({
                "cursor": cursor, "timestamp": "2026-11-30 09:15", "kind": "summary",
                "content": f"- [durable] Project P{cursor} has a budget of {cursor} EUR.",
            }) + "\n")
            if len(chunk) == 10_000:
                handle.write("".join(chunk))
                chunk.clear()
        handle.write("".join(chunk))
    (root / "memory" / ".cursor").write_text(f"{entries}\n")
    return root


def dream_peak(root: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", DREAM_CHILD, str(root), mode],
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def bench_dream_rss(base: Path, rows: list[Row], sizes: list[int]) -> None:
    peaks = {}
    for entries in sizes:
        root = pending_workspace(base, entries)
        floor = dream_peak(root, "read")["peak_mb"]
        ours = dream_peak(root, "dream")
        peaks[entries] = ours["peak_mb"]
        rows.append(row(f"Dream over {entries:,} pending: peak RSS ({ours['s']:.1f} s)",
                        "869 MB (quoted, 1M)" if entries == sizes[-1] else "-",
                        ours["peak_mb"], floor, "MB"))
        shutil.rmtree(root)
    if len(sizes) > 1:
        rows.append((f"  {sizes[-1]:,} vs {sizes[0]:,} pending", "",
                     f"{peaks[sizes[-1]] / peaks[sizes[0]]:.2f}x", "", ""))


def bench_dream_tokens(rows: list[Row]) -> None:
    """Issue 15's two Dream rows, measured by benchmarks/dream.py's ``run_tokens``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_dream", Path(__file__).with_name("dream.py"))
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for full, key in ((True, "dream_full"), (False, "dream_empty")):
        got = bench.run_tokens(200, Config(), full=full)
        rows.append((f"Dream prompt tokens per entry, files {'full' if full else 'empty'}",
                     QUOTED[key], f"{got['per_entry']:.0f}", f"{got['floor']:.0f} (the entries)",
                     f"{got['per_entry'] / got['floor']:.1f}x"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dream-entries", type=int, action="append", default=None,
                        help="pending entries for the Dream peak-RSS rows (repeatable)")
    parser.add_argument("--only", choices=["turn", "check", "context", "status", "log", "repo",
                                           "dream", "tokens"], action="append", help="run only these rows")
    args = parser.parse_args(argv)
    repeat = 20 if args.quick else 50
    commits = 2000 if args.quick else 10_000
    dream_commits = 200 if args.quick else 1000
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        dream_sizes = args.dream_entries or ([10_000] if args.quick else [10_000, 100_000])
        benches: dict[str, Callable[[], None]] = {
            "turn": lambda: bench_turn(base, rows, repeat),
            "check": lambda: bench_check(base, rows, repeat),
            "context": lambda: bench_context(base, rows, repeat),
            "status": lambda: bench_status(base, rows, max(5, repeat // 4)),
            "log": lambda: bench_log(base, rows, commits, repeat),
            "repo": lambda: bench_repo(base, rows, dream_commits),
            "dream": lambda: bench_dream_rss(base, rows, sorted(dream_sizes)),
            "tokens": lambda: bench_dream_tokens(rows),
        }
        for name, bench in benches.items():
            if not args.only or name in args.only:
                bench()
    header = ("operation", "nanobot 0.3.5", "nanomem", "floor", "ratio")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    for line in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
