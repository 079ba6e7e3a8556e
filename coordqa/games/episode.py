"""Playing one episode with any two players, and checking a stored episode by replaying it.

The loop is the same for scripted bots, neural partners and LLM agents: ask the players who must
act (concurrently, since LLM agents await model calls), step the game, tell every player what
happened. The trajectory keeps the initial snapshot and the engine moves executed at each step,
so :func:`replay` can rebuild every state and verify the score (style rule 11), and, given the
players of some seats, ask them again and check that they choose what the trajectory says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from coordqa.errors import GameError
from coordqa.games.base import GAMES, Game, Observation, Player, StepResult, game_profile
from coordqa.games.seat import SeatView, seat_seed


@dataclass
class StepRecord:
    """One step of a trajectory."""

    decisions: dict[int, str]
    """Moves chosen by the players asked at this step (text actions or engine moves)."""
    executed: dict[int, str]
    """Engine moves performed (what replay feeds back to the engine)."""
    reward: float
    """Shared reward of this step."""
    completed: dict[int, str] = field(default_factory=dict)
    """Text actions completed this step."""
    failed: dict[int, str] = field(default_factory=dict)
    """Text actions that ended as impossible this step."""
    events: list[str] = field(default_factory=list)
    """Human-readable events."""


@dataclass
class Trajectory:
    """A whole episode, as plain JSON-able data."""

    game: str
    """Game registry name."""
    game_version: str
    """The game's version when played."""
    layout: str
    """Layout or map."""
    seed: int
    """Episode seed."""
    players: list[str]
    """Names of player 0 and player 1."""
    initial: dict[str, Any]
    """Snapshot of the state before the first step."""
    steps: list[StepRecord] = field(default_factory=list)
    """Every step in order."""
    score: float = 0.0
    """Final score."""
    metrics: dict[str, float] = field(default_factory=dict)
    """Final game metrics."""
    final: dict[str, Any] = field(default_factory=dict)
    """Snapshot of the final state."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (integer player keys become strings in JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trajectory:
        """Inverse of :meth:`to_dict`, also accepting JSON's string player keys."""

        def players(mapping: dict[Any, str]) -> dict[int, str]:
            return {int(k): v for k, v in mapping.items()}

        steps = [
            StepRecord(
                decisions=players(s["decisions"]),
                executed=players(s["executed"]),
                reward=float(s["reward"]),
                completed=players(s.get("completed", {})),
                failed=players(s.get("failed", {})),
                events=list(s.get("events", [])),
            )
            for s in data["steps"]
        ]
        fields = {k: v for k, v in data.items() if k != "steps"}
        return cls(steps=steps, **fields)


def played_hash(trajectory: Trajectory, seed: int) -> str:
    """What an episode played, as a hash: two episodes with one hash are the same episode.

    The moves and what they did (every step's decisions, engine moves, reward and events), and
    the episode's ``seed`` only where it changes the game (``GameProfile.seeded``: a Hanabi deal,
    Collab Escape's killer), so replays of a deterministic game from other seeds compare equal
    and a table says "1 distinct episode" (:func:`coordqa.analysis.stats.mean_cell`).
    """
    from coordqa.jsonvalues import content_hash

    steps = [(s.decisions, s.executed, s.reward, s.events) for s in trajectory.steps]
    return content_hash([seed if game_profile(trajectory.game).seeded else None, steps])


async def play_episode(
    game: Game,
    players: Sequence[Player],
    seed: int,
    player_names: Sequence[str] | None = None,
    max_steps: int | None = None,
) -> Trajectory:
    """Play one episode of ``game`` from a reset with ``seed``; return its trajectory.

    Args:
        game: the game to play (it is reset here).
        players: player 0 and player 1.
        seed: episode seed: the game is reset with it, each player with its seat's
            :func:`~coordqa.games.seat.seat_seed`.
        player_names: names recorded in the trajectory (defaults to the players' ``name``).
        max_steps: a safety cap on top of the game's own limit; reaching it is an error, because
            every game ends by its rules and a runaway loop means a bug.
    """
    if len(players) != 2:
        raise GameError(f"a game needs exactly 2 players, got {len(players)}")
    game.reset(seed)
    views = seat_players(game, players, seed)
    names = list(player_names or [type(p).name for p in players])
    trajectory = Trajectory(
        game=game.name,
        game_version=game.version,
        layout=game.layout,
        seed=seed,
        players=names,
        initial=game.snapshot(),
    )
    cap = max_steps if max_steps is not None else 100_000
    while not game.is_terminal():
        if len(trajectory.steps) >= cap:
            raise GameError(f"{game.name} did not end within {cap} steps")
        decisions, result, views = await play_step(game, players, views)
        trajectory.steps.append(_record(decisions, result))
    trajectory.score = game.score()
    trajectory.metrics = game.metrics()
    trajectory.final = game.snapshot()
    return trajectory


