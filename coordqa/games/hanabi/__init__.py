"""Hanabi (two players) on hanabi-learning-environment, with scripted players.

Importing this package registers the game ``"hanabi"`` and the scripted players
``hanabi-convention``, ``hanabi-iggi``, ``hanabi-piers``, ``hanabi-outer``,
``hanabi-internal``, ``hanabi-van-den-bergh``, ``hanabi-flawed`` and ``hanabi-legal-random``.
pyhanabi itself is loaded only when a game is built.
"""

from coordqa.games.hanabi import players  # noqa: F401  (registers the scripted players)
from coordqa.games.hanabi.game import CROSS_PLAY_SEEDS, SELF_PLAY_SEEDS, Hanabi

__all__ = ["CROSS_PLAY_SEEDS", "SELF_PLAY_SEEDS", "Hanabi"]
