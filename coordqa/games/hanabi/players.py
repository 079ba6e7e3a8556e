"""The scripted Hanabi players (convention bot and Walton-Rivers rule agents) and their entries."""

from __future__ import annotations

import random
from typing import Any

from coordqa.games.base import (
    Observation,
    Player,
    PlayerSpec,
    ScriptedPlayer,
    player_catalog,
)
from coordqa.games.hanabi.convention_player import ConventionPlayer
from coordqa.games.hanabi.rules import AGENTS, RuleAgent
from coordqa.games.hanabi.view import View
from coordqa.games.seat import SeatView


class RulePlayer(ScriptedPlayer):
    """A Walton-Rivers rule agent seated at a Hanabi game; its randomness is seeded by reset."""

    def __init__(self, agent: RuleAgent) -> None:
        """Wrap ``agent``'s priority list."""
        self.agent = agent
        self.me = 0
        self.rng = random.Random(0)

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Seat the player; its random choices restart from ``seed``."""
        self.me = player
        self.rng = random.Random(seed)

    def choose(self, observation: Observation) -> str:
        """The first action the agent's rules propose."""
        return self.agent.decide(View(observation.view, self.me), self.rng)


def _rule_factory(agent: RuleAgent) -> Any:
    def factory(game_name: str, layout: str | None = None) -> Player:
        return RulePlayer(agent)

    return factory


def convention_factory(game_name: str, layout: str | None = None) -> Player:
    """Build a :class:`ConventionPlayer` (it takes no options)."""
    return ConventionPlayer()


PLAYERS = player_catalog(
    PlayerSpec(
        "hanabi-convention",
        ("hanabi",),
        convention_factory,
        "Follows the basic H-group conventions given to LLMs (play/save clues, chop)",
    ),
    *(
        PlayerSpec(agent.name, ("hanabi",), _rule_factory(agent), agent.description)
        for agent in AGENTS
    ),
)
"""The scripted Hanabi players: the convention bot and every rule agent."""
