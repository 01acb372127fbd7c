"""Configuration: the ONLY reader of ``os.environ`` and ``nanomem.toml``.

Precedence (DESIGN §6): CLI flags > environment > ``nanomem.toml`` > defaults::

    cfg = load_config(Path("ws"), overrides={"provider": "openai"})
    cfg.provider        # 'openai'

Environment: ``NANOMEM_PROVIDER``, ``NANOMEM_BASE_URL``, ``NANOMEM_API_KEY``, ``NANOMEM_MODEL``,
``NANOMEM_CONSOLIDATE_MODEL``, ``NANOMEM_DREAM_MODEL``.
``nanomem.toml`` uses sections whose keys are the field names below, e.g.::

    [provider]
    name = "openai"            # or "offline"
    base_url = "http://localhost:11434/v1"
    model = "qwen2.5:7b"
    dream_model = "qwen2.5:32b"          # optional: a model per stage

    [provider.headers]                   # sent with every request
    "HTTP-Referer" = "https://example.org"
    "X-Gateway-Token" = { env = "GATEWAY_TOKEN" }   # secrets come from the environment only

    [provider.query]                     # added to every URL (Azure: api-version)
    api-version = "2024-10-21"

    [provider.body]                      # extra request fields (OpenRouter: provider routing)
    provider = { require_parameters = true }

    [caps]
    "USER.md" = 6000

    [search]                             # dense retrieval (off by default; docs/recall.md)
    embeddings = true                    # POST {embedding_base_url}/embeddings
    embedding_model = "nomic-embed-text"
    embedding_base_url = "http://localhost:11434/v1"  # default: [provider]'s, when "openai"
    embedding_api_key_env = "EMBED_KEY"  # optional: the key's environment variable

The API key is never part of ``repr(Config)`` and never logged.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nanomem.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PROVIDERS = ("offline", "openai")

DEFAULT_FILE_CAPS: Mapping[str, int] = MappingProxyType(
    {"SOUL.md": 4_000, "USER.md": 6_000, "memory/MEMORY.md": 12_000}
)


@dataclass(frozen=True)
class Config:
    """All settings of one workspace. Frozen; build variants with :func:`dataclasses.replace`."""

    # provider
    provider: str = "offline"
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None
    request_timeout: float = 60.0
    max_retries: int = 3
    consolidate_model: str | None = None
    dream_model: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    query: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    extra_body: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    auth_header: str = "authorization"
    secrets: tuple[str, ...] = field(default=(), repr=False)  # values read from the environment
    # consolidator (hot path)
    context_window: int = 65_536
    max_completion_tokens: int = 4_096
    safety_buffer: int = 1_024
    consolidate_ratio: float = 0.5
    max_consolidate_rounds: int = 5
    max_facts_per_reply: int = 200  # facts beyond a cap are counted and logged, not archived
    max_facts_per_run: int = 1_000
    # history
    max_history_entries: int = 1_000
    # dream (cold path)
    dream_batch_entries: int = 100  # a safety bound: batches are cut by dream_batch_tokens
    dream_batch_tokens: int = 6_000
    dream_excerpt_tokens: int = 500  # a memory file above this is shown to Dream as an excerpt
    dream_max_batches: int = 10
    dream_max_iterations: int = 30
    file_caps: Mapping[str, int] = field(default_factory=lambda: DEFAULT_FILE_CAPS)
    max_deletion_share: float = 0.5
    ephemeral_ttl_days: int = 7
    dream_max_refusals: int = 50  # refusals recorded per run; the rest are counted
    quote_max_chars: int = 300  # what the audit and the commit quote of one argument or reason
    audit_max_bytes: int = 1_000_000  # dream-audit.jsonl rotates to dream-audit.1.jsonl ...
    audit_keep: int = 5  # rotated audit files kept
    # git
    author_name: str = "nanomem"
    author_email: str = "nanomem@localhost"
    # watch daemon
    watch_debounce_seconds: float = 2.0
    dream_interval_minutes: float = 120.0
    dream_idle_minutes: float = 15.0
    # search (dense retrieval, off by default; docs/recall.md)
    embeddings: bool = False
    embedding_model: str | None = None
    embedding_base_url: str | None = None  # its own endpoint, whatever the provider
    embedding_api_key: str | None = field(default=None, repr=False)  # read from the environment

    @property
    def embeddings_endpoint(self) -> str | None:
        """The base URL dense retrieval posts to: ``embedding_base_url``, else the provider's
        when it is ``openai``, else ``None`` (the offline engine has no endpoint)."""
        if self.embedding_base_url:
            return self.embedding_base_url
        return self.base_url if self.provider == "openai" else None

    @property
    def budget(self) -> int:
        """Prompt budget: ``context_window - max_completion_tokens - safety_buffer``."""
        return self.context_window - self.max_completion_tokens - self.safety_buffer

    def cap_for(self, rel_path: str) -> int:
        """Character cap of one memory file."""
        return int(self.file_caps.get(rel_path, DEFAULT_FILE_CAPS.get(rel_path, 12_000)))


# nanomem.toml section -> {toml key: Config field}
_TOML_SECTIONS: dict[str, dict[str, str]] = {
    "provider": {
        "name": "provider",
        "base_url": "base_url",
        "api_key": "api_key",
        "model": "model",
        "request_timeout": "request_timeout",
        "max_retries": "max_retries",
        "consolidate_model": "consolidate_model",
        "dream_model": "dream_model",
        "auth_header": "auth_header",
        "headers": "headers",
        "query": "query",
        "body": "extra_body",
    },
    "consolidate": {
        "context_window": "context_window",
        "max_completion_tokens": "max_completion_tokens",
        "safety_buffer": "safety_buffer",
        "ratio": "consolidate_ratio",
        "max_rounds": "max_consolidate_rounds",
        "max_facts_per_reply": "max_facts_per_reply",
        "max_facts_per_run": "max_facts_per_run",
    },
    "history": {"max_history_entries": "max_history_entries"},
    "dream": {
        "batch_entries": "dream_batch_entries",
        "batch_tokens": "dream_batch_tokens",
        "excerpt_tokens": "dream_excerpt_tokens",
        "max_batches": "dream_max_batches",
        "max_iterations": "dream_max_iterations",
        "max_deletion_share": "max_deletion_share",
        "ephemeral_ttl_days": "ephemeral_ttl_days",
        "max_refusals": "dream_max_refusals",
        "quote_max_chars": "quote_max_chars",
        "audit_max_bytes": "audit_max_bytes",
        "audit_keep": "audit_keep",
    },
    "git": {"author_name": "author_name", "author_email": "author_email"},
    "watch": {
        "debounce_seconds": "watch_debounce_seconds",
        "dream_interval_minutes": "dream_interval_minutes",
        "dream_idle_minutes": "dream_idle_minutes",
    },
    "search": {"embeddings": "embeddings", "embedding_model": "embedding_model",
               "embedding_base_url": "embedding_base_url",
               "embedding_api_key_env": "embedding_api_key_env"},
}

_ENV = {
    "NANOMEM_PROVIDER": "provider",
    "NANOMEM_BASE_URL": "base_url",
    "NANOMEM_API_KEY": "api_key",
    "NANOMEM_MODEL": "model",
    "NANOMEM_CONSOLIDATE_MODEL": "consolidate_model",
    "NANOMEM_DREAM_MODEL": "dream_model",
}
# [provider.X] tables: name -> value (a string, or { env = "VAR" } for a secret)
_TABLES = {"headers": "headers", "query": "query", "extra_body": "body"}
_SECRET_NAME = re.compile(r"(?i)auth|key|token|secret|passw|cookie|signature|credential")


def load_config(
    workspace_root: Path,
    *,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Merge defaults, ``nanomem.toml``, the environment and ``overrides`` (highest first wins).

    ``overrides`` keys are :class:`Config` field names; ``None`` values are ignored, so
    argparse results can be passed straight through.
    """
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    toml_path = Path(workspace_root) / "nanomem.toml"
    values.update(_read_toml(toml_path))
    labels = {name: _toml_label(toml_path, name) for name in values}
    secrets: list[str] = []
    for name, table in _TABLES.items():
        if name in values:
            values[name] = _resolve_table(toml_path, table, values[name], environ, secrets)
    if "embedding_api_key_env" in values:
        _resolve_embedding_key(values, labels, environ, secrets)
    if secrets:
        values["secrets"] = tuple(secrets)
    for var, name in _ENV.items():
        if environ.get(var):
            values[name] = environ[var]
            labels[name] = f"environment variable {var}"
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = value
            labels[name] = f"option '{name}'"
    return _build(values, labels=labels)


