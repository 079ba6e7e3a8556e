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
:mod:`coordqa.agentic.episodes` for the format.

The run goes through the lifecycle every run shares (:mod:`coordqa.runs`), and fails loudly as
``coordqa eval`` does:

- before anything is stored, every model the pending episodes call is checked (provider, API
  key: :class:`~coordqa.errors.ModelError`) and its ``api_base``, when given, must accept a
  connection (else :class:`~coordqa.errors.RunFailed` at once);
- an episode in which a model call failed after its retries
  (:class:`~coordqa.errors.ModelCallFailed`) or that raised is recorded in ``failures.jsonl``
  with its cause, never as played, and the grid goes on; a refused call (401, 403, 404, 400) or
  an unreachable server (``max_connection_failures`` attempts in a row without an answer) stops
  the run at once, with the episodes in flight cancelled; the first error of each kind is
  reported (:attr:`GridProgress.new_error`) when it happens;
- the session fails (:class:`~coordqa.errors.RunFailed`) when stopped, when more episodes
  failed than ``max_error_rate`` allows, when more decisions fell back than
  ``max_fallback_rate`` allows, or when episodes were skipped. Resuming plays every
  episode not played.

Neural players that are not ready (SAD/OBL weights not registered, a BC model not trained), as
partners or as baseline agents, never crash a grid: their episodes are skipped (recorded in
``failures.jsonl`` with the reason and the fix, kind ``not_ready``), the rest is played, and
the session ends failed, naming them, until they are made ready and the same command is run
again. Ctrl-C or SIGTERM marks the run interrupted and raises
:class:`~coordqa.errors.RunInterrupted`, which says how to resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    aclosing,
    asynccontextmanager,
)
from dataclasses import dataclass, field
from pathlib import Path

from coordqa.agentic.backend import ModelPool, PlayFn, Session
from coordqa.agentic.episodes import (
    EPISODES,
    EXCHANGES,
    FAILURES,
    NOT_READY,
    AgenticEpisode,
    AgenticRun,
    EpisodeSpec,
    decisions_per_seat,
    read_agentic_run,
)
from coordqa.agentic.grid import CountWords, GameEntry, GridConfig, stored_form
from coordqa.agentic.match import build_player, play_match
from coordqa.agentic.records import AgentRecord, Failure
from coordqa.agentic.reply_counts import ReplyCounts, fallback_failure
from coordqa.errors import NOTHING_STARTED, ConfigError, ModelCallFailed
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.llm import GenerateConfig, create_provider, get_model
from coordqa.llm.endpoints import addressed_endpoints
from coordqa.llm.registry import refuse_a_timeout, refuse_a_transport, refuse_unread_model_args
from coordqa.records import Exchange
from coordqa.runs import (
    STOPPING_ERRORS,
    ErrorWatch,
    RunLifecycle,
    Tally,
    check_reachable,
    check_served,
    fewer_than_stored,
    run_to_end,
)
from coordqa.store import (
    MANIFEST,
    RunManifest,
    RunStore,
    check_kind,
    check_resumable,
    open_run,
    open_to_write,
)
from coordqa.store.manifest import session_command
from coordqa.words import counted, format_list


@dataclass
class GridProgress:
    """Where a grid stands, given to the progress callback as it changes."""

    total: int
    """Episodes in the grid."""
    done: int = 0
    """Episodes finished (this session and before it)."""
    failed: int = 0
    """Episodes that failed in this session (a model call failed, or the episode raised)."""
    decisions: int = 0
    """Moves chosen by players in this session (both seats, every player kind)."""
    model_calls: int = 0
    """Model calls made in this session."""
    tokens: int = 0
    """Prompt and completion tokens of those calls, as the providers reported them."""
    episode: AgenticEpisode | None = None
    """The episode that just finished (None for other updates)."""
    new_error: str | None = None
    """Set on the update of the first failure of its kind in this session: the episode and
    its cause (show it now)."""
    resumed: int = 0
    """Episodes finished before this session (a resumed run's, not played again); last, so
    that the fields before it keep their places."""


GridProgressCallback = Callable[[GridProgress], None]
"""Called with the grid's progress after each episode, decision and model call (local backend;
on Ray after each episode)."""


