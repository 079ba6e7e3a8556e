"""The names a user types: unknown agents, partners and options get the suggestions meant."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_support import coordqa


def test_an_unknown_agent_is_named_an_agent_with_its_game_s_agents_first(tmp_path: Path) -> None:
    args = ("--model", "scripted", "--game", "collab_escape", "--self-play", "--episodes", "1")
    result = coordqa("agentic", "run", "--agent", "cak", *args, "--out", tmp_path / "x")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: unknown agent 'cak'. Did you mean 'cac'?"), line
    assert "player" not in line.split("Did you mean")[0]
    assert "hanabi-" not in line and "bc-" not in line and "capture-" not in line, line
    assert "escape-planner" in line  # any player of the game may be the agent: listed after


def test_an_unknown_partner_lists_only_that_game_s_partners(tmp_path: Path) -> None:
    args = ("--agent", "cac", "--model", "scripted", "--game", "collab_escape", "--episodes", "1")
    result = coordqa("agentic", "run", *args, "--partner", "escape-planer", "--out", tmp_path / "x")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "error: unknown partner 'escape-planer'. Did you mean 'escape-planner'"
    ), line
    listed = line.split("Partners for collab_escape: ")[1]
    assert listed.rstrip(".").split(", ") == ["escape-greedy", "escape-planner"], line


def test_dataset_stats_and_validate_take_dataset_as_eval_does() -> None:
    """``--dataset NAME`` means the positional NAME; two different ones are refused."""
    positional = coordqa("dataset", "stats", "example")
    assert positional.returncode == 0, positional.stderr
    option = coordqa("dataset", "stats", "--dataset", "example")
    assert option.returncode == 0, option.stderr
    assert option.stdout == positional.stdout
    both = coordqa("dataset", "stats", "example", "--dataset", "example")
    assert both.returncode == 0 and both.stdout == positional.stdout
    differ = coordqa("dataset", "validate", "example", "--dataset", "coordinationqa-v1.1")
    assert differ.returncode == 2, differ.stderr
    (line,) = differ.stderr.strip().splitlines()
    assert "'example'" in line and "--dataset coordinationqa-v1.1" in line, line


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("eval", "--modle", "random"), ["--model"]),
        (("eval", "--trails", "2"), ["--trials"]),
        (("submit", "RUN", "--seed", "3"), []),  # not --insecure
        (("leaderboard", "serve", "--seed", "1"), []),  # not --db, --hosted
        (("report", "RUN", "--seed", "1"), []),  # not --sizes
    ],
)
def test_an_unknown_option_is_suggested_only_a_close_one(
    args: tuple[str, ...], meant: list[str]
) -> None:
    """Click's cutoff compares the names with their dashes, which every option shares."""
    result = coordqa(*args)
    assert result.returncode == 2
    unknown = next(arg for arg in args if arg.startswith("--"))
    assert f"No such option: {unknown}" in result.stderr
    suggested = re.findall(r"Possible options: ([^)]*)\)", result.stderr)
    assert [name for line in suggested for name in line.split(", ")] == meant, result.stderr


def test_submit_endpoint_says_why_it_takes_no_seed() -> None:
    args = ("submit-endpoint", "random", "--to", "http://127.0.0.1:9", "--seed", "3")
    result = coordqa(*args)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: --seed: the board draws the seeds itself"), line
    assert "--insecure" not in line

