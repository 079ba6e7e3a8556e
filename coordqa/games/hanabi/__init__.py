"""Hanabi (two players) on hanabi-learning-environment, with scripted players.

The game ``"hanabi"`` and the scripted players (``hanabi-convention``, ``hanabi-iggi``,
``hanabi-piers``, ``hanabi-outer``, ``hanabi-internal``, ``hanabi-van-den-bergh``,
``hanabi-flawed``, ``hanabi-legal-random``: :data:`players.PLAYERS`) are in the registries of
:mod:`coordqa.games` whatever is imported. pyhanabi itself is loaded only when a game is built.
"""

from coordqa.games.hanabi.game import Hanabi
from coordqa.games.hanabi.profile import CROSS_PLAY_SEEDS, PROFILE, SELF_PLAY_SEEDS

__all__ = ["CROSS_PLAY_SEEDS", "PROFILE", "SELF_PLAY_SEEDS", "Hanabi"]
