"""The four coordination games as two-player text environments.

Importing this package registers every game and scripted player; the engines themselves
(overcooked-ai, hanabi-learning-environment) are imported only when a game is built.
"""

from coordqa.games.base import (
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
    register_player,
)
from coordqa.games.episode import StepRecord, Trajectory, play_episode, replay

__all__ = [
    "GAMES",
    "PLAYERS",
    "PLAYER_NAMES",
    "Game",
    "Observation",
    "Player",
    "PlayerSpec",
    "ScriptedPlayer",
    "StepRecord",
    "StepResult",
    "Trajectory",
    "make_game",
    "make_player",
    "play_episode",
    "register_player",
    "replay",
]

# Registration of the built-in games and scripted players (cheap: engines load lazily).
from coordqa.games import collab_capture, collab_escape, hanabi, overcooked  # noqa: E402,F401
