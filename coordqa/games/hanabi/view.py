"""One player's view of a Hanabi game, as scripted players reason about it.

Built once per decision from the seat's view (:class:`~coordqa.games.seat.SeatView`), whose
observation is the engine's per-player observation: the hint knowledge of both hands, the
partner's visible cards, the board, and what each card can be after counting. The own cards are
hidden by the engine, so nothing here can depend on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from coordqa.errors import GameError
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.describe import Turn
from coordqa.games.hanabi.knowledge import (
    Board,
    Card,
    CardKnowledge,
    own_identities,
    public_identities,
    seat_hands,
)
from coordqa.games.seat import SeatView


@dataclass(frozen=True)
class HanabiSeatObservation:
    """What one Hanabi seat sees: its engine observation and the public record of moves."""

    engine: Any
    """pyhanabi ``HanabiObservation`` of the seat: the partner's cards, both hands' hint
    knowledge (own hand first), board, tokens, deck size and legal moves; the own cards are
    hidden by the engine (colour and rank -1). A copy made by the engine: it does not follow the
    game."""
    turns: tuple[Turn, ...]
    """Every completed move with its public outcome (cards played or discarded are shown to
    both players)."""


def hanabi_seat(view: SeatView) -> HanabiSeatObservation:
    """The Hanabi observation of ``view``; Hanabi players cannot sit at another game's table."""
    seen = view.observation()
    if not isinstance(seen, HanabiSeatObservation):
        raise GameError(f"Hanabi players can only play Hanabi, not {view.name}")
    return seen


@dataclass
class View:
    """What player ``me`` knows now."""

    seat: SeatView
    """The seat's view of the game."""
    me: int
    """The viewing player."""
    public_only: bool = False
    """Judge my own cards from public information only (hints, stacks, discards), as the
    partner's text shows them, instead of also counting the partner's hand I see: what my
    move would be if I did not look at it (scenario solvers compare the two)."""

    @property
    def partner(self) -> int:
        """The other player."""
        return 1 - self.me

    @cached_property
    def observation(self) -> Any:
        """The engine's observation of my seat (my cards hidden)."""
        return hanabi_seat(self.seat).engine

    @cached_property
    def board(self) -> Board:
        """Stacks and discards."""
        return Board.of(self.observation)

    @cached_property
    def knowledge(self) -> tuple[list[CardKnowledge], list[CardKnowledge]]:
        """Engine hint knowledge of (my hand, the partner's hand)."""
        hands = seat_hands(self.observation, self.me)
        return hands[self.me], hands[self.partner]

    @cached_property
    def partner_hand(self) -> list[Card]:
        """The partner's cards, oldest first (the engine shows them to me)."""
        return [(c.color(), c.rank()) for c in self.observation.observed_hands()[1]]

    @cached_property
    def unseen(self) -> dict[Card, int]:
        """Copies of each card I cannot see (in my hand or the deck)."""
        return self.board.unseen(self.partner_hand)

    @cached_property
    def own_possible(self) -> list[list[Card]]:
        """For each of my cards, the identities it can still have (:func:`own_identities`)."""
        if self.public_only:
            return public_identities(self.knowledge[0], self.board)
        return own_identities(self.knowledge[0], self.board, self.partner_hand)

    @cached_property
    def partner_possible(self) -> list[list[Card]]:
        """For each partner card, the identities public information allows (hints and board)."""
        return public_identities(self.knowledge[1], self.board)

    @cached_property
    def legal(self) -> list[str]:
        """My legal text actions now."""
        return self.seat.legal_actions(self.me)

    @property
    def info_tokens(self) -> int:
        """Reveal tokens left."""
        return int(self.observation.information_tokens())

    @property
    def lives(self) -> int:
        """Lives left."""
        return int(self.observation.life_tokens())

    @property
    def deck_size(self) -> int:
        """Cards left to draw."""
        return int(self.observation.deck_size())

    def can_discard(self) -> bool:
        """Discarding is legal (fewer than 8 reveal tokens)."""
        return self.info_tokens < engine.MAX_INFO_TOKENS

    def can_reveal(self) -> bool:
        """A reveal token is available."""
        return self.info_tokens > 0

    def reveal_texts(self, index: int) -> list[str]:
        """The reveals (colour, then rank) that touch the partner's card ``index``."""
        color, rank = self.partner_hand[index]
        return [
            engine.reveal_color_text(self.me, color),
            engine.reveal_rank_text(self.me, rank),
        ]
