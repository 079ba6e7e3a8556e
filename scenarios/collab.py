"""Scenario builders for Collab Capture and Collab Escape, and their curation script.

Candidates come from seeded play of the games' scripted players (the planners and the greedy
players, in every pairing) with seeded random perturbations, snapshotted at every turn for both
points of view. The questions are built by :mod:`coordqa.scenarios.collab_capture_qa` and
:mod:`coordqa.scenarios.collab_escape_qa`; a state is kept only when every answer is clear.

The curated lists are chosen by :mod:`coordqa.scenarios.curate_collab`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

from coordqa.errors import ConfigError
from coordqa.games import Game, make_game, make_player
from coordqa.games.base import Observation, Player, ScriptedPlayer
from coordqa.games.rooms import RoomGame
from coordqa.scenarios import collab_capture_qa, collab_escape_qa
from coordqa.scenarios.builder import ScenarioBuilder
from coordqa.scenarios.model import QuestionDraft, Scenario, ScenarioQuestions, ScenarioRejected

NOISE_LEVELS = (0.0, 0.25, 0.5)
"""Chance per agent per turn of replacing the scripted move by a random legal one."""

WARMUPS = (0, 3, 6)
"""Turns of purely random moves at the start of an episode (reaches unusual states)."""


@dataclass(frozen=True)
class CollabRules:
    """One Collab game's question builders, as the shared builder calls them."""

    ec_kinds_for: Callable[[Any, int], list[str]]
    ec_question: Callable[[Any, int, str], QuestionDraft]
    tom_question: Callable[[Any, int], QuestionDraft]
    jp_question: Callable[[Any, int], QuestionDraft]
    ec_kinds: tuple[str, ...]
    """Every EC kind, in the order the curation takes turns between them."""
    pairs: tuple[tuple[str, str], ...]
    """Scripted pairings that play the candidate episodes."""

    @classmethod
    def of(cls, questions: ModuleType, planner: str, greedy: str) -> CollabRules:
        """The rules of a game's question module, played by its planner and greedy player.

        The module offers ``ec_kinds_for``, ``ec_question``, ``tom_question``, ``jp_question``
        and ``EC_KINDS``; the candidate episodes pair the two players every way.
        """
        return cls(
            questions.ec_kinds_for,
            questions.ec_question,
            questions.tom_question,
            questions.jp_question,
            questions.EC_KINDS,
            ((planner, greedy), (greedy, planner), (greedy, greedy), (planner, planner)),
        )


class CollabBuilder(ScenarioBuilder):
    """What the two Collab builders share; each subclass names its game and its rules."""

    version = "2"
    rules: ClassVar[CollabRules]

    def questions(self, game: Game, scenario: Scenario) -> ScenarioQuestions:
        """EC of the scenario's kind (the first applicable one by default), ToM and JP.

        Raises:
            ScenarioRejected: the game is over, or a question has no clear answer.
        """
        if game.is_terminal():
            raise ScenarioRejected("the game is over: no decision to ask about")
        state, player = _room_state(game), scenario.player
        kind = scenario.kinds.get("EC") or self.rules.ec_kinds_for(state, player)[0]
        ec = self.rules.ec_question(state, player, kind)
        tom = self.rules.tom_question(state, player)
        jp = self.rules.jp_question(state, player)
        return ScenarioQuestions(ec, tom, jp)

    def candidates(self, seed: int) -> Iterator[Scenario]:
        """One seeded episode; every turn, both points of view, every applicable EC kind.

        The snapshot's game seed is set to 0: no answer depends on the killer's dice (the
        solvers take the worst case, and the thief has none), so two seeds reaching the same
        state give the same snapshot, and the fresh generator's de-duplication sees one state.
        The episode's real seed stays in ``reached_by``. The EC kinds rotate with the turn, so
        the first accepted kind of a state varies.
        """
        pair = self.rules.pairs[seed % len(self.rules.pairs)]
        noise = NOISE_LEVELS[(seed // len(self.rules.pairs)) % len(NOISE_LEVELS)]
        warmup = WARMUPS[(seed // (len(self.rules.pairs) * len(NOISE_LEVELS))) % len(WARMUPS)]
        rng = random.Random(f"{self.game}:{seed}")
        game = make_game(self.game, seed=seed)
        players = [_scripted(make_player(name, self.game)) for name in pair]
        for index, player in enumerate(players):
            player.reset(game.seat_view(index), index, seed + index)
        steps: list[list[str]] = []
        while not game.is_terminal():
            snapshot = {**game.snapshot(), "seed": 0}
            for me in (0, 1):
                kinds = self.rules.ec_kinds_for(_room_state(game), me)
                shift = (len(steps) + me) % len(kinds)
                for kind in kinds[shift:] + kinds[:shift]:
                    yield Scenario(
                        scenario_id=f"candidate-{self.game}-s{seed}-t{len(steps)}-p{me}-{kind}",
                        game=self.game,
                        layout=game.layout,
                        player=me,
                        snapshot=snapshot,
                        kinds={"EC": kind, "ToM": "partner_intent", "JP": "best_action"},
                        reached_by={
                            "seed": seed,
                            "players": list(pair),
                            "noise": noise,
                            "random_turns": warmup,
                            "steps": [list(s) for s in steps],
                        },
                    )
            moves = {}
            for p in (0, 1):
                legal = game.legal_actions(p)
                chosen = players[p].choose(Observation.of(game, p))
                random_move = len(steps) < warmup or rng.random() < noise
                moves[p] = rng.choice(legal) if random_move else chosen
            game.step(moves)
            steps.append([moves[0], moves[1]])


def _room_state(game: Game) -> Any:
    """The immutable rules state of a room game (the solvers' input)."""
    if not isinstance(game, RoomGame):
        raise ConfigError(
            f"the Collab builders take collab_capture or collab_escape, not {game.name}"
        )
    return game.state


def _scripted(player: Player) -> ScriptedPlayer:
    """The candidate search calls players synchronously; every pairing in the rules is scripted."""
    if not isinstance(player, ScriptedPlayer):
        raise ConfigError(f"candidate play needs scripted players, got {type(player).__name__}")
    return player


class CaptureBuilder(CollabBuilder):
    """Collab Capture: thief questions, partner intent and best action by fastest sure capture."""

    game = "collab_capture"
    rules = CollabRules.of(collab_capture_qa, "capture-planner", "capture-greedy")


class EscapeBuilder(CollabBuilder):
    """Collab Escape: fixing in time, the race to the exit, intent and best action (worst case)."""

    game = "collab_escape"
    rules = CollabRules.of(collab_escape_qa, "escape-planner", "escape-greedy")


CAPTURE = CaptureBuilder()
ESCAPE = EscapeBuilder()
