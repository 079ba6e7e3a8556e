"""Scripted Collab players: legality, determinism and the quality bar of the planning pairs."""

from __future__ import annotations

import asyncio

import pytest

from coordqa.errors import ConfigError, GameError
from coordqa.games import Observation, Trajectory, make_game, make_player, play_episode, replay
from coordqa.games.collab_escape import CollabEscape

SEEDS = range(20)


def run(game: str, alice: str, bob: str, seed: int) -> Trajectory:
    players = [make_player(alice, game), make_player(bob, game)]
    return asyncio.run(play_episode(make_game(game), players, seed, [alice, bob], max_steps=60))


def test_capture_planners_capture_in_every_seed_within_the_limit() -> None:
    results = [run("collab_capture", "capture-planner", "capture-planner", s) for s in SEEDS]
    assert all(t.metrics["captured"] == 1.0 for t in results)
    assert all(t.metrics["turns"] <= 30 for t in results)
    # The thief and the planners are deterministic: the seed changes nothing.
    assert len({tuple(str(step.decisions) for step in t.steps) for t in results}) == 1


def test_escape_planners_escape_in_at_least_90_percent_of_seeds() -> None:
    results = [run("collab_escape", "escape-planner", "escape-planner", s) for s in SEEDS]
    escapes = sum(t.metrics["escaped"] for t in results)
    assert escapes >= 0.9 * len(results)
    assert len({t.metrics["turns"] for t in results}) > 1  # the killer's moves do vary


@pytest.mark.parametrize(
    ("game", "pair"),
    [
        ("collab_capture", ("capture-greedy", "capture-greedy")),
        ("collab_capture", ("capture-planner", "capture-greedy")),
        ("collab_escape", ("escape-greedy", "escape-greedy")),
        ("collab_escape", ("escape-planner", "escape-greedy")),
        ("collab_escape", ("escape-greedy", "escape-planner")),
    ],
)
def test_any_pair_plays_legal_replayable_episodes(game: str, pair: tuple[str, str]) -> None:
    for seed in range(5):
        trajectory = run(game, *pair, seed)
        assert trajectory.steps and trajectory.metrics["turns"] == len(trajectory.steps)
        assert replay(trajectory).score() == trajectory.score


def test_greedy_players_are_seeded() -> None:
    first = run("collab_escape", "escape-greedy", "escape-greedy", 3)
    again = run("collab_escape", "escape-greedy", "escape-greedy", 3)
    assert first.to_dict() == again.to_dict()


def test_greedy_escaper_flees_when_chased() -> None:
    game = make_game("collab_escape")
    assert isinstance(game, CollabEscape)
    game.state = game.state._replace(alice=5, bob=2, killer=6)
    player = make_player("escape-greedy", "collab_escape")
    player.reset(game.seat_view(0), 0, 0)
    assert asyncio.run(player.act(Observation.of(game, 0))) == ("Move to Room 4")


def test_capture_greedy_presses_when_cut_off() -> None:
    game = make_game("collab_capture")
    game.state = game.state._replace(alice=9, thief=3, closed=frozenset({(1, 2), (3, 4)}))
    player = make_player("capture-greedy", "collab_capture")
    action = asyncio.run(player.act(Observation.of(game, 0)))
    assert action == "Press button in Room 9"


def test_planner_replans_from_a_state_it_never_saw() -> None:
    game = make_game("collab_escape")
    assert isinstance(game, CollabEscape)
    # A chase target that is not adjacent cannot arise from the start position.
    game.state = game.state._replace(alice=1, bob=9, killer=5, target=1, progress=(2, 2))
    player = make_player("escape-planner", "collab_escape")
    action = asyncio.run(player.act(Observation.of(game, 1)))
    assert action == "Move to Room 8"  # toward the open gate in Room 7


def test_players_refuse_other_games_and_options() -> None:
    planner = make_player("capture-planner", "collab_capture")
    escape = make_game("collab_escape")
    with pytest.raises(GameError, match="collab_capture"):
        asyncio.run(planner.act(Observation.of(escape, 0)))
    with pytest.raises(ConfigError, match="cannot play collab_escape"):
        make_player("capture-planner", "collab_escape")
    with pytest.raises(ConfigError, match="takes no options"):
        make_player("escape-greedy", "collab_escape", depth=3)
