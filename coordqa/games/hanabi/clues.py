"""The clue-reading rule of the conventions, and the public record of what every reveal meant.

The conventions text (:mod:`coordqa.games.hanabi.conventions`) reads reveals by one rule:

- The *chop* is the oldest card no reveal has touched.
- A reveal's *focus* is the chop if the reveal newly touches it, else the newest card it newly
  touches. A reveal that touches no new card carries no instruction.
- A rank-5 reveal is a save clue. Any other reveal is a save clue if, after it, the focus cannot
  be playable now (judged from public information only: the receiver's hints after the reveal,
  the stacks and the discard pile, :func:`~coordqa.games.hanabi.knowledge.public_identities`, so
  both players reach the same reading); otherwise it is a play clue: the focus is to be played.

:class:`ClueMarks` applies the rule to every move of a game, so the game can show which cards
have been touched and how earlier reveals were read (a player at the table remembers this), and
the ``hanabi-convention`` player keeps its marks with the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coordqa.games.hanabi import engine
from coordqa.games.hanabi.describe import Turn
from coordqa.games.hanabi.knowledge import Board, CardKnowledge, public_identities

PLAY = "play"
SAVE = "save"


@dataclass(frozen=True)
class ClueReading:
    """How a reveal is read under the convention."""

    focus: int | None
    """The focused card position, or None when the reveal touched no new card."""
    kind: str
    """``"play"``, ``"save"`` or ``""`` (no instruction)."""


def read_clue(
    clued_before: list[bool],
    knowledge_after: list[CardKnowledge],
    touched: tuple[int, ...],
    rank_five: bool,
    board: Board,
) -> ClueReading:
    """Read a reveal by the convention in the module docstring (public information only)."""
    newly = [i for i in touched if not clued_before[i]]
    if not newly:
        return ClueReading(None, "")
    chop = clued_before.index(False)
    focus = chop if chop in newly else max(newly)
    if rank_five:
        return ClueReading(focus, SAVE)
    cards = public_identities(knowledge_after, board)[focus]
    if not any(board.playable(card) for card in cards):
        return ClueReading(focus, SAVE)
    return ClueReading(focus, PLAY)


def chop_index(clued: list[bool]) -> int | None:
    """The oldest untouched card, or None when every card has been touched."""
    return clued.index(False) if False in clued else None


def touched_flags(hands: Sequence[Sequence[CardKnowledge]]) -> list[list[bool]]:
    """Which cards of Alice's and Bob's hands (their hint knowledge) a reveal has touched."""
    return [[k.clued for k in hand] for hand in hands]


@dataclass
class ClueMarks:
    """Per player and card position: touched or not, and how reveals that focused it were read.

    A mark is ``"play"`` once a play clue focused the card (it stays so), ``"save"`` when a save
    clue focused it, ``""`` otherwise. Hints are public, so both players keep the same marks.
    """

    marks: list[list[str]]
    """Per player, per card: ``"play"``, ``"save"`` or ``""``."""
    clued: list[list[bool]]
    """Per player, per card: whether a reveal has touched it."""

    @classmethod
    def start(cls, hands: Sequence[Sequence[CardKnowledge]]) -> ClueMarks:
        """The marks with no reveal read yet (a new game, a player sitting down).

        ``hands``: the hint knowledge of player 0's and player 1's hands
        (:func:`~coordqa.games.hanabi.knowledge.state_hands` or ``seat_hands``).
        """
        clued = touched_flags(hands)
        return cls([[""] * len(hand) for hand in clued], clued)

    def copy(self) -> ClueMarks:
        """An independent copy."""
        return ClueMarks([list(m) for m in self.marks], [list(c) for c in self.clued])

    def observe(
        self, hands: Sequence[Sequence[CardKnowledge]], board: Board, turn: Turn
    ) -> ClueReading | None:
        """Update after ``turn``, given both hands' knowledge and the board after it.

        Returns the reading when ``turn`` was a reveal.
        """
        reading = None
        if turn.card is not None:
            del self.marks[turn.player][int(turn.action.rsplit(" ", 1)[-1])]
        else:
            target = 1 - turn.player
            rank_five = turn.action == engine.reveal_rank_text(turn.player, 4)
            after = list(hands[target])
            reading = read_clue(self.clued[target], after, turn.touched, rank_five, board)
            if reading.focus is not None and self.marks[target][reading.focus] != PLAY:
                self.marks[target][reading.focus] = reading.kind
        self.clued = touched_flags(hands)
        for marks, clued in zip(self.marks, self.clued, strict=True):
            marks.extend([""] * (len(clued) - len(marks)))
        return reading

    def newly_touched(self, turn: Turn) -> tuple[int, ...]:
        """The cards a reveal ``turn`` (not yet observed) touches that no reveal had touched."""
        if turn.card is not None:
            return ()
        return tuple(i for i in turn.touched if not self.clued[1 - turn.player][i])
