"""The partner behaviours HM and k-level ToM predict: the game's own space, one per agent.

Predictions are asked as a lettered choice among the partner's possible behaviours, so that code,
not a model, scores them against what the partner then does. Each game declares its space in its
profile (``GameProfile.agents.behaviour_space``, a :class:`coordqa.games.PartnerBehaviour`
subclass written in the game's package): Hanabi's next move, Overcooked's next completed object
action, the Collab games' action this turn (:class:`coordqa.games.PartnerActionBehaviour`).
"""

from __future__ import annotations

from coordqa.errors import ConfigError
from coordqa.games import PartnerBehaviour, game_profile


def behaviour_space(game_name: str) -> type[PartnerBehaviour]:
    """The behaviour space of ``game_name``: its profile's ``agents.behaviour_space``.

    Raises:
        ConfigError: the game's profile names none (said when the grid is read, by the agents'
            options check, and again here for an agent built by hand).
    """
    space = game_profile(game_name).agents.behaviour_space
    if space is None:
        raise ConfigError(
            f"HM and k-level ToM cannot predict a partner in game {game_name!r}: its GameProfile "
            "names no agents.behaviour_space. Set it to a coordqa.games.PartnerBehaviour "
            "subclass, e.g. coordqa.games.PartnerActionBehaviour for a game whose players "
            "complete one action per step."
        )
    return space


def behaviour_for(game_name: str) -> PartnerBehaviour:
    """A fresh behaviour space for one agent in ``game_name`` (see :func:`behaviour_space`)."""
    return behaviour_space(game_name)()