# Counts where 0 would stall or shred the work (a Dream batch of 0 tokens splits every entry).
_AT_LEAST_ONE = ("dream_batch_entries", "dream_batch_tokens", "dream_max_batches",
                 "dream_max_iterations", "max_consolidate_rounds", "max_facts_per_reply",
                 "max_facts_per_run", "dream_max_refusals", "quote_max_chars",
                 "audit_max_bytes", "audit_keep")

# Config field -> (nanomem.toml section, key), for messages that name what the user wrote.
_FIELD_KEYS = {field: (section, key) for section, keys in _TOML_SECTIONS.items()
               for key, field in keys.items()}


def _line_of(path: Path, section: str, key: str | None = None) -> int | None:
    """The 1-based line of ``[section]`` (or of ``key`` inside it) in a TOML file, if found."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    current = None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text.startswith("[") and "]" in text:
            current = text[1:text.index("]")].strip()
            if key is None and current == section:
                return number
        elif key is not None and current == section:
            name = text.split("=", 1)[0].strip().strip("'\"")
            if "=" in text and name == key:
                return number
    return None


def _toml_label(path: Path, name: str) -> str:
    """``nanomem.toml line 3: [dream] 'batch_entries'`` for a field read from the file."""
    section, key = _FIELD_KEYS.get(name, ("caps", None) if name == "file_caps" else ("?", name))
    line = _line_of(path, section, key)
    where = f"{path} line {line}" if line else str(path)
    return f"{where}: [{section}]" + (f" '{key}'" if key else "")


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file or delete it") from exc
    values: dict[str, Any] = {}
    for section, table in data.items():
        if section == "caps":
            if not isinstance(table, dict):
                raise ConfigError(f"{path}: [caps] must be a table of file = characters")
            for rel, cap in table.items():
                if rel not in DEFAULT_FILE_CAPS or isinstance(cap, bool) or not isinstance(
                        cap, int) or cap <= 0:
                    line = _line_of(path, "caps", rel)
                    raise ConfigError(
                        f"{path}{f' line {line}' if line else ''}: [caps] {rel!r} = {cap!r}; "
                        f"give a positive number of characters for one of "
                        f"{', '.join(repr(k) for k in DEFAULT_FILE_CAPS)}"
                    )
            values["file_caps"] = MappingProxyType({**DEFAULT_FILE_CAPS, **table})
            continue
        keys = _TOML_SECTIONS.get(section)
        if keys is None or not isinstance(table, dict):
            line = _line_of(path, section)
            raise ConfigError(
                f"{path}{f' line {line}' if line else ''}: unknown section [{section}]; "
                f"expected one of {', '.join(sorted([*_TOML_SECTIONS, 'caps']))}"
            )
        for key, value in table.items():
            if key not in keys:
                line = _line_of(path, section, key)
                raise ConfigError(
                    f"{path}{f' line {line}' if line else ''}: unknown key '{key}' in "
                    f"[{section}]; expected one of {', '.join(sorted(keys))}"
                )
            values[keys[key]] = value
    return values


def _build(values: dict[str, Any], *, labels: Mapping[str, str]) -> Config:
    fields = {f.name: f for f in dataclasses.fields(Config)}
    clean: dict[str, Any] = {}
    for name, value in values.items():
        if name not in fields:
            raise ConfigError(f"unknown setting '{name}'")
        default = fields[name].default
        clean[name] = _coerce(name, value, default, labels.get(name, f"'{name}'"))
    cfg = Config(**clean)
    for name in _AT_LEAST_ONE:
        if getattr(cfg, name) < 1:
            raise ConfigError(f"{labels.get(name, repr(name))} must be at least 1, "
                              f"got {getattr(cfg, name)!r}; fix the value")
    if cfg.request_timeout <= 0:
        raise ConfigError(f"{labels.get('request_timeout', 'request_timeout')} must be more "
                          f"than 0 seconds, got {cfg.request_timeout!r}; fix the value")
    _check_identity(cfg, labels)
    if cfg.provider not in PROVIDERS:
        raise ConfigError(
            f"provider '{cfg.provider}' is not supported; use one of {', '.join(PROVIDERS)}"
        )
    if cfg.provider == "openai" and not cfg.base_url:
        raise ConfigError(
            "provider 'openai' needs a base URL; pass --base-url, set NANOMEM_BASE_URL "
            "or [provider] base_url in nanomem.toml"
        )
    if cfg.budget <= 0:
        raise ConfigError(
            f"context_window {cfg.context_window} leaves no prompt budget after "
            f"max_completion_tokens {cfg.max_completion_tokens} and safety_buffer "
            f"{cfg.safety_buffer}; raise context_window"
        )
    _check_embeddings(cfg, labels)
    if not 0 < cfg.consolidate_ratio < 1:
        raise ConfigError(f"consolidate ratio {cfg.consolidate_ratio} must lie between 0 and 1")
    if not 0 <= cfg.max_deletion_share <= 1:
        raise ConfigError(f"max_deletion_share {cfg.max_deletion_share} must lie between 0 and 1")
    return cfg


def _resolve_table(path: Path, table: str, raw: Any, environ: Mapping[str, str],
                   secrets: list[str]) -> Mapping[str, Any]:
    """A ``[provider.<table>]`` table with ``{ env = "VAR" }`` values read from ``environ``.

    A literal value under a name that looks like a credential is refused: secrets come from
    the environment only, so that nanomem.toml never holds one.
    """
    where = f"{path}: [provider.{table}]"
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a table of name = value")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        line = _line_of(path, f"provider.{table}", key)
        at = f"{path}{f' line {line}' if line else ''}: [provider.{table}] {key!r}"
        if isinstance(value, Mapping) and set(value) == {"env"}:
            var = value["env"]
            if not isinstance(var, str) or not environ.get(var):
                raise ConfigError(f"{at} reads the environment variable {var!r}, which is not "
                                  "set; set it or remove the entry")
            out[key] = environ[var]
            secrets.append(environ[var])
            continue
        if _SECRET_NAME.search(str(key)) and isinstance(value, str):
            raise ConfigError(f"{at} holds a literal secret; write {key} = {{ env = \"VAR\" }} "
                              "and set VAR in the environment")
        if table != "body" and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
            raise ConfigError(f"{at} must be a string or {{ env = \"VAR\" }}, not {value!r}")
        out[key] = str(value) if table != "body" else value
    return MappingProxyType(out)


def _resolve_embedding_key(values: dict[str, Any], labels: dict[str, str],
                           environ: Mapping[str, str], secrets: list[str]) -> None:
    """``[search] embedding_api_key_env = "VAR"`` becomes ``embedding_api_key``, read from
    ``environ`` (the key itself never lives in nanomem.toml)."""
    label = labels.pop("embedding_api_key_env")
    var = values.pop("embedding_api_key_env")
    if not isinstance(var, str) or not var:
        raise ConfigError(f"{label} must name an environment variable, not {var!r}; e.g. "
                          'embedding_api_key_env = "EMBED_KEY"')
    if not environ.get(var):
        raise ConfigError(f"{label} reads the environment variable {var!r}, which is not set; "
                          "set it or remove the line")
    values["embedding_api_key"] = environ[var]
    labels["embedding_api_key"] = label
    secrets.append(environ[var])


def _check_embeddings(cfg: Config, labels: Mapping[str, str]) -> None:
    """Dense retrieval that is on needs a model and an endpoint to post to."""
    if not cfg.embeddings:
        return
    label = labels.get("embeddings", "[search] 'embeddings'")
    if not cfg.embedding_model:
        raise ConfigError(f"{label} is on but [search] embedding_model is not set; name the "
                          'embedding model, e.g. embedding_model = "nomic-embed-text", or turn '
                          "embeddings off")
    if not cfg.embeddings_endpoint:
        raise ConfigError(
            f"{label} is on but there is no embeddings endpoint: provider {cfg.provider!r} "
            "has none; set [search] embedding_base_url to an OpenAI-compatible server, e.g. "
            '"http://localhost:11434/v1" (Ollama), or use provider \'openai\' with a base_url, '
            "or turn embeddings off"
        )


# What git accepts in a commit identity ``Name <email>`` (git fsck --strict): no angle
# brackets, no line break or other control character, and not empty.
_BAD_IDENTITY = re.compile(r"[<>\x00-\x1f\x7f]")
_IDENTITY_PARTS = {"author_name": ("name", '"Ana Lopez"'),
                   "author_email": ("address", '"ana@example.com"')}


def _check_identity(cfg: Config, labels: Mapping[str, str]) -> None:
    """``[git] author_name`` / ``author_email`` must make a commit that ``git fsck`` accepts."""
    for name in ("author_name", "author_email"):
        value = getattr(cfg, name)
        label = labels.get(name, f"[git] '{name}'")
        bad = _BAD_IDENTITY.search(value)
        if bad is not None:
            shown = "a line break" if bad.group(0) in "\r\n" else repr(bad.group(0))
            part, example = _IDENTITY_PARTS[name]
            raise ConfigError(f"{label} contains {shown}, which git does not allow in a commit "
                              f"author; write the {part} alone, e.g. {name} = {example}")
        if not value.strip():
            raise ConfigError(f"{label} is empty; give a {_IDENTITY_PARTS[name][0]} or remove "
                              "the line")


def _coerce(name: str, value: Any, default: Any, label: str) -> Any:
    """Check one value against its default's type; ``label`` says where the value came from."""
    if name in ("file_caps", "secrets", *_TABLES):
        return value
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{label} must be true or false, not {value!r}; fix the value")
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        if isinstance(value, bool) or (isinstance(default, int) and isinstance(value, float)
                                       and not value.is_integer()):
            raise ConfigError(f"{label} must be a {type(default).__name__} number, "
                              f"not {value!r}; fix the value")
        try:
            number = type(default)(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{label} must be a number, not {value!r}; fix the value") from exc
        if not math.isfinite(number):
            raise ConfigError(f"{label} must be a finite number, not {value!r}; "
                              "give a plain number such as 60")
        if number < 0:
            raise ConfigError(f"{label} must not be negative, got {value!r}; fix the value")
        return number
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{label} must be a string, not {value!r}; quote the value")
    return value
