"""Solvers for the Hanabi scenarios: exact card facts, clue readings and a one-step action ranking.

Everything is computed from what the scenario's player ("I") legitimately knows, in the one
model of knowledge the state text prints (:mod:`coordqa.games.hanabi.knowledge`): my cards' lists
(hints and every card I see, counted), the partner's visible hand, her lists (hints and public
cards), the stacks and the discard pile, plus the public clue history read by the exact rule of
the conventions text (:func:`coordqa.games.hanabi.convention_player.read_clue`). The partner
model is the ``hanabi-convention`` bot, which follows that text; its simulated reply is used as a
cross-check, and a state where the simple reading and the bot disagree is rejected, as is a state
whose history breaks the conventions (:func:`off_convention_moves`), where the partner knows more
from my cards than her list shows (:meth:`Situation.partner_knowledge_gaps`), or where the
reading of her last reveal depends on whether my list or public information judges its focus.

Hidden information (my own cards) is used to reject states where the conventions would mislead
(a play clue pointing at an unplayable card), and in one place to pick an answer: the search of
the last rounds (:mod:`coordqa.scenarios.hanabi_endgame`) plays the hands as they are, because
the partner sees mine and clues by them; plays whose outcome depends on my hidden cards are left
out of that search and can never be the key.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from coordqa.errors import GameError
from coordqa.games.base import PLAYER_NAMES, Observation
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.convention_player import (
    PLAY,
    SAVE,
    ClueReading,
    ConventionPlayer,
    chop_index,
    read_clue,
)
from coordqa.games.hanabi.describe import PRONOUNS
from coordqa.games.hanabi.game import Hanabi
from coordqa.games.hanabi.knowledge import (
    Board,
    Card,
    chance,
    hand_knowledge,
    private_certainties,
    public_identities,
    surely,
)
from coordqa.games.hanabi.view import View
from coordqa.scenarios.hanabi_endgame import ENDGAME_DECK, Endgame, search
from coordqa.scenarios.model import QuestionDraft, ScenarioRejected

Marks = list[list[str]]
"""Per player, per card position: ``"play"``, ``"save"`` or ``""`` as the clue history reads."""


def card_text(card: Card) -> str:
    """``"Red 3"``."""
    return engine.card_name(*card)


def cards_text(cards: Sequence[Card]) -> str:
    """``"Red 1, Blue 1"`` (or ``"none"``)."""
    return ", ".join(card_text(c) for c in cards) or "none"


def seated_bot(snapshot: Mapping[str, Any], seat: int) -> tuple[Hanabi, ConventionPlayer]:
    """Replay ``snapshot`` with a ``hanabi-convention`` bot in ``seat`` watching every move.

    The bot's clue marks are public (both players read every reveal the same way), so the bot
    gives the clue history of both hands, and can be asked what it would do next.
    """
    game = Hanabi(seed=int(snapshot["seed"]))
    bot = ConventionPlayer()
    bot.reset(game.seat_view(seat), seat, 0)
    for text in snapshot["moves"]:
        result = game.step({game.state.cur_player(): text})
        bot.observe(game.seat_view(seat), seat, result)
    return game, bot


def off_convention_moves(snapshot: Mapping[str, Any]) -> list[str]:
    """The moves of the snapshot's history that the conventions would not have made.

    The conventions text states the order of preference of every move, and the
    ``hanabi-convention`` bot follows exactly that text; a move differs from the bot's
    (:meth:`~coordqa.games.hanabi.convention_player.ConventionPlayer.convention_move`, which has
    no random fallback) in the same position means a player did not follow them, so the text's
    claim that both players have followed them would be false.
    """
    game = Hanabi(seed=int(snapshot["seed"]))
    bots = (ConventionPlayer(), ConventionPlayer())
    for seat, bot in enumerate(bots):
        bot.reset(game.seat_view(seat), seat, seat)
    found = []
    for number, text in enumerate(snapshot["moves"], 1):
        mover = int(game.state.cur_player())
        expected = bots[mover].convention_move(Observation.of(game, mover))
        if text != expected:
            found.append(
                f"move {number} by {PLAYER_NAMES[mover]}: {text!r} (the conventions pick "
                f"{expected!r})"
            )
        result = game.step({mover: text})
        for seat, bot in enumerate(bots):
            bot.observe(game.seat_view(seat), seat, result)
    return found


def reveal_touches(view: View, text: str) -> tuple[int, ...]:
    """Positions of the partner's cards that reveal ``text`` points at."""
    return tuple(i for i in range(len(view.partner_hand)) if text in view.reveal_texts(i))


@dataclass(frozen=True)
class RevealOutcome:
    """How the partner reads one of my reveals, and what he then does."""

    text: str
    """The reveal action."""
    reading: ClueReading
    """Focus and kind by the clue-reading rule."""
    touched: tuple[int, ...]
    """Partner card positions the reveal points at."""
    card: Card | None
    """The focused card (None without a focus)."""
    sure_after: tuple[int, ...]
    """Partner cards that public knowledge makes certainly playable after the reveal."""


