"""End to end: every kind of the secret-kinds table stays out of history, the memory files,
git objects, the Dream prompt and stdout (issue 11 item 6, DESIGN §7).

One workspace gets each fake three ways, as a hostile session would: appended to history,
typed by hand into ``memory/MEMORY.md``, and proposed by the model for ``USER.md``. Then every
place a secret could land is searched for each fake's marker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e_support import (
    all_git_objects,
    cli,
    fake_edit,
    fake_finish,
    git,
    git_dir_of,
    init_ws,
    nanomem,
    openai_env,
)
from tests.fakellm import FakeLLM
from tests.secret_kinds import FAKES

FACTS = "## Facts\n"


def _leaks(places: dict[str, str]) -> dict[str, list[str]]:
    """``{fake name: [places where its marker was found]}`` for every leaking fake."""
    found: dict[str, list[str]] = {}
    for fake in FAKES:
        where = [name for name, text in places.items() if fake.marker in text]
        if where:
            found[fake.name] = where
    return found


@pytest.mark.slow
def test_every_secret_kind_is_redacted_in_history_files_git_prompt_and_stdout(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text("[dream]\nbatch_entries = 100\n")  # one batch, one reply
    printed = []
    for fake in FAKES:
        run = cli("-w", str(ws), "append", f"- [durable] {fake.text}")
        assert run.rc == 0, run.err
        printed.append(run.out + run.err)
    memory = ws / "memory" / "MEMORY.md"
    typed = "".join(f"- typed: {fake.text}\n" for fake in FAKES)
    memory.write_text(memory.read_text("utf-8") + typed, "utf-8")
    fake_llm = FakeLLM()
    calls = [fake_edit("USER.md", FACTS, FACTS + f"- {fake.text}\n") for fake in FAKES]
    fake_llm.enqueue_tool_calls([*calls, fake_edit("USER.md", FACTS, FACTS + "- ok\n"),
                                 fake_finish()])
    fake_llm.enqueue_tool_calls([fake_finish()])  # a finish beside refused calls waits one round
    with fake_llm.serve() as url:
        env = openai_env(url)
        dream = nanomem(ws, "dream", env=env)
        assert dream.rc == 0, dream.err
        printed.append(dream.out + dream.err)
        for args in (("log",), ("log", "--json"), ("status",), ("dream", "--json")):
            run = nanomem(ws, *args, env=env)
            printed.append(run.out + run.err)
    git_dir = git_dir_of(ws)
    places = {
        "history": (ws / "memory" / "history.jsonl").read_text("utf-8"),
        "memory files": "".join(p.read_text("utf-8") for p in ws.rglob("*.md")),
        "git objects": all_git_objects(git_dir).decode("utf-8", "replace")
        + git(git_dir, "log", "-p", "--all"),
        "dream prompt": json.dumps(fake_llm.requests, ensure_ascii=False),
        "stdout": "\n".join(printed),
        "audit": (ws / "memory" / "dream-audit.jsonl").read_text("utf-8"),
    }
    leaks = _leaks(places)
    print(f"secret kinds leaking: {len(leaks)} of {len(FAKES)}")
    for name, where in leaks.items():
        print(f"  {name}: {', '.join(where)}")
    assert leaks == {}
    assert "[REDACTED:" in places["history"] and "[REDACTED:" in places["memory files"]


def _plant_old_history(ws: Path, texts: list[str]) -> None:
    """History as an older nanomem wrote it, before these secret kinds were redacted."""
    lines = [json.dumps({"cursor": i, "timestamp": "2026-11-30 10:00", "content": f"- [durable] {t}"})
             for i, t in enumerate(texts, 1)]
    (ws / "memory" / "history.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    (ws / "memory" / ".cursor").write_text(f"{len(texts)}\n", "utf-8")


@pytest.mark.slow
def test_history_written_before_a_kind_was_known_never_reaches_the_model(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    fakes = [f for f in FAKES if f.name in ("stripe", "huggingface", "password-in-prose")]
    _plant_old_history(ws, [f.text for f in fakes] + ["User lives in Lyon."])
    fake_llm = FakeLLM()
    fake_llm.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                                 fake_finish()])
    with fake_llm.serve() as url:
        dream = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert dream.rc == 0, dream.err
    prompt = json.dumps(fake_llm.requests, ensure_ascii=False)
    assert "User lives in Lyon." in prompt
    assert [f.name for f in fakes if f.marker in prompt] == []


def test_offline_dream_writes_old_history_secrets_redacted(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    fakes = [f for f in FAKES if f.name in ("stripe", "huggingface", "long-hex-token")]
    _plant_old_history(ws, [f.text for f in fakes] + ["I am allergic to peanuts."])
    dream = cli("-w", str(ws), "dream", "--json")
    assert dream.rc == 0, dream.err
    files = "".join(p.read_text("utf-8") for p in ws.rglob("*.md"))
    assert "allergic to peanuts" in files
    assert [f.name for f in fakes if f.marker in files] == []


@pytest.mark.slow
def test_every_secret_kind_is_redacted_in_the_archive_index_and_search_after_consolidation(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(
        "[consolidate]\ncontext_window = 600\nmax_completion_tokens = 256\nsafety_buffer = 64\n")
    meta = {"_type": "metadata", "key": "cli", "last_consolidated": 0,
            "created_at": "2026-11-30T10:00:00", "updated_at": "2026-11-30T10:00:00"}
    lines = [meta]
    for i, fake in enumerate(FAKES):
        lines.append({"role": "user", "content": f"Remember this: {fake.text}",
                      "timestamp": f"2026-11-30T10:{i:02d}:00"})
        lines.append({"role": "assistant", "content": "Noted.", "timestamp": f"2026-11-30T10:{i:02d}:30"})
    lines.append({"role": "user", "content": "What is next?", "timestamp": "2026-11-30T11:00:00"})
    session = ws / "sessions" / "cli.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    printed = []
    for args in (("consolidate", str(session), "--json"), ("dream",), ("search", "key"),
                 ("search", "password", "--json"), ("status",)):
        run = cli("-w", str(ws), *args)
        assert run.rc == 0, (args, run.err)
        printed.append(run.out + run.err)
    stored = b"\n".join(p.read_bytes() for p in sorted(ws.rglob("*"))
                        if p.is_file() and "sessions" not in p.relative_to(ws).parts)
    places = {
        "workspace files (archive, index, history, memory files)": stored.decode("utf-8", "replace"),
        "git objects": all_git_objects(git_dir_of(ws)).decode("utf-8", "replace"),
        "stdout": "\n".join(printed),
    }
    assert list((ws / "memory").glob("archive/*.jsonl")), "consolidation archived nothing"
    leaks = _leaks(places)
    print(f"secret kinds leaking after consolidation: {len(leaks)} of {len(FAKES)}")
    assert leaks == {}
