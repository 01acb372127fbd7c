"""The engine registry: provider name → factory, so that :func:`make_engine` names no provider.

Each factory takes ``(config, workspace, options)`` and returns a
:class:`~nanomem.engines.chat.ChatModel`. The two built-in engines register here; their modules
are imported only when chosen (the HTTP path never loads the offline rules, and the offline
path never loads httpx). ``nanomem.config.PROVIDERS`` lists the same names; a test keeps the
two equal.

>>> sorted(engine_names())
['offline', 'openai']
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanomem.config import Config
from nanomem.engines.chat import ChatModel
from nanomem.errors import ConfigError
from nanomem.store.workspace import Workspace


@dataclass(frozen=True)
class EngineOptions:
    """What tests and callers may inject: an httpx transport, a sleep, a clock."""

    transport: Any = None
    sleep: Any = None
    clock: Any = None


Factory = Callable[[Config, Workspace, EngineOptions], ChatModel]
_FACTORIES: dict[str, Factory] = {}


def register_engine(name: str, factory: Factory) -> None:
    """Make ``name`` a provider that :func:`make_engine` can build."""
    _FACTORIES[name] = factory


def engine_names() -> tuple[str, ...]:
    """The registered provider names."""
    return tuple(_FACTORIES)


def make_engine(
    config: Config,
    workspace: Workspace | Path,
    *,
    transport: Any = None,
    sleep: Any = None,
    clock: Any = None,
) -> ChatModel:
    """The engine ``config.provider`` names, built by its registered factory.

    ``transport``/``sleep`` are for tests (a FakeLLM transport, a sleep that does not wait);
    ``clock`` is passed to the offline engine.
    """
    factory = _FACTORIES.get(config.provider)
    if factory is None:
        raise ConfigError(f"provider '{config.provider}' is not supported; use one of "
                          f"{', '.join(engine_names())}")
    ws = workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))
    return factory(config, ws, EngineOptions(transport, sleep, clock))


def _offline(config: Config, workspace: Workspace, options: EngineOptions) -> ChatModel:
    from nanomem.engines.offline.engine import OfflineEngine  # lazy: the HTTP path never needs it

    return OfflineEngine(clock=options.clock)


def _openai(config: Config, workspace: Workspace, options: EngineOptions) -> ChatModel:
    from nanomem.engines.openai import OpenAIProvider  # lazy: the offline path never loads httpx

    stage_models: Mapping[str, str | None] = {"consolidate": config.consolidate_model,
                                              "dream": config.dream_model}
    return OpenAIProvider(
        config.base_url or "",
        config.api_key,
        config.model or "",
        timeout=config.request_timeout,
        max_retries=config.max_retries,
        transport=options.transport,
        sleep=options.sleep or asyncio.sleep,
        notes_path=workspace.provider_notes,
        stage_models=stage_models,
        headers=config.headers,
        query=config.query,
        extra_body=config.extra_body,
        auth_header=config.auth_header,
        secrets=config.secrets,
    )


register_engine("offline", _offline)
register_engine("openai", _openai)
