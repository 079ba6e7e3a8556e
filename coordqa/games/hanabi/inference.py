"""What a Hanabi seat can infer about its own hidden hand: fairly, and by any means handed to it.

The seat-privacy check (:func:`coordqa.games.testing.check_seat_privacy`) searches what a player
is handed for the hidden cards themselves. A view can also leak them *derived*: the partner's
legal moves list a reveal only when it touches a card, so they spell out the colours and ranks of
the seat's own hand; a handed seed that gives back the episode seed lets the player deal the game
again. Two readers of a seat view make such leaks measurable:

- :func:`public_hand`, the fair player: the identities each own card can have given only the
  public history (the reveals and the cards played and discarded, replayed from the move record)
  and the partner's cards, which the seat sees. It does not read the engine's hint knowledge, so
  an engine observation that knew too much would not help it.
- :class:`HandAdversary`, the cheat: everything handed. The engine observation's hint knowledge,
  the partner's legal moves when the view holds them (a reveal that is legal touches a card, one
  that is not touches none), and the seed of ``reset``, which it tries to turn back into the
  episode seed (coordqa's old rule was episode seed plus seat) and then deals the game again,
  keeping the deal that shows the partner's visible cards.

A view leaks nothing beyond public history when the cheat's candidates equal the fair player's,
card by card, at every moment (:meth:`HandAdversary.leak`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coordqa.errors import GameError
from coordqa.games.base import Game, Observation, Player, StepResult, make_game, make_player
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.engine import COLORS, HAND_SIZE, RANKS
from coordqa.games.hanabi.knowledge import (
    Board,
    Card,
    CardKnowledge,
    hand_identities,
    reveal_knowledge,
    seat_hands,
)
from coordqa.games.hanabi.view import hanabi_seat
from coordqa.games.seat import SeatView

Candidates = list[frozenset[Card]]
"""For each card of a hand (oldest first), the identities it can have."""

DECK_SIZE = sum(engine.COPIES) * len(COLORS)
"""Cards in a full deck (50)."""
_INDEX = re.compile(r"Card (\d+)$")


def public_hand(view: SeatView) -> Candidates:
    """The identities of the seat's own cards that the public history and the partner's cards allow.

    Replays the public move record (``view.observation().turns``): each reveal of the seat's
    cards names its colour or rank for the touched positions and rules it out for the others;
    each card the seat played or discarded leaves its hand (the next card dealt, while the deck
    lasts, joins at the end knowing nothing). The identities are then counted against the cards
    played, discarded and held by the partner, hand-wide (:func:`hand_identities`).
    """
    seat, seen = view.seat, hanabi_seat(view)
    everything = CardKnowledge(tuple(range(len(COLORS))), tuple(range(len(RANKS))), None, None)
    hand = [everything] * HAND_SIZE
    deck = DECK_SIZE - 2 * HAND_SIZE
    fireworks = [0] * len(COLORS)
    discards: list[Card] = []
    for turn in seen.turns:
        if turn.card is not None:
            if turn.scored:
                fireworks[turn.card[0]] += 1
            else:
                discards.append(turn.card)
            if turn.player == seat:
                hand = _without(hand, _card_index(turn.action), everything, deck > 0)
            deck = max(deck - 1, 0)
        elif turn.player != seat:
            color, rank = engine.reveal_of(turn.action, turn.player)
            touched = [index in turn.touched for index in range(len(hand))]
            hand = reveal_knowledge(hand, touched, color, rank)
    partner = [(c.color(), c.rank()) for c in seen.engine.observed_hands()[1]]
    unseen = Board(tuple(fireworks), tuple(discards)).unseen(partner)
    return [frozenset(options) for options in hand_identities(hand, unseen)]


def _card_index(action: str) -> int:
    found = _INDEX.search(action)
    if found is None:
        raise GameError(f"{action!r} names no card")
    return int(found.group(1))


def _without(
    hand: list[CardKnowledge], index: int, fresh: CardKnowledge, drew: bool
) -> list[CardKnowledge]:
    rest = hand[:index] + hand[index + 1 :]
    return [*rest, fresh] if drew else rest


@dataclass(frozen=True)
class Inference:
    """What the two readers of one view concluded about the seat's own hand."""

    public: Candidates
    """The fair player's candidates (:func:`public_hand`)."""
    handed: Candidates
    """The cheat's candidates (:class:`HandAdversary`)."""
    sources: tuple[str, ...]
    """What the cheat used beyond public history (``partner's legal moves``, ``the seed``)."""

    @property
    def advantage(self) -> bool:
        """Whether the cheat knows more about some card than public history allows."""
        return any(h < p for h, p in zip(self.handed, self.public, strict=True))


