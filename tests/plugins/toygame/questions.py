"""Lamps' CoordinationQA questions: one scenario per seed and seat, solved by the convention."""

from __future__ import annotations

from collections.abc import Iterator

from coordqa.errors import GameError
from coordqa.games import PLAYER_NAMES, Game
from coordqa.scenarios import (
    QuestionDraft,
    Scenario,
    ScenarioBuilder,
    ScenarioQuestions,
    ScenarioRejected,
)
from toygame.game import LAMPS, Lamps, convention


class LampsBuilder(ScenarioBuilder):
    """EC: how many lamps are off; ToM: the partner's move; JP: my move (both by convention)."""

    game = "lamps"
    version = "1"

    def candidates(self, seed: int) -> Iterator[Scenario]:
        start = Lamps(seed=seed)
        for player in (0, 1):
            yield Scenario(f"lamps-s{seed}-p{player}", "lamps", "default", player, start.snapshot())

    def questions(self, game: Game, scenario: Scenario) -> ScenarioQuestions:
        if not isinstance(game, Lamps):
            raise GameError(f"the Lamps builder got a {game.name} game")
        me, partner = scenario.player, 1 - scenario.player
        off = game.off()
        if len(off) < 2:
            raise ScenarioRejected("with one lamp off, the partner's move is only waiting")
        counts = tuple(f"{n} lamp{'' if n == 1 else 's'} off" for n in range(LAMPS + 1))
        name = PLAYER_NAMES[partner]

        def draft(kind: str, question: str, options: list[str], answer: str) -> QuestionDraft:
            return QuestionDraft(
                kind,
                kind.lower(),
                question,
                tuple(options),
                (options.index(answer),),
                f"the convention gives {answer!r}",
                f"{kind} in lamps",
            )

        return ScenarioQuestions(
            ec=draft("EC", "How many lamps are off now?", list(counts), counts[len(off)]),
            tom=draft(
                "ToM",
                f"Following the convention, what will {name} do this turn?",
                game.legal_actions(partner),
                convention(off, partner),
            ),
            jp=draft(
                "JP", "Which action should I take?", game.legal_actions(me), convention(off, me)
            ),
        )


BUILDER = LampsBuilder()
"""Lamps' scenario builder (registered by the ``coordqa.scenario_builders`` entry point)."""
