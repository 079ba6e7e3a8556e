"""The long-term memory an LLM gets for Hanabi: rules, conventions, objective and actions.

The conventions are the basic H-group conventions the LLM-Coordination paper states (the
original code defined them but never put them in a prompt). The ``hanabi-convention`` scripted
player follows exactly the rules written here, with the clue-reading rule spelled out in
:mod:`coordqa.games.hanabi.players`.
"""

from __future__ import annotations

from coordqa.games.seat import SeatView

RULES = """\
Hanabi is a cooperative card game for two players, Alice and Bob. Together you build five \
fireworks stacks, one per colour (Red, Yellow, Green, White, Blue), each from rank 1 up to rank 5 \
in order. The deck has 50 cards: in every colour three 1s, two 2s, two 3s, two 4s and one 5.
Each player holds 5 cards facing away: you see your partner's cards but never your own. Card \
positions are numbered from 0; the oldest card is on the left (Card 0) and each newly drawn card \
is added on the right.
On your turn you do exactly one of:
- Play a card: if its rank is one above the top of its colour's stack, it is added to the stack; \
otherwise it is discarded and the team loses a life. Completing a stack with a 5 gives back one \
reveal token (if fewer than 8).
- Discard a card (only when fewer than 8 reveal tokens remain): it goes to the discard pile and \
the team regains one reveal token.
- Reveal (spend one reveal token): name one colour or one rank, and every card of your partner's \
with that colour or rank is pointed out to them. You may only name a colour or rank your partner \
holds.
After playing or discarding you draw a new card while the deck lasts. The team starts with 8 \
reveal tokens and 3 lives. The game ends when the third life is lost (score 0), when all five \
stacks are complete, or one full round after the deck runs out."""

CONVENTIONS = """\
Conventions (basic H-group), which both players follow:
- New cards are added on the right; the oldest card that has not been touched by any reveal is the \
"chop": it is the card to discard next.
- The focus of a reveal is the chop if the reveal newly touches it, otherwise the newest \
(rightmost) card it newly touches. A reveal that touches no new card gives no instruction.
- Save clues protect cards that must not be discarded: 5s, unique 2s (the other copy is not \
visible elsewhere) and critical cards (the last remaining copy). A rank 5 reveal is always a \
save clue, never a play clue. Any other reveal whose focus cannot possibly be playable now, \
given what the receiver knows after it, is a save clue too: keep that card.
- Every other reveal is a play clue: its focus card should be played now. When your partner \
gives you a play clue, play the focused card on your next turn.
- Do not repeat information your partner already knows, and do not reveal cards that are already \
played or useless.
- Prefer play clues to save clues when both are possible; give a save clue when your partner is \
about to discard a card that must be kept.
- When you cannot play or give a useful clue, discard your chop (your oldest untouched card).
- With only one life left, only play a card known to be playable.
- The state marks every card a reveal has touched: "(touched)", or "(touched: play clue)" and \
"(touched: save clue)" when an earlier reveal focused it and was read as that clue. Your \
partner's most recent reveal is not read for you: apply these rules to it (the state says which \
cards it newly touched)."""

OBJECTIVE = """\
Objective: maximise the team's score, the sum of the top ranks of the five stacks (at most 25). \
Losing all three lives makes the score 0."""

ACTIONS = """\
Action space (your partner's name in place of Bob when you are Bob):
- "Play my Card i" (i = 0..4)
- "Discard my Card i"
- "Reveal Bob's <colour> color cards", e.g. "Reveal Bob's Red color cards"
- "Reveal Bob's rank <r> cards", e.g. "Reveal Bob's rank 1 cards"
Each turn you are given the list of actions that are legal now; choose exactly one of them."""


def game_description() -> str:
    """Rules, conventions, objective and action space, joined as one prompt text."""
    return "\n\n".join((RULES, CONVENTIONS, OBJECTIVE, ACTIONS))


PAPER_CONVENTIONS = """\
Conventions, which both players follow:
- Card positions are counted from the left; the oldest card is on the left and new cards are \
added on the right.
- There are two kinds of clues. A play clue reveals a card (or cards) that can be played on \
its stack right now: play it. A save clue reveals a card that must not be discarded: a 5, a 2 \
whose other copy is gone, or a critical card (the last copy left): keep it.
- Do not reveal what your partner already knows about a card (its colour or its rank).
- Prefer a play clue to a save clue when both are possible; when neither can be given, discard.
- Discard without fear: saving important cards is the whole team's job.
- Play with fear: with 2 or 3 lives left you may play a card you are not completely sure of; with \
only 1 life left, play a card only when you are sure it goes next on its stack."""
"""The paper's Hanabi conventions (basic play and save clues, no chop), in coordqa's words."""


def paper_description(view: SeatView) -> str:
    """The long-term memory the LLM-Coordination paper gave its agents: its own conventions."""
    return "\n\n".join((RULES, PAPER_CONVENTIONS, OBJECTIVE, ACTIONS))
