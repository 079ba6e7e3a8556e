"""Collab Escape rules: generators, the gate, the killer's chase rules, randomness, limits, text."""

from __future__ import annotations

import pytest

from coordqa.errors import GameError
from coordqa.games import make_game
from coordqa.games.collab_escape import (
    GRAPH,
    TURN_LIMIT,
    CollabEscape,
    chase_target,
    random_pick,
)

WAIT = {0: "Wait", 1: "Wait"}


def game_at(seed: int = 0, **fields: object) -> CollabEscape:
    game = make_game("collab_escape", seed=seed)
    assert isinstance(game, CollabEscape)
    game.state = game.state._replace(**fields)
    return game


def test_start_matches_the_facts() -> None:
    state = make_game("collab_escape").state
    assert (state.alice, state.bob, state.killer, state.progress) == (1, 2, 6, (0, 0))


def test_map_is_the_symmetric_one() -> None:
    assert GRAPH.neighbours(3) == (2, 4, 8)
    assert GRAPH.neighbours(8) == (3, 7, 9)
    assert GRAPH.neighbours(10) == (1, 9)


def test_fix_is_offered_only_on_an_unfixed_generator() -> None:
    game = make_game("collab_escape")
    assert game.legal_actions(0) == [
        "Move to Room 2",
        "Move to Room 10",
        "Fix generator in Room 1",
        "Wait",
    ]
    assert game.legal_actions(1) == ["Move to Room 1", "Move to Room 3", "Wait"]
    fixed = game_at(progress=(2, 0))
    assert "Fix generator in Room 1" not in fixed.legal_actions(0)


def test_generator_needs_two_consecutive_fix_turns() -> None:
    game = game_at(killer=4)
    game.step({0: "Fix generator in Room 1", 1: "Wait"})
    assert game.state.progress == (1, 0)
    result = game.step({0: "Fix generator in Room 1", 1: "Wait"})
    assert game.state.progress == (2, 0)
    assert "the generator in Room 1 is fixed" in result.events


def test_interrupted_generator_loses_its_progress() -> None:
    game = game_at(killer=4)
    game.step({0: "Fix generator in Room 1", 1: "Wait"})
    game.step({0: "Wait", 1: "Wait"})
    assert game.state.progress == (0, 0)


def test_a_partner_can_take_over_without_a_break() -> None:
    game = game_at(killer=4, bob=1)
    game.step({0: "Fix generator in Room 1", 1: "Wait"})
    game.step({0: "Move to Room 2", 1: "Fix generator in Room 1"})
    assert game.state.progress == (2, 0)


def test_two_agents_on_one_generator_count_as_one_turn() -> None:
    game = game_at(killer=4, bob=1)
    game.step({0: "Fix generator in Room 1", 1: "Fix generator in Room 1"})
    assert game.state.progress == (1, 0)


def test_gate_opens_only_when_both_are_fixed_and_escape_needs_room_7() -> None:
    game = game_at(alice=6, bob=3, killer=1, progress=(2, 1))
    assert "The exit gate in Room 7 is closed." in game.describe(0)
    game.step({0: "Fix generator in Room 6", 1: "Wait"})
    assert game.state.gate_open() and not game.is_terminal()
    assert "The exit gate in Room 7 is open." in game.describe(0)
    result = game.step({0: "Move to Room 7", 1: "Wait"})
    assert game.state.escaped and game.is_terminal() and result.reward == 1.0
    assert game.metrics() == {"escaped": 1.0, "killed": 0.0, "turns": 2.0}


def test_standing_in_room_7_with_a_closed_gate_is_not_an_escape() -> None:
    game = game_at(alice=7, bob=3, killer=1, progress=(2, 0))
    game.step(WAIT)
    assert not game.state.escaped


def test_escape_happens_before_the_killer_moves() -> None:
    # The killer in Room 8 chases Alice in Room 7, but she escapes first.
    game = game_at(alice=7, bob=6, killer=8, progress=(2, 1))
    game.step({0: "Wait", 1: "Fix generator in Room 6"})
    assert game.state.escaped and not game.state.killed


def test_killer_chases_the_only_adjacent_agent_and_kills_a_waiting_one() -> None:
    game = game_at(alice=1, bob=5, killer=6)
    assert chase_target(game.state) == 1
    assert "The killer is chasing Bob: it will move to Room 5 next." in game.describe(0)
    assert "The killer is chasing me: it will move to Room 5 next." in game.describe(1)
    result = game.step(WAIT)
    assert game.state.killed and game.state.killer == 5 and result.reward == 0.0
    assert game.metrics() == {"escaped": 0.0, "killed": 1.0, "turns": 1.0}
    assert game.players_to_act() == []


def test_a_chased_agent_who_moves_away_survives() -> None:
    game = game_at(alice=1, bob=5, killer=6)
    game.step({0: "Wait", 1: "Move to Room 4"})
    assert game.state.killer == 5 and not game.state.killed
    assert game.state.target == 1


