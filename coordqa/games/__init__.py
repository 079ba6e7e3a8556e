"""The four coordination games as two-player text environments.

Every game and player name resolves through the registries :data:`GAMES` and :data:`PLAYERS`
without importing anything first (:mod:`coordqa.registry`); a game's module is imported when it
is first used, and the engines themselves (overcooked-ai, hanabi-learning-environment) only when
a game is built. Players are handed a :class:`SeatView` (what their seat may know), never the
game. Each game class carries its :class:`GameProfile` (:func:`game_profile`): everything the
tracks need to know about it; its ``agents`` part (:class:`AgentProfile`) holds the game's code
for the agents' theory-of-mind features, against the contracts exported here
(:class:`BeliefFact`, :class:`PartnerBehaviour`, :class:`LadderQuestion`...), which a plugin
game imports from this module.
"""

from coordqa.games.agent_profile import (
    LADDER_ORDERS,
    AgentProfile,
    BeliefFact,
    BeliefFacts,
    LadderOrder,
    LadderQuestion,
    PaperDescription,
    PartnerActionBehaviour,
    PartnerBehaviour,
    PartnerInfoRedaction,
    ReportTable,
    TomLadder,
)
from coordqa.games.base import (
    ANY_GAME,
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
    SeatSecrets,
    StepResult,
    game_profile,
    make_game,
    make_player,
    player_catalog,
)
from coordqa.games.episode import StepRecord, Trajectory, play_episode, replay
from coordqa.games.profile import GameProfile, WinCondition
from coordqa.games.seat import SeatView

__all__ = [
    "ANY_GAME",
    "AgentProfile",
    "BeliefFact",
    "BeliefFacts",
    "LADDER_ORDERS",
    "LadderOrder",
    "LadderQuestion",
    "PaperDescription",
    "PartnerActionBehaviour",
    "PartnerBehaviour",
    "PartnerInfoRedaction",
    "TomLadder",
    "BUILTIN_GAMES",
    "GAMES",
    "GAME_NAMES",
    "PLAYERS",
    "PLAYER_NAMES",
    "Game",
    "GameProfile",
    "Observation",
    "Player",
    "PlayerSpec",
    "ReportTable",
    "ScriptedPlayer",
    "SeatSecrets",
    "SeatView",
    "StepRecord",
    "StepResult",
    "Trajectory",
    "WinCondition",
    "game_profile",
    "make_game",
    "make_player",
    "play_episode",
    "player_catalog",
    "replay",
]
