"""Collab Capture rules: doors, buttons, the thief's policy, capture, limits, text and snapshots."""

from __future__ import annotations

import pytest

from coordqa.errors import ConfigError, GameError
from coordqa.games import make_game
from coordqa.games.collab_capture import (
    TURN_LIMIT,
    CaptureState,
    CollabCapture,
    thief_move,
)

OPEN: frozenset[tuple[int, int]] = frozenset()
BOTH_CLOSED = frozenset({(1, 2), (3, 4)})


def game_at(alice: int, bob: int, thief: int, closed: frozenset[tuple[int, int]]) -> CollabCapture:
    game = make_game("collab_capture")
    assert isinstance(game, CollabCapture)
    game.state = CaptureState(alice, bob, thief, closed)
    return game


def test_start_matches_the_facts() -> None:
    state = make_game("collab_capture").state
    assert (state.alice, state.bob, state.thief) == (1, 6, 2)
    assert state.closed == {(1, 2)}


def test_closed_door_blocks_agents() -> None:
    game = make_game("collab_capture")
    assert game.legal_actions(0) == ["Move to Room 6", "Wait"]
    with pytest.raises(GameError, match="illegal move 'Move to Room 2'"):
        game.step({0: "Move to Room 2", 1: "Wait"})


def test_closed_door_blocks_the_thief_even_into_an_agent() -> None:
    assert thief_move(2, (6, 3), frozenset({(1, 2)})) == 3
    assert thief_move(2, (6, 3), OPEN) == 1


def test_thief_cannot_move_when_enclosed_and_stays() -> None:
    assert thief_move(3, (5, 6), BOTH_CLOSED) == 2
    assert thief_move(4, (1, 1), frozenset({(3, 4), (4, 5)})) == 4


def test_thief_maximises_shortest_path_distance_to_the_closer_agent() -> None:
    assert thief_move(5, (1, 3), OPEN) == 7
    # By room-number difference rooms 2 and 6 would tie (|2-3| == |6-7|); by path, 6 is safer.
    assert thief_move(1, (3, 7), OPEN) == 6


def test_thief_ties_go_to_the_lowest_room() -> None:
    assert thief_move(2, (5, 5), OPEN) == 1
    assert thief_move(6, (6, 6), OPEN) == 1


def test_thief_uses_the_doors_after_this_turns_presses() -> None:
    # Alice in Room 9 opens door 1-2 this turn, so the thief in Room 2 may now run to Room 1.
    game = game_at(alice=9, bob=4, thief=2, closed=frozenset({(1, 2)}))
    game.step({0: "Press button in Room 9", 1: "Wait"})
    assert game.state.closed == frozenset()
    assert game.state.thief == 1


def test_button_only_in_its_room_toggles_and_takes_the_turn() -> None:
    game = game_at(alice=9, bob=8, thief=3, closed=frozenset({(1, 2)}))
    assert "Press button in Room 9" in game.legal_actions(0)
    assert "Press button in Room 8" in game.legal_actions(1)
    assert not any(a.startswith("Press") for a in make_game("collab_capture").legal_actions(0))
    result = game.step({0: "Press button in Room 9", 1: "Press button in Room 8"})
    assert game.state.closed == frozenset({(3, 4)})
    assert game.state.agents() == (9, 8)
    assert len(result.events) == 2
    game.step({0: "Press button in Room 9", 1: "Wait"})
    assert game.state.closed == BOTH_CLOSED


def test_two_presses_of_one_button_toggle_it_once() -> None:
    game = game_at(alice=9, bob=9, thief=3, closed=frozenset({(1, 2)}))
    game.step({0: "Press button in Room 9", 1: "Press button in Room 9"})
    assert game.state.closed == frozenset()


def test_thief_forced_into_an_agent_is_caught() -> None:
    game = game_at(alice=6, bob=3, thief=2, closed=frozenset({(1, 2)}))
    result = game.step({0: "Wait", 1: "Wait"})
    assert game.state.captured and game.is_terminal()
    assert result.reward == 1.0 and "caught in Room 3" in result.events[-1]
    assert game.metrics() == {"captured": 1.0, "turns": 1.0}
    assert game.players_to_act() == []


def test_swapping_rooms_counts_as_capture() -> None:
    game = game_at(alice=3, bob=9, thief=2, closed=frozenset({(1, 2)}))
    game.step({0: "Move to Room 2", 1: "Wait"})
    assert (game.state.alice, game.state.thief) == (2, 3)
    assert game.state.captured


def test_entering_the_thief_room_is_not_a_capture_if_it_escapes() -> None:
    game = game_at(alice=6, bob=3, thief=5, closed=OPEN)
    game.step({0: "Move to Room 5", 1: "Wait"})
    assert game.state.thief == 4 and not game.state.captured


def test_fleeing_back_along_the_agents_path_is_a_swap() -> None:
    # Every exit of Room 5 is 1 step from Alice, so the tie goes to Room 4, where Alice came from.
    game = game_at(alice=4, bob=9, thief=5, closed=OPEN)
    game.step({0: "Move to Room 5", 1: "Wait"})
    assert game.state.thief == 4 and game.state.captured


def test_turn_limit_ends_the_episode_uncaught() -> None:
    game = make_game("collab_capture")
    for _ in range(TURN_LIMIT):
        game.step({0: "Wait", 1: "Wait"})
    assert game.is_terminal() and game.score() == 0.0
    assert game.metrics() == {"captured": 0.0, "turns": float(TURN_LIMIT)}
    with pytest.raises(GameError, match="is over"):
        game.step({0: "Wait", 1: "Wait"})


def test_both_moves_are_required() -> None:
    with pytest.raises(GameError, match="players 0 and 1"):
        make_game("collab_capture").step({0: "Wait"})


def test_description_field_order_and_text() -> None:
    game = make_game("collab_capture")
    game.step({0: "Move to Room 6", 1: "Move to Room 5"})
    assert game.describe(1) == (
        "I am Bob. I am in Room 5.\n"
        "Alice is in Room 6.\n"
        "The thief is in Room 3.\n"
        "The door between Room 1 and Room 2 is closed (its button is in Room 9).\n"
        "The door between Room 3 and Room 4 is open (its button is in Room 8).\n"
        "This is turn 2 of 30 (1 played so far).\n"
        "My recent actions (oldest first): Move to Room 5.\n"
        "Alice's last action: Move to Room 6."
    )
    assert "lowest room number" in game.game_description()


def test_snapshot_round_trip_and_version_check() -> None:
    game = game_at(alice=9, bob=8, thief=3, closed=BOTH_CLOSED)
    game.step({0: "Press button in Room 9", 1: "Wait"})
    copy = CollabCapture.from_snapshot(game.snapshot())
    assert copy.snapshot() == game.snapshot()
    assert copy.describe(0) == game.describe(0)
    with pytest.raises(GameError, match="version"):
        copy.restore({**game.snapshot(), "version": "0"})
    with pytest.raises(GameError, match="malformed"):
        copy.restore({**game.snapshot(), "state": {"alice": 1}})
    off_map = {**game.snapshot()["state"], "thief": 42}
    with pytest.raises(GameError, match="not on the map"):
        copy.restore({**game.snapshot(), "state": off_map})


def test_unknown_layout_and_options_are_errors() -> None:
    with pytest.raises(ConfigError, match="Available: default"):
        make_game("collab_capture", "big")
    with pytest.raises(ConfigError, match="takes no options"):
        make_game("collab_capture", speed=2)
