"""What every backend of the grid runner shares: the session it opens and the pool of models.

The local backend (:mod:`coordqa.agentic.runner`) and the Ray backend
(:mod:`coordqa.agentic.ray_backend`) both open a :class:`Session` and build their models through
a :class:`ModelPool`; both import them from here, so neither backend imports the other.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import NamedTuple

from coordqa.agentic.episodes import AgenticEpisode, EpisodeSpec
from coordqa.agentic.runtime_settings import RuntimeSettings
from coordqa.llm import LimiterRegistry, Model, ResponseCache, UsageLedger, create_provider

PlayFn = Callable[[EpisodeSpec], Awaitable[AgenticEpisode]]
"""Plays one episode and returns it (each backend provides one)."""


class Session(NamedTuple):
    """A backend, opened for one grid session."""

    play: PlayFn
    """Plays one episode."""
    streams: bool
    """Whether exchanges were already written while the episode played."""


class ModelPool:
    """One :class:`Model` per model name, shared by every episode of a process.

    Sharing the Model (hence its limiter and usage ledger) is what makes the concurrency limit
    hold across concurrent episodes.
    """

    def __init__(
        self,
        runtime: RuntimeSettings,
        api_base: Callable[[str], str | None],
        limiter_registry: LimiterRegistry | None = None,
        api_keys: Mapping[str, str] | None = None,
    ) -> None:
        """Build models lazily with the run's call policy, endpoints and limiter registry.

        ``api_base`` gives each model name its endpoint (None: the provider's default);
        ``api_keys`` a key by model name (others use the provider's environment variable).
        """
        self.runtime = runtime
        self.api_base = api_base
        self.api_keys = dict(api_keys or {})
        self.ledger = UsageLedger()
        self._registry = limiter_registry
        self._models: dict[str, Model] = {}
        self._lock = threading.Lock()

    def __call__(self, name: str) -> Model:
        """The shared Model called ``name``."""
        with self._lock:
            model = self._models.get(name)
            if model is None:
                model = self._build(name)
                self._models[name] = model
            return model

    def _build(self, name: str) -> Model:
        provider = create_provider(
            name, self.api_base(name), self.api_keys.get(name), self.runtime.transport
        )
        cache = ResponseCache() if self.runtime.cache and provider.cacheable else None
        return Model(
            provider,
            policy=self.runtime.policy(),
            cache=cache,
            ledger=self.ledger,
            limiter_registry=self._registry,
        )
