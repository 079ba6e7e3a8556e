"""Players are handed seat views that lead nowhere hidden (issue 14.4), and the check can fail.

Every registered player that plays without a model server (scripted bots, BC/HP partners, the
LLM agents on coordqa's ScriptedModel) plays under :func:`check_seat_privacy`; deliberately
leaky games show that the check catches each escape route it claims to search.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from agents_support import RoleScript

import coordqa.agentic.agents  # noqa: F401 (the agents register their player names)
from coordqa.errors import GameError
from coordqa.games import GAME_NAMES, PLAYERS, Game, SeatView, make_game, make_player
from coordqa.games.collab_capture import CollabCapture
from coordqa.games.seat import seat_seed
from coordqa.games.testing import SeatPrivacyError, check_seat_privacy
from coordqa.llm import ScriptedModel

pytest.importorskip("hanabi_learning_environment")
pytest.importorskip("overcooked_ai_py")

from coordqa.games.hanabi import Hanabi  # noqa: E402
from coordqa.games.hanabi.inference import HandAdversary, measure_hand_inference  # noqa: E402
from coordqa.games.hanabi.view import HanabiSeatObservation  # noqa: E402
from coordqa.games.overcooked import Overcooked  # noqa: E402

OFFLINE_KINDS = ("scripted", "bc", "hp", "llm")
"""Player kinds that play without a model server or downloaded weights (SAD/OBL are checked
with random weights in test_partners_hanabi.py)."""
CASES = [
    (name, game)
    for name, spec in PLAYERS.items()
    if spec.kind in OFFLINE_KINDS
    for game in GAME_NAMES
    if spec.plays(game)
]


def _game(name: str, player: str) -> Game:
    if name == "overcooked":
        layout = player.split("-", 1)[1] if player.startswith(("bc-", "hp-")) else None
        return make_game("overcooked", layout, horizon=25)
    return make_game(name, seed=3)


def _player(name: str, game: str) -> Any:
    if PLAYERS.get(name).kind == "llm":
        return make_player(name, game, model=ScriptedModel(RoleScript()))
    return make_player(name, game)


@pytest.mark.parametrize(("player", "game"), CASES, ids=[f"{p}-{g}" for p, g in CASES])
def test_registered_player_reaches_nothing_hidden(player: str, game: str) -> None:
    report = check_seat_privacy(
        _game(game, player), [_player(player, game), _player(player, game)], steps=12
    )
    assert report.decisions > 0 and report.steps > 0
    assert report.handed >= 2 + report.decisions + 2 * report.steps  # reset, act, observe
    assert report.visited > report.handed  # the search went inside what was handed


def test_every_offline_kind_is_covered() -> None:
    kinds = {PLAYERS.get(name).kind for name, _ in CASES}
    assert kinds == {"scripted", "bc", "hp", "llm"}
    assert {game for _, game in CASES} == {
        "hanabi",
        "overcooked",
        "collab_capture",
        "collab_escape",
    }


# --------------------------------------------------------------- the check can fail


class _PartnersEyes(Hanabi):
    """Leaky: a seat is handed its partner's engine observation, which shows its own cards."""

    def seat_observation(self, seat: int) -> HanabiSeatObservation:
        return HanabiSeatObservation(self.state.observation(1 - seat), tuple(self.turns))


class _WholeState(Hanabi):
    """Leaky: a seat is handed the engine state itself."""

    def seat_observation(self, seat: int) -> Any:
        return HanabiSeatObservation(self.state, tuple(self.turns))


class _CopiedState(Hanabi):
    """Leaky: a copy of the engine state (not the live one) still holds every hand."""

    def seat_observation(self, seat: int) -> Any:
        return {"state": self.state.copy()}


class _OwnCardsAsPairs(Hanabi):
    """Leaky: the own hand copied out as plain (colour, rank) pairs."""

    def seat_observation(self, seat: int) -> Any:
        hand = tuple((c.color(), c.rank()) for c in self.state.player_hands()[seat])
        return {"hints": [hand]}


