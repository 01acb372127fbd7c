"""End to end: the API key and secrets pasted by a user never leak (DESIGN §6, §7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e_support import (
    API_KEY,
    Run,
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

pytestmark = pytest.mark.slow  # every test here starts a process or a server

FACTS = "## Facts\n"
OPENAI_KEY = "sk-proj-PASTEDsecret9f8e7d6c5b4a39f8e7d6c5b4a3"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PRIVATE_KEY = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "PASTEDKEYBODYxyz0123456789\n-----END PRIVATE KEY-----"
)
SECRET_MARKERS = (OPENAI_KEY, GITHUB_TOKEN, "PASTEDKEYBODY", "MIIEvQIBADANBgkq", "PASTEDsecret")
SMALL_BUDGET = (
    "[consolidate]\ncontext_window = 600\nmax_completion_tokens = 256\nsafety_buffer = 64\n"
)


def _every_byte_of(ws: Path) -> bytes:
    """Every file of the workspace (git objects decompressed through ``git cat-file``)."""
    blobs = [all_git_objects(git_dir_of(ws))]
    for path in sorted(ws.rglob("*")):
        if path.is_file():
            blobs.append(path.read_bytes())
    blobs.append(git(git_dir_of(ws), "log", "-p", "--all").encode())
    return b"\n".join(blobs)


def _assert_no_key(runs: list[Run], ws: Path, key: str = API_KEY) -> None:
    for run in runs:
        assert key not in run.out and key not in run.err, run
        assert key[8:20] not in run.out + run.err
    assert key.encode() not in _every_byte_of(ws)
    assert key[8:20].encode() not in _every_byte_of(ws)


def test_api_key_never_appears_in_output_files_or_git_even_on_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = init_ws(tmp_path)
    runs = [nanomem(ws, "append", "- [durable] User lives in Lyon.")]
    fake = FakeLLM()
    fake.enqueue_error(401, {"error": {"message": f"Incorrect API key provided: {API_KEY}",
                                       "type": "invalid_request_error"}})
    for _ in range(2):  # a 500 is retried once ([provider] max_retries = 1); both fail
        fake.enqueue_error(500, f"upstream failure; auth header was Bearer {API_KEY}")
    fake.enqueue_error(400, {"error": {"message": "tool_choice is not supported",
                                       "param": "tool_choice", "type": "invalid_request_error"}})
    fake.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                             fake_finish()])
    (ws / "nanomem.toml").write_text("[provider]\nmax_retries = 1\n")
    with fake.serve() as url:
        env = openai_env(url)
        failing = nanomem(ws, "--debug", "dream", "--json", env=env)
        assert failing.rc == 1 and json.loads(failing.out)["status"] == "failed"
        runs.append(failing)
        failing2 = nanomem(ws, "--debug", "dream", env=env)
        assert failing2.rc == 1
        runs.append(failing2)
        ok = nanomem(ws, "--debug", "dream", "--json", env=env)
        assert ok.rc == 0, ok.err
        assert json.loads(ok.out)["status"] == "committed"
        runs.append(ok)
        for name, value in env.items():  # the same shell, in-process for speed
            if name.startswith("NANOMEM_"):
                monkeypatch.setenv(name, value)
        for args in (("status",), ("status", "--json"), ("log",), ("log", "--json"),
                     ("restore",), ("command", "/memory"), ("restore", "--json",
                                                            json.loads(ok.out)["commit"])):
            run = cli("-w", str(ws), "--debug", *args)
            assert run.rc == 0, (args, run.err)
            runs.append(run)
    assert all(h.get("authorization") == f"Bearer {API_KEY}" for h in fake.headers)
    _assert_no_key(runs, ws)


def test_api_key_in_nanomem_toml_is_never_printed_or_committed(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    fake = FakeLLM()
    fake.enqueue_error(401)
    with fake.serve() as url:
        (ws / "nanomem.toml").write_text(
            f'[provider]\nname = "openai"\nbase_url = "{url}"\nmodel = "m"\n'
            f'api_key = "{API_KEY}"\n'
        )
        runs = [nanomem(ws, "append", "- [durable] User lives in Lyon.")]
        runs.append(nanomem(ws, "--debug", "dream"))
        runs.append(nanomem(ws, "status", "--json"))
    assert runs[1].rc == 1
    assert fake.headers[0].get("authorization") == f"Bearer {API_KEY}"
    for run in runs:
        assert API_KEY not in run.out + run.err
    (ws / "nanomem.toml").unlink()  # the file itself holds it by the user's choice
    assert API_KEY.encode() not in _every_byte_of(ws)


def _session_with_pasted_secrets(ws: Path) -> Path:
    meta = {"_type": "metadata", "key": "cli", "last_consolidated": 0,
            "created_at": "2026-11-30T10:00:00", "updated_at": "2026-11-30T10:00:00"}
    said = [
        f"My name is Ana and I live in Lyon. My OpenAI key is {OPENAI_KEY} remember it.",
        f"I prefer short answers. My GitHub token is {GITHUB_TOKEN} for the deploy.",
        f"Always use this deploy key:\n{PRIVATE_KEY}\nI decided the budget is 40k EUR.",
        "password=hunter2secret99 is my password, please remember it.",
    ]
    lines = [meta]
    for i, text in enumerate(said):
        lines.append({"role": "user", "content": text, "timestamp": f"2026-11-30T10:0{i}:00"})
        lines.append({"role": "assistant", "content": "Noted, I will keep that in mind. " * 8,
                      "timestamp": f"2026-11-30T10:0{i}:30"})
    lines.append({"role": "user", "content": "What is next?", "timestamp": "2026-11-30T10:09:00"})
    path = ws / "sessions" / "cli.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _assert_no_pasted_secret(ws: Path) -> None:
    everything = _every_byte_of(ws)
    for path in ws.rglob("sessions/*"):  # the session file is the host's own transcript
        everything = everything.replace(path.read_bytes(), b"")
    for marker in (*SECRET_MARKERS, "hunter2secret99"):
        assert marker.encode() not in everything, marker


def test_pasted_secrets_never_reach_history_markdown_or_git_offline(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(SMALL_BUDGET)
    session = _session_with_pasted_secrets(ws)
    run = nanomem(ws, "consolidate", str(session), "--json")
    assert run.rc == 0, run.err
    assert run.json()["status"] == "archived"
    history = (ws / "memory" / "history.jsonl").read_text()
    assert "Lyon" in history and "[REDACTED:" in history
    dream = nanomem(ws, "dream", "--json")
    assert dream.rc == 0, dream.err
    assert dream.json()["status"] == "committed"
    _assert_no_pasted_secret(ws)


def test_pasted_secrets_never_reach_git_when_a_model_tries_to_write_them(tmp_path: Path) -> None:
    ws = init_ws(tmp_path)
    (ws / "nanomem.toml").write_text(SMALL_BUDGET)
    session = _session_with_pasted_secrets(ws)
    archiver = FakeLLM()
    archiver.enqueue_tool_calls([("archive_history", {"nothing": False, "facts": [
        {"mark": "permanent", "text": f"User's OpenAI key is {OPENAI_KEY}"},
        {"mark": "durable", "text": f"Deploy key: {PRIVATE_KEY}"},
        {"mark": "durable", "text": f"GitHub token {GITHUB_TOKEN}; User lives in Lyon"},
        {"mark": "durable", "text": "password=hunter2secret99 is the password"},
    ]})])
    for _ in range(4):  # later rounds, if the consolidator needs them
        archiver.enqueue_tool_calls([("archive_history", {"nothing": True, "facts": []})])
    with archiver.serve() as url:
        run = nanomem(ws, "consolidate", str(session), "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    assert run.json()["status"] == "archived"
    history = (ws / "memory" / "history.jsonl").read_text()
    assert "User lives in Lyon" in history and "[REDACTED:private-key]" in history
    fake = FakeLLM()
    fake.enqueue_tool_calls([
        fake_edit("USER.md", FACTS, FACTS + f"- OpenAI key: {OPENAI_KEY}\n"),
        fake_edit("memory/MEMORY.md", FACTS, FACTS + f"- token {GITHUB_TOKEN}\n{PRIVATE_KEY}\n"),
        ("write_file", {"path": "SOUL.md", "content": "# Soul\n\npassword=hunter2secret99\n"}),
        fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
        fake_finish(),
    ])
    fake.enqueue_tool_calls([fake_finish()])  # a finish beside refused calls waits one round
    with fake.serve() as url:
        dream = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert dream.rc == 0, dream.err
    result = dream.json()
    assert result["status"] == "committed"
    assert len(result["refused"]) >= 3
    assert "User lives in Lyon." in (ws / "USER.md").read_text()
    _assert_no_pasted_secret(ws)
    audit = (ws / "memory" / "dream-audit.jsonl").read_text()
    assert "REDACTED" in audit


@pytest.mark.parametrize("secret", [OPENAI_KEY, GITHUB_TOKEN])
def test_append_of_a_secret_stores_it_redacted(tmp_path: Path, secret: str) -> None:
    ws = init_ws(tmp_path)
    run = nanomem(ws, "append", f"- [durable] key {secret} for the project")
    assert run.rc == 0, run.err
    assert secret not in (ws / "memory" / "history.jsonl").read_text()
    assert secret not in run.out + run.err


def test_secret_typed_by_hand_into_a_memory_file_never_reaches_git_or_the_model(
    tmp_path: Path,
) -> None:
    from nanomem import Memory

    ws = init_ws(tmp_path)
    user = ws / "USER.md"
    user.write_bytes(user.read_bytes() + f"- caf\xe9 my key {OPENAI_KEY}\n".encode("latin-1"))
    assert nanomem(ws, "append", "- [durable] User lives in Lyon.").rc == 0
    with Memory(ws) as mem:
        assert OPENAI_KEY not in mem.context(2000)
    fake = FakeLLM()
    fake.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                             fake_finish()])
    with fake.serve() as url:
        run = nanomem(ws, "dream", "--json", env=openai_env(url))
    assert run.rc == 0, run.err
    assert run.json()["status"] == "committed"
    assert OPENAI_KEY not in json.dumps(fake.requests)
    warning = [line for line in run.err.splitlines() if "redacted" in line]
    assert len(warning) == 1 and "USER.md line 8" in warning[0], run.err
    data = user.read_bytes()
    assert OPENAI_KEY.encode() not in data and b"caf\xe9 my key [REDACTED:openai-key]" in data
    assert b"- User lives in Lyon." in data
    _assert_no_pasted_secret(ws)
    status = nanomem(ws, "status", "--json")
    assert status.json()["head"] == git(git_dir_of(ws), "rev-parse", "HEAD").strip()
    assert git(git_dir_of(ws), "status", "--porcelain", work_tree=ws).strip() == ""
