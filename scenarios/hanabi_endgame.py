"""Hanabi JP in the last rounds: search the rest of the game instead of ranking by tiers.

The tier ranking's "+1 score now beats a partner's play next turn" holds while the deck is long,
because the game will last anyway. With a few cards left it can be wrong: a reveal draws no card,
so it keeps the game going one more turn, and a clue that lets the partner play while the deck
lasts can score more than playing now. Once the deck holds :data:`ENDGAME_DECK` cards or fewer,
JP keys come from a search of the remaining turns instead:

- each of my legal actions (risky ones excepted, see below) is played, then *both* players follow
  the ``hanabi-convention`` bot, which plays by the conventions of the game description (so the
  partner is the project's own convention partner, and I continue as the conventions say);
- the deck order is unknown to me, so an action's value is the **expectation** of the final score
  over every order in which the undrawn cards can come, each order weighted by its probability
  (exact: every order that a playout can meet is enumerated);
- the cards already in the hands are the dealt ones (the partner sees mine and clues by them).
  My other possible hands are not searched (pyhanabi cannot deal chosen cards), so a value can
  rest on a hidden card of mine; the curated keys were checked not to (hanabi-19, -21 and -24 of
  v1.1: the winning line plays only cards the text shows to me or to the partner).

pyhanabi deals only at random (it cannot deal a chosen card), so the orders are found by playing
an action out again and again on copies of one replayed game, whose shared generator gives a new
deal each time, until the orders met cover the whole probability (the value of a playout depends
only on the cards it drew, so each order is played once). Deterministic: the same state gives the
same playouts in the same order.

The playouts continue with the bot in my seat too, and the bot never chooses some moves a reader
of the text may choose (it gives no reveal that touches no new card, such as a colour reveal that
tells the partner a card he knows the rank of is playable). So an action could win only because,
after any other action, the bot never makes that move later. The search therefore lets every
other action be followed by the winner on my next turn ("play my Card 3, then reveal the
partner's Green cards" against "reveal Green now") and values it at the better of its two
continuations: a key must win because of *when* it is made, which a reader can check from the
text (a reveal draws no card, the game ends one round after the deck runs out), not because the
bot cannot find it afterwards. (hanabi-29-JP of v1.1 was keyed "Reveal Alice's Green color
cards", 20.00 against 18.67 for playing my play-clued Yellow 5; playing it first and revealing
Green next turn also gives 20 in every deck order, so the state is now rejected.)

The partner bot counts my cards, which the text cannot show me: her list in the text is public
information only. Wherever a playout meets a partner move that differs from the move her list
alone gives (``public_only``), the outcome rests on cards a reader of the text cannot see, and the
state is rejected (v1.1's audit found a key that credited a reveal reaching the best score only
because the partner card-counted a card the text showed her as "Red 1-4").

Risky actions (a play of a card not certainly playable and not marked by a play clue, a play clue
on an unplayable card) are never keys, because their outcome depends on my hidden cards. With two
or more lives a blind play can still be worth its chance in the last turns, so its value is
bounded from above (its chance of scoring plus the value of discarding that card) and a state is
rejected when that bound comes within :data:`MARGIN` of the best searched action. Actions within
:data:`MARGIN` of the best (but not exactly equal) make a tie, and the state is rejected.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from coordqa.games.base import Observation
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.convention_player import ConventionPlayer
from coordqa.games.hanabi.game import Hanabi
from coordqa.games.hanabi.knowledge import Card
from coordqa.scenarios.model import ScenarioRejected

ENDGAME_DECK = 3
"""With this few cards left to draw, the game ends within a few rounds: JP is searched."""
MARGIN = 0.5
"""Expected points by which the best action must beat every other searched action (and the bound
of every blind play); actions closer than this but not exactly equal are a tie."""
MAX_PLAYOUTS = 240
"""Playouts per action before giving up on meeting every deck order (then the state is rejected).
With at most three cards to draw there are at most six orders."""
COVERED = 1 - 1e-9
"""Probability mass of the deck orders met at which the enumeration is complete."""


@dataclass(frozen=True)
class ActionValue:
    """One action's final score over the deck orders."""

    action: str
    expected: float
    """Expected final score, each deck order weighted by its probability."""
    worst: float
    """Lowest final score over the orders."""
    orders: int
    """Distinct deck orders the playouts met."""
    then: str | None = None
    """The action made on my next turn instead of the bot's choice (None: the bot's choice)."""
    hidden: str | None = None
    """Where a playout met a partner move that her view of my cards decides (None: nowhere)."""


