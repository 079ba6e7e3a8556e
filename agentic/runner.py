"""Many episodes: a grid played on a backend, written to a resumable run store.

:func:`run_grid` expands a :class:`~coordqa.agentic.grid.GridConfig`, opens (or resumes) the run
directory, skips every episode already finished there, and plays the rest on a backend:

- ``local``: asyncio tasks in this process, at most ``parallel_episodes`` at once; every model
  call goes through one shared :class:`~coordqa.llm.Model` per model name, so the model
  concurrency limit (``concurrency``) holds across all episodes (the
  :class:`~coordqa.agentic.backend.ModelPool`);
- ``ray``: one Ray task per episode (:mod:`coordqa.agentic.ray_backend`), with one rate-limiter
  actor per model connection shared by every worker.

Writing: on the local backend every exchange is written the moment it is made (an interrupted
episode keeps all its finished exchanges; readers ignore exchanges of attempts that never
finished); on Ray the driver writes an episode's exchanges when the episode returns. Either way
the episode record comes last, and it is what marks the episode finished; see
:mod:`coordqa.agentic.episodes` for the format. An episode that raises is recorded in
``failures.jsonl`` and the grid goes on; the run stays unfinished and resuming plays it again.

Neural players that are not ready (SAD/OBL weights not registered, a BC model not trained), as
partners or as baseline agents, are not an error: their episodes are left out of this session
and reported in :attr:`GridResult.skipped`, so a grid with such players still plays the rest;
the run stays unfinished until they are made ready and the same command is run again. Ctrl-C
marks the run interrupted and raises :class:`~coordqa.errors.RunInterrupted`, which says how
to resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coordqa.agentic.backend import ModelPool, PlayFn, Session
from coordqa.agentic.episodes import (
    EPISODES,
    EXCHANGES,
    FAILURES,
    AgenticEpisode,
    EpisodeSpec,
    decisions_per_seat,
    finished_keys,
)
from coordqa.agentic.grid import GridConfig
from coordqa.agentic.match import build_player, play_match
from coordqa.errors import ConfigError, RunInterrupted
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.llm import get_model
from coordqa.records import AgentRecord, Exchange, Failure
from coordqa.store import RunManifest, RunStore


@dataclass
class GridProgress:
    """Where a grid stands, given to the progress callback as it changes."""

    total: int
    """Episodes in the grid."""
    done: int = 0
    """Episodes finished (this session and before it)."""
    failed: int = 0
    """Episodes that raised in this session."""
    decisions: int = 0
    """Moves chosen by players in this session (both seats, every player kind)."""
    model_calls: int = 0
    """Model calls made in this session."""
    episode: AgenticEpisode | None = None
    """The episode that just finished (None for other updates)."""


ProgressCallback = Callable[[GridProgress], None]
"""Called with the grid's progress after each episode, decision and model call (local backend;
on Ray after each episode)."""


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
    skipped: dict[str, str] = field(default_factory=dict)
    """Players not ready to play (SAD/OBL weights, BC models), with the reason and the fix;
    their episodes were left out."""
    skipped_episodes: int = 0
    """Episodes left out because one of their players is not ready."""

    @property
    def complete(self) -> bool:
        """Whether every episode of the grid is now finished."""
        return self.resumed + len(self.played) == self.total


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


class RecordWriter:
    """Appends records to the run's streams in the order they are made, without blocking.

    Agents record from inside their (synchronous) recorder callback; :meth:`put` queues each
    record and a background task writes it (the fsync runs off the event loop).
    :meth:`write` queues a record and waits until it is on disk, which, the queue being in
    order, means every record queued before it is too: an episode record written this way
    always follows its exchanges. :meth:`close` writes what is left synchronously, even after
    Ctrl-C.
    """

    def __init__(self, store: RunStore) -> None:
        """Start the writer task (call inside a running event loop)."""
        self.store = store
        self.queue: asyncio.Queue[tuple[str, dict[str, Any], asyncio.Future[None] | None]] = (
            asyncio.Queue()
        )
        self.task = asyncio.create_task(self._run())

    def put(self, stream: str, record: JSONObject) -> None:
        """Queue one record."""
        self.queue.put_nowait((stream, record, None))

    async def write(self, stream: str, record: JSONObject) -> None:
        """Queue one record and wait until it, and everything queued before it, is written."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((stream, record, done))
        await done

    async def _run(self) -> None:
        while True:
            stream, record, done = await self.queue.get()
            try:
                await self.store.append_async(stream, record)
            except Exception as exc:  # handed to the waiting writer, which raises it
                if done is not None:
                    done.set_exception(exc)
                continue
            if done is not None:
                done.set_result(None)

    def close(self) -> None:
        """Stop the task and write the records still queued.

        A record is on disk once its line is written, so none is written twice.
        """
        self.task.cancel()
        while not self.queue.empty():
            stream, record, _ = self.queue.get_nowait()
            self.store.append(stream, record)


