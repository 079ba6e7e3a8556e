"""``agentic run`` builds a grid from its options; its refusals name those options, not a grid.

Blind walkthroughs: "this grid's games ... add a game it plays", "options: invalid grid
(preset: unknown preset 'Paper')" and "invalid grid (games.0: give seeds or episodes, not
both)", to a user who wrote no grid.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa

from coordqa.agentic.grid import parse_grid
from coordqa.agentic.presets import check_preset

RUN = ("agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_escape")


def refusal(tmp_path: Path, *options: str) -> str:
    result = coordqa(*RUN, *options, "--out", tmp_path / "run")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "grid" not in line, line
    assert not (tmp_path / "run").exists()
    return line


def test_a_partner_of_another_game_is_named_with_the_game_option(tmp_path: Path) -> None:
    line = refusal(tmp_path, "--partner", "capture-greedy", "--episodes", "1")
    assert line.startswith("error: --partner capture-greedy plays collab_capture, not "), line
    assert "--game collab_escape" in line


def test_seeds_and_episodes_together_name_the_two_options(tmp_path: Path) -> None:
    line = refusal(tmp_path, "--self-play", "--seeds", "3,4", "--episodes", "2")
    assert line.startswith("error: give --seeds or --episodes, not both"), line


def test_a_preset_is_matched_in_any_case_and_a_typo_names_the_option(tmp_path: Path) -> None:
    assert check_preset("Paper") == "paper" and check_preset("HM-Paper") == "hm-paper"
    grid = {"agents": ["cac"], "models": ["scripted"], "games": [{"game": "hanabi"}]}
    assert parse_grid({**grid, "preset": "Paper"}).preset == "paper"
    line = refusal(tmp_path, "--self-play", "--episodes", "1", "--preset", "papr")
    assert line.startswith("error: --preset: unknown preset 'papr'. Did you mean 'paper'"), line