def test_swapping_with_the_killer_is_not_a_kill() -> None:
    game = game_at(alice=1, bob=5, killer=6)
    game.step({0: "Wait", 1: "Move to Room 6"})
    assert (game.state.bob, game.state.killer, game.state.killed) == (6, 5, False)


def test_killer_kills_whoever_ends_in_the_chased_room() -> None:
    game = game_at(alice=4, bob=5, killer=6)
    game.step({0: "Move to Room 5", 1: "Move to Room 4"})
    assert game.state.killed and game.state.killer == 5


def test_both_adjacent_keeps_the_previous_target_or_picks_alice() -> None:
    both = dict(alice=5, bob=7, killer=6)
    assert chase_target(game_at(**both).state) == 0
    assert chase_target(game_at(**both, target=1).state) == 1
    assert chase_target(game_at(**both, target=0).state) == 0
    game = game_at(**both, target=1)
    game.step({0: "Wait", 1: "Move to Room 8"})
    assert game.state.killer == 7 and game.state.target == 1


def test_after_a_turn_without_a_chase_both_adjacent_means_alice() -> None:
    """The rules: 'the one it chased on the previous turn, or Alice if it chased nobody'."""
    game = game_at(alice=1, bob=2, killer=8, target=1)
    game.step(WAIT)
    assert game.state.target is None
    after = game.state._replace(alice=5, bob=7, killer=6)
    assert chase_target(after) == 0


def test_no_adjacent_agent_means_a_seeded_random_move_that_never_stays() -> None:
    assert chase_target(game_at(alice=1, bob=2, killer=8).state) is None
    destinations = set()
    for seed in range(30):
        game = game_at(seed=seed, alice=1, bob=2, killer=8)
        assert "it will move to a random adjacent room" in game.describe(0)
        game.step(WAIT)
        destinations.add(game.state.killer)
        twin = game_at(seed=seed, alice=1, bob=2, killer=8)
        twin.step(WAIT)
        assert twin.state == game.state
    assert destinations == {3, 7, 9}


def test_random_pick_is_a_pure_function_of_seed_and_turn() -> None:
    assert random_pick(7, 3, 3) == random_pick(7, 3, 3)
    picks = [random_pick(7, turn, 3) for turn in range(60)]
    assert set(picks) == {0, 1, 2}


def test_turn_limit_is_50() -> None:
    # The killer in Room 7 can only reach Rooms 6 and 8, so nobody dies on this last turn.
    game = game_at(alice=1, bob=2, killer=7, turn=TURN_LIMIT - 1)
    assert not game.is_terminal()
    game.step(WAIT)
    assert game.is_terminal() and not game.state.killed and not game.state.escaped
    assert game.metrics() == {"escaped": 0.0, "killed": 0.0, "turns": float(TURN_LIMIT)}
    assert game.score() == 0.0
    with pytest.raises(GameError, match="is over"):
        game.step(WAIT)


def test_description_field_order() -> None:
    game = make_game("collab_escape")
    game.step({0: "Fix generator in Room 1", 1: "Move to Room 3"})
    lines = game.describe(0).split("\n")
    assert lines[0] == "I am Alice. I am in Room 1."
    assert lines[1] == "Bob is in Room 3."
    assert lines[2].startswith("The killer is in Room ")
    assert lines[3].startswith("The killer is")
    assert lines[4] == ("The generator in Room 1 is not fixed (1 of 2 consecutive fix turns done).")
    assert lines[5].startswith("The generator in Room 6 is not fixed")
    assert lines[6] == "The exit gate in Room 7 is closed."
    assert lines[7] == "This is turn 2 of 50 (1 played so far)."
    assert lines[8] == "My recent actions (oldest first): Fix generator in Room 1."
    assert lines[9] == "Bob's last action: Move to Room 3."
    assert "3-8" in game.game_description()


def test_recent_actions_are_the_last_five() -> None:
    game = make_game("collab_escape")
    game.history[1].extend(f"Move to Room {n}" for n in range(1, 8))
    assert (
        "My recent actions (oldest first): Move to Room 3, Move to Room 4, Move to Room 5, "
        "Move to Room 6, Move to Room 7." in game.describe(1)
    )
    assert "Bob's last action: Move to Room 7." in game.describe(0)


def test_snapshot_is_exact_without_random_state() -> None:
    game = make_game("collab_escape", seed=11)
    game.step({0: "Fix generator in Room 1", 1: "Move to Room 3"})
    copy = CollabEscape.from_snapshot(game.snapshot())
    assert copy.state == game.state and copy.seed == 11
    for _ in range(3):
        if game.is_terminal():
            break
        game.step(WAIT)
        copy.step(WAIT)
        assert copy.snapshot() == game.snapshot()
