"""One match: a game, two players, a seed -> a stored-ready episode with metrics and agent stats.

The episode loop itself is :func:`coordqa.games.episode.play_episode` (the same one ``coordqa
play`` uses); this module only builds the two players of an :class:`EpisodeSpec` through the
player registry, hands LLM players their model, the spec's sampling and preset and a recorder,
and stamps every recorded exchange with the episode, the seat and the step it was made at.
Callers that store as they go pass ``on_record`` (each record the moment it is made) and
``on_decision`` (each move asked of a player), which also drive progress displays.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

from coordqa.agentic.episodes import AgenticEpisode, EpisodeSpec
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYERS, Observation, Player, StepResult, make_game
from coordqa.games.episode import play_episode
from coordqa.games.seat import SeatView
from coordqa.llm import GenerateConfig, Model, get_model

ModelSource = Callable[[str], Model]
"""Returns the (shared) Model for a model name; runners share one Model per name."""


def is_llm_player(name: str) -> bool:
    """Whether a registered player calls a model (its factory takes ``model=``)."""
    return PLAYERS.get(name).kind == "llm"


class _Seat(Player):
    """Wraps a player to count the steps it has observed, so its recorder can stamp the step."""

    def __init__(self, inner: Player, on_decision: Callable[[], None] | None) -> None:
        self.inner = inner
        self.step = 0
        self.on_decision = on_decision

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        self.step = 0
        self.inner.reset(view, player, seed)

    async def act(self, observation: Observation) -> str:
        action = await self.inner.act(observation)
        if self.on_decision is not None:
            self.on_decision()
        return action

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        self.inner.observe(view, player, result)
        self.step += 1


def build_player(
    spec: EpisodeSpec,
    seat: int,
    *,
    model: Model | None,
    generate: GenerateConfig | None,
    recorder: Callable[[dict[str, Any]], None] | None,
) -> Player:
    """Build the player of ``seat``: an LLM player gets the model, sampling and a recorder.

    Raises:
        ConfigError: an LLM player without a model, or a player that cannot play the game.
        UnknownNameError: an unregistered player name (with suggestions).
    """
    from coordqa.games.base import make_player

    name = spec.seats[seat]
    is_agent = seat in spec.agent_seats
    options = dict(spec.agent_options) if is_agent else {}
    if not is_llm_player(name):
        return make_player(name, spec.game, spec.layout, **options)
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
        **options,
    )


def generate_config(spec: EpisodeSpec) -> GenerateConfig | None:
    """The sampling parameters of the spec's LLM players (None: their defaults)."""
    return GenerateConfig(**spec.generate) if spec.generate else None


async def play_match(
    spec: EpisodeSpec,
    *,
    models: ModelSource | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    on_decision: Callable[[], None] | None = None,
) -> AgenticEpisode:
    """Play the episode ``spec`` describes and return it with its exchanges and agent stats.

    Args:
        spec: game, layout, seed, the two seats, the agent's options, preset and sampling.
        models: gives the Model for ``spec.model``; default :func:`coordqa.llm.get_model`
            without a cache. Pass a shared source so concurrent episodes share limits and usage.
        on_record: called with each stamped exchange or events record as soon as it is made
            (the records are also returned in the episode).
        on_decision: called after each move a player chose.
    """
    attempt = uuid.uuid4().hex
    model = None
    if spec.model is not None:
        model = (models or _uncached_model)(spec.model)
    generate = generate_config(spec)
    exchanges: list[dict[str, Any]] = []
    seats: list[_Seat] = []

    def recorder_for(seat: int) -> Callable[[dict[str, Any]], None]:
        def record(exchange: dict[str, Any]) -> None:
            stamp = {"episode": spec.key, "attempt": attempt, "seat": seat}
            stamped = {**exchange, **stamp, "step": seats[seat].step}
            exchanges.append(stamped)
            if on_record is not None:
                on_record(stamped)

        return record

    for seat in (0, 1):
        player = build_player(
            spec, seat, model=model, generate=generate, recorder=recorder_for(seat)
        )
        seats.append(_Seat(player, on_decision))
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
        attempt=attempt,
        wall_s=time.monotonic() - started,
        exchanges=exchanges,
    )


def _uncached_model(name: str) -> Model:
    return get_model(name, cache=None)


def run_match(spec: EpisodeSpec, *, models: ModelSource | None = None) -> AgenticEpisode:
    """Synchronous :func:`play_match` (runs its own event loop).

    Example:
        >>> from coordqa.agentic import EpisodeSpec, run_match
        >>> spec = EpisodeSpec(game="collab_capture", layout="default", seed=0,
        ...                    agent="capture-planner", partner="capture-greedy")
        >>> run_match(spec).metrics["captured"] in (0.0, 1.0)
        True
    """
    return asyncio.run(play_match(spec, models=models))
