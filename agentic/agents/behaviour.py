"""The partner behaviours HM predicts, and how code recognises them when they happen.

Predictions are asked as a lettered choice among the partner's possible behaviours, so that code,
not a model, scores them against what the partner then does. Each game's profile names its space
(``GameProfile.behaviour_space``); the spaces here are the four games':

- Hanabi: the partner's next move, type and target ("Bob: Play his Card 2", "Bob: Reveal Alice's
  rank 1 cards"), all 20 move forms of the two-player game.
- Overcooked: the kind of the partner's next completed object action (picks up an onion, loads a
  soup onto a plate, ...), read from the partner's action history, so it works with partners that
  move by primitives too. "wait" and "move away" are not behaviours: they change nothing.
- Collab games (and any game whose players finish one action per step): the partner's action
  this turn, among its legal actions (rooms or press/fix/wait).
"""

from __future__ import annotations

import abc

from coordqa.agentic.agents.memory import PRONOUNS, third_person
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES, StepResult, game_profile
from coordqa.games.seat import SeatView


class PartnerBehaviour(abc.ABC):
    """How one game's partner behaviour is offered for prediction and observed."""

    @abc.abstractmethod
    def question(self, player: int) -> str:
        """The prediction question, from ``player``'s point of view."""

    @abc.abstractmethod
    def options(self, game: SeatView, player: int) -> list[str]:
        """The partner behaviours to choose among now (the prediction's lettered options)."""

    @abc.abstractmethod
    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's behaviours that happened in this step, as option texts (oldest first)."""

    def reset(self, game: SeatView, player: int) -> None:  # noqa: B027 (optional hook)
        """Start a new episode (for spaces that track the game's histories)."""


class HanabiBehaviour(PartnerBehaviour):
    """The partner's next Hanabi move."""

    def question(self, player: int) -> str:
        """What the partner does on its next turn."""
        partner = 1 - player
        return f"What will {PLAYER_NAMES[partner]} do on {PRONOUNS[partner]} next turn?"

    def _text(self, action: str, partner: int) -> str:
        return f"{PLAYER_NAMES[partner]}: {third_person(action, partner)}"

    def options(self, game: SeatView, player: int) -> list[str]:
        """Every move form of the partner (play/discard a card, reveal a colour or rank)."""
        from coordqa.games.hanabi.engine import uid_texts

        partner = 1 - player
        return [self._text(action, partner) for action in uid_texts(partner)]

    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's move, when it moved in this step."""
        partner = 1 - player
        action = result.completed.get(partner)
        return [] if action is None else [self._text(action, partner)]


OVERCOOKED_KINDS: tuple[tuple[str, str], ...] = (
    ("pick up onion", "picks up an onion"),
    ("pick up plate", "picks up a plate"),
    ("pick up soup", "picks up a soup from a counter"),
    ("place onion in", "places an onion in a cooker"),
    ("load soup on plate", "loads a soup onto a plate"),
    ("place soup for delivery", "delivers a soup"),
    ("place onion on", "puts an onion on a counter"),
    ("place plate on", "puts a plate on a counter"),
    ("place soup on", "puts a soup on a counter"),
)
"""Action-text prefix -> the behaviour kind it is (the Overcooked action vocabulary)."""


class OvercookedBehaviour(PartnerBehaviour):
    """The kind of the partner's next completed object action."""

    def __init__(self) -> None:
        """Track how much of the partner's history has been seen."""
        self._seen = 0

    def reset(self, game: SeatView, player: int) -> None:
        """Start from the partner's history as it is now."""
        self._seen = len(game.last_actions(1 - player))

    def question(self, player: int) -> str:
        """What the partner's next object action is."""
        return f"What will {PLAYER_NAMES[1 - player]} do next?"

    def options(self, game: SeatView, player: int) -> list[str]:
        """The nine kinds of object action."""
        partner = PLAYER_NAMES[1 - player]
        return [f"{partner} {kind}" for _, kind in OVERCOOKED_KINDS]

    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's object actions that took effect since the last call."""
        history = game.last_actions(1 - player)
        new, self._seen = history[self._seen :], len(history)
        partner = PLAYER_NAMES[1 - player]
        kinds = [_overcooked_kind(action) for action in new]
        return [f"{partner} {kind}" for kind in kinds if kind is not None]


def _overcooked_kind(action: str) -> str | None:
    return next((kind for prefix, kind in OVERCOOKED_KINDS if action.startswith(prefix)), None)


class PartnerActionBehaviour(PartnerBehaviour):
    """The partner's action this turn, among its legal actions.

    For games whose players both finish one action per step (the Collab games).
    """

    def question(self, player: int) -> str:
        """Which action the partner takes this turn."""
        return f"Which action will {PLAYER_NAMES[1 - player]} take this turn?"

    def options(self, game: SeatView, player: int) -> list[str]:
        """The partner's legal actions now."""
        return game.legal_actions(1 - player)

    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's action, completed this turn."""
        action = result.completed.get(1 - player)
        return [] if action is None else [action]


def behaviour_for(game_name: str) -> PartnerBehaviour:
    """A fresh behaviour space for ``game_name``: its profile's ``behaviour_space``.

    Raises:
        ConfigError: the game's profile names no behaviour space, or names something that is
            not a :class:`PartnerBehaviour` class.
    """
    space = game_profile(game_name).load("behaviour_space")
    if space is None:
        raise ConfigError(
            f"HM cannot predict a partner in game {game_name!r}: its GameProfile names no "
            "behaviour_space. Set it to a PartnerBehaviour class, e.g. "
            "'coordqa.agentic.agents.behaviour:PartnerActionBehaviour' for a game whose players "
            "complete one action per step."
        )
    if not (isinstance(space, type) and issubclass(space, PartnerBehaviour)):
        raise ConfigError(
            f"the behaviour_space of game {game_name!r} is {space!r}, not a PartnerBehaviour "
            "subclass (coordqa.agentic.agents.behaviour.PartnerBehaviour)"
        )
    return space()
