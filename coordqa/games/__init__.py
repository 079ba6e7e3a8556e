"""The four coordination games as two-player text environments.

Every game and player name resolves through the registries :data:`GAMES` and :data:`PLAYERS`
without importing anything first (:mod:`coordqa.registry`); a game's module is imported when it
is first used, and the engines themselves (overcooked-ai, hanabi-learning-environment) only when
a game is built. Players are handed a :class:`SeatView` (what their seat may know), never the
game.
"""

from coordqa.games.base import (
    BUILTIN_GAMES,
    GAME_NAMES,
    GAMES,
    PLAYER_NAMES,
    PLAYERS,
    Game,
    Observation,
    Player,
    PlayerSpec,
    ScriptedPlayer,
    StepResult,
    make_game,
    make_player,
    player_catalog,
)
from coordqa.games.episode import StepRecord, Trajectory, play_episode, replay
from coordqa.games.seat import SeatView

__all__ = [
    "BUILTIN_GAMES",
    "GAMES",
    "GAME_NAMES",
    "PLAYERS",
    "PLAYER_NAMES",
    "Game",
    "Observation",
    "Player",
    "PlayerSpec",
    "ScriptedPlayer",
    "SeatView",
    "StepRecord",
    "StepResult",
    "Trajectory",
    "make_game",
    "make_player",
    "play_episode",
    "player_catalog",
    "replay",
]