def follow_up(first: str, then: str) -> str | None:
    """``then`` as an action text on my next turn, after ``first`` (None: no longer possible).

    Reveals keep their text. Playing or discarding my Card j removes it and shifts the cards to
    its right one place left, so my Card i (i > j) is then my Card i - 1; my Card j is gone.
    """
    if not then.startswith(("Play", "Discard")):
        return then
    index = int(then.rsplit(" ", 1)[-1])
    if not first.startswith(("Play", "Discard")):
        return then
    removed = int(first.rsplit(" ", 1)[-1])
    if removed == index:
        return None
    return then.rsplit(" ", 1)[0] + f" {index - (removed < index)}"


def replay_with_bots(
    seed: int, moves: Sequence[str]
) -> tuple[Hanabi, tuple[ConventionPlayer, ConventionPlayer]]:
    """The state after ``moves``, with a ``hanabi-convention`` bot in each seat that saw them."""
    game = Hanabi(seed=seed)
    bots = (ConventionPlayer(), ConventionPlayer())
    for seat, bot in enumerate(bots):
        bot.reset(game.seat_view(seat), seat, seat)
    for text in moves:
        result = game.step({game.state.cur_player(): text})
        for seat, bot in enumerate(bots):
            bot.observe(game.seat_view(seat), seat, result)
    return game, bots


def undrawn_cards(game: Hanabi) -> dict[Card, int]:
    """Copies of each card still in the deck: all cards minus stacks, discards and both hands."""
    counts = {
        (c, r): engine.COPIES[r]
        for c in range(len(engine.COLORS))
        for r in range(len(engine.RANKS))
    }
    state = game.state
    for color, height in enumerate(state.fireworks()):
        for rank in range(height):
            counts[(color, rank)] -= 1
    for card in state.discard_pile():
        counts[(card.color(), card.rank())] -= 1
    for hand in state.player_hands():
        for card in hand:
            counts[(card.color(), card.rank())] -= 1
    return counts


def order_probability(drawn: Sequence[Card], deck: dict[Card, int]) -> float:
    """Probability that the deck deals ``drawn`` first, in that order."""
    left = dict(deck)
    total = sum(left.values())
    probability = 1.0
    for card in drawn:
        probability *= left[card] / total
        left[card] -= 1
        total -= 1
    return probability


class Endgame:
    """The search of the last rounds from one state, for the player on turn."""

    def __init__(self, seed: int, moves: Sequence[str]) -> None:
        """Replay the state once; every playout runs on a copy of it."""
        self.game, self.bots = replay_with_bots(seed, moves)
        self.me = int(self.game.state.cur_player())
        self.deck = undrawn_cards(self.game)

    def partner_sees_more(self, game: Hanabi, bot: ConventionPlayer) -> str | None:
        """Why the partner's next move depends on my cards, or None.

        The text shows me the partner's knowledge from public information; she also counts my
        cards. Where her move with that counting differs from her move without it, it is not a
        move a reader of the text can foresee.
        """
        partner = 1 - self.me
        observation = Observation.of(game, partner)
        seen = bot.convention_move(observation)
        listed = bot.convention_move(observation, public_only=True)
        if seen == listed:
            return None
        return f"after {len(game.turns)} moves she makes {seen!r}, by her list alone {listed!r}"

    def playout(
        self, first: str, then: str | None = None
    ) -> tuple[float, tuple[Card, ...], str | None]:
        """Play ``first``, then both bots to the end.

        Returns the final score, the cards drawn, and where a partner move depended on her view
        of my cards (:meth:`partner_sees_more`). With ``then``, I make that action (see
        :func:`follow_up`) on my next turn where it is legal, instead of the bot's choice.
        """
        game = self.game.fork()
        bots = copy.deepcopy(self.bots)
        drawn: list[Card] = []
        hidden: str | None = None
        action = first
        then = follow_up(first, then) if then is not None else None
        while True:
            mover = int(game.state.cur_player())
            deck_before = game.state.deck_size()
            result = game.step({mover: action})
            if game.state.deck_size() < deck_before:
                card = game.state.player_hands()[mover][-1]
                drawn.append((card.color(), card.rank()))
            for seat, bot in enumerate(bots):
                bot.observe(game.seat_view(seat), seat, result)
            if game.is_terminal():
                return game.score(), tuple(drawn), hidden
            player = int(game.state.cur_player())
            if player != self.me and hidden is None:
                hidden = self.partner_sees_more(game, bots[player])
            if player == self.me and then is not None and then in game.legal_actions(player):
                action, then = then, None
                continue
            if player == self.me:
                then = None
            action = bots[player].choose(Observation.of(game, player))

    def value(self, action: str, then: str | None = None) -> ActionValue:
        """``action``'s final score over every deck order (see the module docstring).

        ``then``: the action I make on my next turn (see :meth:`playout`).

        Raises:
            ScenarioRejected: the playouts did not meet every order within :data:`MAX_PLAYOUTS`.
        """
        scores: dict[tuple[Card, ...], float] = {}
        mass = 0.0
        hidden: str | None = None
        for _ in range(MAX_PLAYOUTS):
            score, drawn, seen = self.playout(action, then)
            hidden = hidden or seen
            if drawn not in scores:
                scores[drawn] = score
                mass += order_probability(drawn, self.deck)
            if mass >= COVERED:
                break
        else:
            raise ScenarioRejected(
                f"the playouts of {action!r} met deck orders covering only {mass:.3f} of the "
                f"probability in {MAX_PLAYOUTS} tries"
            )
        expected = sum(order_probability(d, self.deck) * s for d, s in scores.items())
        return ActionValue(action, expected, min(scores.values()), len(scores), then, hidden)

    @cached_property
    def score_now(self) -> float:
        """The score before my action."""
        return self.game.score()