@dataclass(frozen=True)
class EpisodeFailure:
    """An episode that failed instead of finishing."""

    key: str
    """The episode's key."""
    error: str
    """The cause: the failed model call, or the exception type and message."""
    kind: str | None = None
    """For a failed model call, the gateway's error kind (``failed``, ``fatal``,
    ``unreachable``); None for another exception."""


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
    """Episodes that failed in this call (played again on the next resume)."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Players not ready to play (SAD/OBL weights, BC models), with the reason and the fix;
    their episodes were left out."""
    skipped_keys: list[str] = field(default_factory=list)
    """Episodes left out because one of their players is not ready."""

    @property
    def skipped_episodes(self) -> int:
        """How many episodes were left out because a player is not ready."""
        return len(self.skipped_keys)

    @property
    def complete(self) -> bool:
        """Whether every episode of the grid is now finished."""
        return self.resumed + len(self.played) == self.total


def grid_manifest(
    config: GridConfig, specs: Sequence[EpisodeSpec], transports: Mapping[str, str] | None = None
) -> RunManifest:
    """The manifest of the run of ``config``: its identity and how many episodes it plans.

    ``transports``: how each model this session calls is reached (:func:`check_models`).
    """
    identity = config.identity()
    fingerprint = content_hash({"config": identity, "episodes": [s.key for s in specs]})
    runtime = {
        **config.runtime.model_dump(mode="json"),
        "episodes": len(specs),
        "transports": dict(transports or {}),
    }
    return RunManifest(kind="agentic", config=identity, runtime=runtime, fingerprint=fingerprint)


_Queued = tuple[str, JSONObject, "asyncio.Future[None] | None"]
"""A queued record: its stream, the record, and the future of a writer waiting for it."""


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
        self.queue: asyncio.Queue[_Queued] = asyncio.Queue()
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
        """Write whatever is queued in one go: one fsync per stream, not one per record."""
        while True:
            queued = [await self.queue.get()]
            while not self.queue.empty():
                queued.append(self.queue.get_nowait())
            try:
                await self.store.append_in_order_async([(s, r) for s, r, _ in queued])
            except Exception as exc:  # handed to the waiting writers, which raise it
                for _, _, done in queued:
                    if done is not None:
                        done.set_exception(exc)
                continue
            for _, _, done in queued:
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
    """Write an episode's failure, with its cause, and return it."""
    if isinstance(exc, ModelCallFailed):
        failure = EpisodeFailure(key, str(exc), exc.kind)
    else:
        failure = EpisodeFailure(key, f"{type(exc).__name__}: {exc}")
    record = Failure(key=key, error=failure.error, error_kind=failure.kind)
    await writer.write(FAILURES, record.to_json())
    return failure


@asynccontextmanager
async def local_session(
    config: GridConfig,
    writer: RecordWriter,
    progress: _Tracker,
    api_keys: Mapping[str, str] | None = None,
) -> AsyncIterator[Session]:
    """Yield a session that plays episodes in this process, models shared by all of them.

    Every record is queued on ``writer`` as it is made; decisions, model calls and tokens are
    counted on ``progress``. ``api_keys`` gives some models their key (see
    :func:`run_grid_async`).
    """
    pool = ModelPool(config.runtime, config.api_base_for, api_keys=api_keys)

    def on_record(record: AgentRecord) -> None:
        writer.put(EXCHANGES, record.to_json())
        if isinstance(record, Exchange):
            progress.add(model_calls=1, tokens=_tokens([record]))

    async def play(spec: EpisodeSpec) -> AgenticEpisode:
        return await play_match(
            spec,
            models=pool,
            on_record=on_record,
            on_decision=lambda: progress.add(decisions=1),
        )

    yield Session(play, streams=True)


async def bounded_outcomes(
    specs: Sequence[EpisodeSpec],
    parallel: int,
    play: PlayFn,
    stops: Callable[[Exception], bool] = lambda exc: False,
) -> AsyncGenerator[tuple[EpisodeSpec, AgenticEpisode | Exception], None]:
    """Play ``specs`` with at most ``parallel`` in flight; yield each outcome as it finishes.

    Once an episode fails with an exception that ``stops`` the run, no other episode starts
    (one waiting for its turn would otherwise start before the caller hears of the failure).
    """
    gate = asyncio.Semaphore(parallel)
    stopped = False

    async def one(spec: EpisodeSpec) -> tuple[EpisodeSpec, AgenticEpisode | Exception | None]:
        nonlocal stopped
        async with gate:
            if stopped:
                return spec, None
            try:
                return spec, await play(spec)
            except Exception as exc:  # recorded as a failure by the caller, never dropped
                stopped = stopped or stops(exc)
                return spec, exc

    tasks = [asyncio.create_task(one(spec)) for spec in specs]
    try:
        for finished in asyncio.as_completed(tasks):
            spec, outcome = await finished
            if outcome is not None:
                yield spec, outcome
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # their records reach the writer


