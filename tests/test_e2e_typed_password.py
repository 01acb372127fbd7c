"""End to end: a password typed into the chat by mistake, with an everyday cue ("Log in: …",
"pw: …") or none at all, never reaches history, the archive, the search index, the memory files
or git, and the sentence that carried it is no fact (stop 20; the blind rounds 5-7 each planted
one). Issue 13 added the shapes without a symbol inside ("Quenby1974", "Summer2031!",
"Kestrel#2024") and the Chinese slip ("密码是… — 发错窗口了，忽略"), whose ledger state is
``skipped: secret-placeholder`` as the English one's is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e_support import all_git_objects, cli, git, git_dir_of, init_ws
from tests.secret_kinds import TYPED_PASSWORDS

SLIPS = [f for f in TYPED_PASSWORDS if f.name in (
    "typed-log-in", "typed-pw", "typed-no-cue", "typed-no-cue-first", "typed-zh-gap",
    # issue 13: no symbol, a symbol only at the end, a number sign, the cue after it, Chinese
    "typed-pw-no-separator", "typed-cue-after", "typed-symbol-at-end", "typed-cued-symbol-at-end",
    "typed-number-sign", "typed-zh-slip", "typed-zh-near", "typed-alone")]


def _session(ws: Path) -> Path:
    meta = {"_type": "metadata", "key": "cli", "last_consolidated": 0,
            "created_at": "2026-11-30T10:00:00", "updated_at": "2026-11-30T10:00:00"}
    chat = [f"Day {n} of the survey at the Leith mill went to plan, the roof is sound." for n in range(12)]
    turns = ["I am allergic to peanuts.", *(f.text for f in SLIPS), *chat, "I moved to Leith in May."]
    lines = [meta]
    for i, text in enumerate(turns):
        lines.append({"role": "user", "content": text, "timestamp": f"2026-11-30T10:{i:02d}:00"})
        lines.append({"role": "assistant", "content": "Noted.",
                      "timestamp": f"2026-11-30T10:{i:02d}:30"})
    lines.append({"role": "user", "content": "What is next?", "timestamp": "2026-11-30T11:00:00"})
    session = ws / "sessions" / "cli.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return session


@pytest.mark.slow  # runs the real git CLI
def test_typed_password_never_reaches_history_archive_index_memory_or_git(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(
        "[consolidate]\ncontext_window = 600\nmax_completion_tokens = 256\nsafety_buffer = 64\n")
    session = _session(ws)
    printed = []
    slip = SLIPS[0].text  # "Log in: Brackw00d!7 — ignore, wrong window."
    zh_slip = next(f.text for f in SLIPS if f.name == "typed-zh-slip")  # "… — 发错窗口了，忽略"
    for args in (("append", f"- {slip}"), ("append", f"- {zh_slip}"),
                 ("consolidate", str(session), "--json"), ("dream", "--json"),
                 ("search", "log in", "--json"), ("search", "password"), ("status",)):
        run = cli("-w", str(ws), *args)
        assert run.rc == 0, (args, run.err)
        printed.append(run.out + run.err)
    assert list((ws / "memory").glob("archive/*.jsonl")), "consolidation archived nothing"
    assert (ws / "memory" / "history.jsonl").read_text("utf-8").count("[REDACTED:password]") >= 1
    stored = {str(p.relative_to(ws)): p.read_bytes() for p in sorted(ws.rglob("*"))
              if p.is_file() and "sessions" not in p.relative_to(ws).parts}
    git_dir = git_dir_of(ws)
    places = {**stored, "git objects": all_git_objects(git_dir),
              "git log -p --all": git(git_dir, "log", "-p", "--all").encode(),
              "stdout": "\n".join(printed).encode()}
    leaks = {f.marker: [name for name, data in places.items() if f.marker.encode() in data]
             for f in SLIPS}
    assert {marker: where for marker, where in leaks.items() if where} == {}
    memory = "".join(p.read_text("utf-8") for p in (ws / "memory").glob("*.md")) + (
        ws / "USER.md").read_text("utf-8") + (ws / "SOUL.md").read_text("utf-8")
    assert "peanuts" in memory
    assert "[REDACTED:" not in memory and "wrong window" not in memory
    audit = [json.loads(line) for line in
             (ws / "memory" / "dream-audit.jsonl").read_text("utf-8").splitlines()]
    for slip in ("wrong window", "发错窗口"):
        skipped = [fact for entry in audit if entry.get("kind") == "ledger"
                   for fact in entry["facts"] if slip in fact["fact"]]
        assert skipped and all(fact["state"] == "skipped" and fact["reason"] == "secret-placeholder"
                               for fact in skipped), skipped
