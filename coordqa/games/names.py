"""How the two seats are named in text: every game's descriptions and every agent's prompts.

Player 0 is Alice and player 1 is Bob in every game; an action is written for the player taking
it ("Play my Card 2"), and shown to anyone else in the third person ("Play his Card 2").
"""

from __future__ import annotations

import re

__all__ = ["PLAYER_NAMES", "PRONOUNS", "third_person"]

PLAYER_NAMES = ("Alice", "Bob")
"""Display names of player 0 and player 1, used in every description."""

PRONOUNS = ("her", "his")
"""Possessive pronoun of player 0 (Alice) and player 1 (Bob)."""

_MY = re.compile(r"\b([Mm])y\b")


def third_person(action: str, actor: int) -> str:
    """An action as text about ``actor``: the game's first-person words made third-person.

    Actions are written for the player taking them ("Play my Card 2"); shown to anyone else,
    they must say whose card it is.

    >>> third_person("Play my Card 2", 1)
    'Play his Card 2'
    >>> third_person("pick up onion from o0", 0)
    'pick up onion from o0'
    """
    pronoun = PRONOUNS[actor]
    return _MY.sub(lambda m: pronoun if m.group(1) == "m" else pronoun.capitalize(), action)