class _Tracker:
    """Counts progress and reports it to the caller's callback."""

    def __init__(self, total: int, done: int, callback: GridProgressCallback | None) -> None:
        self.state = GridProgress(total, done, resumed=done)
        self.callback = callback

    def add(
        self,
        *,
        decisions: int = 0,
        model_calls: int = 0,
        tokens: int = 0,
        episode: AgenticEpisode | None = None,
        failed: bool = False,
        new_error: str | None = None,
    ) -> None:
        state = self.state
        state.decisions += decisions
        state.model_calls += model_calls
        state.tokens += tokens
        state.done += episode is not None
        state.failed += failed
        state.episode = episode
        state.new_error = new_error
        if self.callback is not None:
            self.callback(state)


def _session(
    specs: Sequence[EpisodeSpec],
    config: GridConfig,
    writer: RecordWriter,
    progress: _Tracker,
    api_keys: Mapping[str, str],
) -> AbstractAsyncContextManager[Session]:
    if config.runtime.backend == "ray":
        from coordqa.agentic.ray_backend import ray_session

        return ray_session(specs, config)
    return local_session(config, writer, progress, api_keys)


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


def check_models(
    config: GridConfig,
    specs: Sequence[EpisodeSpec],
    api_keys: Mapping[str, str] | None = None,
    words: CountWords | None = None,
    *,
    pending: Sequence[EpisodeSpec] | None = None,
) -> dict[str, str]:
    """Check every model ``pending`` call before the first episode: endpoint, provider, key.

    ``specs``: every episode of the run; ``pending``: those this session plays (default: all).
    The run's settings (``runtime.transport``, ``runtime.timeout_s``) are checked against the
    models of ``specs``, the run's, played or not: a complete run's command given again has
    the models it had (walkthrough 23, item 1: its rerun with ``--timeout`` read "this run's
    models (none) answer at once", as none was left to call).

    Returns how each model called is reached (``direct``, ``litellm`` or ``in-process``)
    under the run's ``transport``, by model name. Nothing is stored when a check fails. The
    endpoint is probed (one TCP connection, no token) only when the model has an ``api_base``
    and the run does not use the response cache; a server there that lists its models must
    list the model (:func:`coordqa.runs.check_served`, as ``coordqa eval`` asks), cache or
    not; its refusal names the grid file's key that wrote the model, or ``--model``
    (``words``).

    Raises:
        ModelError: an unknown provider or a missing API key.
        ConfigError: a setting the model refuses (a GGUF without a chat template and no
            ``chat_format`` model argument).
        SettingError: ``runtime.transport`` or ``runtime.timeout_s`` given where every model
            runs inside coordqa, or model arguments to a model that reads none (they would be
            ignored), naming the grid's setting (``models[0].model_args``).
        ModelNotServed: the model's ``api_base`` lists the models it serves, not this one.
        RunFailed: nothing accepts a connection at a model's ``api_base``.
    """
    transports = {}
    models = sorted({spec.model for spec in specs if spec.model is not None})
    # the grid's settings, named as such: a command names its own flags for them
    refuse_a_transport(models, config.runtime.transport, setting="runtime.transport")
    refuse_a_timeout(models, config.runtime.timeout_asked, setting="runtime.timeout_s")
    called = specs if pending is None else pending
    names = sorted({spec.model for spec in called if spec.model is not None})
    for name in names:
        api_base = config.api_base_for(name)
        args = config.model_args_for(name)
        refuse_unread_model_args(name, args, setting=config.model_args_key(name))
        key = (api_keys or {}).get(name)
        if not config.runtime.cache:
            # first: milliseconds, where the key check imports litellm
            check_reachable(api_base, config.runtime.timeout_s)
        # also with the cache: a miss would call the server under a name it does not serve
        given_at = (words or CountWords()).model_given_at(config.models, name)
        check_served(api_base, name, key, given_at)
        provider = create_provider(name, api_base, key, config.runtime.transport)
        provider.check()
        # settings the provider refuses (a local model's missing chat format) stop it here too
        provider.with_defaults(GenerateConfig(extra=config.model_args_for(name)))
        transports[name] = provider.transport
    return transports


def _played_before(out: Path) -> set[str]:
    """Keys played in the run at ``out`` (read without the writer's lock; empty: no run)."""
    if not (out / MANIFEST).exists():
        return set()
    run = open_to_write(out)
    check_kind(out, run.manifest, "agentic")  # the folder's kind is said before its episodes
    return read_agentic_run(run).played_keys()


