"""Benchmark of forget (DESIGN §10): the time of one forget at 100, 1,000 and 10,000 commits.

    python benchmarks/forget.py            # 100, 1,000 and 10,000 commits
    python benchmarks/forget.py --quick    # 100 and 1,000

The worst case: the fact sits in USER.md from the third commit on, so every commit after it is
rewritten; history holds one entry per ten commits (a tenth of them hold the fact) and a session
holds it too. The history is built straight into a pack with dulwich objects, as `git gc` would
leave it. Figures are wall time of ``Memory.forget`` (plan, files, rewrite, switch, receipt,
prune, sweep), with the time between steps, and the ratio to the smallest history.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from dulwich.objects import Blob, Commit, Tree

from nanomem.memory import Memory
from nanomem.store.workspace import init_workspace
from nanomem.versions.gitstore import GitStore

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
FACT = "Zanzibar Quokka"


def build(root: Path, depth: int) -> None:
    """A workspace ``depth`` commits deep whose USER.md holds the fact from commit 3 on."""
    init_workspace(root)
    store = GitStore.open(root)
    parent = store.head().encode()
    soul_blob = Blob.from_string((root / "SOUL.md").read_bytes())
    mem_blob = Blob.from_string((root / "memory" / "MEMORY.md").read_bytes())
    mem_tree = Tree()
    mem_tree[b"MEMORY.md"] = (0o100644, mem_blob.id)
    objects: list = [soul_blob, mem_blob, mem_tree]
    header = (root / "USER.md").read_bytes()
    user = header
    for i in range(depth):
        facts = "".join(f"- fact number {j}\n" for j in range(max(0, i - 39), i + 1))
        planted = f"- Cousin is {FACT}\n" if i >= 2 else ""
        user = header + (planted + facts).encode()
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
    store.repo.object_store.add_objects([(obj, None) for obj in objects])
    store.repo.refs[b"HEAD"] = parent
    (root / "USER.md").write_bytes(user)
    store.close()
    lines = []
    for cursor in range(1, depth // 10 + 1):
        text = f"- [durable] {FACT} called" if cursor % 10 == 0 else f"- [durable] fact {cursor}"
        lines.append(json.dumps({"cursor": cursor, "timestamp": "2026-01-01 10:00",
                                 "content": text}) + "\n")
    (root / "memory" / "history.jsonl").write_text("".join(lines))
    (root / "memory" / ".dream_cursor").write_text(f"{depth // 10}\n")
    session = [{"_type": "metadata", "key": "cli", "last_consolidated": 0},
               {"role": "user", "content": f"My cousin is {FACT}."}]
    (root / "sessions" / "cli.jsonl").write_text("".join(json.dumps(m) + "\n" for m in session))


def bench(base: Path, depth: int) -> tuple[float, dict[str, float], int]:
    root = base / f"ws-{depth}"
    build(root, depth)
    marks: list[tuple[str, float]] = []
    with Memory(root) as mem:
        t0 = time.perf_counter()
        receipt = mem.forget(FACT, on_step=lambda name: name.startswith("file:") or
                             marks.append((name, time.perf_counter())))
        total = time.perf_counter() - t0
    assert receipt.status == "forgotten", receipt.hits
    steps, last = {}, t0
    for name, at in marks:
        steps[name] = at - last
        last = at
    steps["sweep"] = t0 + total - last
    return total, steps, len(receipt.sha_map)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 commits only")
    args = parser.parse_args()
    depths = (100, 1_000) if args.quick else (100, 1_000, 10_000)
    base = Path(tempfile.mkdtemp(prefix="nanomem-bench-forget-"))
    try:
        results = {}
        print("forget time (fact in every commit from the third on, all of them rewritten)")
        for depth in depths:
            total, steps, rewritten = bench(base, depth)
            results[depth] = total
            ratio = total / results[depths[0]]
            print(f"  {depth:>6} commits: {total:8.3f} s  ({rewritten} rewritten)  "
                  f"ratio to {depths[0]}: {ratio:6.1f}x  per commit: "
                  f"{total / depth * 1000:6.2f} ms")
            print("         " + "  ".join(f"{name} {secs:.3f}s" for name, secs in steps.items()))
        if len(depths) > 1:
            first, last = depths[0], depths[-1]
            print(f"  {last // first}x the commits cost {results[last] / results[first]:.1f}x "
                  "the time")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
