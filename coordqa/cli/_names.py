"""Option callbacks that read the names a user types as the project spells them."""

from __future__ import annotations

__all__ = ["game_name"]


def game_name(value: str | None) -> str | None:
    """A game's name in any case (``Overcooked``: ``overcooked``), as ``coordqa eval`` reads it.

    A name no game has is passed on unchanged, for the command to refuse with suggestions.
    """
    from coordqa.games.base import GAMES

    return None if value is None else GAMES.spelled(value)
