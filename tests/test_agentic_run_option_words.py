"""``agentic run`` builds a grid from its options; its refusals name those options, not a grid.

Blind walkthroughs: "this grid's games ... add a game it plays", "options: invalid grid
(preset: unknown preset 'Paper')" and "invalid grid (games.0: give seeds or episodes, not
both)", to a user who wrote no grid.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.agentic.grid import parse_grid
from coordqa.agentic.presets import check_preset
from coordqa.errors import ConfigError
from coordqa.games.base import make_player

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


def test_a_repeated_seed_is_refused_before_anything_is_played(tmp_path: Path) -> None:
    """Walkthrough 5 #373: --seeds 1,1 played and stored both, then the folder was unreadable."""
    line = refusal(tmp_path, "--self-play", "--seeds", "1,1")
    assert line == "error: --seeds: seed 1 is given twice", line


def test_a_repeated_seed_in_a_grid_file_names_its_place() -> None:
    grid = {"agents": ["cac"], "models": ["scripted"], "games": [{"game": "collab_escape"}]}
    games = [{"game": "collab_escape", "seeds": [0, 2, 0]}]
    try:
        parse_grid({**grid, "games": games}, where="g.yaml")
    except ConfigError as exc:
        assert str(exc) == "g.yaml: games[0].seeds: seed 0 is given twice", exc
    else:
        raise AssertionError("a repeated seed was accepted")


@pytest.mark.parametrize("partner", [["--self-play"], []])
@pytest.mark.parametrize("seat", ["both", "0"])
def test_a_seat_without_a_partner_is_refused(tmp_path: Path, partner: list[str], seat: str) -> None:
    """Walkthrough 19, R8 (#305, #309): ``--self-play --position both`` (or ``0``) played as if
    no seat had been given, though --position is the agent's seat with a partner; --horizon on
    collab_escape and --alpha with cac are refused. Self-play without --self-play too."""
    line = refusal(tmp_path, *partner, "--position", seat, "--episodes", "1")
    assert line == (
        f"error: --position: {seat} is the agent's seat with a partner, and self-play has none "
        "(the agent plays both seats); name a partner, or drop it"
    ), line


def test_a_seat_in_a_grid_file_of_self_play_alone_names_its_place() -> None:
    """The rule is the grid's: a file's ``positions`` with only ``self`` partners is refused,
    with a partner beside ``self`` it is the seat of that partner's episodes."""
    grid = {"agents": ["cac"], "models": ["scripted"], "games": [{"game": "collab_escape"}]}
    with pytest.raises(ConfigError) as refused:
        parse_grid({**grid, "positions": 1}, where="g.yaml")
    assert str(refused.value) == (
        "g.yaml: positions: 1 is the agent's seat with a partner, and self-play has none "
        "(the agent plays both seats); name a partner, or drop it"
    )
    mixed = parse_grid({**grid, "partners": ["self", "escape-greedy"], "positions": 1})
    seats = {(task.partner, task.position) for task in mixed.tasks()}
    assert seats == {(None, 0), ("escape-greedy", 1)}


def test_a_self_play_run_stored_with_a_seat_resumes_without_it(tmp_path: Path) -> None:
    """A run made by ``--self-play --position both`` before seats were refused stored
    ``positions: 'both'``, which its episodes never used: rerun without --position, it resumes
    (asked with --position it is refused, so a stored seat must not be what tells them apart)."""
    from coordqa.jsonvalues import content_hash

    out = tmp_path / "run"
    first = coordqa(*RUN, "--self-play", "--episodes", "1", "--out", out)
    assert first.returncode == 0, first.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    grid = parse_grid(manifest["config"])
    manifest["config"]["positions"] = "both"  # as the run was stored then
    keys = [spec.key for spec in grid.episodes()]
    manifest["fingerprint"] = content_hash({"config": manifest["config"], "episodes": keys})
    (out / "manifest.json").write_text(json.dumps(manifest))
    again = coordqa(*RUN, "--self-play", "--episodes", "2", "--out", out)
    assert again.returncode == 0, again.stderr
    assert "(1 played, 1 already done; 2 episodes)" in again.stderr, again.stderr


def test_zero_episodes_and_an_unknown_game_name_the_options(tmp_path: Path) -> None:
    """Walkthrough 5 #372 ("games[0].episodes: Input should be ...") and #101 ("options: ...")."""
    line = refusal(tmp_path, "--self-play", "--episodes", "0")
    assert line == "error: --episodes: must be >= 1", line
    result = coordqa(*RUN[:-1], "colab_escape", "--episodes", "1", "--out", tmp_path / "r")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --game: unknown game 'colab_escape'"), result.stderr


def test_a_folder_with_an_episode_stored_twice_says_what_to_do(tmp_path: Path) -> None:
    """Walkthrough 5 #379: a coordqa that took --seeds 1,1 left a folder no command could read.

    Both copies are real plays (each has its own attempt id, and an LLM's two plays differ), so
    the reader keeps refusing rather than pick one; the refusal says how to get a readable run.
    """
    run = tmp_path / "run"
    played = coordqa(*RUN, "--self-play", "--seeds", "1", "--out", run)
    assert played.returncode == 0, played.stderr
    episodes = run / "episodes.jsonl"
    episodes.write_text(episodes.read_text() * 2)
    result = coordqa("agentic", "report", run)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "s1#" in line and "stored twice" in line, line
    assert "episodes.jsonl" in line and "play the run again" in line, line


def test_a_one_layout_partner_without_layout_plays_its_layout(tmp_path: Path) -> None:
    """Walkthrough 5 #383/#385: hp-cramped_room without --layout said "use
    hp-asymmetric_advantages", whose refusal said "use hp-cramped_room": a circle.

    The partner plays one layout, so the run plays that layout and says so in its first line.
    """
    run = tmp_path / "run"
    result = coordqa(
        "agentic", "run", "--agent", "llm", "--model", "scripted", "--game", "overcooked",
        "--partner", "hp-cramped_room", "--position", "0", "--episodes", "1", "--horizon", "4",
        "--out", run,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    first = result.stderr.strip().splitlines()[0]
    assert "--partner hp-cramped_room plays only cramped_room" in first, result.stderr
    records = [json.loads(line) for line in (run / "episodes.jsonl").open()]
    assert {record["spec"]["layout"] for record in records} == {"cramped_room"}


def test_a_one_layout_partner_refused_elsewhere_names_the_way_out() -> None:
    with pytest.raises(ConfigError) as refused:
        make_player("hp-cramped_room", "overcooked", "asymmetric_advantages")
    message = str(refused.value)
    assert "--layout cramped_room" in message and "hp-asymmetric_advantages" in message, message


def test_options_of_a_misspelled_agent_suggests_agents_not_partners() -> None:
    """Walkthrough 5 #317: ``agentic options cak`` said "unknown player" and offered
    capture-greedy before cac, among every partner (none of which takes options)."""
    result = coordqa("agentic", "options", "cak")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: unknown agent 'cak'. Did you mean 'cac'?"), line


def test_tom_level_without_the_tom_step_names_the_run_options(tmp_path: Path) -> None:
    """Walkthrough 5 #112: --no-tom --tom-level 2 was told to set "use_tom: true in the grid's
    agent_options"."""
    line = refusal(tmp_path, "--self-play", "--no-tom", "--tom-level", "2", "--episodes", "1")
    assert line.startswith("error: options of --agent cac in collab_escape: tom_level=2 "), line
    assert "drop --no-tom" in line and "--tom-level 0" in line, line