class _ForkedGame(Hanabi):
    """Leaky: a fork of the game (another Game object with the same hidden cards)."""

    def seat_observation(self, seat: int) -> Any:
        return [self.fork()]


class _PartnersMoves(Hanabi):
    """Leaky (derived): both seats' legal moves in every view, as coordqa had them before issue 25.

    A reveal is legal only if it touches a card, so the partner's moves spell out the colours and
    ranks of the seat's own hand, though no object handed holds the cards themselves.
    """

    legal_actions_public = True


class _ClosureCapture(CollabCapture):
    """Leaky: a callable whose closure holds the live game."""

    def seat_observation(self, seat: int) -> Any:
        game = self
        return lambda: game.state


class _PassThrough:
    """A wrapper that forwards every attribute to the object it hides."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _ForwardingCapture(CollabCapture):
    """Leaky: a ``__getattr__`` pass-through to the game."""

    def seat_observation(self, seat: int) -> Any:
        return _PassThrough(self)


class _LiveKitchen(Overcooked):
    """Leaky: the live Overcooked state instead of a copy (a player could change the game)."""

    def seat_observation(self, seat: int) -> Any:
        seen = super().seat_observation(seat)
        return type(seen)(self.state, seen.partner_task)


LEAKS = [
    (_PartnersEyes, "hanabi-legal-random", "own Hanabi cards"),
    (_WholeState, "hanabi-legal-random", "the game's 'state'"),
    (_CopiedState, "hanabi-legal-random", "HanabiState"),
    (_OwnCardsAsPairs, "hanabi-legal-random", "own Hanabi cards"),
    (_ForkedGame, "hanabi-legal-random", "reaches a .*_ForkedGame"),
    (_PartnersMoves, "hanabi-legal-random", "inferred from the partner's legal moves"),
    (_ClosureCapture, "capture-greedy", "the live game"),
    (_ForwardingCapture, "capture-greedy", "the live game"),
    (_LiveKitchen, "planner", "the game's 'state'"),
]


@pytest.mark.parametrize(("cls", "player", "found"), LEAKS, ids=[c.__name__ for c, _, _ in LEAKS])
def test_the_check_fails_on_a_leaky_view(cls: type[Game], player: str, found: str) -> None:
    game = cls()
    with pytest.raises(SeatPrivacyError, match=found):
        check_seat_privacy(game, [make_player(player, game.name), make_player(player, game.name)])


def test_a_leak_is_named_with_the_seat_the_call_and_the_path() -> None:
    with pytest.raises(SeatPrivacyError) as caught:
        check_seat_privacy(_ClosureCapture(), [make_player("capture-greedy", "collab_capture")] * 2)
    message = str(caught.value)
    assert message == (
        "reset (seat 0): SeatView.public.__closure__[0].cell_contents reaches the live game"
    )


# --------------------------------------------------------------- the view itself


def test_a_view_describes_only_its_own_seat() -> None:
    game = make_game("hanabi", seed=5)
    view = game.seat_view(0)
    assert view.describe(0) == game.describe(0)
    with pytest.raises(GameError, match="cannot describe player 1"):
        view.describe(1)  # Bob's description lists Alice's cards


def test_a_view_has_no_way_back_to_the_game() -> None:
    game = make_game("collab_capture")
    view = game.seat_view(1)
    assert not hasattr(view, "__dict__") and not hasattr(view, "game")
    assert not hasattr(view, "state")
    with pytest.raises(AttributeError):
        view.seat = 0  # type: ignore[misc]
    assert isinstance(view, SeatView)


def test_the_hanabi_observation_hides_the_own_hand_and_shows_the_partners() -> None:
    game = make_game("hanabi", seed=5)
    seen = game.seat_view(1).observation().engine
    own, partner = seen.observed_hands()
    assert [(c.color(), c.rank()) for c in own] == [(-1, -1)] * 5
    alice = [(c.color(), c.rank()) for c in game.state.player_hands()[0]]
    assert [(c.color(), c.rank()) for c in partner] == alice


def test_the_overcooked_view_is_a_copy() -> None:
    game = make_game("overcooked", horizon=10)
    seen = game.seat_view(0).observation()
    assert seen.state == game.state and seen.state is not game.state


def test_a_hanabi_view_holds_only_its_own_seats_legal_actions() -> None:
    game = make_game("hanabi", seed=5)
    game.step({0: "Reveal Bob's rank 1 cards"})  # now Bob is on turn
    alice, bob = game.seat_view(0), game.seat_view(1)
    assert bob.legal_actions(1) == game.legal_actions(1) and alice.legal_actions(0) == []
    with pytest.raises(GameError, match="hidden from player 0's view"):
        alice.legal_actions(1)  # Bob's reveals would tell Alice which cards she holds
    assert alice.actions == ((), None) and bob.actions[0] is None


def test_legal_actions_of_either_seat_match_the_game() -> None:
    game = make_game("collab_escape", seed=2)
    rng = random.Random(0)
    for _ in range(5):
        view = game.seat_view(0)
        assert [view.legal_actions(p) for p in (0, 1)] == [game.legal_actions(p) for p in (0, 1)]
        game.step({p: rng.choice(game.legal_actions(p)) for p in (0, 1)})
    with pytest.raises(GameError, match="0 \\(Alice\\) or 1 \\(Bob\\)"):
        game.seat_view(0).legal_actions(2)


# --------------------------------------------------------------- derived leaks (issue 25)


def test_no_player_infers_more_of_its_hand_than_public_history_allows() -> None:
    """The adversary reads everything handed to it (the engine observation, the partner's moves
    when shown, the seed); over these games it must pin down exactly the cards a player that
    replays only the public move record pins down (before issue 25: all of them, 20 of 20 games
    dealt again from the seed, and both sets of the own hand read off the partner's moves in 20
    of 20)."""
    report = measure_hand_inference(games=4, seed=11)
    assert report.games == 4 and report.views > 4 * 50
    assert report.pinned_public > 0  # the fair player does learn cards: the measure can move
    assert report.pinned_handed == report.pinned_public
    assert report.advantage_views == 0
    assert report.hand_sets_recovered == 0 and report.deals_rebuilt == 0


def test_the_adversary_wins_where_the_partners_moves_are_shown() -> None:
    """Label from the rules: at Bob's first turn Alice cannot have spent a token on a discard
    (8 tokens, discarding is illegal), so Bob's legal reveals are exactly the colours and ranks
    in Alice's hand, in every game."""
    report = measure_hand_inference(games=3, seed=11, make=_PartnersMoves)
    assert report.hand_sets_recovered == 3
    assert report.advantage_views > 0 and report.pinned_handed > report.pinned_public


def test_the_seat_seed_does_not_lead_back_to_the_deal() -> None:
    """coordqa's old rule handed seed + seat, from which the adversary deals the game again; the
    keyed seat seed gives it nothing, in every one of 10 episodes."""
    old, new = 0, 0
    for seed in range(10):
        game = make_game("hanabi", seed=seed)
        for seat in (0, 1):
            view = game.seat_view(seat)
            adversary = HandAdversary()
            adversary.reset(view, seed + seat)
            old += adversary.dealt is not None
            adversary.reset(view, seat_seed(seed, seat))
            new += adversary.dealt is not None
    assert (old, new) == (20, 0)


def test_seat_seeds_are_unrelated_and_stable() -> None:
    seeds = {seat_seed(episode, seat) for episode in range(100) for seat in (0, 1)}
    assert len(seeds) == 200 and all(0 <= s < 2**31 for s in seeds)
    assert seat_seed(3, 1) == seat_seed(3, 1) != seat_seed(3, 0) + 1