@dataclass
class Situation:
    """The scenario player's knowledge at a state, with the public clue history."""

    game: Hanabi
    """The restored game (read only)."""
    me: int
    """The player on turn, whose view the questions take."""
    snapshot: Mapping[str, Any]
    """The state's snapshot (to simulate the partner bot)."""

    @cached_property
    def partner_seat(self) -> tuple[Hanabi, ConventionPlayer]:
        """The state replayed with a ``hanabi-convention`` bot in the partner's seat."""
        return seated_bot(self.snapshot, self.partner)

    @property
    def marks(self) -> Marks:
        """Clue marks of both hands by the clue-reading rule (public: the game keeps them)."""
        return self.game.clues.marks

    @cached_property
    def view(self) -> View:
        """My view: my hint knowledge, the partner's hand, the board."""
        return View(self.game.seat_view(self.me), self.me)

    @property
    def partner(self) -> int:
        """The other player."""
        return 1 - self.me

    @property
    def own_possible(self) -> list[list[Card]]:
        """For each of my cards, the identities it can have: exactly the list the state prints.

        (:func:`~coordqa.games.hanabi.knowledge.own_identities`: hints, the board, the partner's
        hand, and my other cards that hints pin down.)
        """
        return self.view.own_possible

    @cached_property
    def clued(self) -> tuple[list[bool], list[bool]]:
        """Which of (my, the partner's) cards a reveal has touched."""
        mine, theirs = self.view.knowledge
        return [k.clued for k in mine], [k.clued for k in theirs]

    @property
    def my_chop(self) -> int | None:
        """My oldest untouched card."""
        return chop_index(self.clued[0])

    @property
    def partner_chop(self) -> int | None:
        """The partner's oldest untouched card."""
        return chop_index(self.clued[1])

    def surely_playable(self, index: int) -> bool:
        """My card ``index`` is playable whatever it is, after counting."""
        return surely(self.own_possible[index], self.view.board.playable)

    def surely_useless(self, index: int) -> bool:
        """My card ``index`` can never score, whatever it is, after counting."""
        return surely(self.own_possible[index], self.view.board.useless)

    def live_play_mark(self, player: int, index: int) -> bool:
        """A play clue marks the card and its holder still thinks it may be playable."""
        if self.marks[player][index] != PLAY:
            return False
        possible = (
            self.own_possible[index] if player == self.me else self.view.partner_possible[index]
        )
        return any(self.view.board.playable(c) for c in possible)

    @cached_property
    def partner_pending(self) -> list[int]:
        """Partner cards he will play anyway: a live play mark or publicly certain playable."""
        return [
            i
            for i, cards in enumerate(self.view.partner_possible)
            if self.live_play_mark(self.partner, i) or surely(cards, self.view.board.playable)
        ]

    def partner_card_needs_save(self, index: int) -> bool:
        """A 5, a unique 2 or a critical card that is still needed and not duplicated in hand."""
        hand = self.view.partner_hand
        card = hand[index]
        board = self.view.board
        others = [c for i, c in enumerate(hand) if i != index]
        if board.useless(card) or card in others:
            return False
        return card[1] == 4 or board.critical(card) or card[1] == 1

    def reveal(self, text: str) -> RevealOutcome:
        """How the partner reads my reveal ``text`` (public knowledge only)."""
        view = self.view
        move = self.game.text_to_move(text, self.me)
        after_state = self.game.state.copy()
        after_state.apply_move(move)
        after = hand_knowledge(after_state, self.me)[1]
        touched = reveal_touches(view, text)
        rank_five = text == engine.reveal_rank_text(self.me, 4)
        reading = read_clue(self.clued[1], after, touched, rank_five, view.board)
        card = view.partner_hand[reading.focus] if reading.focus is not None else None
        sure = tuple(
            i
            for i, cards in enumerate(public_identities(after, view.board))
            if surely(cards, view.board.playable)
        )
        return RevealOutcome(text, reading, touched, card, sure)

    @cached_property
    def reveals(self) -> list[RevealOutcome]:
        """Every legal reveal with its reading, in legal-action order."""
        return [self.reveal(t) for t in self.view.legal if t.startswith("Reveal")]

    def good_play_clue(self, outcome: RevealOutcome) -> bool:
        """A reveal after which the partner plays a playable card he was not going to play.

        Either it makes one of his cards certainly playable (by public knowledge), or, with two
        or more lives, it is a play clue on a playable card not already marked to play. With one
        life the partner plays only cards he knows are playable, so only the first counts. A play
        clue on an unplayable card never counts (it tells him to lose a life).
        """
        play_clue = self.view.lives >= 2 and outcome.reading.kind == PLAY
        if play_clue and outcome.card is not None and not self.view.board.playable(outcome.card):
            return False
        if set(outcome.sure_after) - set(self.partner_pending):
            return True
        if not play_clue or outcome.card is None:
            return False
        pending = {self.view.partner_hand[i] for i in self.partner_pending}
        return outcome.card not in pending

    def bot_reply(self, text: str) -> str:
        """The ``hanabi-convention`` partner's next action after my reveal ``text``.

        Empty when the reveal was the game's last move (the partner has no turn left).
        """
        if not text.startswith("Reveal"):
            raise GameError(f"only reveals can be tried on a forked game, not {text!r}")
        game, bot = self.partner_seat
        game, bot = game.fork(), copy.deepcopy(bot)
        result = game.step({self.me: text})
        bot.observe(game.seat_view(self.partner), self.partner, result)
        if game.is_terminal():
            return ""
        return bot.choose(Observation.of(game, self.partner))

    def plays_playable(self, reply: str) -> bool:
        """The partner's action ``reply`` plays one of his cards that is playable now."""
        if not reply.startswith("Play"):
            return False
        card = self.view.partner_hand[int(reply.rsplit(" ", 1)[-1])]
        return self.view.board.playable(card)

    def partner_knowledge_gaps(self) -> list[str]:
        """Partner cards that only the partner's view of my hand makes surely playable.

        The state shows the partner's knowledge from public information (her list); she also
        sees my cards, which the text cannot show me. Where counting my cards makes one of her
        cards surely playable, she plays it whatever I do, which her list does not show, so no
        question about what she will do is clear. (Uses my hidden cards, like
        :meth:`broken_marks`, only to reject.)
        """
        mine = [(c.color(), c.rank()) for c in self.game.state.player_hands()[self.me]]
        gaps = private_certainties(self.view.knowledge[1], self.view.board, mine)
        return [
            f"card {index} ({what} only by counting my cards)"
            for index, what in gaps
            if what == "playable"
        ]

    def broken_marks(self) -> list[str]:
        """Live play marks on cards that are not playable (the conventions would mislead)."""
        problems = []
        hands = self.game.state.player_hands()
        for player in (self.me, self.partner):
            for index, held in enumerate(hands[player]):
                card = (held.color(), held.rank())
                if self.live_play_mark(player, index) and not self.view.board.playable(card):
                    problems.append(f"player {player} card {index} ({card_text(card)})")
        return problems