@dataclass(frozen=True)
class GridPlan:
    """A grid checked against its run directory: every check made, nothing stored or shown.

    :func:`plan_grid` makes every check that can refuse the run (options, players, models and
    endpoints, the run folder's resume check), so the CLI says a refusal before it draws a
    progress bar; :func:`play_grid` plays it.
    """

    config: GridConfig
    """The grid."""
    out: Path
    """The run directory."""
    specs: list[EpisodeSpec]
    """Every episode of the grid."""
    unready: dict[str, str]
    """Players not ready to play, with the reason and the fix (their episodes are skipped)."""
    manifest: RunManifest
    """The run as asked (written once the run is open)."""
    opening: RunManifest
    """The run as its folder stores it, if one is there (:func:`_as_stored`)."""
    api_keys: dict[str, str] = field(default_factory=dict, repr=False)
    """A key by model name (never stored)."""
    extension: str | None = None
    """What this grid adds to the run its folder holds, in words (:func:`extension_words`),
    said before anything is played; None when it adds nothing."""

    def engine(self) -> AbstractContextManager[object]:
        """Ray connected for the run when its backend is Ray (nothing otherwise).

        Enter it before showing or storing anything: an unreachable cluster is then the only
        thing said, and leaves no run folder. :func:`play_grid` enters it too (a no-op inside).
        """
        from coordqa.llm.ray_limits import ray_for_backend

        return ray_for_backend(self.config.runtime.backend, self.config.runtime.address)


def plan_grid(
    config: GridConfig,
    out: str | Path,
    api_keys: Mapping[str, str] | None = None,
    *,
    words: CountWords | None = None,
) -> GridPlan:
    """Check ``config`` and the run folder ``out`` before anything is stored or shown.

    ``words``: how the command that built ``config`` sets a game's episodes, for a refusal of
    other seeds than the run holds (default: ``agentic run``'s options, ``--episodes``).

    Raises:
        ConfigError: no episodes, ``api_keys`` with the Ray backend, a seat that cannot be
            built, fewer episodes than the run at ``out`` holds.
        ModelError: a model the pending episodes call cannot be used.
        RunFailed: nothing accepts a connection at a model's ``api_base``.
        StoreError: ``out`` holds another run (or not a readable one).
        MissingDependencyError: the Ray backend without ray installed.
    """
    keys = dict(api_keys or {})
    folder = Path(out)
    said = words or CountWords()
    specs, unready, transports = _checked_before_the_run(config, folder, keys, said)
    manifest = grid_manifest(config, specs, transports)
    opening, held = _as_stored(config, manifest, folder, said)
    grid_file = said.file  # `agentic run`'s raised --episodes: its opening line says enough
    extension = (
        None
        if held is None or grid_file is None
        else extension_words(folder, opening, held, specs, grid_file)
    )
    return GridPlan(config, folder, specs, unready, manifest, opening, keys, extension)


async def run_grid_async(
    config: GridConfig,
    out: str | Path,
    *,
    progress: GridProgressCallback | None = None,
    api_keys: Mapping[str, str] | None = None,
) -> GridResult:
    """Play (or resume) every episode of ``config`` into the run directory ``out``.

    ``api_keys`` gives a model (by name) a key of its own instead of its provider's environment
    variable: it is used for the calls and never stored (a leaderboard board opens a submitter's
    sealed key only for its job). The Ray backend takes none: its tasks would carry the key.

    Raises:
        ConfigError: no episodes, or ``api_keys`` with the Ray backend.
        MissingDependencyError: the Ray backend without ray installed (before any progress,
            run directory or episode).
    """
    return await play_grid_async(plan_grid(config, out, api_keys), progress=progress)


