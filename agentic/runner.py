"""Many episodes: a grid played on a backend, written to a resumable run store.

:func:`run_grid` expands a :class:`~coordqa.agentic.grid.GridConfig`, opens (or resumes) the run
directory, skips every episode already finished there, and plays the rest on a backend:

- ``local``: asyncio tasks in this process, at most ``parallel_episodes`` at once; every model
  call goes through one shared :class:`~coordqa.llm.Model` per model name, so the model
  concurrency limit (``concurrency``) holds across all episodes;
- ``ray``: one Ray task per episode (:mod:`coordqa.agentic.ray_backend`), with one rate-limiter
  actor per model connection shared by every worker.

Whatever the backend, the driver (this process) writes each finished episode's exchanges and
then its episode record, the moment it arrives; see :mod:`coordqa.agentic.episodes` for the
format. An episode that raises is recorded in ``failures.jsonl`` and the grid goes on; the run
stays unfinished and resuming plays it again.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from coordqa.agentic.episodes import (
    EPISODES,
    EXCHANGES,
    FAILURES,
    AgenticEpisode,
    EpisodeSpec,
    finished_keys,
)
from coordqa.agentic.grid import GridConfig, RuntimeSettings
from coordqa.agentic.match import build_player, play_match, register_players
from coordqa.errors import ConfigError
from coordqa.llm import LimiterRegistry, Model, ResponseCache, UsageLedger, get_model
from coordqa.records import Failure
from coordqa.store import RunManifest, RunStore, content_hash

PlayFn = Callable[[EpisodeSpec], Awaitable[AgenticEpisode]]
"""Plays one episode and returns it (each backend provides one)."""

ProgressCallback = Callable[[int, int, AgenticEpisode | None], None]
"""Called as ``(done, total, episode)`` after each episode; ``episode`` is None for a failure
and for the first call of a resumed run (which reports the episodes already done)."""


@dataclass(frozen=True)
class EpisodeFailure:
    """An episode that raised instead of finishing."""

    key: str
    """The episode's key."""
    error: str
    """The exception type and message."""


@dataclass
class GridResult:
    """What :func:`run_grid` did."""

    run_dir: Path
    """The run directory."""
    total: int
    """Episodes in the grid."""
    resumed: int
    """Episodes already finished in the run directory (not played again)."""
    played: list[AgenticEpisode] = field(default_factory=list)
    """Episodes played by this call, in the order they finished."""
    failures: list[EpisodeFailure] = field(default_factory=list)
    """Episodes that raised in this call (played again on the next resume)."""

    @property
    def complete(self) -> bool:
        """Whether every episode of the grid is now finished."""
        return self.resumed + len(self.played) == self.total


class ModelPool:
    """One :class:`Model` per model name, shared by every episode of a process.

    Sharing the Model (hence its limiter and usage ledger) is what makes the concurrency limit
    hold across concurrent episodes.
    """

    def __init__(
        self,
        runtime: RuntimeSettings,
        api_base: str | None,
        limiter_registry: LimiterRegistry | None = None,
    ) -> None:
        """Build models lazily with the run's call policy, endpoint and limiter registry."""
        self.runtime = runtime
        self.api_base = api_base
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
        from coordqa.llm.providers import create_provider

        provider = create_provider(name, self.api_base, None)
        cache = ResponseCache() if self.runtime.cache and provider.cacheable else None
        return Model(
            provider,
            policy=self.runtime.policy(),
            cache=cache,
            ledger=self.ledger,
            limiter_registry=self._registry,
        )


def open_grid_store(config: GridConfig, out: str | Path, specs: Sequence[EpisodeSpec]) -> RunStore:
    """Create the run directory of ``config`` at ``out``, or resume it if it holds the same grid."""
    identity = config.identity()
    fingerprint = content_hash({"config": identity, "episodes": [s.key for s in specs]})
    manifest = RunManifest(
        kind="agentic",
        config=identity,
        runtime=config.runtime.model_dump(mode="json"),
        fingerprint=fingerprint,
    )
    store = RunStore.open_or_create(out, manifest)
    store.mark_started()
    return store


async def record_episode(store: RunStore, episode: AgenticEpisode) -> None:
    """Write an episode's exchanges, then its record (the record is what marks it finished)."""
    for exchange in episode.exchanges:
        await store.append_async(EXCHANGES, exchange)
    await store.append_async(EPISODES, episode.to_record())


async def record_failure(store: RunStore, key: str, exc: Exception) -> EpisodeFailure:
    """Write an episode's failure and return it."""
    failure = EpisodeFailure(key, f"{type(exc).__name__}: {exc}")
    await store.append_record_async(FAILURES, Failure(key=key, error=failure.error))
    return failure