def situation(game: Hanabi, snapshot: Mapping[str, Any], player: int) -> Situation:
    """My situation at the snapshot's state, checked to be a usable scenario state.

    Raises:
        ScenarioRejected: the game is over, ``player`` is not on turn, or the partner has not
            acted yet.
    """
    if game.is_terminal() or game.state.cur_player() != player:
        raise ScenarioRejected(f"player {player} is not on turn in this Hanabi state")
    if game.last_action(1 - player) is None:
        raise ScenarioRejected("the partner has not acted yet; every scenario needs his last move")
    return Situation(game, player, snapshot)


def possibilities_text(situation: Situation, index: int) -> str:
    """``"Card 2 could be Red 1 (2 unseen), Blue 1 (1 unseen)"`` (the state's list)."""
    view = situation.view
    cards = situation.own_possible[index]
    listed = ", ".join(f"{card_text(c)} ({view.unseen[c]} unseen)" for c in cards)
    return f"my Card {index} could be {listed}"


# --- EC: exact card facts -------------------------------------------------------------------

YES_NO = ("Yes", "No")


def ec_certain_play(sit: Situation, index: int) -> QuestionDraft:
    """Is my card ``index`` playable whatever it is (hint knowledge plus counting)?"""
    board = sit.view.board
    cards = sit.own_possible[index]
    playable = [c for c in cards if board.playable(c)]
    sure = sit.surely_playable(index)
    rationale = f"{possibilities_text(sit, index)}; playable now: {cards_text(playable)} -> " + (
        "every possibility is playable: Yes" if sure else "not every possibility is: No"
    )
    return QuestionDraft(
        "EC",
        "certain_play",
        f"Is my Card {index} certainly playable now?",
        YES_NO,
        (0 if sure else 1,),
        rationale,
        f"whether my Card {index} is playable whatever it is: {len(cards)} identities in its list",
    )


def ec_useless(sit: Situation) -> QuestionDraft:
    """Which of my cards can never score, whatever they are (several may be)?"""
    board = sit.view.board
    count = len(sit.own_possible)
    parts = []
    for index, cards in enumerate(sit.own_possible):
        useful = [c for c in cards if not board.useless(c)]
        parts.append(
            f"Card {index}: "
            + (
                f"all of {cards_text(cards)} useless"
                if not useful
                else f"may be {card_text(useful[0])}, still needed"
            )
        )
    useless = [i for i in range(count) if sit.surely_useless(i)]
    options = (*(f"My Card {i}" for i in range(count)), "None of them")
    correct = tuple(useless) if useless else (count,)
    return QuestionDraft(
        "EC",
        "useless",
        "Which of my cards is certainly useless (can never be played, whatever it is)? If "
        "several are, any one of them is a right answer.",
        options,
        correct,
        "; ".join(parts) + f" -> certainly useless: {[f'Card {i}' for i in useless] or 'none'}",
        "which of my cards can never score: their lists against the stacks and discards",
    )


def ec_unseen_copies(sit: Situation, card: Card) -> QuestionDraft:
    """How many copies of ``card`` are in my hand or the deck (not visible to me)?"""
    board = sit.view.board
    total = engine.COPIES[card[1]]
    played = 1 if card[1] < board.fireworks[card[0]] else 0
    discarded = board.discarded(card)
    partner = sit.view.partner_hand.count(card)
    unseen = sit.view.unseen[card]
    rationale = (
        f"{card_text(card)}: {total} in the deck at start - {played} on the stack - "
        f"{discarded} discarded - {partner} in my partner's hand = {unseen}"
    )
    options = tuple(str(n) for n in range(total + 1))
    return QuestionDraft(
        "EC",
        "unseen_copies",
        f"How many copies of {card_text(card)} are unseen from my point of view "
        "(in my own hand or still in the deck)?",
        options,
        (unseen,),
        rationale,
        f"card counting for {card_text(card)}: copies on the stack, in the discard pile and in "
        f"{PLAYER_NAMES[sit.partner]}'s hand",
    )


