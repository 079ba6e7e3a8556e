"""What can be deduced about cards from the engine's hint knowledge and the visible cards.

The engine (``HanabiCardKnowledge``) records which colours and ranks each card may still have,
given every hint so far. These helpers combine that with card counting to answer the questions
every strategy asks: is this card surely playable, surely useless, the last copy? No Hanabi rule
is re-implemented here beyond the deck composition and "a card plays when its rank is one above
its stack".

There is one model of what a player knows, used by the state text, the scripted players and the
scenario solvers alike (so a question never hinges on how a reader takes the printed lists):

- :func:`own_identities`: a player's own cards, counting everything that player sees (stacks,
  discards, the partner's hand) and the player's other cards that hints pin down;
- :func:`public_identities`: what anyone can deduce about a hand from public information only
  (hints, stacks, discards): the partner's knowledge as I can know it, and the knowledge clues
  are read by (both players reach the same reading).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from coordqa.games.hanabi.engine import COLORS, COPIES, RANKS

Card = tuple[int, int]
"""(colour index, rank index) as the engine numbers them."""


@dataclass(frozen=True)
class CardKnowledge:
    """A plain copy of the engine's ``HanabiCardKnowledge`` for one card.

    pyhanabi's knowledge objects point into the observation that made them and dangle once it is
    freed, so they are copied out while the observation is alive (see :func:`hand_knowledge`).
    """

    colors: tuple[int, ...]
    """Colour indices the card may still have (``color_plausible``)."""
    ranks: tuple[int, ...]
    """Rank indices the card may still have (``rank_plausible``)."""
    color: int | None
    """The colour index if a reveal named it directly, else None."""
    rank: int | None
    """The rank index if a reveal named it directly, else None."""

    @classmethod
    def of(cls, knowledge: Any) -> CardKnowledge:
        """Copy a pyhanabi ``HanabiCardKnowledge``."""
        return cls(
            tuple(c for c in range(len(COLORS)) if knowledge.color_plausible(c)),
            tuple(r for r in range(len(RANKS)) if knowledge.rank_plausible(r)),
            knowledge.color(),
            knowledge.rank(),
        )

    @property
    def clued(self) -> bool:
        """Whether a reveal has ever touched this card."""
        return self.color is not None or self.rank is not None


def hand_knowledge(state: Any, viewer: int) -> tuple[list[CardKnowledge], list[CardKnowledge]]:
    """The engine's knowledge of (``viewer``'s own hand, the partner's hand).

    Hints are public, so both players agree on both lists.
    """
    observation = state.observation(viewer)
    own, partner = observation.card_knowledge()
    return [CardKnowledge.of(k) for k in own], [CardKnowledge.of(k) for k in partner]


def seat_hands(observation: Any, seat: int) -> list[list[CardKnowledge]]:
    """The hint knowledge of player 0's and player 1's hands, from ``seat``'s engine observation.

    Hints are public, so a seat's observation carries the knowledge of both hands (its own
    first); this puts them in player order.
    """
    own, partner = ([CardKnowledge.of(k) for k in h] for h in observation.card_knowledge())
    return [own, partner] if seat == 0 else [partner, own]


def state_hands(state: Any) -> list[list[CardKnowledge]]:
    """The hint knowledge of player 0's and player 1's hands in a full engine state."""
    return [hand_knowledge(state, player)[0] for player in (0, 1)]


def after_reveal(
    hand: Sequence[CardKnowledge], cards: Sequence[Card], color: int | None, rank: int | None
) -> list[CardKnowledge]:
    """The knowledge of ``hand`` (whose cards are ``cards``) after a reveal of ``color``/``rank``.

    Computed here so a player can look ahead at a reveal from what it sees (the partner's
    cards), without the engine state.
    """
    touched = [
        (color is not None and card[0] == color) or (rank is not None and card[1] == rank)
        for card in cards
    ]
    return reveal_knowledge(hand, touched, color, rank)


def reveal_knowledge(
    hand: Sequence[CardKnowledge], touched: Sequence[bool], color: int | None, rank: int | None
) -> list[CardKnowledge]:
    """The knowledge of ``hand`` after a reveal of ``color`` or ``rank`` that touched ``touched``.

    The engine's rule (``HanabiCardKnowledge``): a touched card's colour (rank) becomes the named
    one, every other card loses it as a possibility. Needs only which positions were touched,
    which the move record shows both players.
    """
    after = []
    for knowledge, hit in zip(hand, touched, strict=True):
        if color is not None:
            colors = (color,) if hit else tuple(c for c in knowledge.colors if c != color)
            knowledge = CardKnowledge(
                colors, knowledge.ranks, color if hit else knowledge.color, knowledge.rank
            )
        if rank is not None:
            ranks = (rank,) if hit else tuple(r for r in knowledge.ranks if r != rank)
            knowledge = CardKnowledge(
                knowledge.colors, ranks, knowledge.color, rank if hit else knowledge.rank
            )
        after.append(knowledge)
    return after


@dataclass(frozen=True)
class Board:
    """The public cards: fireworks and discards, with the questions asked about them."""

    fireworks: tuple[int, ...]
    """Height of each colour's stack (0 = empty), in engine colour order."""
    discards: tuple[Card, ...]
    """Discarded (and misplayed) cards."""

    @classmethod
    def of(cls, state_or_observation: Any) -> Board:
        """The board of a pyhanabi state or observation."""
        return cls(
            tuple(state_or_observation.fireworks()),
            tuple((c.color(), c.rank()) for c in state_or_observation.discard_pile()),
        )

    def playable(self, card: Card) -> bool:
        """The card goes on its stack now."""
        return self.fireworks[card[0]] == card[1]

    def discarded(self, card: Card) -> int:
        """Copies of ``card`` in the discard pile."""
        return self.discards.count(card)

    def useless(self, card: Card) -> bool:
        """The card can never score: already played, or a lower card of its colour is gone."""
        color, rank = card
        if rank < self.fireworks[color]:
            return True
        return any(
            self.discarded((color, lower)) == COPIES[lower]
            for lower in range(self.fireworks[color], rank)
        )

    def critical(self, card: Card) -> bool:
        """The card is still needed and every other copy has been discarded."""
        return not self.useless(card) and self.discarded(card) == COPIES[card[1]] - 1

    def unseen(self, visible: Iterable[Card] = ()) -> dict[Card, int]:
        """Copies of each card not on the stacks, not discarded and not in ``visible``."""
        counts = {
            (c, r): COPIES[r] - self.discarded((c, r)) - (1 if r < self.fireworks[c] else 0)
            for c in range(len(COLORS))
            for r in range(len(RANKS))
        }
        for card in visible:
            counts[card] -= 1
        return counts


