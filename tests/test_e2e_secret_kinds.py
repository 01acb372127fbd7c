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