def stack_limits(board: Board) -> list[int]:
    """Per colour, the highest rank its stack can still reach.

    That is just below the first rank whose every copy is discarded.
    """
    limits = []
    for color, height in enumerate(board.fireworks):
        reach = height
        for rank in range(height, len(engine.RANKS)):
            if board.discarded((color, rank)) == engine.COPIES[rank]:
                break
            reach = rank + 1
        limits.append(reach)
    return limits


MAX_SCORE_OPTIONS = 5
"""Options of the best-score question: the answer and nearby wrong scores."""


def ec_max_score(sit: Situation) -> QuestionDraft:
    """The highest score still reachable, given the discards (only asked when below 25).

    Raises:
        ScenarioRejected: no stack is cut short: the answer would be 25 without any inference.
    """
    board = sit.view.board
    limits = stack_limits(board)
    best = sum(limits)
    full = len(engine.COLORS) * len(engine.RANKS)
    if best == full:
        raise ScenarioRejected("no stack is cut short by the discards: the best score is 25")
    now = sum(board.fireworks)
    numbers = [best, full, now, best + 1, best - 1, best + 2, best - 2]
    options = []
    for number in numbers:
        if now <= number <= full and str(number) not in options:
            options.append(str(number))
    options = sorted(options[:MAX_SCORE_OPTIONS], key=int)
    parts = [
        f"{color} {height} -> {limit}"
        for color, height, limit in zip(engine.COLORS, board.fireworks, limits, strict=True)
        if limit < len(engine.RANKS)
    ]
    return QuestionDraft(
        "EC",
        "max_score",
        "What is the highest score the team can still reach (if every card that can still be "
        "played is played in time)?",
        tuple(options),
        (options.index(str(best)),),
        f"stacks cut short by the discards (stack now -> highest reachable): {'; '.join(parts)}; "
        f"the other stacks can reach 5 -> {best}",
        "dead stacks: the first rank of a colour whose every copy is discarded caps that stack",
    )


def ec_partner_critical(sit: Situation, index: int) -> QuestionDraft:
    """Is the partner's card ``index`` the last copy of a card still needed?"""
    board = sit.view.board
    card = sit.view.partner_hand[index]
    total = engine.COPIES[card[1]]
    critical = board.critical(card)
    why = (
        "it can never be played (already played or a lower card is gone)"
        if board.useless(card)
        else f"still needed; {board.discarded(card)} of {total} copies discarded"
    )
    partner = PLAYER_NAMES[sit.partner]
    return QuestionDraft(
        "EC",
        "partner_critical",
        f"Is {partner}'s Card {index} critical (the last remaining copy of a card that is "
        "still needed)?",
        YES_NO,
        (0 if critical else 1,),
        f"{partner}'s Card {index} is {card_text(card)}: {why} -> "
        + ("critical: Yes" if critical else "not critical: No"),
        f"whether {partner}'s {card_text(card)} is the last copy still needed: the discard pile "
        "and the stacks",
    )


def ec_question(sit: Situation, spec: str) -> QuestionDraft:
    """The EC question named by ``spec`` (``"useless"``, ``"certain_play:2"``, ...).

    Raises:
        ScenarioRejected: the spec names no EC kind, or a card that does not exist.
    """
    name, _, arg = spec.partition(":")
    try:
        if name == "useless":
            return ec_useless(sit)
        if name == "max_score":
            return ec_max_score(sit)
        if name == "unseen_copies":
            color, rank = arg.split(" ")
            return ec_unseen_copies(sit, (engine.COLORS.index(color), int(rank) - 1))
        index = int(arg)
        if name == "certain_play" and 0 <= index < len(sit.own_possible):
            return ec_certain_play(sit, index)
        if name == "partner_critical" and 0 <= index < len(sit.view.partner_hand):
            return ec_partner_critical(sit, index)
    except ValueError as error:
        raise ScenarioRejected(f"bad Hanabi EC spec {spec!r}: {error}") from error
    raise ScenarioRejected(
        f"bad Hanabi EC spec {spec!r}; use one of {', '.join(EC_KINDS)} (with ':<card index>' "
        "for certain_play and partner_critical, ':<Colour> <rank>' for unseen_copies)"
    )


EC_KINDS = ("certain_play", "useless", "unseen_copies", "partner_critical", "max_score")
"""The EC question kinds."""


# --- ToM: the reveal that makes the partner play, and reading the partner's last reveal -------

MIN_REVEAL_OPTIONS = 3
"""A reveal question needs at least this many legal reveals (otherwise it is a guess)."""
MAX_CORRECT = 3
"""More equally good answers than this make a question a lottery: rejected."""


