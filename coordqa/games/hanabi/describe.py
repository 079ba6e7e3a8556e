"""The working-memory text of a Hanabi state (LLM-Coordination paper, Appendix B.2 order).

One function renders what a player knows: whose turn it is, the stacks, what the player's own cards
can be, the partner's cards and what the partner can know about them (the one knowledge model of
:mod:`coordqa.games.hanabi.knowledge`: hints plus counting, the lists the solvers read),
tokens, lives, deck, discards, the player's action history and the partner's last action, and the
precomputed next playable card of every stack (LLMs miscount). "Available Actions:" is appended by
the prompt layer, not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from coordqa.games.base import PLAYER_NAMES
from coordqa.games.hanabi.engine import COLORS, RANKS, card_name
from coordqa.games.hanabi.knowledge import (
    Board,
    Card,
    hand_knowledge,
    own_identities,
    public_identities,
)

PRONOUNS = ("her", "his")
"""Possessive pronouns of Alice and Bob, as the paper's text uses them ("Bob believes his Card")."""


@dataclass(frozen=True)
class Turn:
    """One completed move and what it did, as every player saw it."""

    player: int
    """Who moved (0 Alice, 1 Bob)."""
    action: str
    """The text action, in the mover's words ("Play my Card 2")."""
    card: Card | None = None
    """The card played or discarded, None for reveals."""
    scored: bool = False
    """A played card was added to its stack."""
    touched: tuple[int, ...] = ()
    """Positions in the partner's hand a reveal touched."""
    newly: tuple[int, ...] = ()
    """Of ``touched``, the positions no earlier reveal had touched."""


def knowledge_text(cards: Sequence[Card]) -> str:
    """``"[Red, Blue] [1, 2] except Blue 2"``: the identities a card can have.

    The colours and ranks that occur among ``cards``, then every pairing of them that is not
    among ``cards`` (every copy is seen elsewhere): the list says exactly which cards it can be.
    """
    colors = sorted({c for c, _ in cards})
    ranks = sorted({r for _, r in cards})
    missing = [(c, r) for c in colors for r in ranks if (c, r) not in cards]
    text = f"[{', '.join(COLORS[c] for c in colors)}] [{', '.join(str(RANKS[r]) for r in ranks)}]"
    return text + (f" except {', '.join(card_name(*c) for c in missing)}" if missing else "")


def turn_text(turn: Turn, viewer: int) -> str:
    """One sentence telling ``viewer`` what ``turn`` did, in the viewer's words."""
    actor = "I" if turn.player == viewer else PLAYER_NAMES[turn.player]
    whose = "my" if turn.player == viewer else PRONOUNS[turn.player]
    index = turn.action.rsplit(" ", 1)[-1]
    if turn.card is not None and turn.action.startswith("Play"):
        name = card_name(*turn.card)
        outcome = (
            f"it was added to the {COLORS[turn.card[0]]} stack"
            if turn.scored
            else "it was not playable, so it was discarded and a life was lost"
        )
        return f"{actor} played {whose} Card {index}, a {name}: {outcome}."
    if turn.card is not None:
        return f"{actor} discarded {whose} Card {index}, a {card_name(*turn.card)}."
    target = "my" if turn.player != viewer else f"{PLAYER_NAMES[1 - turn.player]}'s"
    about = turn.action.split("'s ", 1)[1].removesuffix(" cards")
    cards = " and ".join(f"Card {i}" for i in turn.touched)
    newly = " and ".join(f"Card {i}" for i in turn.newly) or "none"
    return f"{actor} revealed {target} {about} cards: {target} {cards} (newly touched: {newly})."


MARK_TEXTS = {"": " (touched)", "play": " (touched: play clue)", "save": " (touched: save clue)"}
"""How a card's clue mark is shown after its knowledge; untouched cards show nothing."""


def mark_text(touched: bool, mark: str) -> str:
    """``" (touched: play clue)"``: whether a reveal touched the card, and how it was read.

    Empty for an untouched card; the reading is the one of the reveals that focused the card.
    """
    return MARK_TEXTS[mark] if touched else ""


def stack_line(fireworks: Sequence[int]) -> str:
    """``"Red - Red 1, Yellow - Yellow 0, ..."``."""
    pairs = zip(COLORS, fireworks, strict=True)
    return ", ".join(f"{color} - {color} {height}" for color, height in pairs)


def next_playable_lines(fireworks: Sequence[int]) -> list[str]:
    """For each stack, the one card that can be played on it, or that it is full."""
    return [
        f"{color} Stack is Full."
        if height == len(RANKS)
        else f"Only {color} {height + 1} can be played on {color} Stack"
        for color, height in zip(COLORS, fireworks, strict=True)
    ]


def describe_state(
    state: Any,
    player: int,
    turns: Sequence[Turn],
    score: int,
    touched: Sequence[Sequence[bool]],
    marks: Sequence[Sequence[str]],
) -> str:
    """The working-memory text for ``player`` of a pyhanabi ``state`` after ``turns``.

    ``touched`` and ``marks`` (per player, per card) say which cards reveals have touched and how
    the reveals that focused them were read (see :mod:`coordqa.games.hanabi.clues`).
    """
    partner = PLAYER_NAMES[1 - player]
    pronoun = PRONOUNS[1 - player]
    own_knowledge, partner_knowledge = hand_knowledge(state, player)
    partner_hand = state.player_hands()[1 - player]
    board = Board.of(state)
    seen = [(c.color(), c.rank()) for c in partner_hand]
    own = own_identities(own_knowledge, board, seen)
    partners = public_identities(partner_knowledge, board)
    if state.is_terminal():
        header = f"The game is over (I am {PLAYER_NAMES[player]}). Final score: {score}."
    elif state.cur_player() == player:
        header = f"It is my turn (I am {PLAYER_NAMES[player]}, playing with {partner})."
    else:
        header = f"It is {partner}'s turn (I am {PLAYER_NAMES[player]})."
    mine = [t.action for t in turns if t.player == player]
    partner_turns = [t for t in turns if t.player != player]
    last = f"{partner} has not acted yet."
    if partner_turns:
        last = turn_text(partner_turns[-1], player)
    discards = ", ".join(card_name(c.color(), c.rank()) for c in state.discard_pile())
    shown = " ".join(f"[Card {i}: {card_name(*c)}]" for i, c in enumerate(seen))
    lines = [
        header,
        f"Current Stacks: {stack_line(state.fireworks())}",
        "My cards based on my knowledge:",
        *(
            f"Card {i} could be: {knowledge_text(cards)}"
            f"{mark_text(touched[player][i], marks[player][i])}"
            for i, cards in enumerate(own)
        ),
        f"I can see {partner}'s Cards are: {shown}",
        f"{partner}'s Knowledge about {pronoun} cards:",
        *(
            f"{partner} believes {pronoun} Card {i} could be: {knowledge_text(cards)}"
            f"{mark_text(touched[1 - player][i], marks[1 - player][i])}"
            for i, cards in enumerate(partners)
        ),
        f"Remaining Reveal Tokens: {state.information_tokens()}",
        f"Remaining Lives: {state.life_tokens()}",
        f"Deck Size: {state.deck_size()}",
        f"The discard pile is: [{discards}]",
        f"My Action History: [{', '.join(mine)}]",
        f"{partner}'s Last Action: {last}",
        "The next playable cards for each stack are:",
        *next_playable_lines(state.fireworks()),
    ]
    return "\n".join(lines)