async def play_grid_async(
    plan: GridPlan, *, progress: GridProgressCallback | None = None
) -> GridResult:
    """Play (or resume) the episodes of a checked grid (:func:`plan_grid`)."""
    config, specs, unready, keys = plan.config, plan.specs, plan.unready, plan.api_keys
    watch = ErrorWatch(
        ", ".join(config.model_names()),
        config.api_base,
        config.runtime.max_error_rate,
        replies_capped=config.generate.max_tokens is not None,
    )
    with plan.engine(), RunLifecycle.open(plan.out, plan.opening) as run:
        _adopt_settings(run.store, plan.manifest)
        writer = RecordWriter(run.store)
        try:
            done = read_agentic_run(run.store).played_keys()
            pending = [spec for spec in specs if spec.key not in done]
            playable = [spec for spec in pending if not _unready(spec, unready)]
            result = GridResult(run.path, len(specs), resumed=len(specs) - len(pending))
            result.skipped = {p: unready[p] for p in sorted(unready)}
            result.skipped_keys = [spec.key for spec in pending if _unready(spec, unready)]
            tracker = _Tracker(len(specs), result.resumed, progress)
            with run.session():
                await _record_skipped(writer, pending, unready)
                tracker.add()
                async with _session(playable, config, writer, tracker, keys) as session:
                    parallel = config.runtime.parallel_episodes
                    outcomes = bounded_outcomes(playable, parallel, session.play, _stopping)
                    async with aclosing(outcomes) as stream:
                        async for spec, outcome in stream:
                            failed = await _store_outcome(
                                writer, result, spec, outcome, session, tracker
                            )
                            if failed is not None and _stops(watch, config, spec, failed, tracker):
                                break
        finally:
            writer.close()
        stored = read_agentic_run(run.store)
        failure = _failure(watch, result, stored, config.runtime.max_fallback_rate)
        if failure is not None:
            raise run.failed(failure, None if watch.stopped_by else result, watch)
        run.finish()
    return result


def _as_stored(
    config: GridConfig, manifest: RunManifest, out: Path, words: CountWords
) -> tuple[RunManifest, list[EpisodeSpec] | None]:
    """``manifest`` (the run of ``config``) as the run at ``out`` stores it, if one is there.

    With the episodes the stored run plans (None: no run there, or nothing ``config`` can
    raise), so that what ``config`` adds to them is said (:func:`extension_words`).

    That is, with the stored seeds of each game entry (``episodes``, ``seeds`` or the game's
    own), when ``config`` asks for the same episodes or more of them: the one setting a resumed
    run may raise (as ``coordqa eval``'s trials, :data:`coordqa.evaluation.RESUME_MAY_CHANGE`);
    and in the stored form of its settings when that is an older form of the same
    (:func:`~coordqa.agentic.grid.stored_form`) or spells its endpoints another way (a trailing
    slash: :func:`~coordqa.llm.endpoints.endpoint_address`, as ``coordqa eval`` reads them;
    the calls go where asked). The episodes it adds are played and the
    settings as asked are written once the run is open (:func:`_adopt_settings`).

    The run's identity (agents, partners, games, settings: all but the seeds) is checked first
    (:func:`~coordqa.store.check_resumable`), so a folder holding another run is said to be
    one, in its own terms, before any advice on its count. Counts are compared as
    :meth:`~coordqa.agentic.grid.GameEntry.episode_count` reads them: a run of the game's own
    seeds 0, 1, 2 is one of 3 episodes.

    Raises:
        StoreError: the stored run is another run.
        ConfigError: the stored run is this one, with more episodes in a game than asked for,
            or with other seeds than a count of them (Hanabi's own, the paper's).
    """
    if not (out / MANIFEST).exists():
        return manifest, None
    stored = open_to_write(out).manifest
    games = stored.config.get("games")
    before = None
    if stored.kind == "agentic" and isinstance(games, list) and len(games) == len(config.games):
        before = config.with_seeds_of(games)
    if before is None:
        check_resumable(out, stored, manifest)  # another run: refused with its differences
        return manifest, None
    identity = before.identity()
    if addressed_endpoints(stored_form(stored.config)) == addressed_endpoints(identity):
        identity = stored.config  # the same run, stored in an older form or endpoint spelling
    opening = manifest
    if identity != manifest.config:
        specs = before.episodes()
        fingerprint = content_hash({"config": identity, "episodes": [s.key for s in specs]})
        opening = manifest.model_copy(update={"config": identity, "fingerprint": fingerprint})
    check_resumable(out, stored, opening)
    for asked, held in zip(config.games, before.games, strict=True):
        _check_seeds(out, asked, held, config.pairings(), words)
    return opening, before.episodes()


