"""The nanomem CLI: commands, --json outputs, exit codes, help texts and the README list."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nanomem.cli import build_parser, main
from tests.fakellm import FakeLLM

REPO_ROOT = Path(__file__).resolve().parent.parent
HEX40 = re.compile(r"^[0-9a-f]{40}$")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    code, _, err = run("init", str(root))
    assert code == 0, err
    return root


@pytest.mark.slow
def test_cli_init_creates_workspace_and_memory_repository(tmp_path: Path) -> None:
    root = tmp_path / "agent"

    code, out, _ = run("init", str(root))

    assert code == 0
    assert (root / "USER.md").is_file() and (root / "memory" / "MEMORY.md").is_file()
    log = subprocess.run(["git", "--git-dir", str(root / ".git"), "log", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout
    assert log.strip().startswith("init:")
    assert "Memory repository created" in out


def test_cli_init_twice_changes_nothing(ws: Path) -> None:
    before = _snapshot(ws)

    code, out, _ = run("init", str(ws))

    assert code == 0 and "nothing copied" in out and "found" in out
    assert _snapshot(ws) == before  # files, the git objects and HEAD are byte-identical


def test_cli_init_uses_workspace_option_when_no_dir_is_given(tmp_path: Path) -> None:
    code, _, _ = run("init", "-w", str(tmp_path / "w2"))

    assert code == 0 and (tmp_path / "w2" / "SOUL.md").is_file()


def test_cli_append_prints_the_cursor_and_status_json_counts_it(ws: Path) -> None:
    assert run("-w", str(ws), "append", "I prefer tea.")[:2] == (0, "1\n")
    assert run("append", "-w", str(ws), "I live in Porto.")[:2] == (0, "2\n")

    code, out, _ = run("-w", str(ws), "status", "--json")
    data = json.loads(out)

    assert code == 0
    assert {k: data[k] for k in ("cursor", "dream_cursor", "pending", "provider")} == {
        "cursor": 2, "dream_cursor": 0, "pending": 2, "provider": "offline"
    }
    assert data["git_dir"] == str(ws / ".git") and HEX40.match(data["head"])


def test_cli_status_prints_sizes_and_caps(ws: Path) -> None:
    code, out, _ = run("-w", str(ws), "status")

    assert code == 0
    assert re.search(r"USER\.md\s+[\d,]+ / 6,000 chars", out)
    assert "dream cursor  0  (0 pending)" in out


def test_cli_reports_a_missing_workspace_in_one_line_with_exit_2(tmp_path: Path) -> None:
    code, out, err = run("-w", str(tmp_path / "missing"), "status")

    assert code == 2 and out == ""
    assert "nanomem init" in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_returns_2_for_usage_errors() -> None:
    code, _, err = run("dream", "--provider", "bogus")

    assert code == 2 and "invalid choice" in err


def test_cli_returns_2_for_a_configuration_error(ws: Path) -> None:
    (ws / "nanomem.toml").write_text("[provider\n", "utf-8")

    code, _, err = run("-w", str(ws), "status")

    assert code == 2 and "nanomem.toml" in err and "TOML" in err


def test_cli_dream_json_has_the_stable_fields(ws: Path) -> None:
    run("-w", str(ws), "append", "- [permanent] I am allergic to peanuts.")

    code, out, _ = run("-w", str(ws), "dream", "--json")
    data = json.loads(out)

    assert code == 0
    assert data["status"] == "committed" and HEX40.match(data["commit"])
    assert (data["dream_cursor_before"], data["dream_cursor_after"]) == (0, 1)
    assert data["accepted"] >= 1 and data["refused"] == [] and "+- " in data["diff"]


def test_cli_dream_with_nothing_pending_exits_0(ws: Path) -> None:
    code, out, _ = run("-w", str(ws), "dream")

    assert code == 0 and "Nothing to dream about" in out


@pytest.mark.slow
def test_cli_dream_failure_exits_1_and_never_prints_the_api_key(ws: Path, monkeypatch) -> None:
    run("-w", str(ws), "append", "- [durable] I prefer tea.")
    monkeypatch.setenv("NANOMEM_API_KEY", "sk-proj-SECRETSECRETSECRET1234")
    (ws / "nanomem.toml").write_text("[provider]\nmax_retries = 0\n", "utf-8")
    fake = FakeLLM()
    fake.enqueue_error(500)
    with fake.serve() as base_url:
        code, out, err = run("-w", str(ws), "dream", "--json", "--provider", "openai",
                             "--base-url", base_url, "--model", "m")

    data = json.loads(out)
    assert code == 1 and data["status"] == "failed"
    assert "SECRET" not in out + err
    assert fake.headers[0]["authorization"].endswith("SECRETSECRETSECRET1234")
    assert run("-w", str(ws), "status", "--json")[1].count('"dream_cursor": 0') == 1


def test_cli_log_restore_round_trip_with_json(ws: Path) -> None:
    before = (ws / "USER.md").read_bytes()
    run("-w", str(ws), "append", "- [permanent] I am allergic to peanuts.")
    run("-w", str(ws), "dream")

    code, out, _ = run("-w", str(ws), "log", "--json")
    info = json.loads(out)
    assert code == 0 and HEX40.match(info["sha"]) and info["subject"].startswith("dream:")
    assert info["files"] == ["USER.md"] and "peanuts" in info["diff"] and info["time"]

    code, out, _ = run("-w", str(ws), "restore", info["sha"][:6], "--json")
    restored = json.loads(out)
    assert code == 0 and HEX40.match(restored["sha"]) and restored["subject"].startswith("restore:")
    assert restored["files"] == ["USER.md"] and restored["target"] == info["sha"]
    assert (ws / "USER.md").read_bytes() == before


def test_cli_restore_without_sha_lists_versions(ws: Path) -> None:
    code, out, _ = run("-w", str(ws), "restore")

    assert code == 0 and "Recent versions" in out and "init:" in out


def test_cli_log_unknown_sha_exits_2_with_a_clear_message(ws: Path) -> None:
    code, _, err = run("-w", str(ws), "log", "deadbeef")

    assert code == 2 and "no commit deadbeef" in err and "Traceback" not in err


def test_cli_command_routes_slash_commands(ws: Path) -> None:
    code, out, _ = run("-w", str(ws), "command", "/memory")
    assert code == 0 and "**Memory status**" in out

    code, _, err = run("-w", str(ws), "command", "hello there")
    assert code == 2 and "not a nanomem command" in err


def test_cli_consolidate_archives_a_session_file(ws: Path) -> None:
    session = ws / "sessions" / "cli.jsonl"
    lines = [{"_type": "metadata", "key": "cli", "last_consolidated": 0}]
    for i in range(10):
        lines.append({"role": "user", "content": f"I prefer aisle seats, trip {i}. " * 30})
        lines.append({"role": "assistant", "content": "Noted. " * 50})
    session.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    (ws / "nanomem.toml").write_text(
        "[consolidate]\nmax_completion_tokens = 500\nsafety_buffer = 100\n", "utf-8")

    code, out, _ = run("-w", str(ws), "consolidate", str(session), "--context-window", "3000",
                       "--json")

    assert code == 0 and json.loads(out)["status"] == "archived"
    assert json.loads(session.read_text("utf-8").splitlines()[0])["last_consolidated"] > 0


def test_cli_help_of_every_command_carries_examples() -> None:
    parser = build_parser()
    names = _subcommands()
    for name in names:
        code, out, _ = run(name, "--help")
        assert code == 0 and "examples:" in out and f"nanomem {name}" in out, name
    assert "examples:" in parser.format_help()


def _subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command_name")
    return list(action.choices)


def test_cli_commands_match_the_readme_list() -> None:
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    section = readme.split("\n## CLI", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    listed = [m.group(1) for m in re.finditer(r"^nanomem (\w[\w-]*)", block, re.MULTILINE)]

    assert listed == _subcommands()


@pytest.mark.slow
def test_cli_runs_as_python_dash_m(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "nanomem", "--version"],
                          capture_output=True, text=True, cwd=tmp_path)

    assert proc.returncode == 0 and proc.stdout.startswith("nanomem ")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cli_dream_shows_progress_on_a_terminal_only(ws: Path) -> None:
    run("-w", str(ws), "append", "- [permanent] I am allergic to peanuts.")
    run("-w", str(ws), "append", "- [durable] I prefer tea.")
    (ws / "nanomem.toml").write_text("[dream]\nbatch_entries = 1\n", "utf-8")
    out, err = io.StringIO(), _Terminal()

    code = main(["-w", str(ws), "dream", "--dry-run"], stdout=out, stderr=err)

    assert code == 0 and "**Dry run**" in out.getvalue()
    progress = err.getvalue()
    assert progress.count("dream:") >= 2 and "batch" in progress
    assert run("-w", str(ws), "dream", "--dry-run")[2] == ""  # not a terminal: silent


def test_cli_reports_an_unexpected_error_as_internal_with_a_debug_hint(monkeypatch, ws: Path) -> None:
    import nanomem.cli as cli

    def broken(args, out, err) -> int:
        raise RuntimeError("boom")

    monkeypatch.setitem(cli._HANDLERS, "status", broken)

    code, _, err = run("-w", str(ws), "status")
    debug_code, _, debug_err = run("--debug", "-w", str(ws), "status")

    assert code == 1 and "internal error: RuntimeError: boom" in err and "--debug" in err
    assert "Traceback" not in err
    assert debug_code == 1 and "Traceback" in debug_err
