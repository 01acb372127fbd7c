"""``nanomem demo``: the whole life of a memory, offline, in a temporary workspace.

Seven steps, each narrated and each **checked against the files** (not a recording):

1. init: copy the template, create the memory repository;
2. replay the shipped two-day conversation (English and Chinese) into a session file;
3. consolidate it on a small token budget into ``memory/history.jsonl``;
4. Dream with the offline engine: facts land in SOUL.md / USER.md / MEMORY.md, the move from
   Lisbon to Porto replaces the old fact, the short-lived task is marked ephemeral;
5. ``/dream-log``: the commit, its files and its diff;
6. ``/dream-restore <sha>``: the files come back byte for byte as they were before the Dream;
7. ``/dream-restore <restore sha>``: the Dream's memory is back, byte for byte.

A failed check prints ``FAILED`` with what was expected and :func:`run_demo` returns 1.

>>> import io; run_demo(io.StringIO())  # doctest: +SKIP
0
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from nanomem.engines.chat import ChatModel
from nanomem.config import Config
from nanomem.memory import Memory
from nanomem.store.memfiles import read_memory_files
from nanomem.store.sessions import append_messages, load_session
from nanomem.store.workspace import init_workspace

# A small budget, so that a short chat already overflows it (DESIGN §2).
DEMO_CONFIG = Config(
    provider="offline",
    context_window=260,
    max_completion_tokens=60,
    safety_buffer=40,
    dream_batch_entries=3,
)
SESSION_FILE = "sessions/telegram_ana.jsonl"
STEPS = 7


class DemoCheckError(Exception):
    """An expected outcome of a demo step does not hold."""


class _Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def load_sample() -> dict[str, Any]:
    """The shipped sample conversation (``nanomem/demo_data/sample_conversation.json``)."""
    text = resources.files("nanomem").joinpath("demo_data/sample_conversation.json").read_text(
        encoding="utf-8"
    )
    return json.loads(text)


def _check(condition: bool, expectation: str) -> str:
    if not condition:
        raise DemoCheckError(expectation)
    return expectation


def _snapshot(mem: Memory) -> dict[str, bytes]:
    return read_memory_files(mem.workspace)


def _indent(text: str, limit: int = 14) -> str:
    lines = text.strip("\n").split("\n")
    shown = lines[:limit] + ([f"… ({len(lines) - limit} more lines)"] if len(lines) > limit else [])
    return "\n".join("      | " + line for line in shown)


class _Demo:
    def __init__(self, root: Path, out: TextIO, engine: ChatModel | None) -> None:
        self.root = root
        self.out = out
        self.sample = load_sample()
        first = self.sample["sessions"][0]["start"]
        self.clock = _Clock(datetime.strptime(first, "%Y-%m-%d %H:%M"))
        self.engine = engine
        self.mem: Memory | None = None
        self.before_dream: dict[str, bytes] = {}
        self.after_dream: dict[str, bytes] = {}
        self.dream_sha = ""

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ok(self, expectation: str) -> None:
        self.say(f"      ok  {expectation}")

    def step_init(self) -> None:
        created = init_workspace(self.root)
        self.mem = Memory(self.root, config=DEMO_CONFIG, engine=self.engine, clock=self.clock)
        head = self.mem.store.log(1)
        self.say(f"      created {', '.join(created)}")
        self.say(f"      memory repository at {self.mem.store.git_dir.name}/")
        self.ok(_check(all(p.is_file() for p in self.mem.workspace.memory_paths().values()),
                       "SOUL.md, USER.md and memory/MEMORY.md exist"))
        self.ok(_check(len(head) == 1 and head[0].subject.startswith("init:"),
                       f"HEAD is the init: commit {head[0].short if head else '?'}"))

    def step_replay(self) -> None:
        path = self.root / SESSION_FILE
        count = 0
        for session in self.sample["sessions"]:
            self.clock.now = datetime.strptime(session["start"], "%Y-%m-%d %H:%M")
            self.say(f"      -- {session['key']}, {session['start']}")
            for turn in session["turns"]:
                self.say(f"      user: {turn['user']}")
                append_messages(
                    path,
                    [{"role": "user", "content": turn["user"]},
                     {"role": "assistant", "content": turn["assistant"]}],
                    key=session["key"], clock=self.clock,
                )
                self.clock.now += timedelta(minutes=2)
                count += 2
        loaded = load_session(path)
        self.ok(_check(len(loaded.messages) == count and loaded.last_consolidated == 0,
                       f"{SESSION_FILE} holds {count} messages, none archived yet"))

    def step_consolidate(self) -> None:
        mem = self._mem()
        self.before_dream = _snapshot(mem)
        path = self.root / SESSION_FILE
        self.say(f"      prompt budget {DEMO_CONFIG.budget} tokens (context window "
                 f"{DEMO_CONFIG.context_window}); archive down to half of it")
        for _ in range(10):
            result = mem.consolidate(path, memory_context="")
            self.say(f"      {result.status}: prompt ~{result.estimate} tokens, archived "
                     f"{result.archived_messages} messages into cursors {list(result.cursors)}")
            if result.status != "archived":
                break
        entries = mem.history.read_since(0)
        text = "\n".join(e.content for e in entries)
        self.say(_indent(text))
        self.ok(_check("[permanent] I am allergic to peanuts" in text,
                       "the peanut allergy is archived verbatim as [permanent]"))
        self.ok(_check("KX-7731" in text, "the contract number KX-7731 is archived"))
        self.ok(_check("[correction] Actually I moved from Lisbon to Porto" in text,
                       "the move to Porto is archived as a [correction]"))
        self.ok(_check("[ephemeral] Remind me tomorrow" in text,
                       "the reminder is archived as [ephemeral]"))
        self.ok(_check("绿茶" in text, "the Chinese preference (green tea) is archived"))
        self.ok(_check("weather" not in text, "small talk is not archived"))
        self.ok(_check(load_session(path).last_consolidated > 0,
                       "the session's last_consolidated advanced"))
        self.ok(_check(_snapshot(mem) == self.before_dream,
                       "the memory files are untouched (the consolidator never edits them)"))

    def step_dream(self) -> None:
        mem = self._mem()
        result = mem.dream()
        self.say(f"      {result.status}: {result.accepted} edits accepted, "
                 f"{len(result.refused)} refused, dream cursor "
                 f"{result.dream_cursor_before} -> {result.dream_cursor_after}")
        _check(result.status == "committed", f"Dream committed (got {result.status}: "
               f"{result.reason or ''})")
        self.dream_sha = result.commit or ""
        self.after_dream = _snapshot(mem)
        user = self.after_dream.get("USER.md", b"").decode("utf-8")
        memory_md = self.after_dream.get("memory/MEMORY.md", b"").decode("utf-8")
        soul = self.after_dream.get("SOUL.md", b"").decode("utf-8")
        self.say(_indent(user.split("## Facts", 1)[-1], 10))
        self.ok(_check("allergic to peanuts" in user, "USER.md holds the peanut allergy"))
        self.ok(_check("Porto" in user and "I live in Lisbon" not in user,
                       "USER.md says Porto; the stale 'I live in Lisbon' line is gone"))
        self.ok(_check("KX-7731" in memory_md, "memory/MEMORY.md holds contract KX-7731"))
        self.ok(_check(any("Remind me tomorrow" in ln and "<!-- ephemeral" in ln
                           for ln in memory_md.splitlines()),
                       "the reminder is kept as a dated ephemeral fact"))
        self.ok(_check("bullet points" in soul, "SOUL.md holds the answer-style preference"))
        self.ok(_check(mem.history.read_dream_cursor() == mem.history.last_cursor(),
                       "the dream cursor reached the last history entry"))

    def step_log(self) -> None:
        mem = self._mem()
        reply = mem.handle_command("/dream-log") or ""
        self.say(_indent(reply, 40))
        short = self.dream_sha[:7]
        self.ok(_check(short in reply and "USER.md" in reply and "+- I am allergic" in reply,
                       f"/dream-log shows commit {short}, its files and its diff"))

    def step_restore(self) -> None:
        mem = self._mem()
        cursor = mem.history.read_dream_cursor()
        reply = mem.handle_command(f"/dream-restore {self.dream_sha[:7]}") or ""
        self.say(_indent(reply))
        head = mem.store.log(1)[0]
        self.ok(_check(_snapshot(mem) == self.before_dream,
                       "the memory files equal the pre-Dream state byte for byte"))
        self.ok(_check(head.subject.startswith("restore:"), f"HEAD is restore commit {head.short}"))
        self.ok(_check(mem.history.read_dream_cursor() == cursor,
                       "the dream cursor was not rewound (no silent redo)"))

    def step_back(self) -> None:
        mem = self._mem()
        restore_sha = mem.store.head() or ""
        reply = mem.handle_command(f"/dream-restore {restore_sha[:7]}") or ""
        self.say(_indent(reply))
        self.ok(_check(_snapshot(mem) == self.after_dream,
                       "the Dream's memory is back byte for byte (a restore can be restored)"))
        context = mem.context(400)
        self.say("      the memory block an agent would put in its system prompt (400 tokens):")
        self.say(_indent(context, 40))
        self.ok(_check("allergic to peanuts" in context and len(context) > 0,
                       "Memory.context() carries the allergy within the budget"))

    def _mem(self) -> Memory:
        if self.mem is None:
            raise DemoCheckError("the workspace was not initialised")
        return self.mem


def run_demo(
    out: TextIO, *, keep: bool = False, engine: ChatModel | None = None,
    root: Path | None = None,
) -> int:
    """Run the seven steps; return 0 when every check holds, 1 otherwise.

    ``engine`` replaces the offline engine (tests inject a broken one); ``root`` is a fresh
    directory to use instead of a temporary one (kept afterwards).
    """
    temp = None if root is not None else Path(tempfile.mkdtemp(prefix="nanomem-demo-"))
    workspace = (root if root is not None else temp / "workspace")  # type: ignore[operator]
    demo = _Demo(workspace, out, engine)
    steps: list[tuple[str, Callable[[], None]]] = [
        ("init: copy the template and create the memory repository", demo.step_init),
        ("replay a two-day conversation (English and Chinese) into a session", demo.step_replay),
        ("consolidate on a small budget (the hot path)", demo.step_consolidate),
        ("dream with the offline engine (the cold path)", demo.step_dream),
        ("/dream-log: what the Dream changed", demo.step_log),
        ("/dream-restore: undo the Dream", demo.step_restore),
        ("/dream-restore the restore: memory is back", demo.step_back),
    ]
    demo.say(f"nanomem demo: offline, in a temporary workspace {workspace}")
    failed = None
    try:
        for number, (title, step) in enumerate(steps, 1):
            demo.say(f"\n[{number}/{STEPS}] {title}")
            try:
                step()
            except DemoCheckError as exc:
                failed = f"step {number}: expected {exc}"
                demo.say(f"      FAILED  {exc}")
                break
    finally:
        if demo.mem is not None:
            demo.mem.close()
        if temp is not None and not keep:
            shutil.rmtree(temp, ignore_errors=True)
    if failed:
        demo.say(f"\nDemo FAILED at {failed}.")
        return 1
    where = f"kept in {workspace}" if keep or root is not None else "removed"
    demo.say(f"\nAll {STEPS} steps checked out. The demo workspace was {where}.")
    demo.say("Next: nanomem init ~/agent-ws, then see docs/integrations.md to wire in your agent.")
    return 0