class HandAdversary:
    """A Hanabi seat that reads everything it is handed to learn its own cards.

    Call :meth:`reset` with what ``reset`` hands a player, then :meth:`infer` with each later
    view. It deals the game again from every seed it can derive from the handed one (the seed
    itself and the seed minus the seat), keeps a deal only when it shows the partner's visible
    cards, and follows it with the public moves.
    """

    def __init__(self) -> None:
        """Start knowing nothing."""
        self.seat = 0
        self.dealt: Any = None
        self.followed = 0

    def reset(self, view: SeatView, seed: int) -> None:
        """Read the start of an episode and the seed handed with it.

        Each guessed deal is the view's own game built through the registry (this probe is
        part of the game's profile, so it does not import the game's module).
        """
        self.seat, self.dealt, self.followed = view.seat, None, 0
        partner = _partner_cards(view)
        for guess in dict.fromkeys((seed, seed - view.seat)):
            if not 0 <= guess <= engine.MAX_SEED:
                continue
            game: Any = make_game(view.name, seed=guess)
            if [(c.color(), c.rank()) for c in game.state.player_hands()[1 - view.seat]] == partner:
                self.dealt = game
                return

    def infer(self, view: SeatView) -> Inference:
        """Both readers' candidates for the seat's own cards in ``view``."""
        public = public_hand(view)
        sources = []
        handed = self._from_knowledge(view)
        reveals = _partner_reveals(view)
        if reveals is not None:
            sources.append("the partner's legal moves")
            handed = _consistent(handed, _partner_cards(view), view, *reveals)
        if self.dealt is not None:
            sources.append("the seed")
            handed = [frozenset({card}) for card in self._follow(view)]
        return Inference(public, handed, tuple(sources))

    def leak(self, view: SeatView) -> str | None:
        """What ``view`` (with the seed of ``reset``) reveals beyond public history, or None."""
        inference = self.infer(view)
        if not inference.advantage:
            return None
        return (
            f"the seat's own Hanabi cards can be inferred from {' and '.join(inference.sources)} "
            f"beyond what public history allows (cards pinned: {_pinned(inference.handed)} vs "
            f"{_pinned(inference.public)})"
        )

    def _from_knowledge(self, view: SeatView) -> Candidates:
        seen = hanabi_seat(view).engine
        own = seat_hands(seen, view.seat)[view.seat]
        board = Board.of(seen)
        unseen = board.unseen(_partner_cards(view))
        return [frozenset(options) for options in hand_identities(own, unseen)]

    def _follow(self, view: SeatView) -> list[Card]:
        """The seat's cards in the re-dealt game, after the public moves it has not followed."""
        turns = hanabi_seat(view).turns
        for turn in turns[self.followed :]:
            self.dealt.step({turn.player: turn.action})
        self.followed = len(turns)
        return [(c.color(), c.rank()) for c in self.dealt.state.player_hands()[self.seat]]


def _pinned(candidates: Candidates) -> int:
    return sum(len(options) == 1 for options in candidates)


def _partner_cards(view: SeatView) -> list[Card]:
    return [(c.color(), c.rank()) for c in hanabi_seat(view).engine.observed_hands()[1]]


def _partner_reveals(view: SeatView) -> tuple[set[int], set[int]] | None:
    """Colours and ranks the partner may reveal to this seat now, when the view lists its moves.

    None when the view does not hold the partner's legal moves, or holds none (not its turn, or
    no reveal token left: then legality says nothing about this seat's cards).
    """
    partner = 1 - view.seat
    actions = view.actions[partner]
    if not actions or hanabi_seat(view).engine.information_tokens() == 0:
        return None
    colors: set[int] = set()
    ranks: set[int] = set()
    for action in actions:
        if action.startswith("Reveal"):
            color, rank = engine.reveal_of(action, partner)
            if color is not None:
                colors.add(color)
            if rank is not None:
                ranks.add(rank)
    return colors, ranks


def _consistent(
    candidates: Candidates, partner: list[Card], view: SeatView, colors: set[int], ranks: set[int]
) -> Candidates:
    """Per card, the identities that fit a whole hand with exactly these colours and ranks."""
    board = Board.of(hanabi_seat(view).engine)
    left = board.unseen(partner)
    options = [[c for c in own if c[0] in colors and c[1] in ranks] for own in candidates]
    result = []
    for index, own in enumerate(options):
        others = [o for i, o in enumerate(options) if i != index]
        result.append(
            frozenset(card for card in own if _completes(others, [card], left, colors, ranks))
        )
    return result


