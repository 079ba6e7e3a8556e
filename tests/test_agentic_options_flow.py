"""An agent's options are parsed once, where the command or grid is read, and carried typed.

From ``--agent-option``/``--no-tom`` to the agent, the options cross the command line, the grid
(merged with the preset's), the episode spec, the runner (which builds every seat before the run
to check it) and the match (which builds the seats of every episode). They are parsed into the
agent's options dataclass exactly once per game of the grid, and the agent is handed that very
instance. Options a game cannot serve are refused when the grid is read, before any run folder
exists.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import coordqa.options
from coordqa.agentic import load_agentic_run, parse_grid, run_match
from coordqa.agentic.agents import CACOptions
from coordqa.cli import app
from coordqa.errors import ConfigError

runner = CliRunner()


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts every parse of a player's options (by the player), wherever it happens."""
    counted: Counter[str] = Counter()
    parse = coordqa.options.parse_options

    def counting(owner: str, cls: Any, given: Any, where: str = "") -> Any:
        counted[owner] += 1
        return parse(owner, cls, given, where)

    monkeypatch.setattr(coordqa.options, "parse_options", counting)
    return counted


def test_agentic_run_parses_an_agents_options_once_for_all_its_episodes(
    tmp_path: Path, parses: Counter[str]
) -> None:
    out = tmp_path / "run"
    args = ["agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_capture",
            "--partner", "capture-greedy", "--seeds", "0,1,2", "--no-verifier",
            "--agent-option", "tom_level=1", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    # 3 episodes, and every seat built once more before the run: one parse of cac's options
    assert parses["cac"] == 1
    episodes = load_agentic_run(out)
    assert len(episodes) == 3
    assert all(e.spec.agent_options == {"use_verifier": False, "tom_level": 1} for e in episodes)


def test_a_grid_hands_each_episode_the_options_it_parsed(parses: Counter[str]) -> None:
    grid = parse_grid(
        {
            "agents": ["cac"],
            "models": ["scripted"],
            "partners": ["capture-greedy"],
            "games": [{"game": "collab_capture", "seeds": [0, 1]}],
            "preset": "paper",  # Collab Capture's paper preset sets use_tom and use_verifier
            "agent_options": {"cac": {"max_verifier_retries": 0}},
        }
    )
    assert parses["cac"] == 1
    specs = grid.episodes()
    options = specs[0].agent_options
    assert options.parsed and options.value == CACOptions(
        use_tom=False, use_verifier=False, max_verifier_retries=0
    )
    assert all(spec.agent_options.value is options.value for spec in specs)
    played = run_match(specs[0])
    assert parses["cac"] == 1
    assert played.spec.agent_options.value is options.value


def test_a_spec_read_back_from_a_run_holds_the_options_as_given(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_capture",
            "--partner", "capture-greedy", "--seeds", "0", "--no-tom"]  # fmt: skip
    assert runner.invoke(app, [*args, "--out", str(out)]).exit_code == 0
    (episode,) = load_agentic_run(out)
    stored = episode.spec.agent_options
    assert stored == {"use_tom": False} and not stored.parsed and stored.value is None
    assert run_match(episode.spec).spec.key == episode.spec.key  # parsed when played again


@pytest.mark.parametrize(
    ("game", "flag", "field"),
    [
        ("hanabi", "--no-partner-info", "agents.without_partner_info"),
        ("overcooked", "--tom-ladder", "agents.tom_ladder"),
    ],
)
def test_an_option_the_game_cannot_serve_is_refused_before_the_run(
    tmp_path: Path, game: str, flag: str, field: str
) -> None:
    out = tmp_path / "run"
    value = ["1"] if flag == "--tom-ladder" else []
    args = ["agentic", "run", "--agent", "cac", "--model", "scripted", "--game", game,
            "--self-play", flag, *value, "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)  # coordqa's main() exits 2 on a ConfigError
    assert isinstance(result.exception, ConfigError) and field in str(result.exception)
    assert not out.exists()