def tom_reveal_play(sit: Situation) -> QuestionDraft:
    """Which reveals make the partner play a playable card next turn?

    Correct: the reveals read as a play clue whose focus is playable (and not already marked).
    The ``hanabi-convention`` partner's simulated reply must agree: it plays the focus after
    every correct reveal and plays nothing after the others.

    Raises:
        ScenarioRejected: one life left, too few reveals, the partner already has a card to play,
            no reveal works, or the simulated partner disagrees with the reading.
    """
    partner = PLAYER_NAMES[sit.partner]
    if len(sit.reveals) < MIN_REVEAL_OPTIONS:
        raise ScenarioRejected(f"only {len(sit.reveals)} legal reveals")
    if sit.partner_pending:
        raise ScenarioRejected(f"{partner} already knows to play card(s) {sit.partner_pending}")
    correct = tuple(i for i, o in enumerate(sit.reveals) if sit.good_play_clue(o))
    if not correct:
        raise ScenarioRejected("no reveal makes the partner play a playable card")
    if len(correct) > MAX_CORRECT or len(correct) == len(sit.reveals):
        raise ScenarioRejected(f"{len(correct)} of {len(sit.reveals)} reveals work: no contrast")
    for index, outcome in enumerate(sit.reveals):
        reply = sit.bot_reply(outcome.text)
        if sit.plays_playable(reply) != (index in correct):
            raise ScenarioRejected(
                f"the clue-reading rule and the simulated partner disagree on {outcome.text!r} "
                f"(the bot answers {reply!r})"
            )
    parts = [_reveal_summary(sit, o) for o in sit.reveals]
    if sit.view.lives <= 1:
        parts.insert(0, "one life left: he plays only a card he then knows is playable")
    pronoun = PRONOUNS[sit.partner]
    return QuestionDraft(
        "ToM",
        "reveal_play",
        f"What information about {pronoun} cards should I reveal so that {partner} knows to "
        f"play a playable card on {pronoun} turn?",
        tuple(o.text for o in sit.reveals),
        correct,
        "Clue-reading rule of the conventions; " + "; ".join(parts),
        f"which reveal {partner} reads as a play clue on a playable card: the focus rule on "
        f"{pronoun} touched and untouched cards",
    )


def _clue_label(text: str) -> str:
    """``"rank 1"`` or ``"Red color"`` from a reveal action text."""
    return text.split("'s ", 1)[1].removesuffix(" cards")


def _reveal_summary(sit: Situation, outcome: RevealOutcome) -> str:
    """``"rank 1 -> play clue on Card 3 (Red 1, playable)"``."""
    label = _clue_label(outcome.text)
    reading = outcome.reading
    whose = PRONOUNS[sit.partner]
    sure = (
        f", makes {whose} Card(s) {list(outcome.sure_after)} certainly playable"
        if outcome.sure_after
        else ""
    )
    if reading.focus is None or outcome.card is None:
        return f"{label} -> touches no new card{sure}"
    state = "playable" if sit.view.board.playable(outcome.card) else "not playable"
    if reading.kind == PLAY and outcome.card in {
        sit.view.partner_hand[i] for i in sit.partner_pending
    }:
        state += ", already marked"
    focused = f"Card {reading.focus} ({card_text(outcome.card)}, {state})"
    return f"{label} -> {reading.kind} clue on {focused}{sure}"


def last_reveal_reading(sit: Situation) -> tuple[ClueReading, bool, list[int]]:
    """The partner's last reveal read by the clue-reading rule.

    Returns the reading, whether it focused my chop, and the cards it newly touched.

    Raises:
        ScenarioRejected: the partner's last action was not a reveal touching a new card of mine.
    """
    turn = sit.game.turns[-1]
    if turn.player != sit.partner or turn.card is not None:
        raise ScenarioRejected("the partner's last action was not a reveal")
    before = Hanabi(seed=int(sit.snapshot["seed"]))
    before.restore({"seed": sit.snapshot["seed"], "moves": list(sit.snapshot["moves"])[:-1]})
    clued_before = [k.clued for k in hand_knowledge(before.state, sit.me)[0]]
    rank_five = turn.action == engine.reveal_rank_text(sit.partner, 4)
    reading = read_clue(
        clued_before, sit.view.knowledge[0], turn.touched, rank_five, sit.view.board
    )
    if reading.focus is None:
        raise ScenarioRejected("the partner's last reveal touched no new card: no instruction")
    newly = [i for i in turn.touched if not clued_before[i]]
    return reading, reading.focus == chop_index(clued_before), newly


def turn_is_rank_five(sit: Situation) -> bool:
    """Whether the partner's last move was a rank 5 reveal (always a save clue)."""
    return sit.game.turns[-1].action == engine.reveal_rank_text(sit.partner, 4)


