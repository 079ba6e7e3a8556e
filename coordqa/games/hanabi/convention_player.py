"""``hanabi-convention``: a scripted player that follows the conventions the LLM is told.

The game description (:mod:`coordqa.games.hanabi.conventions`) states this package's own
conventions (a small subset of H-group's, written out completely). This player follows exactly
that text, with the clue-reading rule of :mod:`coordqa.games.hanabi.clues`
(chop, focus, play or save clue), which it uses both to read its partner's reveals and to choose
its own (it looks ahead at how the partner would read a reveal from the partner's cards, which it
sees, and the hint knowledge: :func:`~coordqa.games.hanabi.knowledge.after_reveal`). It plays
from its seat's view only; its own cards stay hidden from it. The rule's names are
re-exported here for the players and solvers that import them from this module.

Priorities on its turn (the order the conventions text states): play a card known to be
playable; play a card marked by a play clue (not at one life); give a play clue on a playable
partner card; save the partner's chop (5s, 2s not doubled in that hand, critical cards) when the
partner has nothing to play; discard a known-useless card, else the chop; when nothing else is
allowed (8 tokens), give a clue the partner reads harmlessly.
"""

from __future__ import annotations

import random

from coordqa.games.base import Observation, ScriptedPlayer, StepResult
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.clues import (
    PLAY,
    SAVE,
    ClueMarks,
    ClueReading,
    chop_index,
    read_clue,
)
from coordqa.games.hanabi.knowledge import (
    Board,
    after_reveal,
    chance,
    seat_hands,
    surely,
)
from coordqa.games.hanabi.view import View, hanabi_seat
from coordqa.games.seat import SeatView

__all__ = ["PLAY", "SAVE", "ClueReading", "ConventionPlayer", "chop_index", "read_clue"]

LOW_TOKENS = 2
"""With this few reveal tokens or fewer, no play clue is given to a partner who already has a
card to play (tokens are kept for saves)."""