def extension_words(
    out: Path,
    stored: RunManifest,
    held: Sequence[EpisodeSpec],
    specs: Sequence[EpisodeSpec],
    grid_file: str,
) -> str | None:
    """What ``specs`` add to the ``held`` episodes of the run at ``out``, and what that costs.

    Raising a run's episodes (``--episodes``, a raised ``episodes:``, seeds added to a grid
    file of the same ``name:``) resumes it as a larger run: its episodes are kept and the ones
    added are played. A board registered the grid as it was played, by its tasks, so the
    extended run is no longer that grid; the user is told so, with which episodes are added,
    before anything is played (walkthrough 15 R9: "playing 2 of 6 episodes (4 already done)"
    was all that was said). ``grid_file``: the grid as the command named it (file or name).
    None when ``specs`` add nothing.
    """
    held_keys = {spec.key for spec in held}
    added = [spec for spec in specs if spec.key not in held_keys]
    if not added:
        return None
    seeds: dict[str, set[int]] = {}
    partners: dict[str, None] = {}
    for spec in added:
        seeds.setdefault(spec.game, set()).add(spec.seed)
        partners["self-play" if spec.partner is None else spec.partner] = None
    which = format_list(
        [
            f"{game} {'seed' if len(numbers) == 1 else 'seeds'} "
            + ", ".join(map(str, sorted(numbers)))
            for game, numbers in sorted(seeds.items())
        ]
    )
    grid = f"grid {stored.config.get('name')!r}"
    was = counted(len(held), "episode")
    return (
        f"{out} holds {grid} with {was}; {grid_file} adds {counted(len(added), 'episode')} to "
        f"it: {which} ({', '.join(partners)}). The run becomes one of "
        f"{counted(len(held) + len(added), 'episode')}: a board that registered {grid} as it "
        f"was played ({was}) will not take the extended run; to keep that run as it is, give "
        "another --out"
    )


def _check_seeds(
    out: Path, asked: GameEntry, held: GameEntry, pairings: set[bool], words: CountWords
) -> None:
    """Refuse to resume the run at ``out`` of ``held``'s seeds as ``asked`` unless it is more.

    Refusals say the seeds as the command that built the grid sets them (``words``).

    More: the same seeds, or more episodes (seeds 0..N-1, N as many or more).

    ``pairings``: the grid's (:meth:`~coordqa.agentic.grid.GridConfig.pairings`); only the
    seeds they play are compared.

    Raises:
        ConfigError: fewer episodes than the run holds, or seeds that are not a count of the
            ones it holds (what to give to resume it).
    """
    if all(asked.seeds_for(self_play) == held.seeds_for(self_play) for self_play in pairings):
        return
    had, count = held.episode_count(pairings), asked.episode_count(pairings)
    if had is not None and count is not None:
        if count < had:
            raise ConfigError(_fewer_episodes(out, asked, had, count, words))
        return  # more episodes: the run is raised to them
    if had is not None:
        resume = f"give {words.asking(had, asked, more=True)}"
    elif held.seeds is not None and words.episodes_option:
        resume = "leave out --episodes"  # the run holds the file's seeds (walkthrough 30, R3)
    elif held.seeds is not None:
        resume = f"give {held.seeds_words(pairings, words)}{words.where}"
    else:
        resume = words.own(asked.game)
    raise ConfigError(
        f"{out} holds a run of {asked.game} on {held.seeds_words(pairings, words)}, other "
        f"episodes than {asked.seeds_words(pairings, words)}: {resume} to resume it, or use "
        "another --out"
    )


def _fewer_episodes(out: Path, asked: GameEntry, had: int, count: int, words: CountWords) -> str:
    """Why a run of ``had`` episodes is not resumed with ``count`` (fewer), and what to do.

    Said in the terms ``asked`` was given in (:meth:`CountWords.asking`). ``had`` counts the
    seeds each layout and partner plays: where that is not every episode of the run, the
    whole count is said beside it (walkthrough 21, R3: "4 episodes of overcooked" of a run of
    20, 4 on each of 5 layouts).
    """
    played = len(_played_before(out))
    each = " per layout and partner" if played > had else ""
    total = f" ({played} played in all)" if played > had else ""
    return fewer_than_stored(
        out,
        had,
        count,
        units=f"episodes of {asked.game}{each}{total}",
        started=bool(played),
        nothing="none played yet",
        resume=words.asking(had, asked, more=True),
        restart=words.asking(count, asked),
    )


def _adopt_settings(store: RunStore, manifest: RunManifest) -> None:
    """Record the settings of the run as asked (more episodes), with this session's command.

    Called once the run is open: only a run :func:`_as_stored` matched gets here.
    """
    stored = store.manifest
    if (stored.config, stored.fingerprint) != (manifest.config, manifest.fingerprint):
        store.update_manifest(
            config=manifest.config, fingerprint=manifest.fingerprint, command=session_command()
        )