def tom_infer_last(sit: Situation) -> QuestionDraft:
    """What the partner's last reveal tells me: play its focus (play clue) or keep it (save).

    Raises:
        ScenarioRejected: one life left, the last action carries no instruction, it newly
            touched several cards that are not all certainly playable, or a card it did not touch
            is certainly playable (two answers would fit). When a play clue newly touches several
            cards that are all certainly playable, playing each is correct on purpose.
    """
    if sit.view.lives <= 1:
        raise ScenarioRejected("one life left: a play clue does not make me play")
    reading, on_chop, newly = last_reveal_reading(sit)
    focus = reading.focus if reading.focus is not None else -1
    mine = any(sit.view.board.playable(c) for c in sit.own_possible[focus])
    if not turn_is_rank_five(sit) and mine != (reading.kind == PLAY):
        raise ScenarioRejected(
            f"by my list Card {focus} {'may' if mine else 'cannot'} be playable, but public "
            f"information reads the reveal as a {reading.kind} clue: two readings"
        )
    sure = [i for i in range(len(sit.own_possible)) if sit.surely_playable(i)]
    if len(newly) > 1 and not (reading.kind == PLAY and set(newly) <= set(sure)):
        raise ScenarioRejected(f"the reveal newly touched cards {newly}: more than one reading")
    if set(sure) - set(newly):
        raise ScenarioRejected(f"my cards {sorted(set(sure) - set(newly))} were already playable")
    options = _card_intentions(len(sit.own_possible))
    verb = "Play" if reading.kind == PLAY else "Keep"
    answers = [f"I should {verb} my Card {i}" for i in sorted({focus, *newly})]
    also = (
        f"; every newly touched card {newly} is certainly playable, so all are to be played"
        if len(newly) > 1
        else ""
    )
    turn = sit.game.turns[-1]
    why = _clue_reason(sit, reading.kind == PLAY)
    focus_rule = "my chop, newly touched" if on_chop else "the newest card it newly touched"
    return QuestionDraft(
        "ToM",
        "infer_last",
        "What can I infer from my partner's previous action?",
        options,
        tuple(options.index(a) for a in answers),
        f"{PLAYER_NAMES[sit.partner]}: {turn.action!r} touched my cards {list(turn.touched)}; "
        f"focus = Card {focus} ({focus_rule}); {possibilities_text(sit, focus)}; {why}{also} "
        f"-> {', '.join(answers)}",
        f"reading {PLAYER_NAMES[sit.partner]}'s {_clue_label(turn.action)} reveal: its focus "
        f"({'my chop' if on_chop else 'the newest newly touched card'}) and whether it can be "
        "playable",
    )


def _card_intentions(count: int) -> tuple[str, ...]:
    """The options of an ``infer_last`` question: play, discard or keep each of my cards."""
    return tuple(
        text
        for i in range(count)
        for text in (
            f"I should Play my Card {i}",
            f"I should Discard my Card {i}",
            f"I should Keep my Card {i}",
        )
    )


def _clue_reason(sit: Situation, play: bool) -> str:
    """Why the last reveal reads as a play clue or as a save clue, in the answer's explanation."""
    if play:
        return "it may be playable, so it is a play clue"
    if turn_is_rank_five(sit):
        return "a rank 5 reveal is a save clue"
    return "it cannot be playable now, so it is a save clue"


TOM_KINDS = ("reveal_play", "infer_last")
"""The ToM question kinds."""


def tom_question(sit: Situation, kind: str) -> QuestionDraft:
    """The ToM question of ``kind``.

    Raises:
        ScenarioRejected: unknown kind, or the state gives no clear answer.
    """
    if kind == "reveal_play":
        return tom_reveal_play(sit)
    if kind == "infer_last":
        return tom_infer_last(sit)
    raise ScenarioRejected(f"unknown Hanabi ToM kind {kind!r}; use one of {', '.join(TOM_KINDS)}")


# --- JP: a one-step ranking of my legal actions --------------------------------------------

SURE_PLAY = 6
"""Play a card that is certainly playable, or that a partner's play clue marks (2+ lives)."""
PLAY_CLUE = 5
"""A reveal read as a play clue on a playable partner card: he plays it next turn."""
SAVE_CLUE = 4
"""A reveal read as a save clue on the partner's chop that must be kept, when he would discard."""
SAFE_DISCARD = 3
"""Discard a card that is certainly useless."""
CHOP_DISCARD = 2
"""Discard my chop."""
IDLE_REVEAL = 1
"""A reveal with no useful instruction."""
BAD_DISCARD = 0
"""Discard a card other than the chop that is not certainly useless (a touched card, or an
untouched card newer than the chop)."""
HARMFUL = -1
"""Risk a life: play an uncertain card, or give a play clue on an unplayable card."""
TIER_NAMES = {
    SURE_PLAY: "+1 score now",
    PLAY_CLUE: "partner plays a playable card next turn",
    SAVE_CLUE: "saves the partner's chop",
    SAFE_DISCARD: "free discard (+1 token, certainly useless card)",
    CHOP_DISCARD: "discard the chop (+1 token)",
    IDLE_REVEAL: "reveal without a useful instruction",
    BAD_DISCARD: "discards a card the conventions keep",
    HARMFUL: "risks a life",
}


@dataclass(frozen=True)
class Judged:
    """One legal action with its tier and the reason."""

    action: str
    tier: int
    reason: str


def judge_play(sit: Situation, index: int) -> Judged:
    """Certain or clue-marked plays score; any other play risks a life."""
    action = engine.play_text(index)
    view = sit.view
    if sit.surely_playable(index):
        return Judged(
            action, SURE_PLAY, f"certainly playable ({cards_text(sit.own_possible[index])})"
        )
    if view.lives >= 2 and sit.live_play_mark(sit.me, index):
        return Judged(action, SURE_PLAY, "marked by the partner's play clue")
    odds = chance(sit.own_possible[index], view.unseen, view.board.playable)
    return Judged(action, HARMFUL, f"uncertain, playable with probability {odds:.2f}")


