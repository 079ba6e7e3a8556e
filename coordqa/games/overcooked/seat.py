"""What one Overcooked seat is handed, and the layout geometry every reader of it shares.

The game (:mod:`coordqa.games.overcooked.game`) builds a :class:`OvercookedSeatObservation` for
each seat; players, the paper's long-term memory and the agents' belief facts read it through
:func:`kitchen`, without importing the game.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from coordqa.errors import GameError
from coordqa.games.overcooked import engine
from coordqa.games.overcooked.layout import Geometry, terrain_rows
from coordqa.games.overcooked.tasks import Task
from coordqa.games.seat import SeatView

__all__ = ["OvercookedSeatObservation", "geometry", "kitchen"]


@functools.cache
def geometry(layout: str) -> Geometry:
    """The layout's geometry, shared by every game on it (its distance cache grows once)."""
    return Geometry(layout, terrain_rows(engine.gridworld(layout).terrain_mtx))


@dataclass(frozen=True)
class OvercookedSeatObservation:
    """What one chef sees: the whole kitchen and the partner's current action.

    Overcooked is fully observable. The partner's medium-level action in progress counts as
    public: the partner's moves head for it in plain sight (the planner has always read it).
    """

    state: Any
    """A copy of the overcooked-ai ``OvercookedState`` (changing it changes nothing)."""
    partner_task: Task | None
    """The partner's medium-level action in progress, if any."""


def kitchen(view: SeatView, player: str = "this player") -> OvercookedSeatObservation:
    """The Overcooked observation of a seat's view; another game's view is a GameError."""
    seen = view.observation()
    if not isinstance(seen, OvercookedSeatObservation):
        raise GameError(f"{player} can only play overcooked, not {view.name}")
    return seen
