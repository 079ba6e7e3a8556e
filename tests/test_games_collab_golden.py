"""Golden files for the Collab games: descriptions, rules text and scripted-pair dynamics.

Regenerate after an intended change with
``COORDQA_UPDATE_GOLDEN=1 pytest tests/test_games_collab_golden.py`` and review the diff (bump
the game's version when rules or texts change).
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
from pathlib import Path

import pytest

from coordqa.games import make_game, make_player, play_episode
from coordqa.play import advance

GOLDEN = Path(__file__).parent / "golden" / "collab"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("COORDQA_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    expected = path.read_text()
    if text != expected:
        diff = "\n".join(
            difflib.unified_diff(expected.splitlines(), text.splitlines(), lineterm="")
        )
        pytest.fail(f"{name} differs from the golden file:\n{diff}")


@pytest.mark.parametrize(
    ("game", "seed", "steps", "player"),
    [
        ("collab_capture", 0, 0, 0),
        ("collab_capture", 0, 2, 1),
        ("collab_escape", 0, 0, 0),
        ("collab_escape", 3, 4, 1),
        ("collab_escape", 3, 8, 0),
    ],
)
def test_golden_descriptions(game: str, seed: int, steps: int, player: int) -> None:
    state = advance(game, seed=seed, steps=steps).game
    view = (
        state.describe(player) + "\n\nAvailable Actions:\n" + "\n".join(state.legal_actions(player))
    )
    check_golden(f"{game}_seed{seed}_step{steps}_player{player}.txt", view + "\n")


@pytest.mark.parametrize("game", ["collab_capture", "collab_escape"])
def test_golden_rules_text(game: str) -> None:
    check_golden(f"{game}_rules.txt", make_game(game).game_description() + "\n")


@pytest.mark.parametrize(
    ("game", "pair"),
    [
        ("collab_capture", ("capture-planner", "capture-planner")),
        ("collab_escape", ("escape-planner", "escape-planner")),
        ("collab_escape", ("escape-greedy", "escape-greedy")),
    ],
)
def test_golden_dynamics(game: str, pair: tuple[str, str]) -> None:
    episodes = []
    for seed in range(3):
        players = [make_player(name, game) for name in pair]
        trajectory = asyncio.run(play_episode(make_game(game), players, seed, list(pair)))
        episodes.append(
            {
                "seed": seed,
                "turns": [
                    " | ".join([s.decisions[0], s.decisions[1], *s.events])
                    for s in trajectory.steps
                ],
                "final": trajectory.final["state"],
            }
        )
    check_golden(f"{game}_{pair[0]}_dynamics.json", json.dumps(episodes, indent=1) + "\n")