def judge_discard(sit: Situation, index: int) -> Judged:
    """Useless cards are free, the chop is the convention's discard, clued cards are wasted."""
    action = engine.discard_text(index)
    if sit.surely_useless(index):
        return Judged(action, SAFE_DISCARD, "certainly useless")
    if index == sit.my_chop:
        return Judged(action, CHOP_DISCARD, "my chop")
    if sit.clued[0][index]:
        return Judged(action, BAD_DISCARD, "a card a reveal touched")
    return Judged(action, BAD_DISCARD, "not my chop: the conventions discard the chop")


def judge_reveal(sit: Situation, outcome: RevealOutcome) -> Judged:
    """Play clues on playable cards, urgent saves, misleading clues and idle ones."""
    summary = _reveal_summary(sit, outcome)
    kind, card = outcome.reading.kind, outcome.card
    misleads = kind == PLAY and card is not None and not sit.view.board.playable(card)
    if misleads and sit.view.lives >= 2:
        return Judged(outcome.text, HARMFUL, summary)
    if sit.good_play_clue(outcome):
        return Judged(outcome.text, PLAY_CLUE, summary)
    if (
        kind == SAVE
        and outcome.reading.focus == sit.partner_chop
        and sit.partner_chop is not None
        and sit.partner_card_needs_save(sit.partner_chop)
        and not sit.partner_pending
    ):
        return Judged(outcome.text, SAVE_CLUE, summary)
    return Judged(outcome.text, IDLE_REVEAL, summary)


def judge_action(sit: Situation, action: str, reveals: Mapping[str, RevealOutcome]) -> Judged:
    """The tier of one legal action."""
    if action in reveals:
        return judge_reveal(sit, reveals[action])
    index = int(action.rsplit(" ", 1)[-1])
    return judge_play(sit, index) if action.startswith("Play") else judge_discard(sit, index)


def jp_best_action(sit: Situation) -> tuple[QuestionDraft, int]:
    """The best next action, and the tier of the winning action.

    While the deck is long, by the tier ranking; in the last rounds (at most
    :data:`~coordqa.scenarios.hanabi_endgame.ENDGAME_DECK` cards to draw) by searching the rest of
    the game (:mod:`coordqa.scenarios.hanabi_endgame`).

    Raises:
        ScenarioRejected: the ranking or the search gives no clear answer for this state.
    """
    reveals = {o.text: o for o in sit.reveals}
    judged = [judge_action(sit, a, reveals) for a in sit.view.legal]
    if sit.view.deck_size <= ENDGAME_DECK:
        return _jp_endgame(sit, judged)
    best = max(j.tier for j in judged)
    correct = tuple(i for i, j in enumerate(judged) if j.tier == best)
    _check_clear(sit, best, [judged[i] for i in correct], reveals)
    runner_up = max((j.tier for j in judged if j.tier < best), default=None)
    lines = [f"{j.action}: {TIER_NAMES[j.tier]} ({j.reason})" for j in judged]
    rationale = (
        "Tiers: +1 score now > partner plays next turn > urgent save > free discard > discard "
        "chop > idle reveal > discard a card the conventions keep > risk a life. "
        + "; ".join(lines)
        + f". Best tier '{TIER_NAMES[best]}' beats "
        + (f"'{TIER_NAMES[runner_up]}'" if runner_up is not None else "nothing else")
    )
    options = tuple(sit.view.legal)
    return _jp_draft(options, correct, rationale, concept(sit, options[correct[0]], best)), best


def _jp_draft(
    options: tuple[str, ...], correct: tuple[int, ...], rationale: str, concept: str
) -> QuestionDraft:
    """The Hanabi JP question (one wording for the tier ranking and the endgame search)."""
    return QuestionDraft(
        "JP", "best_action", "What is the best next action?", options, correct, rationale, concept
    )


def _jp_endgame(sit: Situation, judged: list[Judged]) -> tuple[QuestionDraft, int]:
    """JP in the last rounds: the action with the best expected final score (see the module).

    Several winners with exactly the same value are keyed together only when they are the same
    kind of action (two reveals, two plays); a play tying with a reveal leaves no clear best.
    """
    endgame = Endgame(int(sit.snapshot["seed"]), list(sit.snapshot["moves"]))
    searched = [j.action for j in judged if j.tier > HARMFUL]
    blind = [
        (index, chance(sit.own_possible[index], sit.view.unseen, sit.view.board.playable))
        for index in range(len(sit.own_possible))
        if judge_play(sit, index).tier == HARMFUL
    ]
    result = search(endgame, searched, blind, sit.view.lives)
    kinds = {winner.split(" ", 1)[0] for winner in result.winners}
    if len(kinds) > 1 or len(result.winners) > MAX_CORRECT:
        raise ScenarioRejected(f"last rounds: {list(result.winners)} tie")
    options = tuple(sit.view.legal)
    correct = tuple(options.index(a) for a in result.winners)
    shown = "; ".join(
        f"{v.action}"
        + (f" then {v.then} on my next turn" if v.then else "")
        + f": {v.expected:.2f} (worst order {v.worst:.0f})"
        for v in result.values.values()
    )
    risky = [j.action for j in judged if j.tier == HARMFUL]
    deck = sit.view.deck_size
    rationale = (
        f"Last rounds ({deck} card(s) to draw): after each action both players follow the "
        "conventions (the hanabi-convention bot) to the end of the game, except that every "
        "other action may be followed by the best one on my next turn (its better value is "
        f"shown); expected final score over every order of the undrawn cards: {shown}"
        + (f"; not searched (risky, outcome hidden from me): {', '.join(risky)}" if risky else "")
        + f" -> {', '.join(result.winners)}"
    )
    tier = max(j.tier for j in judged if j.action in result.winners)
    what = (
        f"last rounds ({deck} card(s) to draw): the final score after each action decides, not a "
        "one-step ranking"
    )
    return _jp_draft(options, correct, rationale, what), tier