def possible_cards(knowledge: CardKnowledge, unseen: dict[Card, int]) -> list[Card]:
    """Identities this card can have: hint-plausible and with an unseen copy left.

    Falls back to the hint-plausible identities alone when counting rules all of them out, which
    happens only if ``unseen`` came from a view that includes the card itself.
    """
    plausible = [(c, r) for c in knowledge.colors for r in knowledge.ranks]
    counted = [card for card in plausible if unseen[card] > 0]
    return counted or plausible


def surely(cards: Sequence[Card], test: Any) -> bool:
    """``test`` holds for every possible identity (and there is at least one)."""
    return bool(cards) and all(test(card) for card in cards)


def chance(cards: Sequence[Card], unseen: dict[Card, int], test: Any) -> float:
    """Probability that ``test`` holds, weighting each identity by its unseen copies."""
    weights = [max(unseen[card], 0) for card in cards]
    total = sum(weights)
    if total == 0:
        return 1.0 if surely(cards, test) else 0.0
    return sum(w for card, w in zip(cards, weights, strict=True) if test(card)) / total


def hand_identities(hand: Sequence[CardKnowledge], unseen: dict[Card, int]) -> list[list[Card]]:
    """For each card of a hidden hand, the identities it can have with the rest of the hand.

    :func:`possible_cards` counts each card on its own, so two cards of one hand may both be "the
    last Red 5". Here an identity stays possible only if every other card of the hand can still
    be given an identity from the copies left: a card known to be the only Red 5 rules Red 5 out
    for every other card (and so does any forced assignment). The truth is always one such
    assignment, so no card is left without identities.
    """
    options = [possible_cards(k, unseen) for k in hand]
    result = []
    for index, own in enumerate(options):
        others = sorted((o for i, o in enumerate(options) if i != index), key=len)
        fits = []
        for card in own:
            left = dict(unseen)
            left[card] -= 1
            if left[card] >= 0 and _assignable(others, left):
                fits.append(card)
        result.append(fits or own)
    return result


def own_identities(
    hand: Sequence[CardKnowledge], board: Board, partner_cards: Sequence[Card]
) -> list[list[Card]]:
    """What a player knows of each of its own cards: hints, the board, the partner's hand.

    Counted over the whole hand (:func:`hand_identities`), so a card that hints pin down is a seen
    copy for the player's other cards.
    """
    return hand_identities(hand, board.unseen(partner_cards))


def public_identities(hand: Sequence[CardKnowledge], board: Board) -> list[list[Card]]:
    """What public information (hints, stacks, discards) tells about each card of a hand."""
    return hand_identities(hand, board.unseen())


def private_certainties(
    hand: Sequence[CardKnowledge], board: Board, other_cards: Sequence[Card]
) -> list[tuple[int, str]]:
    """Cards of ``hand`` that only counting ``other_cards`` makes surely playable or useless.

    ``other_cards`` is the other player's hand, which the holder of ``hand`` sees and that other
    player does not: where it changes what the holder knows for sure, the holder's next move
    cannot be predicted from public information. Returns (card index, "playable"/"useless").
    """
    private = own_identities(hand, board, other_cards)
    public = public_identities(hand, board)
    return [
        (index, what)
        for index, (mine, listed) in enumerate(zip(private, public, strict=True))
        for test, what in ((board.playable, "playable"), (board.useless, "useless"))
        if surely(mine, test) != surely(listed, test)
    ]


def _assignable(options: Sequence[Sequence[Card]], left: dict[Card, int]) -> bool:
    """Whether each card can take one of its ``options`` with at most ``left`` copies each."""
    if not options:
        return True
    for card in options[0]:
        if left[card] > 0:
            left[card] -= 1
            fits = _assignable(options[1:], left)
            left[card] += 1
            if fits:
                return True
    return False
