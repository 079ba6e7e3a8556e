"""The conformance kit: ``check_game`` checks that a game keeps the protocol's promises.

Style rule 10, after PettingZoo's ``api_test`` and ``seed_test``.

Usage, in a test::

    from coordqa.games import make_game
    from coordqa.games.testing import check_game

    report = check_game(lambda: make_game("hanabi"), steps=40, seeds=(0, 1))

For every seed the kit plays an episode of random legal moves and checks, at each of the first
``steps`` states and at the end: the players to act (possibly nobody in a live game, e.g.
Overcooked while both chefs carry out actions) have non-empty, duplicate-free lists of string
actions;
``describe`` is deterministic; the snapshot is JSON data that restores into a fresh game and in
place with identical snapshot, descriptions, legal actions, terminal flag and score; an illegal
move and a missing move raise :class:`~coordqa.errors.GameError` and leave the state unchanged.
It steps a second instance in lockstep with the same seed and movers (same seed, same
trajectory), plays the episode on to its end, checks the terminal state (nobody to act,
stepping raises), and replays the whole recorded episode with
:func:`~coordqa.games.episode.replay`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from coordqa.errors import ConfigError, GameError
from coordqa.games.base import Game
from coordqa.games.episode import StepRecord, Trajectory, replay

ILLEGAL_MOVE = "an illegal move the conformance kit made up"
"""A move no game may accept."""


class ConformanceError(GameError):
    """A game broke a promise of the game protocol; the message says which and where."""


@dataclass
class ConformanceReport:
    """What :func:`check_game` exercised, so a test can assert the run was not vacuous."""

    game: str
    """The game's registry name."""
    seeds: list[int] = field(default_factory=list)
    """Seeds played."""
    steps: list[int] = field(default_factory=list)
    """Steps per seed that got the full per-state checks."""
    lengths: list[int] = field(default_factory=list)
    """Length of each seed's whole episode (played on to its end with random moves)."""


def check_game(
    factory: Callable[[], Game],
    *,
    steps: int = 50,
    seeds: Sequence[int] = (0, 1),
    episode_limit: int = 5000,
) -> ConformanceReport:
    """Check that games built by ``factory`` honour the game protocol.

    Args:
        factory: builds a fresh game (any layout or options); the kit resets it with each seed.
        steps: steps per seed that get the full per-state checks (restore, lockstep, rejects).
        seeds: episode seeds; each also seeds the random movers.
        episode_limit: after the checked steps the episode is played on to its end (stored
            episodes are whole episodes, and the terminal state is checked); not ending within
            this many steps is a failure.

    Returns:
        what was played (seeds, checked steps and episode length per seed).

    Raises:
        ConformanceError: the first broken promise, with the game, seed and step.
    """
    if steps < 1 or not seeds:
        raise ConfigError(
            f"check_game needs steps >= 1 and at least one seed, got steps={steps}, "
            f"seeds={list(seeds)}."
        )
    report = ConformanceReport(game=factory().name)
    for seed in seeds:
        checked, length = _check_episode(factory, seed, steps, episode_limit)
        report.seeds.append(seed)
        report.steps.append(checked)
        report.lengths.append(length)
    return report


def _check_episode(
    factory: Callable[[], Game], seed: int, steps: int, episode_limit: int
) -> tuple[int, int]:
    """Checked steps in lockstep with a twin, then the rest of the episode, then replay."""
    game, twin = factory(), factory()
    game.reset(seed)
    twin.reset(seed)
    movers, twin_movers = random.Random(seed), random.Random(seed)
    trajectory = _start_trajectory(game, seed)
    where = f"{game.name} seed {seed}"
    for number in range(steps):
        here = f"{where} step {number}"
        _check_state(factory, game, here)
        _check_lockstep(game, twin, here)
        if game.is_terminal():
            break
        _check_rejects(game, here)
        moves = _random_moves(game, movers)
        if moves != _random_moves(twin, twin_movers):
            raise ConformanceError(f"{here}: same seed, different legal actions in the twin game")
        _record(game, moves, trajectory, here)
        twin.step(moves)
    checked = len(trajectory.steps)
    while not game.is_terminal():
        if len(trajectory.steps) >= episode_limit:
            raise ConformanceError(f"{where}: not over after {episode_limit} random steps")
        _record(game, _random_moves(game, movers), trajectory, f"{where} step {checked}+")
    _check_state(factory, game, f"{where} at the end ({len(trajectory.steps)} steps)")
    _check_replay(game, trajectory, where)
    return checked, len(trajectory.steps)


def _record(game: Game, moves: dict[int, str], trajectory: Trajectory, here: str) -> None:
    """Step ``game`` and append the step to ``trajectory``, checking the step result."""
    result = game.step(moves)
    _check_json(result.executed, f"{here}: StepResult.executed", exact=False)
    if result.terminal != game.is_terminal():
        raise ConformanceError(
            f"{here}: StepResult.terminal={result.terminal} but is_terminal()={game.is_terminal()}"
        )
    trajectory.steps.append(StepRecord(moves, dict(result.executed), result.reward))


