"""The conformance kit: games keep the protocol's promises, players cannot reach hidden state.

``check_game`` checks a game; ``check_seat_privacy`` checks that nothing handed to players
(seat views, observations, step results) leads to what their seat may not see.

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

import contextlib
import gc
import inspect
import json
import random
import sys
import types
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from coordqa.directives import timing_problem
from coordqa.errors import ConfigError, GameError
from coordqa.games.base import Game, Observation, Player, StepResult
from coordqa.games.episode import StepRecord, Trajectory, replay
from coordqa.games.seat import InferenceProbe, SeatView
from coordqa.jsonvalues import JSONObject

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
    first = factory()
    report = ConformanceReport(game=first.name)
    _check_timing(first)
    for seed in seeds:
        checked, length = _check_episode(factory, seed, steps, episode_limit)
        report.seeds.append(seed)
        report.steps.append(checked)
        report.lengths.append(length)
    return report


def _check_timing(game: Game) -> None:
    """The profile's JP directive times the partner's move as the game is played.

    Agents are asked their action call with it as it is.
    """
    problem = timing_problem(game.profile.qa_directives["JP"], type(game).turn_based)
    if problem is not None:
        raise ConformanceError(
            f"{game.name}: {problem} (its profile's qa_directives; build them with "
            f"coordqa.directives.directives(turn_based={type(game).turn_based}))"
        )


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


def _view(game: Game, here: str) -> JSONObject:
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
        "legal_actions": {str(p): game.legal_actions(p) for p in to_act},
        "terminal": game.is_terminal(),
        "score": game.score(),
        "metrics": game.metrics(),
    }


def _expect_same(expected: JSONObject, got: JSONObject, what: str) -> None:
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


# ------------------------------------------------------------------------- seat privacy

PROBED_NAMES = ("game", "state", "env", "engine", "hle_game", "_game", "_state", "_env")
"""Attribute names a curious player would try first (also through ``__getattr__``)."""
PROBE_LIMIT = 100_000
"""Objects one search may visit; more means the handed object drags in far too much."""


class SeatPrivacyError(ConformanceError):
    """A player could reach hidden state through what it was handed."""


@dataclass
class SeatPrivacyReport:
    """What :func:`check_seat_privacy` searched, so a test can assert it was not vacuous."""

    game: str
    """The game's registry name."""
    handed: int = 0
    """Objects handed to the players (views, observations, step results) and searched."""
    visited: int = 0
    """Objects reached from them, in all."""
    decisions: int = 0
    """Moves the players made from what they were handed."""
    steps: int = 0
    """Steps played."""


def check_seat_privacy(
    game: Game,
    players: Sequence[Player],
    *,
    seed: int = 0,
    steps: int = 30,
) -> SeatPrivacyReport:
    """Check that nothing handed to ``players`` leads to state their seat may not see.

    Plays up to ``steps`` steps of ``game`` (reset with ``seed``) through the same calls as
    :func:`~coordqa.games.episode.play_episode`, the players moving from what they are handed.
    Before each player gets its view (``reset``, ``act``, ``observe``), a probe searches
    everything reachable from the handed objects by the usual escape routes: attributes and
    ``__dict__``/slots, the garbage collector's referents (containers, bound methods, closure
    cells, defaults), properties, and the names in :data:`PROBED_NAMES`. Modules and classes
    are not entered (anything can import them; the check is about what a player is handed).
    It fails when the search reaches

    - the live game, or a mutable object it holds (its engine state, histories, caches);
    - any :class:`~coordqa.games.Game` (a copy of the game carries the hidden state too);
    - what the game's :meth:`~coordqa.games.Game.seat_secrets` names for the seat: engine
      objects with the full state (pyhanabi's ``HanabiState`` or ``HanabiGame``) and values that
      reveal the seat's hidden information (Hanabi: its own cards, in an engine observation's
      hands or as a list of cards).
    - what the game profile's ``inference_probe`` infers from a handed view (and the seed of
      ``reset``) beyond public history: Hanabi's adversary tries to learn its own cards from the
      partner's legal moves and by dealing the game again from the seed.

    Overcooked and the Collab games are fully observable, so for them the check is that no
    route leads to the game or its mutable state. What it cannot see: a player that imports the
    engine, scans the whole heap (``gc.get_objects()``) or reads raw memory.

    Raises:
        SeatPrivacyError: the first leak found, naming the seat, the call and the path to it.
    """
    import asyncio

    if len(players) != 2 or steps < 1:
        raise ConfigError(f"check_seat_privacy needs 2 players and steps >= 1, got {steps=}.")
    game.reset(seed)
    report = SeatPrivacyReport(game=game.name)
    probed = [_Probed(player, game, seat, report) for seat, player in enumerate(players)]
    asyncio.run(_play_probed(game, probed, seed, steps, report))
    return report


async def _play_probed(
    game: Game, probed: Sequence[_Probed], seed: int, steps: int, report: SeatPrivacyReport
) -> None:
    from coordqa.games.episode import play_step, seat_players

    views = seat_players(game, probed, seed)
    while report.steps < steps and not game.is_terminal():
        _decisions, _result, views = await play_step(game, probed, views)
        report.steps += 1