@dataclass(frozen=True)
class EndgameResult:
    """The searched values and the winners."""

    values: dict[str, ActionValue]
    """Every searched action's value, in the order given."""
    winners: tuple[str, ...]
    """The actions with the highest expected score (several only when exactly equal)."""


def search(
    endgame: Endgame, searched: Sequence[str], blind: Sequence[tuple[int, float]], lives: int
) -> EndgameResult:
    """Value ``searched`` and pick the winners; ``blind`` holds (card index, chance) of blind plays.

    Raises:
        ScenarioRejected: actions tie within :data:`MARGIN`, or a blind play could compete.
    """
    values = {action: endgame.value(action) for action in searched}
    if not values:
        raise ScenarioRejected("no action to search in the last rounds")
    top = max(v.expected for v in values.values())
    winners = tuple(a for a, v in values.items() if v.expected == top)
    values = {
        action: value if action in winners else _followed_by_winner(endgame, value, winners)
        for action, value in values.items()
    }
    hidden = [f"{a!r}: {v.hidden}" for a, v in values.items() if v.hidden]
    if hidden:
        raise ScenarioRejected(
            f"last rounds: a partner move rests on my hidden cards ({hidden[0]})"
        )
    for action, value in values.items():
        if action in winners or top - value.expected >= MARGIN:
            continue
        then = f" then {value.then!r} on my next turn" if value.then else ""
        verdict = "scores more than" if value.expected > top else f"ties within {MARGIN} with"
        raise ScenarioRejected(
            f"last rounds: {action!r}{then} ({value.expected:.2f}) {verdict} "
            f"{winners[0]!r} ({top:.2f})"
        )
    if lives >= 2:
        for index, odds in blind:
            if odds <= 0:
                continue
            discard = engine.discard_text(index)
            if discard not in values:
                raise ScenarioRejected(
                    f"last rounds: a blind play of my Card {index} (chance {odds:.2f}) cannot be "
                    "bounded (its discard is not legal)"
                )
            bound = odds + values[discard].expected
            if top - bound < MARGIN:
                raise ScenarioRejected(
                    f"last rounds: a blind play of my Card {index} may score up to {bound:.2f} "
                    f"against {top:.2f}"
                )
    return EndgameResult(values, winners)


def _followed_by_winner(
    endgame: Endgame, value: ActionValue, winners: Sequence[str]
) -> ActionValue:
    """``value``, or the action followed by a winner on my next turn where that scores more."""
    best = value
    for winner in winners:
        if follow_up(value.action, winner) is None:
            continue
        followed = endgame.value(value.action, then=winner)
        if followed.expected > best.expected:
            best = followed
    return best
