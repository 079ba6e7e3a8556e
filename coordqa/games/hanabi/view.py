"""One player's view of a Hanabi game, as scripted players reason about it.

Built once per decision from the live game: the engine's hint knowledge for both hands, the
partner's visible cards, the board, and what each card can be after counting. Everything here is
information the player legitimately has (its own cards stay hidden).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from coordqa.errors import GameError
from coordqa.games.base import Game
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.game import Hanabi
from coordqa.games.hanabi.knowledge import (
    Board,
    Card,
    CardKnowledge,
    hand_knowledge,
    possible_cards,
)


def as_hanabi(game: Game) -> Hanabi:
    """``game`` as a Hanabi game; Hanabi players cannot sit at another game's table."""
    if not isinstance(game, Hanabi):
        raise GameError(f"Hanabi players can only play Hanabi, not {type(game).__name__}")
    return game


@dataclass
class View:
    """What player ``me`` knows now."""

    game: Hanabi
    """The live game (read only)."""
    me: int
    """The viewing player."""

    @property
    def partner(self) -> int:
        """The other player."""
        return 1 - self.me

    @property
    def state(self) -> Any:
        """The pyhanabi state."""
        return self.game.state

    @cached_property
    def board(self) -> Board:
        """Stacks and discards."""
        return Board.of(self.state)

    @cached_property
    def knowledge(self) -> tuple[list[CardKnowledge], list[CardKnowledge]]:
        """Engine hint knowledge of (my hand, the partner's hand)."""
        return hand_knowledge(self.state, self.me)

    @cached_property
    def partner_hand(self) -> list[Card]:
        """The partner's cards, oldest first."""
        return [(c.color(), c.rank()) for c in self.state.player_hands()[self.partner]]

    @cached_property
    def unseen(self) -> dict[Card, int]:
        """Copies of each card I cannot see (in my hand or the deck)."""
        return self.board.unseen(self.partner_hand)

    @cached_property
    def own_possible(self) -> list[list[Card]]:
        """For each of my cards, the identities it can still have."""
        return [possible_cards(k, self.unseen) for k in self.knowledge[0]]

    @cached_property
    def partner_possible(self) -> list[list[Card]]:
        """For each partner card, the identities public information allows (hints and board)."""
        public = self.board.unseen()
        return [possible_cards(k, public) for k in self.knowledge[1]]

    @cached_property
    def legal(self) -> list[str]:
        """My legal text actions now."""
        return self.game.legal_actions(self.me)

    @property
    def info_tokens(self) -> int:
        """Reveal tokens left."""
        return int(self.state.information_tokens())

    @property
    def lives(self) -> int:
        """Lives left."""
        return int(self.state.life_tokens())

    @property
    def deck_size(self) -> int:
        """Cards left to draw."""
        return int(self.state.deck_size())

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
