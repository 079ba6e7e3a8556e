"""Overcooked scenarios of CoordinationQA: candidate states and question building.

Candidates come from seeded play of scripted pairs (``planner`` and ``greedy_human``) on the
paper's five layouts, after a short seeded opening of random primitive moves, snapshotted at
seeded timesteps with both chefs at a decision point (any action in progress is interrupted,
which leaves positions, hands, pots and counters as play left them; the description says what I
was on my way to do). Each scenario names its EC
question in ``kinds["EC"]``:

* ``onions_needed:<cooker>``, ``onions_total`` (all cookers together), ``onions_to_fetch``
  (all cookers, less the onions the chefs hold or counters carry: an inference on every layout),
* ``onion_cooked_in:<cooker>`` (timesteps until cooked if I put my onion in now),
  ``plate_filled_in:<cooker>`` (timesteps until the soup is on my plate),
* ``soup_timer:<cooker>`` (printed in the state: a lookup), ``closer_cooker``,
* ``reachable:me:<object>`` or ``reachable:partner:<object>`` (printed in the state: lookups).

The solvers (``overcooked_solvers.py``) compute every answer; a state is rejected when an
answer is not clear. ``python -m coordqa.scenarios.curate_overcooked`` rewrites the curated
list.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from coordqa.games import Game
from coordqa.games.base import Observation, Player, ScriptedPlayer, make_player
from coordqa.games.overcooked import LAYOUTS, PRIMITIVE_NAMES, Overcooked
from coordqa.games.overcooked.tasks import held
from coordqa.scenarios import overcooked_solvers as solve
from coordqa.scenarios.builder import ScenarioBuilder
from coordqa.scenarios.model import QuestionDraft, Scenario, ScenarioQuestions, ScenarioRejected

PAIRS = (("planner", "planner"), ("planner", "greedy_human"), ("greedy_human", "planner"))
"""Scripted pairs whose play gives candidate states (Alice's player first)."""
STOPS_PER_GAME = 10
"""Snapshots taken from each seeded game."""
MAX_OPENING = 12
"""At most this many timesteps of seeded random primitive moves open each game, so that
deterministic pairs (planner with planner) reach different states from different seeds."""
LAST_STOP = 160
"""Latest timestep a snapshot is taken at (well before the horizon, so rollouts fit)."""


def _game(game: Game) -> Overcooked:
    if not isinstance(game, Overcooked):
        raise ScenarioRejected(f"the Overcooked builder got a {game.name} game")
    return game


class OvercookedBuilder(ScenarioBuilder):
    """EC, ToM and JP questions on Overcooked states (solvers: ``overcooked_solvers``)."""

    game: ClassVar[str] = "overcooked"
    version: ClassVar[str] = "3"
    lookup_kinds: ClassVar[Mapping[str, str]] = {
        "reachable": "each walk is listed as a distance, 'blocked by ...' or 'inaccessible'",
        "soup_timer": "'still cooking (N timesteps left)'",
        "onions_needed": "'cN contains K out of 3 onions' (one subtraction)",
        "closer_cooker": "both walks are listed (one comparison)",
    }

    def questions(self, game: Game, scenario: Scenario) -> ScenarioQuestions:
        """Build the three questions; cheap exact ones first, the rollouts last.

        Raises:
            ScenarioRejected: a chef has an action in progress (not a decision point), the EC
                kind is unknown or does not apply, or a solver finds the answer unclear.
        """
        oc = _game(game)
        if oc.current_task(0) is not None or oc.current_task(1) is not None:
            raise ScenarioRejected("a chef has an action in progress: not a decision point")
        player = scenario.player
        ec = ec_question(oc, player, scenario.kinds.get("EC", ""))
        tom = solve.partner_intent(oc, player)
        jp = solve.best_action(oc, player)
        return ScenarioQuestions(ec=ec, tom=tom, jp=jp)

    def candidates(self, seed: int) -> Iterator[Scenario]:
        """Snapshots of seeded scripted play on every layout (``STOPS_PER_GAME`` each)."""
        rng = random.Random(seed)
        for index, layout in enumerate(LAYOUTS):
            pair = PAIRS[(seed + index) % len(PAIRS)]
            stops = sorted(rng.sample(range(6, LAST_STOP), STOPS_PER_GAME))
            opening = [
                (rng.choice(PRIMITIVE_NAMES), rng.choice(PRIMITIVE_NAMES))
                for _ in range(rng.randrange(MAX_OPENING + 1))
            ]
            for steps, snapshot in _play(layout, pair, seed, stops, opening):
                game = _game(Overcooked.from_snapshot(snapshot))
                player = rng.randrange(2)
                yield Scenario(
                    scenario_id=f"overcooked-{layout}-s{seed}-t{steps}",
                    game="overcooked",
                    layout=layout,
                    player=player,
                    snapshot=snapshot,
                    kinds={
                        "EC": rng.choice(rng.choice(ec_kinds(game, player))),
                        "ToM": "partner_intent",
                        "JP": "best_action",
                    },
                    reached_by={
                        "seed": seed,
                        "players": list(pair),
                        "opening": [list(moves) for moves in opening],
                        "steps": steps,
                        "note": "actions in progress interrupted at the snapshot",
                    },
                )


def _play(
    layout: str,
    pair: tuple[str, str],
    seed: int,
    stops: list[int],
    opening: list[tuple[str, str]],
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Play ``opening`` (primitive moves), then ``pair``; snapshot at each stop.

    Snapshots interrupt the actions in progress (:meth:`Overcooked.interrupt`), so both chefs are
    at a decision point and each description says what its chef was on the way to do.
    """
    game = Overcooked(layout, seed=seed)
    players: list[Player] = [make_player(name, "overcooked", layout) for name in pair]
    for index, player in enumerate(players):
        player.reset(game.seat_view(index), index, seed + index)
    for steps in range(max(stops) + 1):
        if steps in stops:
            decision = Overcooked.from_snapshot(game.snapshot())
            if not isinstance(decision, Overcooked):
                raise ScenarioRejected(f"not an Overcooked snapshot: {type(decision).__name__}")
            decision.interrupt()
            yield steps, decision.snapshot()
        if steps < len(opening):
            moves = dict(enumerate(opening[steps]))
        else:
            moves = {p: _choose(players[p], Observation.of(game, p)) for p in game.players_to_act()}
        game.step(moves)


def _choose(player: Player, observation: Observation) -> str:
    """A scripted player's move (scripted players decide synchronously)."""
    if not isinstance(player, ScriptedPlayer):
        raise ScenarioRejected(f"candidate search needs scripted players, got {player.name!r}")
    return player.choose(observation)


def ec_kinds(game: Overcooked, player: int) -> list[list[str]]:
    """The meaningful EC questions for this state, grouped by family.

    The search picks a family, then one question of it, so families with many objects do not
    crowd out the others; reachability comes as two families (clear paths, and blocked or
    inaccessible ones) so that both answers occur.
    """
    geometry = game.geometry
    hand = held(game.state.players[player])
    families = [
        [f"onions_needed:{f.name}" for f, _ in solve.pots(game)],
        ["onions_total"] if len(geometry.of_kind("c")) >= 2 else [],
        ["onions_to_fetch"],
        [
            f"onion_cooked_in:{f.name}"
            for f, p in solve.pots(game)
            if hand == "onion" and p.accepts_onion and p.onions == 2
        ],
        [
            f"plate_filled_in:{f.name}"
            for f, p in solve.pots(game)
            if hand == "dish" and (p.cooking or p.ready)
        ],
        ["closer_cooker"] if len(geometry.of_kind("c")) == 2 else [],
    ]
    for clear in (True, False):
        families.append(
            [
                f"reachable:{label}:{feature.name}"
                for who, label in ((player, "me"), (1 - player, "partner"))
                for feature in geometry.features
                if feature.kind in "opdc" and solve.distance(game, who, feature).clear == clear
            ]
        )
    return [family for family in families if family]


_EC_OF_A_COOKER: dict[str, Callable[[Overcooked, int, str], QuestionDraft]] = {
    "onions_needed": solve.onions_needed,
    "soup_timer": solve.soup_timer,
    "onion_cooked_in": solve.onion_cooked_in,
    "plate_filled_in": solve.plate_filled_in,
}
"""EC kinds about one object of the layout (``<kind>:<object>``), by name, with their solvers."""

_EC_OF_THE_KITCHEN: dict[str, Callable[[Overcooked, int], QuestionDraft]] = {
    "onions_total": solve.onions_total,
    "closer_cooker": solve.closer_cooker,
    "onions_to_fetch": solve.onions_to_fetch,
}
"""EC kinds about the whole kitchen (no argument), by name, with their solvers."""


def ec_question(game: Overcooked, player: int, kind: str) -> QuestionDraft:
    """The EC question named by ``kind`` (see the module doc).

    Raises:
        ScenarioRejected: the kind is unknown or names an object the layout lacks.
    """
    name, _, arg = kind.partition(":")
    names = set(game.geometry.by_name)
    if name in _EC_OF_A_COOKER and arg in names:
        return _EC_OF_A_COOKER[name](game, player, arg)
    if name in _EC_OF_THE_KITCHEN and not arg:
        return _EC_OF_THE_KITCHEN[name](game, player)
    who, _, target = arg.partition(":")
    if name == "reachable" and who in ("me", "partner") and target in names:
        return solve.reachable(game, player, player if who == "me" else 1 - player, target)
    raise ScenarioRejected(
        f"unknown Overcooked EC kind {kind!r}; use onions_needed:<cooker>, onions_total, "
        "onions_to_fetch, "
        "onion_cooked_in:<cooker>, plate_filled_in:<cooker>, soup_timer:<cooker>, "
        "closer_cooker, reachable:me:<object> or reachable:partner:<object>"
    )


BUILDER = OvercookedBuilder()
"""The Overcooked question builder (registered in :data:`~coordqa.scenarios.builder.BUILDERS`)."""
