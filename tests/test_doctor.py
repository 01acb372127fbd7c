"""``nanomem doctor`` against FakeLLM: a good, a degraded and a broken server."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from nanomem.cli import main
from nanomem.config import Config
from nanomem.doctor import run_doctor
from nanomem.engines.notes import read_notes
from nanomem.records import to_json
from nanomem.store.workspace import Workspace
from tests.dream_fixtures import no_sleep
from tests.fakellm import FakeLLM
from tests.test_consolidator import archive

KEY = "sk-doctor-Zq9SECRETkey0123456789"


def script_both_stages(fake: FakeLLM) -> None:
    fake.enqueue_tool_calls([("archive_history", archive(("permanent", "Name is Ana.")))])
    fake.enqueue_tool_calls([("finish", {"status": "no_changes_needed", "note": "check"})])


def doctor(fake: FakeLLM, ws: Path, **config: Any) -> Any:
    cfg = Config(provider="openai", base_url=fake.base_url, model=config.pop("model", "m"),
                 max_retries=0, **config)
    return asyncio.run(run_doctor(cfg, ws, transport=fake.transport(), sleep=no_sleep))


def test_doctor_good_server_both_stages_work(workspace: Path) -> None:
    fake = FakeLLM(mode="vllm-noauto")  # /models says max_model_len; required is accepted
    script_both_stages(fake)
    report = doctor(fake, workspace)
    assert report.ok
    data = to_json(report)
    assert {s: (v["ok"], v["fallbacks"]) for s, v in data["stages"].items()} == {
        "consolidate": (True, {}), "dream": (True, {})}
    assert data["context_window"] == {"tokens": 32768, "source": "/models max_model_len"}
    assert data["warnings"] == ["the server's context window is 32768 tokens (/models max_model_len) "
                                "but context_window is 65536; set [consolidate] context_window = "
                                "32768 in nanomem.toml"]
    notes = read_notes(Workspace(workspace).provider_notes)[fake.base_url]["models"]["m"]
    assert notes["context_window"] == {"tokens": 32768, "source": "/models max_model_len"}
    assert [b["tool_choice"] for b in fake.requests] == [
        {"type": "function", "function": {"name": "archive_history"}}, "required"]
    fake.assert_all_consumed()


def test_doctor_degraded_server_reports_the_fallbacks_it_needed(workspace: Path) -> None:
    fake = FakeLLM(mode="openai-reasoning")
    script_both_stages(fake)
    report = doctor(fake, workspace, model="o3")
    assert report.ok
    stage = to_json(report)["stages"]["consolidate"]
    assert stage["fallbacks"] == {"max_tokens": "rename:max_completion_tokens", "temperature": "omit"}
    assert len(fake.requests) == 4  # two refusals, then each stage's probe
    notes = read_notes(Workspace(workspace).provider_notes)[fake.base_url]["models"]["o3"]
    assert set(notes["fallbacks"]) == {"max_tokens", "temperature"}


def test_doctor_broken_server_fails_and_names_the_server_flag(workspace: Path) -> None:
    fake = FakeLLM(mode="llamacpp-nojinja")
    report = doctor(fake, workspace)
    assert not report.ok
    data = to_json(report)
    for stage in data["stages"].values():
        assert not stage["ok"] and "tools param requires --jinja flag" in stage["detail"]
        assert stage["advice"] == ["start llama.cpp's llama-server with --jinja (tool calls need it)"]
        assert stage["quirks"] == {"llamacpp_needs_jinja": "tools param requires --jinja flag"}
    assert data["context_window"] == {"tokens": 32768, "source": "/models meta.n_ctx_train"}


def test_doctor_text_only_model_fails_with_the_tool_call_flags(workspace: Path) -> None:
    fake = FakeLLM()
    fake.enqueue_text("I would archive: Name is Ana.")
    fake.enqueue_text("Nothing to change.")
    data = to_json(doctor(fake, workspace))
    assert not data["ok"]
    assert "--enable-auto-tool-choice" in data["stages"]["dream"]["advice"][0]
    assert "no archive_history tool call" in data["stages"]["consolidate"]["detail"]


def test_doctor_offline_needs_no_endpoint(workspace: Path) -> None:
    report = asyncio.run(run_doctor(Config(), workspace))
    assert report.ok and report.base_url is None


# ------------------------------------------------------------------ the CLI, end to end
def write_toml(ws: Path, url: str, model: str = "m") -> None:
    (ws / "nanomem.toml").write_text(
        f'[provider]\nname = "openai"\nbase_url = "{url}"\nmodel = "{model}"\nmax_retries = 0\n',
        encoding="utf-8")


def cli(ws: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["-w", str(ws), "doctor", *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_doctor_cli_exits_0_and_prints_json_for_a_good_server(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NANOMEM_API_KEY", KEY)
    fake = FakeLLM(mode="openrouter")
    script_both_stages(fake)
    with fake.serve() as url:
        write_toml(workspace, url, "qwen/qwen3-32b")
        code, out, err = cli(workspace, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["ok"] and data["context_window"]["tokens"] == 131072
    assert KEY not in out + err
    assert all(h["authorization"] == f"Bearer {KEY}" for h in fake.headers)


@pytest.mark.slow
def test_doctor_cli_exits_1_naming_the_flag_for_a_broken_server(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NANOMEM_API_KEY", KEY)
    fake = FakeLLM(mode="llamacpp-nojinja")
    with fake.serve() as url:
        write_toml(workspace, url)
        code, out, err = cli(workspace)
    assert code == 1
    assert "- consolidate (m): FAILS: POST " in out
    assert "fix: start llama.cpp's llama-server with --jinja (tool calls need it)" in out
    assert out.rstrip().endswith("a stage cannot run; see the fix lines above")
    assert KEY not in out + err
    notes = read_notes(Workspace(workspace).provider_notes)
    assert "llamacpp_needs_jinja" in notes[url]["models"]["m"]["quirks"]


@pytest.mark.slow
def test_doctor_cli_degraded_server_exits_0_and_lists_fallbacks(workspace: Path) -> None:
    fake = FakeLLM(mode="together")
    script_both_stages(fake)
    with fake.serve() as url:
        write_toml(workspace, url)
        code, out, _ = cli(workspace)
    assert code == 0
    assert "  fallback: tool_choice=required -> set:auto" in out
    assert out.rstrip().endswith("both stages can run")