class ConventionPlayer(ScriptedPlayer):
    """Plays by the basic H-group conventions of the game description (see module docstring)."""

    name = "hanabi-convention"

    def __init__(self) -> None:
        """Create an unseated player; :meth:`reset` seats it."""
        self.me = 0
        self.rng = random.Random(0)
        self.clues = ClueMarks([[], []], [[], []])

    @property
    def marks(self) -> list[list[str]]:
        """Per player, per card: the clue mark (``"play"``, ``"save"`` or ``""``)."""
        return self.clues.marks

    @property
    def clued(self) -> list[list[bool]]:
        """Per player, per card: whether a reveal has touched it."""
        return self.clues.clued

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Seat the player and read the hint knowledge of both hands."""
        self.me = player
        self.rng = random.Random(seed)
        self.clues = ClueMarks.start(seat_hands(hanabi_seat(view).engine, player))

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        """Update clue marks: drop played/discarded cards, read the partner's (or own) reveal."""
        seen = hanabi_seat(view)
        hands = seat_hands(seen.engine, self.me)
        self.clues.observe(hands, Board.of(seen.engine), seen.turns[-1])

    def choose(self, observation: Observation) -> str:
        """The conventions' move (:meth:`convention_move`), else a random legal action."""
        action = self.convention_move(observation)
        if action is not None:
            return action
        return self.rng.choice(View(observation.view, self.me).legal)

    def convention_move(self, observation: Observation, public_only: bool = False) -> str | None:
        """The first applicable priority (module docstring); None when none applies.

        This is the order of preference the conventions text states, so a history whose every
        move is this one is a history of players who followed the conventions. ``public_only``
        judges my own cards from public information only (:attr:`View.public_only`).
        """
        view = View(observation.view, self.me, public_only)
        for option in (
            self._play_known,
            self._play_clued,
            self._give_play_clue,
            self._give_save_clue,
            self._discard,
            self._harmless_clue,
        ):
            action = option(view)
            if action is not None and action in view.legal:
                return action
        return None

    def _play_known(self, view: View) -> str | None:
        for index, cards in enumerate(view.own_possible):
            if surely(cards, view.board.playable):
                return engine.play_text(index)
        return None

    def _play_clued(self, view: View) -> str | None:
        if view.lives <= 1:
            return None
        for index, mark in enumerate(self.marks[self.me]):
            if mark == PLAY and any(view.board.playable(c) for c in view.own_possible[index]):
                return engine.play_text(index)
        return None

    def _partner_has_play(self, view: View) -> bool:
        """The partner will play a card next turn (a play mark or a publicly known play)."""
        return any(
            (mark == PLAY or surely(cards, view.board.playable)) and view.board.playable(card)
            for mark, cards, card in zip(
                self.marks[view.partner], view.partner_possible, view.partner_hand, strict=True
            )
        )

    def _read(self, view: View, text: str) -> tuple[ClueReading, tuple[int, ...]]:
        """How the partner would read reveal ``text`` (its knowledge after it, from what I see)."""
        color, rank = engine.reveal_of(text, view.me)
        after = after_reveal(view.knowledge[1], view.partner_hand, color, rank)
        touched = tuple(i for i in range(len(view.partner_hand)) if text in view.reveal_texts(i))
        rank_five = text == engine.reveal_rank_text(view.me, 4)
        return read_clue(self.clued[view.partner], after, touched, rank_five, view.board), touched

    def _reveals(self, view: View) -> list[str]:
        return [t for t in view.legal if t.startswith("Reveal")] if view.can_reveal() else []

    def _touch_value(self, view: View, touched: tuple[int, ...]) -> float:
        """Newly touched useful cards count for, useless or duplicate ones against, a clue."""
        clued = self.clued[view.partner]
        kept = {card for card, c in zip(view.partner_hand, clued, strict=True) if c}
        value = 0.0
        for index in touched:
            card = view.partner_hand[index]
            if clued[index]:
                continue
            if view.board.useless(card) or card in kept:
                value -= 2
            else:
                value += 1 + view.board.playable(card)
            kept.add(card)
        return value

    def _give_play_clue(self, view: View) -> str | None:
        if self._partner_has_play(view) and view.info_tokens <= LOW_TOKENS:
            return None
        pending = {
            card
            for card, mark in zip(view.partner_hand, self.marks[view.partner], strict=True)
            if mark == PLAY
        }
        best: tuple[float, str] | None = None
        for text in self._reveals(view):
            reading, touched = self._read(view, text)
            if reading.kind != PLAY or reading.focus is None:
                continue
            card = view.partner_hand[reading.focus]
            if not view.board.playable(card) or card in pending:
                continue
            value = self._touch_value(view, touched) - 0.1 * card[1]
            if best is None or value > best[0]:
                best = (value, text)
        return best[1] if best else None

    def _needs_save(self, view: View, index: int) -> bool:
        card = view.partner_hand[index]
        if view.board.useless(card):
            return False
        others = [c for i, c in enumerate(view.partner_hand) if i != index]
        if card in others:
            return False
        return card[1] == 4 or view.board.critical(card) or card[1] == 1

    def _give_save_clue(self, view: View) -> str | None:
        chop = chop_index(self.clued[view.partner])
        if chop is None or self._partner_has_play(view) or not self._needs_save(view, chop):
            return None
        best: tuple[float, str] | None = None
        playable = view.board.playable(view.partner_hand[chop])
        for text in self._reveals(view):
            reading, touched = self._read(view, text)
            if reading.focus != chop or (reading.kind == PLAY and not playable):
                continue
            value = self._touch_value(view, touched)
            if best is None or value > best[0]:
                best = (value, text)
        return best[1] if best else None

    def _discard(self, view: View) -> str | None:
        if not view.can_discard():
            return None
        for index, cards in enumerate(view.own_possible):
            if surely(cards, view.board.useless):
                return engine.discard_text(index)
        chop = chop_index(self.clued[self.me])
        if chop is not None:
            return engine.discard_text(chop)
        odds = [
            chance(cards, view.unseen, view.board.useless) - (mark == PLAY)
            for cards, mark in zip(view.own_possible, self.marks[self.me], strict=True)
        ]
        return engine.discard_text(max(range(len(odds)), key=lambda i: odds[i]))

    def _harmless_clue(self, view: View) -> str | None:
        for text in self._reveals(view):
            reading, _ = self._read(view, text)
            if reading.kind != PLAY or (
                reading.focus is not None and view.board.playable(view.partner_hand[reading.focus])
            ):
                return text
        return None