class _Probed(Player):
    """A player under test behind a probe that searches what it is about to be handed."""

    def __init__(self, inner: Player, game: Game, seat: int, report: SeatPrivacyReport) -> None:
        self.inner, self.seat, self.report = inner, seat, report
        self.secrets = _Secrets(game, seat)
        probe = game.profile.inference_probe
        self.probe: InferenceProbe | None = None if probe is None else probe()

    def _search(self, where: str, view: SeatView, *handed: Any, seed: int | None = None) -> None:
        """Search what is handed, then let the game's probe infer from it (and the seed)."""
        here = f"{where} (seat {self.seat})"
        for value in (view, *handed):
            self.report.handed += 1
            self.report.visited += self.secrets.search(value, here)
        if self.probe is None:
            return
        if seed is not None:
            self.probe.reset(view, seed)
        leak = self.probe.leak(view)
        if leak is not None:
            raise SeatPrivacyError(f"{here}: {leak}")

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        self._search("reset", view, seed=seed)
        self.inner.reset(view, player, seed)

    async def act(self, observation: Observation) -> str:
        self._search("act", observation.view, observation)
        self.report.decisions += 1
        return await self.inner.act(observation)

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        self._search("observe", view, result)
        self.inner.observe(view, player, result)


class _Secrets:
    """What one seat must not reach in one game, and the search for it."""

    def __init__(self, game: Game, seat: int) -> None:
        self.game, self.seat = game, seat

    def forbidden(self) -> dict[int, str]:
        """The live game and the mutable objects it holds now, by id."""
        found = {id(self.game): "the live game"}
        for name, value in vars(self.game).items():
            if not _immutable(value):
                found[id(value)] = f"the game's {name!r}"
        return found

    def search(self, root: Any, where: str) -> int:
        """Visit everything reachable from ``root``; raise at the first secret. Returns visits."""
        forbidden, secrets = self.forbidden(), self.game.seat_secrets(self.seat)
        kinds = (Game, *secrets.engine_types)
        visited = 0
        for value, path in reachable(root, where):
            visited += 1
            leak = forbidden.get(id(value))
            if leak is None and isinstance(value, kinds):
                leak = f"a {type(value).__module__}.{type(value).__name__}"
            if leak is None and secrets.reveals is not None and secrets.reveals(value):
                leak = secrets.secret
            if leak is not None:
                raise SeatPrivacyError(f"{where}: {path} reaches {leak}")
        return visited


def reachable(root: Any, where: str = "") -> Iterator[tuple[Any, str]]:
    """Every object reachable from ``root`` by a player's escape routes, with its path.

    The routes of :func:`check_seat_privacy`: attributes, ``__dict__`` and slots, items, the
    garbage collector's referents (bound methods, closure cells, defaults), properties and
    :data:`PROBED_NAMES`; modules, classes and module namespaces are not entered.

    Raises:
        SeatPrivacyError: more than :data:`PROBE_LIMIT` objects are reachable.
    """
    # module namespaces (a function's globals) are not entered; kept alive, so ids stay
    stop = {
        id(module.__dict__): module.__dict__
        for module in list(sys.modules.values())
        if isinstance(module, types.ModuleType)
    }
    seen: set[int] = set()
    queue: deque[tuple[Any, str]] = deque([(root, type(root).__name__)])
    while queue:
        value, path = queue.popleft()
        if id(value) in seen or _not_entered(value) or id(value) in stop:
            continue
        seen.add(id(value))
        if len(seen) > PROBE_LIMIT:
            raise SeatPrivacyError(f"{where}: more than {PROBE_LIMIT} objects reachable")
        yield value, path
        queue.extend((child, f"{path}{step}") for step, child in _neighbours(value))


def _immutable(value: Any) -> bool:
    """Plain values and tuples/frozensets of them (states of the room games are such tuples)."""
    if isinstance(value, (str, bytes, int, float, complex, bool, type(None))):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(_immutable(item) for item in value)
    return False


def _not_entered(value: Any) -> bool:
    """Modules and classes are shared by all code; plain values hold nothing."""
    return isinstance(value, (types.ModuleType, type)) or (
        _immutable(value) and not isinstance(value, (tuple, frozenset))
    )


def _neighbours(value: Any) -> list[tuple[str, Any]]:
    """Everything one step away from ``value``, with the step as text (named steps first)."""
    found = _named(value) + [("->", child) for child in gc.get_referents(value)]
    if type(value).__module__ in ("builtins", "numpy"):
        return found
    for name in (*PROBED_NAMES, *_descriptors(type(value))):
        try:
            found.append((f".{name}", getattr(value, name)))
        except Exception:  # noqa: BLE001 -- a probe that fails found nothing there
            continue
    return found


def _named(value: Any) -> list[tuple[str, Any]]:
    """The children of ``value`` a path can name: items, closure cells, slots, attributes."""
    if isinstance(value, dict):
        return [(f"[{key!r}]", item) for key, item in value.items()]
    if isinstance(value, (list, tuple, deque)):
        return [(f"[{index}]", item) for index, item in enumerate(value)]
    if isinstance(value, types.CellType):
        with contextlib.suppress(ValueError):
            return [(".cell_contents", value.cell_contents)]
        return []
    if isinstance(value, types.FunctionType):
        return [(".__closure__", value.__closure__)] if value.__closure__ else []
    names = [n for k in type(value).__mro__ for n in _slots(k)]
    named = [(f".{n}", getattr(value, n)) for n in names if hasattr(value, n)]
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        named += [(f".{key}", item) for key, item in attributes.items()]
    return named


def _slots(cls: type) -> tuple[str, ...]:
    slots = vars(cls).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _descriptors(cls: type) -> list[str]:
    """Names of the properties (and other data descriptors) a class defines."""
    names = []
    for klass in cls.__mro__:
        for name, attribute in vars(klass).items():
            if not name.startswith("__") and inspect.isdatadescriptor(attribute):
                names.append(name)
    return names
