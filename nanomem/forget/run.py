"""``run_forget``: the one forget sequence, from the plan to the sweep.

A real run holds the Dream lock from start to end (a Dream or a restore started meanwhile answers
"already running"), and each file's own lock while it rewrites that file (the history lock for
history segments: an append waits for that rewrite, then proceeds). Its steps, each durable before
the next, so a ``kill -9`` anywhere leaves every file whole and git either on the old history or on
the new one, and a rerun of the same forget finishes the job::

    plan      every place and the git rewrite, in memory          (a dry run stops here)
    journal   memory/.forget-journal.json: the hash, the counts   (never the text)
    files     each file of each place, atomically, under its lock; the derived index deleted
    objects   the rewritten objects stored (unreachable so far)
    staged    refs/nanomem-forget/* point at the new history
    switched  every ref moved, compare-and-swap; the index and the ancestry cache follow
    committed the ``forget:`` receipt commit (its message holds counts, never the text)
    logged    the receipt appended to memory/forget-log.jsonl
    pruned    staged refs, reflogs and every unreachable object gone (repacked)
    swept     every workspace file and git object searched; the journal removed

``on_step(name)`` is called after each step (and ``file:<path>`` after each file): the kill
tests stop the process there.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from nanomem.config import Config
from nanomem.errors import ForgetError, GitStoreError
from nanomem.forget import receipt as receipts
from nanomem.forget.match import Matcher
from nanomem.forget.places import (INDEX, PENDING_PLACE, FileEdit, Place, Scrubbed,
                                   memory_file_place, places, read_file, scrub_lines)
from nanomem.forget.receipt import ForgetReceipt
from nanomem.forget.sweep import sweep, sweep_objects, sweep_text
from nanomem.store.fsutil import FileLock, atomic_write
from nanomem.versions.journaled import recover_journal
from nanomem.versions.stalelocks import clear_stale_git_locks
from nanomem.store.memfiles import (memory_lock, redact_memory_files, refuse_over_ceiling,
                                    write_memory_files)
from nanomem.store.workspace import Workspace
from nanomem.vocab import MEMORY_FILES, PENDING, is_pinned
from nanomem.versions import rewrite
from nanomem.versions.commits import commit_kind
from nanomem.versions.gitstore import GitStore, locate_git_dir
from nanomem.versions.statusstamp import STAMP as STATUS_STAMP

log = logging.getLogger(__name__)

JOURNAL = "memory/.forget-journal.json"
FORGOTTEN_SUBJECT = "[forgotten]"
STEPS = ("journal", "files", "objects", "staged", "switched", "committed", "logged", "pruned")


@dataclass(frozen=True)
class ForgetOptions:
    """What ``nanomem forget`` was asked: the flags of DESIGN §10."""

    regex: bool = False
    dry_run: bool = False
    keep_sessions: bool = False
    include_pinned: bool = False


def scrub_message(matcher: Matcher, text: str) -> str | None:
    """A commit message without its matching lines; a matching subject keeps only its kind.

    >>> scrub_message(Matcher.literal("alice"), "dream: Alice moved\\n\\nUSER.md +1\\n- Alice\\n")
    'dream: [forgotten]\\n\\nUSER.md +1\\n'
    """
    if not matcher.matches(text):
        return None
    subject, newline, rest = text.partition("\n")
    if matcher.matches(subject):
        kind = commit_kind(subject)
        subject = f"{kind}: {FORGOTTEN_SUBJECT}" if kind else FORGOTTEN_SUBJECT
    body, _ = matcher.scrub_text(rest)
    return subject + newline + body


@dataclass
class _Plan:
    edits: list[FileEdit]
    git: rewrite.RewritePlan | None
    object_hits: int
    index: list[str]

    @property
    def empty(self) -> bool:
        return (not any(edit.changes for edit in self.edits) and not (self.git and self.git.changes)
                and not self.object_hits)


def run_forget(
    workspace: Workspace,
    pattern: str,
    options: ForgetOptions = ForgetOptions(),
    *,
    config: Config | None = None,
    clock: Callable[[], datetime],
    on_step: Callable[[str], None] | None = None,
) -> ForgetReceipt:
    """Forget ``pattern`` everywhere in ``workspace`` (see the module docstring)."""
    matcher = Matcher.build(pattern, regex=options.regex)
    step = on_step or (lambda name: None)
    if options.dry_run:
        return _dry_run(workspace, matcher, options, clock)
    with memory_lock(workspace):  # the memory files' one writer lock
        try:
            return _real_run(workspace, matcher, options, config or Config(), clock, step)
        except OSError as exc:  # a file it must write: permissions, a full disk, a bad path
            where = Path(exc.filename) if exc.filename else workspace.root
            if where.name.endswith(".tmp"):  # the atomic write's temporary: name its folder
                where = where.parent
            raise ForgetError(
                f"{where}: unusable ({exc.strerror or exc}); fix its permissions (or free disk "
                "space), then rerun the same forget: it finishes from its journal"
            ) from exc


def _dry_run(workspace: Workspace, matcher: Matcher, options: ForgetOptions,
             clock: Callable[[], datetime]) -> ForgetReceipt:
    git_dir = locate_git_dir(workspace.root)[0]
    repo = rewrite.open_repo(git_dir) if git_dir.is_dir() else None
    try:
        plan = _plan(workspace, matcher, options, repo, git_dir if repo else None)
    finally:
        if repo is not None:
            repo.close()
    receipt = _receipt(plan, "dry_run", clock)
    refused = _refused(plan)
    return replace(receipt, refused=refused, status="refused" if refused else "dry_run")


def _real_run(workspace: Workspace, matcher: Matcher, options: ForgetOptions, config: Config,
              clock: Callable[[], datetime], step: Callable[[str], None]) -> ForgetReceipt:
    refuse_over_ceiling(workspace, config.cap_for, "forget")  # hand edits are versioned first
    journal = _read_journal(workspace)
    if journal is not None and not (receipts.check_pattern_hash(matcher.folded, journal["hash"])
                                    and journal.get("regex") == matcher.is_regex):
        raise ForgetError(
            f"{JOURNAL}: an interrupted forget (started {journal.get('time', '?')}) has not "
            "finished; rerun `nanomem forget` with the same pattern to finish it, or delete the "
            "file to give it up"
        )
    files_only = _plan(workspace, matcher, options, None, None)
    refused = _refused(files_only)
    if refused:  # before anything is written, a manual: commit included
        return replace(_receipt(files_only, "refused", clock), refused=refused)
    store = GitStore.open(workspace, config, clock=clock)
    try:
        clear_stale_git_locks(store.git_dir)  # what a killed Dream or restore left, first:
        recover_journal(store)  # its journal holds the files' old and new bytes
        redact_memory_files(workspace)
        # hand edits are versioned first, then rewritten; not what a killed run of this forget
        # wrote itself (a file that is its HEAD version less the text): that was no hand edit
        store.commit_manual_if_dirty(None if journal is None else _scrubbed_by(matcher, options))
        with FileLock(store.git_dir / "nanomem.lock"):
            plan = _plan(workspace, matcher, options, store.repo, store.git_dir)
            if plan.empty and journal is None:
                for rel in plan.index:  # only the derived index still held the text
                    workspace.path(rel).unlink(missing_ok=True)
                hits = sweep(workspace, matcher, store.git_dir)
                status = "incomplete" if hits else "forgotten" if plan.index else "nothing_found"
                return replace(_receipt(plan, status, clock), hits=tuple(hits))
            receipt = _receipt(plan, "forgotten", clock)
            receipt = _merge_journal(receipt, journal)
            journal = _write_journal(workspace, receipt, matcher, journal)
            step("journal")
            receipt = replace(receipt, pattern_hash=journal["hash"])
            _apply_files(workspace, plan, matcher, step)
            step("files")
            git = plan.git or rewrite.RewritePlan()
            rewrite.write_plan(store.repo, git)
            step("objects")
            rewrite.stage_refs(store.repo, git)
            step("staged")
            moved = rewrite.switch_refs(store.repo, git)
            if moved:
                raise GitStoreError(
                    f"{store.git_dir}: {', '.join(moved)} moved while forgetting; nothing of the "
                    "old history was lost, rerun the same forget to finish"
                )
            rewrite.refresh_index(store.repo, None if store.separate else workspace.root, git)
            (store.git_dir / "nanomem-ancestry").unlink(missing_ok=True)
            (store.git_dir / STATUS_STAMP).unlink(missing_ok=True)  # it quotes old subjects
            receipt = replace(receipt, sha_map=_compose(journal.get("sha_map", {}), git.sha_map))
            journal = _update_journal(workspace, journal, sha_map=dict(receipt.sha_map))
            step("switched")
        if journal.get("commit") is None:
            line = len(receipts.read_forget_log(workspace)) + 1
            head = store.head()  # a run killed between its commit and the journal made it
            made = store.show(head) if head else None
            if made is None or made.kind != "forget" or \
                    made.trailers.get("Forget-Log") != str(line):
                made = store.commit(receipts.render_subject(receipt),
                                    receipts.render_body(receipt, line),
                                    {"Forget-Log": line}, record=True)
            journal = _update_journal(workspace, journal, commit=made.sha if made else None)
        receipt = replace(receipt, commit=journal.get("commit"))
        step("committed")
        if not journal.get("logged"):
            receipts.append_forget_log(
                workspace, receipts.render_log_record(receipt, regex=matcher.is_regex))
            journal = _update_journal(workspace, journal, logged=True)
        step("logged")
        rewrite.prune(store.repo)
        step("pruned")
    finally:
        store.close()
    hits = sweep(workspace, matcher, locate_git_dir(workspace.root)[0])
    workspace.path(JOURNAL).unlink(missing_ok=True)
    if hits:
        log.warning("forget: the text is still in %d place(s): %s", len(hits), "; ".join(hits[:5]))
    return replace(receipt, hits=tuple(hits), status="incomplete" if hits else "forgotten")


def _scrubbed_by(matcher: Matcher, options: ForgetOptions
                 ) -> Callable[[str, bytes | None, bytes | None], bool]:
    """Whether a versioned file holds exactly its committed bytes as this forget scrubs them."""
    memory = memory_file_place(include_pinned=options.include_pinned, is_pinned=is_pinned)

    def scrubbed(rel: str, committed: bytes | None, current: bytes | None) -> bool:
        if committed is None or current is None or current == committed:
            return False
        place = PENDING_PLACE if rel == PENDING else memory
        return place.scrub(rel, committed, matcher).new == current

    return scrubbed


def _plan(workspace: Workspace, matcher: Matcher, options: ForgetOptions, repo: Any,
          git_dir: Path | None) -> _Plan:
    edits: list[FileEdit] = []
    for place in places(include_pinned=options.include_pinned,
                        keep_sessions=options.keep_sessions, is_pinned=is_pinned):
        for rel in place.paths(workspace):
            data = read_file(workspace, rel)
            if data is not None:
                scrubbed = place.scrub(rel, data, matcher)
                if scrubbed.new != data or scrubbed.refused:
                    edits.append(FileEdit(place.name, rel, data, scrubbed))
    git = None
    object_hits = 0
    if repo is not None and git_dir is not None:
        git = rewrite.plan_rewrite(
            repo,
            lambda path, data: scrub_lines(data, matcher).new,
            lambda text: scrub_message(matcher, text),
        )
    changes = any(edit.changes for edit in edits) or (git is not None and git.changes)
    if git_dir is not None and not changes:  # unreachable leftovers only prune can take away
        object_hits = len(sweep_objects(git_dir, matcher))
    index = INDEX.paths(workspace)
    if not (changes or object_hits):  # the index may hold a text the files no longer have
        index = [rel for rel in index if _holds(workspace, rel, matcher)]
    return _Plan(edits, git, object_hits, index)


def _holds(workspace: Workspace, rel: str, matcher: Matcher) -> bool:
    data = read_file(workspace, rel)
    return data is not None and bool(sweep_text(data.decode("utf-8", "replace"), matcher,
                                                json_lines=False))


def _refused(plan: _Plan) -> tuple[str, ...]:
    return tuple(f"{edit.rel} {item}" for edit in plan.edits for item in edit.scrubbed.refused)


def _receipt(plan: _Plan, status: str, clock: Callable[[], datetime]) -> ForgetReceipt:
    counts: dict[str, int] = {}
    where: dict[str, list[str]] = {}
    for edit in plan.edits:
        if not edit.changes:
            continue
        counts[edit.place] = counts.get(edit.place, 0) + edit.scrubbed.removed
        where.setdefault(edit.place, []).extend(f"{edit.rel} {w}" for w in edit.scrubbed.where)
    if plan.index:
        counts["index"] = len(plan.index)
        where["index"] = [f"{rel} (derived: deleted, rebuilt by the next search)"
                          for rel in plan.index]
    git = plan.git
    if git is not None and (git.changes or plan.object_hits):
        where["git"] = [f"{len(git.sha_map)} commits rewritten, {git.blobs} blobs, "
                        f"{git.messages} messages", *git.where]
        if plan.object_hits:
            where["git"].append(f"{plan.object_hits} objects hold the text before pruning")
    return ForgetReceipt(
        status=status, counts=counts, where={k: tuple(v) for k, v in where.items()},
        sha_map=dict(git.sha_map) if git else {}, time=clock().isoformat(timespec="seconds"),
    )


def _apply_files(workspace: Workspace, plan: _Plan, matcher: Matcher,
                 step: Callable[[str], None]) -> None:
    """Write each planned file; re-scrubbed under its lock, so a concurrent append is kept."""
    by_name = {place.name: place for place in places(
        include_pinned=True, keep_sessions=False, is_pinned=is_pinned)}
    for edit in plan.edits:
        place: Place = by_name[edit.place]
        lock = place.lock(workspace, edit.rel)
        if lock is not None:
            lock.acquire()
        try:
            data = read_file(workspace, edit.rel)
            if data is None:
                continue
            scrubbed: Scrubbed = edit.scrubbed if data == edit.old else place.scrub(
                edit.rel, data, matcher)
            _write(workspace, edit.place, edit.rel, scrubbed.new)
        finally:
            if lock is not None:
                lock.release()
        step(f"file:{edit.rel}")
    for rel in plan.index:
        workspace.path(rel).unlink(missing_ok=True)


def _write(workspace: Workspace, place: str, rel: str, new: bytes | None) -> None:
    if new is None:
        workspace.path(rel).unlink(missing_ok=True)
    elif place == "files" and rel in MEMORY_FILES:
        write_memory_files(workspace, {rel: new}, [rel])
    else:
        atomic_write(workspace.path(rel), new)


def _compose(first: dict[str, str], second: dict[str, str]) -> dict[str, str]:
    """old -> newest through two rewrites.

    >>> _compose({"a": "b"}, {"b": "c", "x": "y"})
    {'a': 'c', 'x': 'y'}
    """
    out = {old: second.get(mid, mid) for old, mid in first.items()}
    for old, new in second.items():
        if old not in first.values():
            out.setdefault(old, new)
    return out


def _merge_journal(receipt: ForgetReceipt, journal: dict[str, Any] | None) -> ForgetReceipt:
    """A rerun reports what the interrupted run planned (it finds only what is left)."""
    if journal is None:
        return receipt
    counts = dict(journal.get("counts", {}))
    for place, count in receipt.counts.items():
        counts[place] = max(count, counts.get(place, 0))
    where = {place: tuple(items) for place, items in journal.get("where", {}).items()}
    for place, items in receipt.where.items():
        where.setdefault(place, items)
    return replace(receipt, counts=counts, where=where, pattern_hash=journal["hash"],
                   time=journal.get("time", receipt.time))


def _read_journal(workspace: Workspace) -> dict[str, Any] | None:
    path = workspace.path(JOURNAL)
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise ForgetError(f"{JOURNAL}: damaged ({exc}); delete it to give up the interrupted "
                           "forget, then run it again") from exc
    if not isinstance(data, dict) or not isinstance(data.get("hash"), str):
        raise ForgetError(f"{JOURNAL}: not a forget journal; delete it and run the forget again")
    return data


def _write_journal(workspace: Workspace, receipt: ForgetReceipt, matcher: Matcher,
                   journal: dict[str, Any] | None) -> dict[str, Any]:
    data = dict(journal or {})
    data.setdefault("hash", receipt.pattern_hash or receipts.hash_pattern(matcher.folded))
    data.setdefault("time", receipt.time)
    data["regex"] = matcher.is_regex
    data["counts"] = dict(receipt.counts)
    data["where"] = {place: list(items) for place, items in receipt.where.items()}
    atomic_write(workspace.path(JOURNAL), json.dumps(data, ensure_ascii=False, sort_keys=True))
    return data


def _update_journal(workspace: Workspace, journal: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = {**journal, **changes}
    atomic_write(workspace.path(JOURNAL), json.dumps(data, ensure_ascii=False, sort_keys=True))
    return data