async def record_episode(writer: RecordWriter, episode: AgenticEpisode, *, exchanges: bool) -> None:
    """Write an episode's record, after its exchanges unless they were written already.

    The record is what marks the episode finished, so it always comes last.
    """
    if exchanges:
        for exchange in episode.exchanges:
            writer.put(EXCHANGES, exchange.to_json())
    await writer.write(EPISODES, episode.to_record())


async def record_failure(writer: RecordWriter, key: str, exc: Exception) -> EpisodeFailure:
    """Write an episode's failure and return it."""
    failure = EpisodeFailure(key, f"{type(exc).__name__}: {exc}")
    await writer.write(FAILURES, Failure(key=key, error=failure.error).to_json())
    return failure


@asynccontextmanager
async def local_session(
    config: GridConfig, writer: RecordWriter, progress: _Tracker
) -> AsyncIterator[Session]:
    """Yield a session that plays episodes in this process, models shared by all of them.

    Every record is queued on ``writer`` as it is made; decisions and model calls are counted
    on ``progress``.
    """
    pool = ModelPool(config.runtime, config.api_base_for)

    def on_record(record: AgentRecord) -> None:
        writer.put(EXCHANGES, record.to_json())
        if isinstance(record, Exchange):
            progress.add(model_calls=1)

    async def play(spec: EpisodeSpec) -> AgenticEpisode:
        return await play_match(
            spec,
            models=pool,
            on_record=on_record,
            on_decision=lambda: progress.add(decisions=1),
        )

    yield Session(play, streams=True)


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


class _Tracker:
    """Counts progress and reports it to the caller's callback."""

    def __init__(self, total: int, done: int, callback: ProgressCallback | None) -> None:
        self.state = GridProgress(total, done)
        self.callback = callback

    def add(
        self,
        *,
        decisions: int = 0,
        model_calls: int = 0,
        episode: AgenticEpisode | None = None,
        failed: bool = False,
    ) -> None:
        state = self.state
        state.decisions += decisions
        state.model_calls += model_calls
        state.done += episode is not None
        state.failed += failed
        state.episode = episode
        if self.callback is not None:
            self.callback(state)


def _session(
    specs: Sequence[EpisodeSpec], config: GridConfig, writer: RecordWriter, progress: _Tracker
) -> AbstractAsyncContextManager[Session]:
    if config.runtime.backend == "ray":
        from coordqa.agentic.ray_backend import ray_session

        return ray_session(specs, config)
    return local_session(config, writer, progress)


