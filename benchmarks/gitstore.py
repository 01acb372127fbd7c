"""Benchmark of the memory repository (DESIGN §9): prints measured figures.

    python benchmarks/gitstore.py            # full run (under ~2 minutes)
    python benchmarks/gitstore.py --quick    # smaller workspaces and histories

1. commit cost with 0, 2,000 and 20,000 unrelated files beside the memory files;
2. show and restore by short sha at 100, 1,000 and 10,000 commits deep (the history is built
   straight into a pack with dulwich objects, as `git gc` would leave it).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from dulwich.objects import Blob, Commit, Tree

from nanomem.versions.gitstore import GitStore
from nanomem.store.workspace import init_workspace

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def bench_commit(base: Path, unrelated: int, rounds: int) -> float:
    root = base / f"ws-{unrelated}"
    init_workspace(root)
    junk = root / "notes"
    for i in range(unrelated):
        sub = junk / f"d{i // 1000:03d}"
        if i % 1000 == 0:
            sub.mkdir(parents=True)
        (sub / f"f{i:05d}.txt").write_text(f"unrelated {i}\n")
    store = GitStore.open(root)
    user = root / "USER.md"
    times = []
    for i in range(rounds):
        user.write_text(user.read_text() + f"- fact {i}\n")
        t0 = time.perf_counter()
        info = store.commit(f"manual: USER.md {i}")
        times.append(time.perf_counter() - t0)
        assert info is not None
    store.close()
    return statistics.median(times)


def build_deep(root: Path, depth: int, planted: Callable[[int], bytes] = lambda i: b""
               ) -> tuple[GitStore, list[str]]:
    """A workspace whose memory history is ``depth`` commits deep, written as one pack;
    ``planted(i)`` is put at the top of commit ``i``'s fact list (benchmarks/forget.py)."""
    init_workspace(root)
    store = GitStore.open(root)
    head = store.head()
    objects = []
    shas = []
    soul = (root / "SOUL.md").read_bytes()
    memory_md = (root / "memory" / "MEMORY.md").read_bytes()
    soul_blob, mem_blob = Blob.from_string(soul), Blob.from_string(memory_md)
    mem_tree = Tree()
    mem_tree[b"MEMORY.md"] = (0o100644, mem_blob.id)
    objects += [soul_blob, mem_blob, mem_tree]
    header = (root / "USER.md").read_bytes()
    parent = head.encode()
    for i in range(depth):
        # a realistic file: it keeps the 40 newest facts, so sizes stay within the caps
        facts = "".join(f"- fact number {j}\n" for j in range(max(0, i - 39), i + 1))
        user = header + planted(i) + facts.encode()
        blob = Blob.from_string(user)
        tree = Tree()
        tree[b"SOUL.md"] = (0o100644, soul_blob.id)
        tree[b"USER.md"] = (0o100644, blob.id)
        tree[b"memory"] = (0o040000, mem_tree.id)
        commit = Commit()
        commit.tree = tree.id
        commit.parents = [parent]
        commit.author = commit.committer = b"bench <bench@localhost>"
        commit.author_time = commit.commit_time = int((START + timedelta(minutes=i)).timestamp())
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = f"dream: fact {i}\n\nDream-Cursor: {i + 1}\n".encode()
        objects += [blob, tree, commit]
        parent = commit.id
        shas.append(commit.id.decode())
    store.repo.object_store.add_objects([(obj, None) for obj in objects])
    store.repo.refs[b"HEAD"] = parent
    (root / "USER.md").write_bytes(user)
    store.close()
    return GitStore.open(root), shas


def bench_depth(base: Path, depth: int, samples: int) -> tuple[float, float, float, float, float]:
    store, shas = build_deep(base / f"deep-{depth}", depth)
    oldest = shas[0]
    t0 = time.perf_counter()
    store.resolve(oldest[:7])
    resolve_s = time.perf_counter() - t0
    show_times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        store.show(oldest[:7])
        show_times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    store.log(20)
    log_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    first = store.restore(shas[-1][:8])  # first restore also builds the reachability cache
    cold_s = time.perf_counter() - t0
    assert first.status == "restored", first
    restore_times = []
    for i in range(samples):
        target = shas[i]  # near the bottom of the history
        t0 = time.perf_counter()
        result = store.restore(target[:8])
        restore_times.append(time.perf_counter() - t0)
        assert result.status == "restored", result
    store.close()
    return resolve_s, statistics.median(show_times), log_s, cold_s, statistics.median(restore_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer samples")
    args = parser.parse_args()
    sizes = (0, 2_000, 20_000) if not args.quick else (0, 2_000)
    depths = (100, 1_000, 10_000) if not args.quick else (100, 1_000)
    rounds = 20 if not args.quick else 5
    base = Path(tempfile.mkdtemp(prefix="nanomem-bench-git-"))
    try:
        print("commit cost (median of", rounds, "commits, one memory file edited)")
        costs = {}
        for n in sizes:
            costs[n] = bench_commit(base, n, rounds)
            ratio = costs[n] / costs[0]
            print(f"  {n:>6} unrelated files: {_ms(costs[n])}   ratio to 0 files: {ratio:.2f}x")
        print("show / restore by short sha of the oldest commits (median)")
        for depth in depths:
            samples = 5 if not args.quick else 3
            resolve_s, show_s, log_s, cold_s, restore_s = bench_depth(base, depth, samples)
            print(
                f"  {depth:>6} commits deep: resolve {_ms(resolve_s)}  show {_ms(show_s)}  "
                f"log(20) {_ms(log_s)}  "
                f"restore {_ms(restore_s)}  (first restore, building the ancestry cache: "
                f"{_ms(cold_s).strip()})"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
