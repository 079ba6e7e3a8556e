"""The Ray backend: episodes as Ray tasks, model limits as Ray actors shared by every worker.

Ray is the engine (no home-made distribution): each pending episode becomes one Ray task that
plays it with :func:`~coordqa.agentic.match.play_match` and returns its record and exchanges to
the driver, which writes them to the run store (workers never touch the run directory, so the
store's single-writer lock holds on a cluster).

Model limits are those of :mod:`coordqa.llm.ray_limits`: the driver attaches to one named limiter
actor per model connection before submitting tasks, and in each worker the models take their
slots through a :class:`~coordqa.llm.ray_limits.RayLimiter`, so ``concurrency`` and the
per-minute budgets hold across all workers, as they do across episodes of the local backend.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TypedDict

from coordqa.agentic.backend import ModelPool, Session
from coordqa.agentic.episodes import AgenticEpisode, EpisodeSpec
from coordqa.agentic.grid import GridConfig
from coordqa.agentic.match import play_match
from coordqa.agentic.records import AgentRecord
from coordqa.agentic.runtime_settings import RuntimeSettings
from coordqa.jsonvalues import JSONObject
from coordqa.llm import LimiterRegistry, Limits
from coordqa.llm.ray_limits import RayLimiter, ray_cluster, shared_limiters


class PlayedRemotely(TypedDict):
    """What a Ray task returns: the episode's record and its agents' records (pickled)."""

    record: JSONObject
    """The ``episodes.jsonl`` record."""
    exchanges: list[AgentRecord]
    """Its exchanges and decisions."""


def play_remote(
    spec: EpisodeSpec, runtime: RuntimeSettings, api_bases: dict[str, str | None]
) -> PlayedRemotely:
    """Body of one Ray task: play an episode with Ray-shared limits; return its stored form.

    The spec arrives as the driver built it (Ray pickles it), its agent options parsed once
    there; ``api_bases`` gives each model of the grid its endpoint.
    """
    pool = ModelPool(runtime, api_bases.get, LimiterRegistry(RayLimiter))
    episode = asyncio.run(play_match(spec, models=pool))
    return {"record": episode.to_record(), "exchanges": episode.exchanges}


def _cause(exc: BaseException) -> BaseException:
    """The worker's exception inside a RayTaskError, when Ray kept it."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


@asynccontextmanager
async def ray_session(specs: Sequence[EpisodeSpec], config: GridConfig) -> AsyncIterator[Session]:
    """Yield a session that plays one episode as a Ray task (see the module docstring).

    Exchanges come back with their episode, and the driver writes them then.

    Connects to ``config.runtime.address`` (or reuses an initialised Ray, or starts a local
    one, which is shut down at the end) and attaches to the limiter actors (creating them);
    at the end it leaves them, and kills those no other run uses.
    """
    with ray_cluster(config.runtime.address) as ray, shared_limiters(_limits(specs, config)):
        task = ray.remote(play_remote)
        api_bases = {name: config.api_base_for(name) for name in config.model_names()}

        async def play(spec: EpisodeSpec) -> AgenticEpisode:
            try:
                stored = await task.remote(spec, config.runtime, api_bases)
            except ray.exceptions.RayTaskError as exc:
                raise _cause(exc) from exc
            return AgenticEpisode.from_record(stored["record"], stored["exchanges"])

        yield Session(play, streams=False)


def _limits(specs: Sequence[EpisodeSpec], config: GridConfig) -> dict[str, Limits]:
    """The limits of every model connection the grid uses, by connection key."""
    pool = ModelPool(config.runtime, config.api_base_for)
    limits = Limits.from_policy(config.runtime.policy())
    names = {s.model for s in specs if s.model is not None}
    return {pool(name).connection_key(): limits for name in names}
