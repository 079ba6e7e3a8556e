"""``coordqa games list|show`` and ``coordqa play`` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import coordqa
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.cli.games import parse_pair
from coordqa.errors import ConfigError, UnknownNameError

runner = CliRunner()


def test_games_list_names_games_versions_and_players() -> None:
    result = runner.invoke(app, ["games", "list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for text in ("collab_capture", "collab_escape", "capture-planner", "escape-greedy", "default"):
        assert text in result.output


def test_games_show_text() -> None:
    result = runner.invoke(
        app,
        ["games", "show", "collab_escape", "--steps", "2", "--as", "bob"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "I am Bob." in result.output
    assert "This is turn 3 of 50 (2 played so far)." in result.output
    assert "Available Actions:" in result.output and "Wait" in result.output


def test_games_show_json_with_players() -> None:
    args = [
        "games",
        "show",
        "collab_capture",
        "--steps",
        "1",
        "--players",
        "capture-greedy",
        "--json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert set(payload) == {"snapshot", "description", "actions"}
    assert payload["snapshot"]["state"]["turn"] == 1
    assert payload["actions"][-1] == "Wait"
    assert payload["description"].startswith("I am Alice.")


def test_games_show_at_the_end_has_no_actions() -> None:
    result = runner.invoke(app, ["games", "show", "collab_capture", "--steps", "9", "--json"])
    assert json.loads(result.output)["actions"] == []


def test_play_prints_metrics_and_stores_trajectories(tmp_path: Path) -> None:
    out = tmp_path / "play"
    args = ["play", "collab_escape", "--episodes", "2", "--seed", "4", "--out", str(out)]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "escaped" in result.output and "turns when escaped" in result.output
    assert "± " in result.output
    assert len((out / "trajectories.jsonl").read_text().splitlines()) == 2
    resumed = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert "(2 resumed)" in resumed.output


def test_unknown_names_raise_helpful_errors() -> None:
    result = runner.invoke(app, ["play", "collab_captur", "--episodes", "1"])
    assert isinstance(result.exception, UnknownNameError)
    assert "collab_capture" in str(result.exception)
    result = runner.invoke(app, ["games", "show", "collab_capture", "--layout", "huge"])
    assert isinstance(result.exception, UnknownNameError)
    result = runner.invoke(app, ["games", "show", "collab_capture", "--as", "carol"])
    assert isinstance(result.exception, ConfigError)


def test_parse_pair() -> None:
    assert parse_pair("a,b", "collab_capture") == ("a", "b")
    assert parse_pair("a", "collab_capture") == ("a", "a") == parse_pair(["a"], "collab_capture")
    assert parse_pair(None, "collab_capture") is None
    with pytest.raises(ConfigError, match="two player names"):
        parse_pair("a,b,c", "collab_capture")


@pytest.mark.parametrize("given", [["a,b,c"], ["a,b", "c,d"]])
def test_the_players_example_is_built_from_the_game_s_own_players(given: list[str]) -> None:
    """Walkthrough 20, R9: collab_escape's error suggested collab_capture's players."""
    args = [a for value in given for a in ("--players", value)]
    result = coordqa("play", "collab_escape", *args, "--episodes", "1")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "e.g. --players escape-planner,escape-greedy" in line, line
    assert "capture" not in line, line


def test_play_refuses_an_llm_agent_in_one_line_naming_agentic_run() -> None:
    """An LLM agent needs a model, which play does not take (it was a TypeError traceback)."""
    players = "cac,capture-planner"
    result = coordqa("play", "collab_capture", "--players", players, "--episodes", "1")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "'cac' is an LLM agent" in line and "needs a model" in line
    assert "coordqa agentic run --agent cac --game collab_capture --model MODEL" in line


def test_games_list_puts_llm_agents_apart_from_the_players_play_takes() -> None:
    result = coordqa("games", "list", columns=200)
    assert result.returncode == 0, result.stderr
    capture = result.stdout.split("collab_escape")[0]
    players = next(line for line in capture.splitlines() if "players:" in line)
    agents = next(line for line in capture.splitlines() if "LLM agents" in line)
    assert "capture-planner" in players and "cac" not in players.split("players:")[1]
    assert "agentic run" in agents and "cac" in agents and "capture-planner" not in agents


def test_play_shows_its_progress_on_stderr_and_its_results_on_stdout() -> None:
    """Walkthrough 2, R5/R6: the episodes bar went to stdout, into `coordqa play ... > file`."""
    result = coordqa("play", "collab_escape", "--episodes", "2", columns=200)
    assert result.returncode == 0, result.stderr
    assert "collab_escape episodes" in result.stderr
    assert "episodes" not in result.stdout.replace("episodes:", "")
    assert "turns when escaped" in result.stdout


def test_game_names_are_read_in_any_case_as_eval_reads_them(tmp_path: Path) -> None:
    """``Collab_Escape`` is ``collab_escape`` in every command taking a game (as in eval)."""
    shown = runner.invoke(app, ["games", "show", "Collab_Escape"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "collab_escape (default), seed 0" in shown.output
    played = coordqa("play", "COLLAB_ESCAPE", "--episodes", "1", "--out", tmp_path / "p")
    assert played.returncode == 0, played.stderr
    listed = runner.invoke(app, ["partners", "list", "--game", "Overcooked"])
    assert listed.exit_code == 0 and "bc-cramped_room" in listed.output


def test_an_unknown_player_of_play_lists_only_that_game_s_players() -> None:
    result = coordqa("play", "collab_escape", "--players", "plannr,escape-greedy")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: unknown player 'plannr'. Did you mean 'escape-planner'"), line
    assert line.endswith("Players for collab_escape: escape-greedy, escape-planner."), line


def test_a_player_of_another_game_lists_only_the_players_play_takes() -> None:
    """Walkthrough 20, R10: the list offered LLM agents (cac, hm, llm...) that play refuses."""
    from coordqa.games import PLAYERS

    result = coordqa("play", "overcooked", "--players", "hanabi-piers,planner", "--episodes", "1")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "'hanabi-piers' cannot play overcooked (it plays hanabi)" in line, line
    offered = line.split("Players for overcooked: ")[1].rstrip(".").split(", ")
    assert "planner" in offered and "greedy_human" in offered
    agents = {name for name, spec in PLAYERS.items() if spec.kind == "llm"}
    assert agents and not agents & set(offered), line
    listed = coordqa("games", "list", columns=400).stdout
    listed = listed[listed.index("\novercooked ") :]
    players = next(row for row in listed.splitlines() if "players:" in row)
    assert players.split("players: ")[1].split(", ") == offered


def test_show_says_when_the_episode_ended_before_the_steps_asked() -> None:
    """Blind walkthrough: ``--steps 500`` said "after 500 step(s)" of a game over long before."""
    ended = coordqa("games", "show", "collab_capture", "--steps", "100", columns=200)
    assert ended.returncode == 0, ended.stderr
    assert "the episode ended after 3 steps (asked 100)" in ended.stdout, ended.stdout
    one = coordqa("games", "show", "collab_capture", "--steps", "1", columns=200)
    assert "after 1 step " in one.stdout and "step(s)" not in one.stdout, one.stdout
    assert "ended" not in one.stdout


def test_games_show_names_its_steps_flag() -> None:
    """Walkthrough 23 (h23k item 5): `games show collab_escape --steps -3` said 'error: steps must
    be 0 or more, got -3.', the library's setting, where `--as` names its flag.
    Expected: `--steps` named, as commands map a setting to their option (settings_as_options);
    a Python caller of `advance` still reads `steps`."""
    from coordqa.play import advance

    result = runner.invoke(app, ["games", "show", "collab_escape", "--steps", "-3"])
    assert isinstance(result.exception, ConfigError)
    assert str(result.exception) == "--steps must be 0 or more, got -3."
    with pytest.raises(ConfigError, match="^steps must be 0 or more, got -3"):
        advance("collab_escape", steps=-3)


def test_play_names_its_episodes_flag() -> None:
    """Seen beside walkthrough 23's h23k item 5: `play collab_escape --episodes 0` said
    'episodes must be at least 1, got 0.', the setting, not the flag `--episodes`."""
    result = runner.invoke(app, ["play", "collab_escape", "--episodes", "0"])
    assert isinstance(result.exception, ConfigError)
    assert str(result.exception) == "--episodes must be at least 1, got 0."
