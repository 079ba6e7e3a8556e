"""The long-term memory an LLM gets for Hanabi: rules, conventions, objective and actions.

The conventions are this package's own: a small subset of the H-group conventions, written out
completely (chop, focus, how a reveal is read, and the order of preference of every move), so
that an expert can apply them without knowing H-group and reaches the moves of the
``hanabi-convention`` scripted player, which follows exactly this text
(:mod:`coordqa.games.hanabi.convention_player`, clue reading in :mod:`coordqa.games.hanabi.clues`).
Where they differ from H-group (there is no special 2 save: a rank 2 reveal on the chop is a play
clue when the 2 could be playable), the text says so. The rules also say how to read the state's
card lists: they are the one knowledge model of :mod:`coordqa.games.hanabi.knowledge`.
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
Players take turns. On your turn you do exactly one of:
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
stacks are complete, or once the deck is empty and each player has had one more turn: after the \
last card is drawn, the other player moves, then the player who drew it moves last.

What the state shows: "Card i could be: [colours] [ranks]" lists exactly what a card can still \
be: any of those colours with any of those ranks, except the cards named after "except". For my \
own cards the list takes into account every reveal and every card I can see: the stacks, the \
discard pile, my partner's hand, and those of my own cards that the lists pin down. "Bob \
believes his Card i could be" is what public information tells about Bob's card: every reveal, \
the stacks and the discard pile (not my cards, which I cannot see). Reason from these lists as \
they are printed; they already contain all the card counting."""

CONVENTIONS = """\
Conventions. These are this game's own conventions: a small part of the well-known H-group \
conventions, written out completely here. Where they differ from H-group, these apply (for \
example, there is no special save for 2s: a rank 2 reveal is read by the same rule as any \
other). Both players have followed them on every move so far and keep following them.
- Chop: the oldest (leftmost) card of a hand that no reveal has touched. It is the card its \
holder discards next.
- Focus of a reveal: the chop if the reveal newly touches it, otherwise the newest (rightmost) \
card it newly touches. A reveal that touches no new card gives no instruction.
- Reading a reveal: a rank 5 reveal is a save clue. Any other reveal is a play clue if its focus \
could be playable now according to the receiver's list after the reveal, counting public \
information only (the reveals, the stacks and the discard pile, as the "believes" lists do); \
otherwise it is a save clue. A play clue says "play the focused card"; a save clue says "keep \
the focused card".
- A card must be kept (saved) if it is still needed and it is a 5, a 2 (unless the same card is \
also elsewhere in that hand) or a critical card (every other copy is discarded).
- On your turn, do the first of these that applies:
  1. Play a card that your list shows is certainly playable.
  2. With 2 or more lives left: play a card that a play clue focused, if its list shows it may \
still be playable.
  3. Give a play clue whose focus is a playable card, unless a play clue already focused the \
same card (same colour and rank) in your partner's hand. Skip this when your partner already has \
a playable card to play (one a play clue focused, or one their list shows is certainly \
playable) and 2 or fewer reveal tokens remain.
  4. If your partner has no card to play and their chop must be kept, give a save clue on it \
(any reveal that focuses the chop and is not read as a play clue on a card that is not playable).
  5. Discard (when fewer than 8 reveal tokens remain): a card your list shows is certainly \
useless (it can never be played); otherwise your chop; otherwise (every card touched) the card \
most likely to be useless, never a card a play clue focused if another can go.
  6. Otherwise give a reveal your partner reads harmlessly (not a play clue on a card that is not \
playable).
  When several reveals qualify in step 3 or 4, take the one whose newly touched cards score \
most (+2 for a playable card, +1 for another card still needed, -2 for a useless card or a copy \
of a card already touched in that hand), then, for a play clue, the lowest focused rank, then the \
one listed first among the legal actions. In steps 1, 2 and 5 take the leftmost such card.
- These preferences are the best play while the deck lasts. In the last rounds (3 or fewer cards \
left to draw) another move can score more (a reveal draws no card, so it uses up no turn of the \
deck); there the best move is the one with the best final score, both players then following \
the conventions to the end.
- The state marks every card a reveal has touched: "(touched)", or "(touched: play clue)" and \
"(touched: save clue)" when an earlier reveal focused it and was read as that clue (a card stays \
marked "play clue" once a play clue focused it). Your partner's most recent reveal is not read \
for you: apply these rules to it (the state says which cards it newly touched)."""

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