def _checked_before_the_run(
    config: GridConfig, out: Path, api_keys: dict[str, str], words: CountWords
) -> tuple[list[EpisodeSpec], dict[str, str], dict[str, str]]:
    """The grid's episodes, its players not ready, and how each model called is reached.

    Every seat and model is checked (:func:`check_models`): the run's settings against every
    model of the run, the endpoints and keys of those the pending episodes call. Nothing is
    stored before.

    Raises:
        ConfigError: no episodes, ``api_keys`` with the Ray backend, or a seat that cannot be
            built.
        MissingDependencyError: the Ray backend without ray installed.
    """
    if config.runtime.backend == "ray":
        from coordqa.llm.ray_limits import import_ray

        import_ray(config.runtime.address)
    if api_keys and config.runtime.backend == "ray":
        raise ConfigError(
            "a model's own api key is for the local backend; give the Ray workers the "
            "provider's environment variable instead"
        )
    specs = config.episodes()
    if not specs:
        raise ConfigError(
            "the grid has no episodes: no agent/partner pairing plays the listed games"
        )
    unready = check_players(specs)
    played = _played_before(out)
    pending = [s for s in specs if s.key not in played and not _unready(s, unready)]
    transports = check_models(config, specs, api_keys, words, pending=pending)
    return specs, unready, transports


def _unready(spec: EpisodeSpec, unready: dict[str, str]) -> bool:
    return bool(set(spec.seats) & set(unready))


async def _record_skipped(
    writer: RecordWriter, pending: Sequence[EpisodeSpec], unready: dict[str, str]
) -> None:
    """Record each pending episode a player of which is not ready, with the reason and fix."""
    for spec in pending:
        players = sorted(set(spec.seats) & set(unready))
        if players:
            reasons = "; ".join(f"{player}: {unready[player]}" for player in players)
            record = Failure(key=spec.key, error=f"skipped: {reasons}", error_kind=NOT_READY)
            writer.put(FAILURES, record.to_json())


def _stopping(exc: Exception) -> bool:
    """Whether an episode's exception means no other call can succeed (refused, unreachable)."""
    return isinstance(exc, ModelCallFailed) and exc.kind in STOPPING_ERRORS


def _stops(
    watch: ErrorWatch,
    config: GridConfig,
    spec: EpisodeSpec,
    failure: EpisodeFailure,
    tracker: _Tracker,
) -> bool:
    """Count a failed episode; report the first of its kind; whether it stops the run."""
    new_error = watch.note(failure.error)
    if new_error is not None:
        tracker.add(new_error=f"{spec.key}: {new_error}")
    if spec.model is None:
        return False
    api_base = config.api_base_for(spec.model)
    return watch.stopping(failure.error, failure.kind, model=spec.model, api_base=api_base)


def _failure(
    watch: ErrorWatch, result: GridResult, run: AgenticRun, max_fallback_rate: float | None
) -> str | None:
    """Why the session counts as failed (None: it did not)."""
    failures = run.failures()
    errors = sum(failure.error_kind != NOT_READY for failure in failures.values())
    tally = Tally(
        unit="episodes",
        done="played",
        stored=len(run.played_keys()),
        total=result.total,
        errors=errors,
        run_dir=result.run_dir,
        errors_file=f"{FAILURES}.jsonl",
    )
    failure = watch.failure(tally)
    if failure is None and max_fallback_rate is not None:
        episodes = run.episodes(with_exchanges=False)
        seats = [stats for episode in episodes for stats in episode.agent_stats.values()]
        failure = fallback_failure(ReplyCounts.of(seats), max_fallback_rate)
    if failure is not None or not result.skipped_keys:
        return failure
    players = "; ".join(f"{player}: {reason}" for player, reason in result.skipped.items())
    return (
        f"{result.skipped_episodes} of {result.total} episodes were skipped because a player "
        f"is not ready ({players}). {tally.then_resume('Make it ready')}"
    )


async def _store_outcome(
    writer: RecordWriter,
    result: GridResult,
    spec: EpisodeSpec,
    outcome: AgenticEpisode | Exception,
    session: Session,
    tracker: _Tracker,
) -> EpisodeFailure | None:
    """Write one outcome, add it to ``result`` and report progress; return a failure."""
    if isinstance(outcome, Exception):
        failure = await record_failure(writer, spec.key, outcome)
        result.failures.append(failure)
        tracker.add(failed=True)
        return failure
    try:
        await record_episode(writer, outcome, exchanges=not session.streams)
    except (asyncio.CancelledError, KeyboardInterrupt):
        # Ctrl-C while its record is queued: RecordWriter.close writes it as the run stops,
        # so it is counted, as the interrupted message counts it (a kill -9 writes nothing)
        _count_played(result, outcome, session, tracker)
        raise
    _count_played(result, outcome, session, tracker)
    return None