def check_players(specs: Sequence[EpisodeSpec]) -> dict[str, str]:
    """Build every distinct seat of the grid once, before any episode is played.

    A bad agent option or a player that cannot play its game is then one clear error up front,
    not a failure recorded in every episode. LLM players are built with the offline
    ``scripted`` model: their options are what is checked. A neural player that is not ready
    (its weights are not registered, its BC model not trained), as a partner or as a baseline
    agent, is not an error: it is returned with the reason and the fix, and its episodes are
    left out of the session.

    Raises:
        ConfigError, UnknownNameError: the first seat that cannot be built.
    """
    from coordqa.agentic.partners import PartnerNotReadyError

    offline = get_model("scripted")
    seen: set[str] = set()
    unready: dict[str, str] = {}
    for spec in specs:
        for seat in (0, 1):
            options = spec.agent_options if seat in spec.agent_seats else {}
            key = repr((spec.seats[seat], spec.game, spec.layout, sorted(options.items())))
            if key in seen:
                continue
            seen.add(key)
            try:
                build_player(spec, seat, model=offline, generate=None, recorder=None)
            except PartnerNotReadyError as exc:
                unready[spec.seats[seat]] = str(exc)
    return unready


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
    unready = check_players(specs)
    store = open_grid_store(config, out, specs)
    writer = RecordWriter(store)
    try:
        done = finished_keys(store)
        pending = [spec for spec in specs if spec.key not in done]
        playable = [spec for spec in pending if not set(spec.seats) & set(unready)]
        result = GridResult(store.path, len(specs), resumed=len(specs) - len(pending))
        result.skipped = {p: unready[p] for p in sorted(unready)}
        result.skipped_episodes = len(pending) - len(playable)
        tracker = _Tracker(len(specs), result.resumed, progress)
        tracker.add()
        async with _session(playable, config, writer, tracker) as session:
            parallel = config.runtime.parallel_episodes
            async for spec, outcome in bounded_outcomes(playable, parallel, session.play):
                await _store_outcome(writer, result, spec, outcome, session.streams, tracker)
        if result.complete:
            store.mark_finished()
    except (asyncio.CancelledError, KeyboardInterrupt):
        store.mark_interrupted()
        raise
    finally:
        writer.close()
        store.close()
    return result


async def _store_outcome(
    writer: RecordWriter,
    result: GridResult,
    spec: EpisodeSpec,
    outcome: AgenticEpisode | Exception,
    streamed: bool,
    tracker: _Tracker,
) -> None:
    """Write one outcome, add it to ``result`` and report progress."""
    if isinstance(outcome, Exception):
        result.failures.append(await record_failure(writer, spec.key, outcome))
        tracker.add(failed=True)
        return
    await record_episode(writer, outcome, exchanges=not streamed)
    result.played.append(outcome)
    if streamed:
        tracker.add(episode=outcome)
    else:
        calls = sum(isinstance(record, Exchange) for record in outcome.exchanges)
        moves = sum(decisions_per_seat(outcome.trajectory).values())
        tracker.add(decisions=moves, model_calls=calls, episode=outcome)


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
        progress: called with a :class:`GridProgress` as episodes, decisions and calls happen.

    Raises:
        StoreError: ``out`` holds a run of another grid.
        UnknownNameError, ConfigError: a bad name or option in the grid.
        RunInterrupted: on Ctrl-C; every finished episode and exchange is stored, and the same
            call resumes the run.
    """
    try:
        return asyncio.run(run_grid_async(config, out, progress=progress))
    except KeyboardInterrupt:
        raise RunInterrupted(interrupted_message(Path(out)), Path(out)) from None


def interrupted_message(run_dir: Path) -> str:
    """What an interrupted grid kept, and how to resume it."""
    if not (run_dir / "manifest.json").exists():
        return "interrupted before the run directory was created; nothing was played"
    from coordqa.store import open_run

    store = open_run(run_dir)
    episodes = len(finished_keys(store))
    exchanges = sum(1 for r in store.iter_records(EXCHANGES) if r.get("kind") == "exchange")
    return (
        f"interrupted: {episodes} finished episode(s) and {exchanges} model exchange(s) are "
        f"stored in {run_dir}. Run the same command again to resume (finished episodes are "
        "not played again)."
    )


def default_out(config: GridConfig, root: str | Path = "runs/agentic") -> Path:
    """``runs/agentic/<name>-<hash of the grid>``: the same grid resumes the same directory."""
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in config.name)
    return Path(root) / f"{slug}-{content_hash(config.identity())[:8]}"
