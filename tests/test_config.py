"""Configuration precedence and validation (DESIGN §6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanomem.config import Config, load_config
from nanomem.errors import ConfigError


def write_toml(root: Path, text: str) -> None:
    (root / "nanomem.toml").write_text(text, encoding="utf-8")


def test_load_config_defaults_when_nothing_is_set(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={})
    assert cfg == Config()
    assert cfg.provider == "offline"
    assert cfg.budget == 65_536 - 4_096 - 1_024


def test_load_config_precedence_flags_over_env_over_toml(tmp_path: Path) -> None:
    write_toml(
        tmp_path,
        '[provider]\nname = "openai"\nbase_url = "http://toml/v1"\nmodel = "toml-model"\n',
    )
    env = {"NANOMEM_MODEL": "env-model", "NANOMEM_BASE_URL": "http://env/v1"}
    cfg = load_config(tmp_path, environ=env, overrides={"model": "flag-model", "base_url": None})
    assert cfg.provider == "openai"  # only the toml sets it
    assert cfg.base_url == "http://env/v1"  # env beats toml; a None flag is ignored
    assert cfg.model == "flag-model"  # flag beats env


def test_load_config_reads_sections_and_caps(tmp_path: Path) -> None:
    write_toml(
        tmp_path,
        '[consolidate]\ncontext_window = 9000\nratio = 0.4\n'
        '[caps]\n"USER.md" = 100\n[dream]\nephemeral_ttl_days = 3\n',
    )
    cfg = load_config(tmp_path, environ={})
    assert cfg.context_window == 9000
    assert cfg.consolidate_ratio == 0.4
    assert cfg.cap_for("USER.md") == 100
    assert cfg.cap_for("SOUL.md") == 4_000
    assert cfg.ephemeral_ttl_days == 3


def test_load_config_never_shows_the_api_key_in_repr(tmp_path: Path) -> None:
    cfg = load_config(
        tmp_path,
        environ={"NANOMEM_API_KEY": "sk-secret-value-123", "NANOMEM_PROVIDER": "openai",
                 "NANOMEM_BASE_URL": "http://x/v1"},
    )
    assert cfg.api_key == "sk-secret-value-123"
    assert "sk-secret" not in repr(cfg)


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ("[provider\n", "not valid TOML"),
        ("[nonsense]\nx = 1\n", "unknown section [nonsense]"),
        ("[dream]\nbatch = 3\n", "unknown key 'batch' in [dream]"),
        ("[consolidate]\ncontext_window = 'big'\n", "'context_window' must be a number"),
        ('[provider]\nname = "claude"\n', "provider 'claude' is not supported"),
        ('[provider]\nname = "openai"\n', "needs a base URL"),
        ("[consolidate]\ncontext_window = 100\n", "leaves no prompt budget"),
    ],
)
def test_load_config_rejects_bad_input_with_a_clear_message(
    tmp_path: Path, toml: str, fragment: str
) -> None:
    write_toml(tmp_path, toml)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert fragment in str(info.value)
    assert info.value.exit_code == 2


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_load_config_refuses_a_request_timeout_that_is_not_finite(tmp_path: Path,
                                                                  value: str) -> None:
    write_toml(tmp_path, f"[provider]\nrequest_timeout = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    message = str(info.value)
    assert "nanomem.toml line 2: [provider] 'request_timeout' must be a finite number" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("line", "shown"),
    [('author_name = "Ana\\nLopez"', "a line break"), ('author_name = "Ana <a@b>"', "'<'"),
     ('author_email = "a@b>\\u0000"', "'>'"), ('author_name = "Ana\\u0000"', "'\\x00'")],
)
def test_load_config_refuses_a_git_identity_that_git_fsck_rejects(tmp_path: Path, line: str,
                                                                  shown: str) -> None:
    write_toml(tmp_path, f"[git]\n{line}\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    message = str(info.value)
    assert "nanomem.toml line 2: [git] 'author_" in message and shown in message
    assert "write the " in message and "\n" not in message


@pytest.mark.slow
def test_cli_reports_a_bad_identity_in_one_line_with_exit_2_and_commits_nothing(
    tmp_path: Path,
) -> None:
    from tests.e2e_support import cli, git, git_dir_of

    ws = tmp_path / "ws"
    assert cli("init", str(ws)).rc == 0
    head = git(git_dir_of(ws), "rev-parse", "HEAD").strip()
    write_toml(ws, '[git]\nauthor_name = "Ana\\nEvil: x"\n')
    (ws / "USER.md").write_text("# User\n\n- hand edit\n", encoding="utf-8")
    for args in (("append", "- [durable] x"), ("dream",), ("status",)):
        run = cli("-w", str(ws), *args)
        assert run.rc == 2, (args, run)
        lines = run.err.strip().splitlines()
        assert len(lines) == 1 and "nanomem.toml line 2: [git] 'author_name'" in lines[0], run.err
    assert git(git_dir_of(ws), "rev-parse", "HEAD").strip() == head