def _check_clear(
    sit: Situation, best: int, winners: list[Judged], reveals: Mapping[str, RevealOutcome]
) -> None:
    """Reject states where the tier ranking is not a clear answer."""
    partner = PLAYER_NAMES[sit.partner]
    chop = sit.partner_chop
    chop_in_danger = (
        chop is not None and sit.partner_card_needs_save(chop) and not sit.partner_pending
    )
    if sit.view.lives <= 1 and best != SURE_PLAY:
        raise ScenarioRejected("one life left and no certain play: no clear best action")
    if best <= IDLE_REVEAL:
        raise ScenarioRejected("nothing useful to do: every remaining action is idle or harmful")
    if len(winners) > MAX_CORRECT:
        raise ScenarioRejected(f"{len(winners)} equally good actions")
    if best == SURE_PLAY and chop_in_danger:
        raise ScenarioRejected(f"I can play, but {partner}'s chop needs a save: no clear winner")
    if best == PLAY_CLUE and sit.partner_pending:
        raise ScenarioRejected(f"{partner} already has a card to play; another clue is optional")
    if best == SAFE_DISCARD and sit.my_chop is not None and not sit.surely_useless(sit.my_chop):
        raise ScenarioRejected("a useless card besides the chop: the conventions say chop")
    if (
        best in (SAFE_DISCARD, CHOP_DISCARD)
        and chop is not None
        and sit.partner_card_needs_save(chop)
    ):
        raise ScenarioRejected(f"{partner}'s chop must be kept some day: saving early competes")
    for winner in winners:
        if winner.action in reveals:
            _check_bot_agrees(sit, reveals[winner.action], best)
    game, bot = seated_bot(sit.snapshot, sit.me)
    move = bot.convention_move(Observation.of(game, sit.me))
    if move not in {w.action for w in winners}:
        raise ScenarioRejected(f"the conventions pick {move!r}, not the best tier's action")


def _check_bot_agrees(sit: Situation, outcome: RevealOutcome, tier: int) -> None:
    """The simulated partner plays a playable card after a play clue, keeps a saved card."""
    reply = sit.bot_reply(outcome.text)
    focus = outcome.reading.focus
    if tier == PLAY_CLUE and not sit.plays_playable(reply):
        raise ScenarioRejected(f"after {outcome.text!r} the simulated partner answers {reply!r}")
    if tier == SAVE_CLUE and (
        reply == engine.discard_text(focus if focus is not None else -1)
        or (reply.startswith("Play") and not sit.plays_playable(reply))
    ):
        raise ScenarioRejected(f"after {outcome.text!r} the simulated partner answers {reply!r}")


def _play_concept(sit: Situation, index: int) -> str:
    """Why my card ``index`` is the one to play."""
    if sit.view.lives <= 1:
        return f"one life left: only my certainly playable Card {index} may be played"
    if not sit.surely_playable(index):
        turn = sit.game.turns[-1]
        if turn.player == sit.partner and turn.card is None and index in turn.touched:
            what = turn.action.split("'s ", 1)[1].removesuffix(" cards")
            return f"partner's {what} clue marks my Card {index} to play"
        return f"an earlier play clue marks my Card {index} to play"
    cards = sit.own_possible[index]
    if len(cards) == 1:
        return f"my Card {index} is known to be {card_text(cards[0])}, which is playable"
    return f"every card my Card {index} could be ({cards_text(cards)}) is playable"


def concept(sit: Situation, action: str, tier: int) -> str:
    """A short phrase for what makes the state an edge case, from the winning action."""
    partner = PLAYER_NAMES[sit.partner]
    if tier == SURE_PLAY:
        return _play_concept(sit, int(action.rsplit(" ", 1)[-1]))
    if tier == PLAY_CLUE:
        card = sit.reveal(action).card
        what = action.split("'s ", 1)[1].removesuffix(" cards")
        return f"a {what} reveal marks {partner}'s playable {card_text(card) if card else ''}"
    if tier == SAVE_CLUE and sit.partner_chop is not None:
        card = sit.view.partner_hand[sit.partner_chop]
        why = (
            "a 5" if card[1] == 4 else "critical" if sit.view.board.critical(card) else "a unique 2"
        )
        return f"{partner}'s chop {card_text(card)} is {why} and must be saved"
    if tier == SAFE_DISCARD:
        return f"my {action.removeprefix('Discard my ')} is certainly useless: a free discard"
    return "nothing to play or clue: discard my chop"