def seat_players(
    game: Game, players: Sequence[Player] | Mapping[int, Player], seed: int
) -> list[SeatView]:
    """Reset each player with its view of the start and its seat's seed; return the views.

    ``players`` are both seats' players in order, or some of them by seat. The seat's seed is
    :func:`~coordqa.games.seat.seat_seed` of the episode seed, not the episode seed itself, from
    which a player could deal a Hanabi game again.
    """
    views = game.seat_views()
    seated = players.items() if isinstance(players, Mapping) else enumerate(players)
    for seat, player in seated:
        player.reset(views[seat], seat, seat_seed(seed, seat))
    return views


async def play_step(
    game: Game, players: Sequence[Player], views: Sequence[SeatView]
) -> tuple[dict[int, str], StepResult, list[SeatView]]:
    """Ask the players to act (each from its view), step, and show everyone the new state.

    ``views`` are the players' views of the current state (from :func:`seat_players` or the
    previous step); returns the decisions, the step's result and the views of the new state.
    """
    to_act = game.players_to_act()
    chosen = await asyncio.gather(*(players[p].act(Observation(views[p])) for p in to_act))
    decisions = dict(zip(to_act, chosen, strict=True))
    result = game.step(decisions)
    after = game.seat_views()
    for seat, player in enumerate(players):
        player.observe(after[seat], seat, result)
    return decisions, result, after


def _record(decisions: dict[int, str], result: StepResult) -> StepRecord:
    return StepRecord(
        decisions=decisions,
        executed=dict(result.executed),
        reward=result.reward,
        completed=dict(result.completed),
        failed=dict(result.failed),
        events=list(result.events),
    )


def decide_now(player: Player, observation: Observation) -> str:
    """The move ``player`` chooses, for a player that decides without waiting on anything.

    Scripted bots and neural partners compute their move inside ``act`` without awaiting, so
    their coroutine finishes on its first step and replaying needs no event loop.

    Raises:
        GameError: the player awaited something (an LLM agent waits for its model).
    """
    decision = player.act(observation)
    try:
        decision.send(None)
    except StopIteration as done:
        return str(done.value)
    decision.close()
    raise GameError(
        f"player {type(player).name!r} waits for something to decide; only players that decide "
        "at once (scripted bots, neural partners) can be asked again in a replay"
    )


def replay(
    trajectory: Trajectory,
    start: Game | None = None,
    players: Mapping[int, Player] | None = None,
) -> Game:
    """Re-simulate a trajectory and check it.

    Args:
        trajectory: the stored episode.
        start: the game to replay on, at its first state (a verifier builds it from the
            episode's game, layout, seed and options rather than trusting the stored start);
            None: restore it from the trajectory's initial snapshot.
        players: players to ask again, by seat (fresh ones, built as the episode built them).
            Each is reset and shown every step as :func:`play_episode` does, and whenever its
            seat acts it must choose the stored decision: a partner's forged moves are refused.

    Every step's reward, and the final score, metrics and state, must match what is stored (a
    state stored by an earlier version the game restores counts as its own:
    :meth:`Game.current_form`); a step stored after the game ended is refused.

    Raises:
        GameError: the stored trajectory does not match what the engine or a re-asked player
            does.
    """
    game = start or GAMES.get(trajectory.game).from_snapshot(trajectory.initial)
    asked = dict(players or {})
    views = seat_players(game, asked, trajectory.seed) if asked else []
    for number, step in enumerate(trajectory.steps):
        if game.is_terminal():
            raise GameError(
                f"replay mismatch: {len(trajectory.steps) - number} steps stored after the game "
                f"ended at step {number}"
            )
        for seat in sorted(asked.keys() & set(game.players_to_act())):
            chosen = decide_now(asked[seat], Observation(views[seat]))
            _check_decision(trajectory, number, seat, step, chosen)
        result = game.replay_step(step.executed, step.decisions)
        if asked:
            views = game.seat_views()
            for seat, player in asked.items():
                player.observe(views[seat], seat, result)
        if abs(result.reward - step.reward) > 1e-9:
            raise GameError(
                f"replay mismatch at step {number}: reward {result.reward} != stored {step.reward}"
            )
    checks = {
        "score": (game.score(), trajectory.score),
        "metrics": (game.metrics(), trajectory.metrics),
        "final state": (game.snapshot(), game.current_form(trajectory.final)),
    }
    for what, (replayed, stored) in checks.items():
        if replayed != stored:
            raise GameError(f"replay mismatch in {what}: replayed {replayed!r}, stored {stored!r}")
    return game


def _check_decision(
    trajectory: Trajectory, number: int, seat: int, step: StepRecord, chosen: str
) -> None:
    stored = step.decisions.get(seat)
    if stored != chosen:
        raise GameError(
            f"replay mismatch at step {number}: {trajectory.players[seat]} in seat {seat} "
            f"chooses {chosen!r} there, the trajectory says {stored!r}"
        )
