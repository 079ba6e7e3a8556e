"""Overcooked scripted players: registration, determinism and that they actually cook."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("overcooked_ai_py")

from coordqa.errors import ConfigError  # noqa: E402
from coordqa.games import PLAYERS, make_game, make_player, play_episode  # noqa: E402
from coordqa.games.overcooked import LAYOUTS  # noqa: E402


def score(layout: str, player: str, horizon: int, seed: int = 0) -> float:
    game = make_game("overcooked", layout, horizon=horizon)
    players = [make_player(player, "overcooked") for _ in range(2)]
    return asyncio.run(play_episode(game, players, seed)).score


def test_players_are_registered_for_overcooked_only() -> None:
    for name in ("greedy_human", "planner"):
        assert PLAYERS.get(name).games == ("overcooked",)
    with pytest.raises(ConfigError):
        make_player("planner", "hanabi")
    with pytest.raises(ConfigError):
        make_player("greedy_human", "overcooked", temperature=2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_planner_pair_delivers_on_every_layout(layout: str) -> None:
    assert score(layout, "planner", horizon=120) >= 40


@pytest.mark.parametrize("layout", ["cramped_room", "asymmetric_advantages"])
def test_greedy_human_pair_delivers(layout: str) -> None:
    assert score(layout, "greedy_human", horizon=120) > 0


def test_planner_partners_a_primitive_player() -> None:
    game = make_game("overcooked", "asymmetric_advantages", horizon=150)
    players = [make_player("planner", "overcooked"), make_player("greedy_human", "overcooked")]
    trajectory = asyncio.run(play_episode(game, players, seed=1))
    assert trajectory.score > 0
    asked = [d for step in trajectory.steps for p, d in step.decisions.items() if p == 0]
    assert len(asked) < len(trajectory.steps)