def _start_trajectory(game: Game, seed: int) -> Trajectory:
    return Trajectory(
        game=game.name,
        game_version=game.version,
        layout=game.layout,
        seed=seed,
        players=["random", "random"],
        initial=game.snapshot(),
    )


def _random_moves(game: Game, rng: random.Random) -> dict[int, str]:
    return {player: rng.choice(game.legal_actions(player)) for player in game.players_to_act()}


def _check_state(factory: Callable[[], Game], game: Game, here: str) -> None:
    """Actions, determinism of describe, snapshot JSON and restore (fresh and in place)."""
    _check_actions(game, here)
    view = _view(game, here)
    snapshot = game.snapshot()
    _check_json(snapshot, f"{here}: snapshot")
    fresh = factory()
    fresh.restore(json.loads(json.dumps(snapshot)))
    _expect_same(view, _view(fresh, here), f"{here}: restore() into a fresh game")
    rebuilt = type(game).from_snapshot(snapshot)
    _expect_same(view, _view(rebuilt, here), f"{here}: from_snapshot()")
    game.restore(snapshot)
    _expect_same(view, _view(game, here), f"{here}: restore() in place")


def _check_actions(game: Game, here: str) -> None:
    to_act = game.players_to_act()
    if game.is_terminal():
        if to_act:
            raise ConformanceError(f"{here}: terminal, yet players_to_act() = {to_act}")
        _expect_error(game, {}, f"{here}: step() on a terminal game")
        return
    if any(p not in (0, 1) for p in to_act) or len(set(to_act)) != len(to_act):
        raise ConformanceError(f"{here}: players_to_act() = {to_act}")
    for player in to_act:
        actions = game.legal_actions(player)
        if not actions or not all(isinstance(a, str) and a for a in actions):
            raise ConformanceError(f"{here}: legal_actions({player}) = {actions!r}")
        if len(set(actions)) != len(actions):
            raise ConformanceError(f"{here}: legal_actions({player}) has duplicates: {actions}")


def _view(game: Game, here: str) -> dict[str, Any]:
    """Everything observable about a state; describing twice must give the same text."""
    descriptions = [game.describe(p) for p in (0, 1)]
    if descriptions != [game.describe(p) for p in (0, 1)]:
        raise ConformanceError(f"{here}: describe() is not deterministic")
    if not all(isinstance(d, str) and d for d in descriptions):
        raise ConformanceError(f"{here}: describe() returned an empty or non-text value")
    to_act = game.players_to_act()
    return {
        "snapshot": game.snapshot(),
        "descriptions": descriptions,
        "players_to_act": to_act,
        "legal_actions": {p: game.legal_actions(p) for p in to_act},
        "terminal": game.is_terminal(),
        "score": game.score(),
        "metrics": game.metrics(),
    }


def _expect_same(expected: dict[str, Any], got: dict[str, Any], what: str) -> None:
    for key, value in expected.items():
        if got[key] != value:
            raise ConformanceError(
                f"{what} changed {key}:\n  before: {value!r}\n  after:  {got[key]!r}"
            )


def _check_rejects(game: Game, here: str) -> None:
    """An illegal move and a missing move raise GameError and change nothing.

    A live game may have nobody to ask (Overcooked while both players' actions are in
    progress); it then advances with an empty ``step({})``, so there is nothing to reject.
    """
    to_act = game.players_to_act()
    if not to_act:
        return
    illegal = {p: game.legal_actions(p)[0] for p in to_act}
    illegal[to_act[0]] = ILLEGAL_MOVE
    _expect_error(game, illegal, f"{here}: an illegal move")
    _expect_error(game, {}, f"{here}: a step with no moves")


def _expect_error(game: Game, moves: dict[int, str], what: str) -> None:
    before = game.snapshot()
    try:
        game.step(moves)
    except GameError:
        if game.snapshot() != before:
            raise ConformanceError(f"{what} raised GameError but changed the state") from None
        return
    raise ConformanceError(f"{what} was accepted; it must raise GameError")


def _check_lockstep(game: Game, twin: Game, here: str) -> None:
    if game.snapshot() != twin.snapshot():
        raise ConformanceError(f"{here}: two games with the same seed and moves diverged")
    if [game.describe(p) for p in (0, 1)] != [twin.describe(p) for p in (0, 1)]:
        raise ConformanceError(f"{here}: same state, different descriptions in the twin game")


def _check_json(value: Any, what: str, exact: bool = True) -> None:
    """``value`` must serialise; with ``exact`` it must also equal its own JSON round trip.

    Stored trajectories compare snapshots loaded from JSON, so a tuple would never match.
    """
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConformanceError(f"{what} is not JSON-serialisable: {exc}") from exc
    if exact and json.loads(text) != value:
        raise ConformanceError(
            f"{what} changes in a JSON round trip (tuples, non-string keys?): {value!r}"
        )


def _check_replay(game: Game, trajectory: Trajectory, where: str) -> None:
    trajectory.score = game.score()
    trajectory.metrics = game.metrics()
    trajectory.final = game.snapshot()
    stored = Trajectory.from_dict(json.loads(json.dumps(trajectory.to_dict())))
    try:
        replay(stored)
    except GameError as exc:
        raise ConformanceError(f"{where}: replay of the played trajectory failed: {exc}") from exc
