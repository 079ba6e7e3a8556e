"""Option callbacks that read the names a user types as the project spells them."""

from __future__ import annotations

__all__ = ["game_name", "model_name", "player_name", "player_names"]


def game_name(value: str | None) -> str | None:
    """A game's name in any case (``Overcooked``: ``overcooked``), as ``coordqa eval`` reads it.

    A name no game has is passed on unchanged, for the command to refuse with suggestions.
    """
    from coordqa.games.base import GAMES

    return None if value is None else GAMES.spelled(value)


def model_name(value: str | None) -> str | None:
    """A built-in model's name in any case (``Random``: ``random``), as the library reads it.

    So a default run folder named after the model is the same folder; any other model name is
    a provider's, case-sensitive, and passed on as given
    (:func:`coordqa.llm.registry.spelled_model`).
    """
    from coordqa.llm.registry import spelled_model

    return None if value is None else spelled_model(value)


def player_name(value: str | None) -> str | None:
    """An agent's or partner's name in any case (``CAC``: ``cac``), as games' names are read.

    The docs call the agents CAC and HM; ``--agent CAC`` was refused as unknown with no
    suggestion (walkthrough 11, #84). A name no player has is passed on unchanged, for the
    command to refuse with suggestions.
    """
    from coordqa.games.base import PLAYERS

    return None if value is None else PLAYERS.spelled(value)


def player_names(values: list[str] | None) -> list[str] | None:
    """:func:`player_name` of each name of a repeated option (``--agent CAC --agent HM``)."""
    from coordqa.games.base import PLAYERS

    return None if values is None else [PLAYERS.spelled(value) for value in values]
