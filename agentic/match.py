"""One match: a game, two players, a seed -> a stored-ready episode with metrics and agent stats.

The episode loop itself is :func:`coordqa.games.episode.play_episode` (the same one ``coordqa
play`` uses); this module only builds the two players of an :class:`EpisodeSpec` through the
player registry, hands LLM players their model, the spec's sampling and preset and a recorder,
and stamps every recorded exchange with the episode, the seat and the step it was made at.
Callers that store as they go pass ``on_record`` (each record as soon as the call into the
player that made it returns) and ``on_decision`` (each move asked of a player), which also drive
progress displays. A player's recorder reaches only its own seat's pending records. Each LLM
agent's seat is shadowed by the game's strong policy, which measures how often the agent chose
what that policy would have (:mod:`coordqa.agentic.agreement`); the shadow never changes play.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
import uuid
from collections.abc import Callable
from typing import Any

from coordqa.agentic.agreement import PolicyShadow
from coordqa.agentic.episodes import AgenticEpisode, EpisodeSpec
from coordqa.agentic.records import AgentRecord, Recorder
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYERS, Observation, Player, StepResult, make_game
from coordqa.games.episode import play_episode
from coordqa.games.seat import SeatView
from coordqa.llm import GenerateConfig, Model, get_model
from coordqa.llm.call_names import naming_calls

ModelSource = Callable[[str], Model]
"""Returns the (shared) Model for a model name; runners share one Model per name."""


def is_llm_player(name: str) -> bool:
    """Whether a registered player calls a model (its factory takes ``model=``)."""
    return PLAYERS.get(name).kind == "llm"


class _SeatLog:
    """The records one seat's player made that the match has not passed on yet.

    A player's recorder is this log's :meth:`record`, so what the player is handed leads only
    here: not to the other seat's player or records (the partner's prompts show this seat's
    Hanabi cards), nor to the caller's sinks. The match moves the records on after each call
    into the player (:class:`_Seat`).
    """

    def __init__(self, episode: str, attempt: str, seat: int) -> None:
        self.stamp = {"episode": episode, "attempt": attempt, "seat": seat}
        self.step = 0
        self.pending: list[AgentRecord] = []

    def record(self, record: AgentRecord) -> None:
        """Stamp ``record`` with the episode, attempt, seat and step, and keep it."""
        self.pending.append(record.model_copy(update={**self.stamp, "step": self.step}))


class _Seat(Player):
    """Wraps a player to count the steps it has observed and pass its records on after each call.

    Records leave in a ``finally``, so an interrupted decision still delivers the calls it made.
    A ``shadow`` (the strong policy, for an LLM agent's seat) is handed the same calls.
    """

    def __init__(
        self,
        inner: Player,
        log: _SeatLog,
        deliver: Callable[[AgentRecord], None],
        on_decision: Callable[[], None] | None,
        shadow: PolicyShadow | None = None,
    ) -> None:
        self.inner = inner
        self.log = log
        self.deliver = deliver
        self.on_decision = on_decision
        self.shadow = shadow

    def _flush(self) -> None:
        records, self.log.pending = self.log.pending, []
        for record in records:
            self.deliver(record)

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        self.log.step = 0
        try:
            self.inner.reset(view, player, seed)
        finally:
            self._flush()
        if self.shadow is not None:
            self.shadow.reset(view, player, seed)

    async def act(self, observation: Observation) -> str:
        stamp = self.log.stamp
        try:  # its calls are named in messages (a timed-out attempt) as its records are
            with naming_calls(f"{stamp['episode']} seat {stamp['seat']} step {self.log.step}"):
                action = await self.inner.act(observation)
        finally:
            self._flush()
        if self.shadow is not None:
            await self.shadow.compare(observation, action)
        if self.on_decision is not None:
            self.on_decision()
        return action

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        try:
            self.inner.observe(view, player, result)
        finally:
            self._flush()
        if self.shadow is not None:
            self.shadow.observe(view, player, result)
        self.log.step += 1


def build_player(
    spec: EpisodeSpec,
    seat: int,
    *,
    model: Model | None,
    generate: GenerateConfig | None,
    recorder: Recorder | None,
) -> Player:
    """Build the player of ``seat``: an LLM player gets the model, sampling and a recorder.

    Raises:
        ConfigError: an LLM player without a model, or a player that cannot play the game.
        UnknownNameError: an unregistered player name (with suggestions).
    """
    from coordqa.games.base import make_player

    name = spec.seats[seat]
    options = spec.agent_options if seat in spec.agent_seats else None
    if not is_llm_player(name):
        return make_player(name, spec.game, spec.layout, options=options)
    if model is None:
        raise ConfigError(
            f"player {name!r} calls a language model; give a model (e.g. --model scripted for "
            "the offline one, or openai/gpt-4o-mini)."
        )
    return make_player(
        name,
        spec.game,
        spec.layout,
        model=model,
        generate=generate,
        recorder=recorder,
        preset=spec.preset,
        options=options,
    )


def generate_config(spec: EpisodeSpec) -> GenerateConfig | None:
    """The sampling parameters of the spec's LLM players (None: their defaults)."""
    return GenerateConfig(**spec.generate) if spec.generate else None


async def play_match(
    spec: EpisodeSpec,
    *,
    models: ModelSource | None = None,
    on_record: Callable[[AgentRecord], None] | None = None,
    on_decision: Callable[[], None] | None = None,
) -> AgenticEpisode:
    """Play the episode ``spec`` describes and return it with its exchanges and agent stats.

    Args:
        spec: game, layout, seed, the two seats, the agent's options, preset and sampling.
        models: gives the Model for ``spec.model``; default :func:`coordqa.llm.get_model`
            without a cache. Pass a shared source so concurrent episodes share limits and usage.
        on_record: called with each stamped exchange or events record as soon as the call into
            the player that made it (reset, act, observe) returns
            (the records are also returned in the episode).
        on_decision: called after each move a player chose.
    """
    attempt = uuid.uuid4().hex
    model = None
    if spec.model is not None:
        model = (models or _uncached_model)(spec.model)
    generate = generate_config(spec)
    exchanges: list[AgentRecord] = []
    seats: list[_Seat] = []

    def deliver(stamped: AgentRecord) -> None:
        exchanges.append(stamped)
        if on_record is not None:
            on_record(stamped)

    for seat in (0, 1):
        log = _SeatLog(spec.key, attempt, seat)
        player = build_player(spec, seat, model=model, generate=generate, recorder=log.record)
        shadow = None
        if is_llm_player(spec.seats[seat]):
            shadow = PolicyShadow.for_game(spec.game, spec.layout)
        seats.append(_Seat(player, log, deliver, on_decision, shadow))
    game = make_game(spec.game, spec.layout, spec.seed, **spec.game_options)
    started = time.monotonic()
    trajectory = await play_episode(game, seats, spec.seed, player_names=list(spec.seats))
    stats: dict[int, dict[str, Any]] = {}
    for index, wrapped in enumerate(seats):
        report = getattr(wrapped.inner, "stats", None)
        if callable(report):
            stats[index] = dict(report())
    return AgenticEpisode(
        spec=spec,
        trajectory=trajectory,
        score=float(trajectory.score),
        metrics={k: float(v) for k, v in trajectory.metrics.items()},
        agent_stats=stats,
        agreement={i: s.shadow.result() for i, s in enumerate(seats) if s.shadow is not None},
        attempt=attempt,
        wall_s=time.monotonic() - started,
        exchanges=exchanges,
    )


def _uncached_model(name: str) -> Model:
    return get_model(name, cache=None)


def run_match(spec: EpisodeSpec, *, models: ModelSource | None = None) -> AgenticEpisode:
    """Synchronous :func:`play_match` (runs its own event loop).

    Called where this thread already runs a loop (a notebook, Playwright's sync API, a report
    built inside an async server), the episode is played on a worker thread's own loop, since
    ``asyncio.run`` cannot nest.

    Example:
        >>> from coordqa.agentic import EpisodeSpec, run_match
        >>> spec = EpisodeSpec(game="collab_capture", layout="default", seed=0,
        ...                    agent="capture-planner", partner="capture-greedy")
        >>> run_match(spec).metrics["captured"] in (0.0, 1.0)
        True
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(play_match(spec, models=models))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, play_match(spec, models=models)).result()
