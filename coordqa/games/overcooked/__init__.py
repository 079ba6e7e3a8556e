"""Overcooked-AI (two chefs, onion soups) as a text game on overcooked-ai 1.1.0.

The game ``"overcooked"`` and the scripted players ``greedy_human`` and ``planner`` are in the
registries of :mod:`coordqa.games` whatever is imported; overcooked-ai itself is imported only
when a game is built.
``PRIMITIVES`` (primitive move name -> overcooked-ai ``Action``) is loaded on first access.
"""

from typing import Any

from coordqa.games.overcooked.engine import PRIMITIVE_NAMES
from coordqa.games.overcooked.game import DEFAULT_HORIZON, LAYOUTS, Overcooked
from coordqa.games.overcooked.players import GreedyHumanPlayer, PlannerPlayer
from coordqa.games.overcooked.tasks import Task

__all__ = [
    "DEFAULT_HORIZON",
    "LAYOUTS",
    "PRIMITIVES",
    "PRIMITIVE_NAMES",
    "GreedyHumanPlayer",
    "Overcooked",
    "PlannerPlayer",
    "Task",
]


def __getattr__(name: str) -> Any:
    """Load ``PRIMITIVES`` lazily (it needs overcooked-ai)."""
    if name == "PRIMITIVES":
        from coordqa.games.overcooked.engine import primitives

        return primitives()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