@asynccontextmanager
async def local_session(config: GridConfig) -> AsyncIterator[PlayFn]:
    """Yield a function that plays one episode in this process, with models shared by all."""
    pool = ModelPool(config.runtime, config.api_base)
    generate = config.generate.to_config()

    async def play(spec: EpisodeSpec) -> AgenticEpisode:
        return await play_match(spec, models=pool, generate=generate)

    yield play


async def bounded_outcomes(
    specs: Sequence[EpisodeSpec], parallel: int, play: PlayFn
) -> AsyncIterator[tuple[EpisodeSpec, AgenticEpisode | Exception]]:
    """Play ``specs`` with at most ``parallel`` in flight; yield each outcome as it finishes."""
    gate = asyncio.Semaphore(parallel)

    async def one(spec: EpisodeSpec) -> tuple[EpisodeSpec, AgenticEpisode | Exception]:
        async with gate:
            try:
                return spec, await play(spec)
            except Exception as exc:  # recorded as a failure by the caller, never dropped
                return spec, exc

    tasks = [asyncio.create_task(one(spec)) for spec in specs]
    try:
        for finished in asyncio.as_completed(tasks):
            yield await finished
    finally:
        for task in tasks:
            task.cancel()


def _session(
    specs: Sequence[EpisodeSpec], config: GridConfig
) -> AbstractAsyncContextManager[PlayFn]:
    if config.runtime.backend == "ray":
        from coordqa.agentic.ray_backend import ray_session

        return ray_session(specs, config)
    return local_session(config)


def check_players(specs: Sequence[EpisodeSpec]) -> None:
    """Build every distinct seat of the grid once, before any episode is played.

    A bad agent option, a partner that needs training or weights, or a player that cannot play
    its game is then one clear error up front, not a failure recorded in every episode. LLM
    players are built with the offline ``scripted`` model: their options are what is checked.

    Raises:
        ConfigError, UnknownNameError: the first seat that cannot be built.
    """
    register_players()
    offline = get_model("scripted")
    seen: set[str] = set()
    for spec in specs:
        for seat in (0, 1):
            options = spec.agent_options if seat in spec.agent_seats else {}
            key = repr((spec.seats[seat], spec.game, spec.layout, sorted(options.items())))
            if key not in seen:
                seen.add(key)
                build_player(spec, seat, model=offline, generate=None, recorder=None)


async def run_grid_async(
    config: GridConfig,
    out: str | Path,
    *,
    progress: ProgressCallback | None = None,
) -> GridResult:
    """Play (or resume) every episode of ``config`` into the run directory ``out``."""
    specs = config.episodes()
    if not specs:
        raise ConfigError(
            "the grid has no episodes: no agent/partner pairing plays the listed games"
        )
    check_players(specs)
    store = open_grid_store(config, out, specs)
    try:
        done = finished_keys(store)
        pending = [spec for spec in specs if spec.key not in done]
        result = GridResult(store.path, len(specs), resumed=len(specs) - len(pending))
        if progress is not None and result.resumed:
            progress(result.resumed, result.total, None)
        async with _session(pending, config) as play:
            parallel = config.runtime.parallel_episodes
            async for spec, outcome in bounded_outcomes(pending, parallel, play):
                episode = await _store_outcome(store, result, spec, outcome)
                if progress is not None:
                    finished = result.resumed + len(result.played) + len(result.failures)
                    progress(finished, result.total, episode)
        if result.complete:
            store.mark_finished()
    except BaseException:
        store.mark_interrupted()
        raise
    finally:
        store.close()
    return result


async def _store_outcome(
    store: RunStore, result: GridResult, spec: EpisodeSpec, outcome: AgenticEpisode | Exception
) -> AgenticEpisode | None:
    """Write one outcome and add it to ``result``; return the episode (None for a failure)."""
    if isinstance(outcome, Exception):
        result.failures.append(await record_failure(store, spec.key, outcome))
        return None
    await record_episode(store, outcome)
    result.played.append(outcome)
    return outcome


def run_grid(
    config: GridConfig,
    out: str | Path,
    *,
    progress: ProgressCallback | None = None,
) -> GridResult:
    """Play (or resume) a grid; finished episodes in ``out`` are never played again.

    Args:
        config: the grid (agents, models, partners, games, seeds) and runtime settings.
        out: the run directory (created, or resumed when it holds the same grid).
        progress: called after each episode with ``(done, total, episode)``.

    Raises:
        StoreError: ``out`` holds a run of another grid.
        UnknownNameError, ConfigError: a bad name or option in the grid.
    """
    return asyncio.run(run_grid_async(config, out, progress=progress))


def default_out(config: GridConfig, root: str | Path = "runs/agentic") -> Path:
    """``runs/agentic/<name>-<hash of the grid>``: the same grid resumes the same directory."""
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in config.name)
    return Path(root) / f"{slug}-{content_hash(config.identity())[:8]}"
