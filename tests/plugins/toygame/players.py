"""Lamps' strong policy: the convention, played from the seat view's legal actions alone."""

from __future__ import annotations

from typing import Any

from coordqa.games import Observation, PlayerSpec, ScriptedPlayer, player_catalog
from toygame.game import convention


class ConventionPlayer(ScriptedPlayer):
    """Alice the lowest-numbered lamp that is off, Bob the highest; Bob waits for the last."""

    name = "lamps-convention"

    def choose(self, observation: Observation) -> str:
        off = [int(a.rsplit(" ", 1)[1]) for a in observation.legal_actions if a != "Wait"]
        return convention(sorted(off), observation.player)


def _factory(game: str, layout: str | None, **options: Any) -> ConventionPlayer:
    return ConventionPlayer()


PLAYERS = player_catalog(
    PlayerSpec("lamps-convention", ("lamps",), _factory, "Lamps: follows the convention")
)
"""The players this package adds (entry point group ``coordqa.players``)."""