def _completes(
    options: list[list[Card]],
    chosen: list[Card],
    left: dict[Card, int],
    colors: set[int],
    ranks: set[int],
) -> bool:
    """Whether ``chosen`` and one card from each remaining list fit ``colors`` and ``ranks``.

    The hand must stay within the copies ``left`` and show every colour and rank named.
    """
    used = {card: chosen.count(card) for card in chosen}
    if any(left[card] < n for card, n in used.items()):
        return False
    colors_missing = len(colors - {c for c, _ in chosen})
    ranks_missing = len(ranks - {r for _, r in chosen})
    if max(colors_missing, ranks_missing) > len(options):
        return False
    if not options:
        return True
    return any(_completes(options[1:], [*chosen, card], left, colors, ranks) for card in options[0])


@dataclass
class LeakReport:
    """What the fair player and the cheat learned of their own hands over some games."""

    games: int = 0
    """Games played."""
    views: int = 0
    """Views read (every ``reset``, ``act`` and ``observe`` of both seats)."""
    cards: int = 0
    """Own cards over all views read."""
    pinned_public: int = 0
    """Of those, cards whose identity public history pins down."""
    pinned_handed: int = 0
    """Of those, cards whose identity the cheat pins down."""
    advantage_views: int = 0
    """Views in which the cheat knew more about some card than public history allows."""
    hand_sets_recovered: int = 0
    """Games in which, at some view, the partner's legal moves gave a seat the exact colours and
    ranks of its own hand."""
    deals_rebuilt: int = 0
    """Games in which a seat dealt the game again from its handed seed."""

    @property
    def advantage(self) -> bool:
        """Whether the cheat ever did better than public history."""
        return self.advantage_views > 0


def measure_hand_inference(
    games: int,
    seed: int = 0,
    player: str = "hanabi-convention",
    make: Callable[..., Game] | None = None,
) -> LeakReport:
    """Play ``games`` self-play games, both seats read by both readers; count what each learned.

    The games are ``player`` self-play from seeds ``seed``, ``seed + 1``, ...; every view handed
    to either seat is read by :func:`public_hand` and a :class:`HandAdversary`.

    ``make(seed=...)`` builds each game (default: coordqa's Hanabi; a test passes a leaky one).

    Raises:
        GameError: a reader ruled out a seat's true card (a bug in the reader, not a leak).
    """
    import asyncio

    from coordqa.games.episode import play_episode

    report = LeakReport()
    for number in range(games):
        game = (
            make(seed=seed + number)
            if make is not None
            else make_game("hanabi", seed=seed + number)
        )
        watched = [_Watched(make_player(player, "hanabi"), game, report) for _ in range(2)]
        asyncio.run(play_episode(game, watched, seed + number, player_names=[player, player]))
        report.games += 1
        report.hand_sets_recovered += any(w.sets_recovered for w in watched)
        report.deals_rebuilt += any(w.adversary.dealt is not None for w in watched)
    return report


class _Watched(Player):
    """A player whose every view is also read by both readers and checked against the truth."""

    def __init__(self, inner: Player, game: Any, report: LeakReport) -> None:
        self.inner, self.game, self.report = inner, game, report
        self.adversary = HandAdversary()
        self.sets_recovered = False

    def _read(self, view: SeatView) -> None:
        inference = self.adversary.infer(view)
        truth = [(c.color(), c.rank()) for c in self.game.state.player_hands()[view.seat]]
        for options in (inference.public, inference.handed):
            if any(card not in own for card, own in zip(truth, options, strict=True)):
                raise GameError(f"a hand reader ruled out a true card: {truth} vs {options}")
        report = self.report
        report.views += 1
        report.cards += len(truth)
        report.pinned_public += _pinned(inference.public)
        report.pinned_handed += _pinned(inference.handed)
        report.advantage_views += inference.advantage
        reveals = _partner_reveals(view)
        if reveals is not None and reveals == ({c for c, _ in truth}, {r for _, r in truth}):
            self.sets_recovered = True

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        self.adversary.reset(view, seed)
        self._read(view)
        self.inner.reset(view, player, seed)

    async def act(self, observation: Observation) -> str:
        self._read(observation.view)
        return await self.inner.act(observation)

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        self._read(view)
        self.inner.observe(view, player, result)
