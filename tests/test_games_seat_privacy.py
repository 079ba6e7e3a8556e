"""Players are handed seat views that lead nowhere hidden (issue 14.4), and the check can fail.

Every registered player that plays without a model server (scripted bots, BC/HP partners, the
LLM agents on coordqa's ScriptedModel) plays under :func:`check_seat_privacy`; deliberately
leaky games show that the check catches each escape route it claims to search.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import coordqa.agentic.agents  # noqa: F401 (the agents register their player names)
from coordqa.agentic.agents.testing import RoleScript
from coordqa.errors import GameError
from coordqa.games import GAME_NAMES, PLAYERS, Game, SeatView, make_game, make_player
from coordqa.games.collab_capture import CollabCapture
from coordqa.games.testing import SeatPrivacyError, check_seat_privacy
from coordqa.llm import ScriptedModel

pytest.importorskip("hanabi_learning_environment")
pytest.importorskip("overcooked_ai_py")

from coordqa.games.hanabi import Hanabi  # noqa: E402
from coordqa.games.hanabi.game import HanabiSeatObservation  # noqa: E402
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


def test_legal_actions_of_either_seat_match_the_game() -> None:
    game = make_game("collab_escape", seed=2)
    rng = random.Random(0)
    for _ in range(5):
        view = game.seat_view(0)
        assert [view.legal_actions(p) for p in (0, 1)] == [game.legal_actions(p) for p in (0, 1)]
        game.step({p: rng.choice(game.legal_actions(p)) for p in (0, 1)})
    with pytest.raises(GameError, match="0 \\(Alice\\) or 1 \\(Bob\\)"):
        game.seat_view(0).legal_actions(2)