def _count_played(
    result: GridResult, outcome: AgenticEpisode, session: Session, tracker: _Tracker
) -> None:
    """Count an episode whose record is written (or queued to be, as the run stops)."""
    result.played.append(outcome)
    if session.streams:
        tracker.add(episode=outcome)
    else:
        calls = [record for record in outcome.exchanges if isinstance(record, Exchange)]
        moves = sum(decisions_per_seat(outcome.trajectory).values())
        tracker.add(decisions=moves, model_calls=len(calls), tokens=_tokens(calls), episode=outcome)


def _tokens(exchanges: Sequence[Exchange]) -> int:
    return sum(e.usage.prompt_tokens + e.usage.completion_tokens for e in exchanges)


def play_grid(plan: GridPlan, *, progress: GridProgressCallback | None = None) -> GridResult:
    """Play a checked grid (:func:`plan_grid`); raises as :func:`run_grid` does."""
    return run_to_end(
        lambda: play_grid_async(plan, progress=progress),
        interrupted=lambda: interrupted_message(plan.out),
        run_dir=plan.out,
    )


def run_grid(
    config: GridConfig,
    out: str | Path,
    *,
    progress: GridProgressCallback | None = None,
    api_keys: Mapping[str, str] | None = None,
) -> GridResult:
    """Play (or resume) a grid; finished episodes in ``out`` are never played again.

    Args:
        config: the grid (agents, models, partners, games, seeds) and runtime settings.
        out: the run directory (created, or resumed when it holds the same grid).
        progress: called with a :class:`GridProgress` as episodes, decisions and calls happen.
        api_keys: a key by model name, used for the calls and never stored (see
            :func:`run_grid_async`; ``--api-key-env``).

    Raises:
        StoreError: ``out`` holds a run of another grid.
        UnknownNameError, ConfigError: a bad name or option in the grid.
        ModelError: a model the grid calls cannot be used (unknown provider, missing key);
            nothing is stored.
        RunFailed: the run stopped (an unreachable server, a refused call) or ended with
            failed episodes beyond ``runtime.max_error_rate``, a fallback rate beyond
            ``runtime.max_fallback_rate``, or with skipped episodes
            (players not ready); ``.result`` is the :class:`GridResult` when the session got
            to its end. Every played episode is stored; the same call resumes the run.
        RunInterrupted: on Ctrl-C or SIGTERM; every finished episode and exchange is stored,
            and the same call resumes the run.
    """
    return run_to_end(
        lambda: run_grid_async(config, out, progress=progress, api_keys=api_keys),
        interrupted=lambda: interrupted_message(Path(out)),
        run_dir=Path(out),
    )


def interrupted_message(run_dir: Path) -> str:
    """What an interrupted grid kept, and how to resume it (nothing to resume: it says so).

    Its counts are the whole run's, every session's: the bar above it counts this session's
    moves and calls (walkthrough 7, #77), so the message names which it counts.
    """
    if not (run_dir / MANIFEST).exists():
        return NOTHING_STARTED  # the command's one line for a Ctrl-C before anything ran
    store = open_run(run_dir)
    episodes = len(read_agentic_run(store).played_keys())
    planned = store.manifest.runtime.get("episodes")
    of = f" of {planned}" if isinstance(planned, int) else ""
    exchanges = sum(1 for r in store.iter_records(EXCHANGES) if r.get("kind") == "exchange")
    kept = (
        f"{episodes}{of} episodes finished (as the bar counts them) and "
        f"{counted(exchanges, 'model exchange')} in the run (every session) are stored in "
        f"{run_dir}"
    )
    if isinstance(planned, int) and episodes >= planned:
        return (
            f"interrupted after the last episode: {kept}. The run is complete: nothing is "
            f"missing (coordqa agentic report {run_dir} prints its tables)."
        )
    return (
        f"interrupted: {kept}. Run the same command again to resume (finished episodes are "
        "not played again)."
    )


def default_out(config: GridConfig, root: str | Path = "runs/agentic") -> Path:
    """``runs/agentic/<name>-<hash of the grid>``: the same grid resumes the same directory.

    The hash covers each game's episode count, as :func:`coordqa.evaluation.run_name` covers
    the trials: a run of another count gets a default folder of its own, so a folder another
    count raised never refuses the command that made it. An explicit ``--out`` of an existing
    run may still be raised (:func:`_as_stored`).
    """
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in config.name)
    return Path(root) / f"{slug}-{content_hash(config.identity())[:8]}"
