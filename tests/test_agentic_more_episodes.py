"""More episodes on an existing agentic run: only the missing ones are played (as ``--trials``).

A run of 1 episode asked again with ``--episodes 3`` plays seeds 1 and 2, the seeds a fresh
3-episode run plays, so the extended run equals the fresh one move for move; fewer episodes than
the run holds are refused as ``coordqa eval`` refuses fewer trials.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa

from coordqa.agentic import load_agentic_run
from coordqa.agentic.grid import GridConfig, parse_grid
from coordqa.agentic.runner import default_out
from coordqa.store import open_run

SELF_PLAY = ["--agent", "cac", "--model", "bot", "--game", "collab_escape", "--self-play"]


def _moves(out: Path) -> dict[str, object]:
    """Each episode's key -> its trajectory (every step, both seats)."""
    return {e.key: e.trajectory.to_dict() for e in load_agentic_run(out, with_exchanges=False)}


def test_a_run_of_one_episode_extended_to_three_equals_a_fresh_run_of_three(
    tmp_path: Path,
) -> None:
    extended, fresh = tmp_path / "extended", tmp_path / "fresh"
    first = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "1", "--out", extended)
    assert first.returncode == 0, first.stderr
    more = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "3", "--out", extended)
    assert more.returncode == 0, more.stderr
    assert "2 played, 1 already done" in more.stderr
    whole = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "3", "--out", fresh)
    assert whole.returncode == 0, whole.stderr
    assert len(_moves(fresh)) == 3
    assert _moves(extended) == _moves(fresh)
    manifest = open_run(extended).manifest
    assert manifest.runtime["episodes"] == 3
    assert [game["episodes"] for game in manifest.config["games"]] == [3]
    assert manifest.config == open_run(fresh).manifest.config
    assert manifest.fingerprint == open_run(fresh).manifest.fingerprint
    assert "--episodes" in manifest.command and "3" in manifest.command


def test_fewer_episodes_than_the_run_holds_are_refused_as_fewer_trials_are(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert coordqa("agentic", "run", *SELF_PLAY, "--episodes", "2", "--out", out).returncode == 0
    fewer = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "1", "--out", out)
    assert fewer.returncode == 2
    said = " ".join(fewer.stderr.split())
    assert "holds a run with 2 episodes" in said and "--episodes 2 or more" in said
    assert len(_moves(out)) == 2


def test_more_episodes_with_another_setting_is_still_another_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert coordqa("agentic", "run", *SELF_PLAY, "--episodes", "1", "--out", out).returncode == 0
    other = coordqa(
        "agentic", "run", *SELF_PLAY, "--episodes", "2", "--temperature", "0.5", "--out", out
    )
    assert other.returncode == 2
    assert "different configuration" in other.stderr and "generate" in other.stderr
    assert len(_moves(out)) == 1


def test_another_game_and_agent_with_fewer_episodes_is_said_to_be_another_run(
    tmp_path: Path,
) -> None:
    """Walkthrough 4 #217: ``hm`` on collab_capture with 2 episodes into a 5-episode
    collab_escape run of ``cac`` was told the folder "holds a run with 5 episodes of
    collab_capture" (the request's game) and to ask for 5; the differences come first, in the
    folder's terms."""
    out = tmp_path / "run"
    assert coordqa("agentic", "run", *SELF_PLAY, "--episodes", "2", "--out", out).returncode == 0
    other = ["--agent", "hm", "--model", "bot", "--game", "collab_capture", "--self-play"]
    refused = coordqa("agentic", "run", *other, "--episodes", "1", "--out", out)
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert "another grid: 'cac-bot-collab_escape'" in said, said
    assert "--episodes" not in said and "episodes of collab_capture" not in said, said
    assert len(_moves(out)) == 2


def test_a_grid_whose_episode_count_is_raised_plays_only_the_new_episodes(tmp_path: Path) -> None:
    spec = tmp_path / "grid.yaml"
    body = (
        "agents: [capture-planner]\npartners: [self]\n"
        "games: [{{game: collab_capture, episodes: {n}}}]\n"
    )
    spec.write_text(body.format(n=1))
    out = tmp_path / "g"
    assert coordqa("agentic", "grid", spec, "--out", out).returncode == 0
    spec.write_text(body.format(n=2))
    more = coordqa("agentic", "grid", spec, "--out", out)
    assert more.returncode == 0, more.stderr
    assert "1 played, 1 already done" in more.stderr
    assert sorted(e.spec.seed for e in load_agentic_run(out, with_exchanges=False)) == [0, 1]
    assert open_run(out).manifest.runtime["episodes"] == 2


def test_the_default_folder_names_the_episode_count_as_trials_are(tmp_path: Path) -> None:
    """Walkthrough 4 #315-#317 (QA's trials): a run of another count gets a default folder of
    its own, so the README's command is never refused by a folder another count raised; one
    rule for both tracks. The name is the one before the count was left out (the grid's
    settings, counts included), so earlier default folders are found again."""
    from coordqa.jsonvalues import content_hash

    def grid(**game: object) -> GridConfig:
        games = [{"game": "collab_capture", **game}]
        return parse_grid({"agents": ["capture-planner"], "games": games})

    assert default_out(grid(episodes=1)) != default_out(grid(episodes=3))
    assert default_out(grid(episodes=1)) != default_out(grid(seeds=[0]))
    three = grid(episodes=3)
    assert default_out(three).name.endswith(content_hash(three.identity())[:8])


def test_a_run_of_the_games_own_seeds_is_raised_resumed_and_refused_by_its_count(
    tmp_path: Path,
) -> None:
    """Walkthrough 9 #302-#303: a run made without --episodes (collab_escape's own seeds 0, 1,
    2: 3 episodes) was refused any --episodes ("stored none, requested 5"). It is a run of 3:
    --episodes 5 plays the 2 it lacks (equal to a fresh run of 5), 3 resumes it, 2 is
    refused as fewer trials are."""
    out, fresh = tmp_path / "default", tmp_path / "fresh"
    assert coordqa("agentic", "run", *SELF_PLAY, "--out", out).returncode == 0
    same = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "3", "--out", out)
    assert same.returncode == 0, same.stderr
    assert "0 played, 3 already done" in same.stderr
    fewer = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "2", "--out", out)
    assert fewer.returncode == 2
    said = " ".join(fewer.stderr.split())
    assert "holds a run with 3 episodes of collab_escape" in said, said
    assert "--episodes 3 or more" in said and "none" not in said, said
    more = coordqa("agentic", "run", *SELF_PLAY, "--episodes", "5", "--out", out)
    assert more.returncode == 0, more.stderr
    assert "2 played, 3 already done" in more.stderr
    assert coordqa("agentic", "run", *SELF_PLAY, "--episodes", "5", "--out", fresh).returncode == 0
    assert _moves(out) == _moves(fresh)
    assert open_run(out).manifest.config == open_run(fresh).manifest.config


HANABI = ["--agent", "hm", "--model", "scripted", "--game", "hanabi", "--self-play"]


def test_hanabis_own_seeds_are_not_a_count_and_the_refusal_says_how_to_resume(
    tmp_path: Path,
) -> None:
    """Walkthrough 9 #159-#161: Hanabi's own seeds are the paper's (321, 212, 628), which no
    --episodes N (seeds 0..N-1) extends; the refusal says which episodes the run holds and how
    to resume it, never "stored none", and plays nothing."""
    out = tmp_path / "hanabi"
    assert coordqa("agentic", "run", *HANABI, "--out", out).returncode == 0
    for count in ("1", "3", "5"):
        other = coordqa("agentic", "run", *HANABI, "--episodes", count, "--out", out)
        assert other.returncode == 2
        said = " ".join(other.stderr.split())
        assert "on the game's own seeds (321, 212, 628)" in said, said
        assert f"--episodes {count}" in said and "leave out --episodes and --seeds" in said
        assert "stored none" not in said, said
    assert sorted(e.spec.seed for e in load_agentic_run(out, with_exchanges=False)) == [
        212,
        321,
        628,
    ]
    again = coordqa("agentic", "run", *HANABI, "--seeds", "321,212,628", "--out", out)
    assert again.returncode == 0 and "0 played, 3 already done" in again.stderr, again.stderr
    counted = tmp_path / "counted"
    assert coordqa("agentic", "run", *HANABI, "--episodes", "1", "--out", counted).returncode == 0
    own = coordqa("agentic", "run", *HANABI, "--out", counted)
    assert own.returncode == 2
    said = " ".join(own.stderr.split())
    assert "on --episodes 1 (seed 0)" in said and "give --episodes 1 or more" in said, said


def test_a_stored_default_is_read_as_the_seeds_its_run_played_not_todays(tmp_path: Path) -> None:
    """A run folder stores no count when it played the game's own seeds; that default is the
    one of the coordqa that made it. A folder whose default was 2 seeds (made here by leaving
    the count out of a 2-episode run's manifest) is not read as today's 3: its fingerprint,
    over the seeds it played, refuses it, and nothing is played."""
    import json

    out = tmp_path / "old"
    assert coordqa("agentic", "run", *SELF_PLAY, "--episodes", "2", "--out", out).returncode == 0
    manifest = out / "manifest.json"
    data = json.loads(manifest.read_text())
    del data["config"]["games"][0]["episodes"]
    manifest.write_text(json.dumps(data))
    for more in (["--episodes", "5"], []):
        refused = coordqa("agentic", "run", *SELF_PLAY, *more, "--out", out)
        assert refused.returncode == 2
        said = " ".join(refused.stderr.split())
        assert "run fingerprint" in said and "seeds" in said and "questions" not in said, said
    assert len(_moves(out)) == 2


def test_a_refused_smaller_count_names_what_set_it_the_option_or_the_files_key(
    tmp_path: Path,
) -> None:
    """Walkthrough 12 #81, #84, #85: a run raised to 3 episodes by a grid file's ``seeds: [0, 1,
    2]`` was refused with "ask for episodes: 3 or more in grid.yaml" when the file (back at
    ``seeds: [0, 1]``) or ``--episodes 2`` asked for fewer; yet the file gives ``seeds:``
    (adding ``episodes:`` is refused: not both), and the ``--episodes`` given was not named.
    The advice names what the user can change: the option when it set the count, else the
    file's own key, ``seeds:`` with the seeds the run holds."""
    spec = tmp_path / "grid.yaml"
    body = "agents: [capture-planner]\npartners: [self]\ngames: [{{game: collab_capture, {key}}}]\n"
    out = tmp_path / "g"
    spec.write_text(body.format(key="seeds: [0, 1, 2]"))
    assert coordqa("agentic", "grid", spec, "--out", out).returncode == 0
    spec.write_text(body.format(key="seeds: [0, 1]"))
    by_file = coordqa("agentic", "grid", spec, "--out", out)
    assert by_file.returncode == 2
    said = " ".join(by_file.stderr.split())
    assert f"ask for seeds: [0, 1, 2] or more seeds from 0 in {spec}" in said, said
    assert "episodes:" not in said, said
    by_option = coordqa("agentic", "grid", spec, "--out", out, "--episodes", "2")
    assert by_option.returncode == 2
    said = " ".join(by_option.stderr.split())
    assert "ask for --episodes 3 or more to resume it" in said, said
    assert "episodes:" not in said and "seeds:" not in said, said
    spec.write_text(body.format(key="episodes: 2"))
    by_count = coordqa("agentic", "grid", spec, "--out", out)
    assert by_count.returncode == 2
    said = " ".join(by_count.stderr.split())
    assert f"ask for episodes: 3 or more in {spec} to resume it" in said, said
    assert len(_moves(out)) == 3


def test_a_grid_file_with_one_more_seed_says_which_episodes_it_adds_and_what_a_board_does(
    tmp_path: Path,
) -> None:
    """Blind walkthrough 15 R9: ``agentic grid my-grid3.yaml --out runs/my-grid`` (the same
    ``name:``, one more seed) extended the folder's run with only "playing 2 of 6 episodes (4
    already done)"; that folder had been submitted as my-grid and no longer bundles for it.
    Extending is kept (as a raised ``episodes:``), but said before anything is played: which
    episodes the file adds, and that a board that registered the grid as played will not take
    the extended run."""
    import json

    grid = {
        "name": "my-grid",
        "agents": ["cac"],
        "models": ["bot"],
        "partners": ["self", "escape-greedy"],
        "games": [{"game": "collab_escape", "seeds": [0, 1]}],
    }
    first, more = tmp_path / "my-grid.yaml", tmp_path / "my-grid3.yaml"
    first.write_text(json.dumps(grid))
    more.write_text(json.dumps({**grid, "games": [{"game": "collab_escape", "seeds": [0, 1, 2]}]}))
    out = tmp_path / "runs" / "my-grid"
    assert coordqa("agentic", "grid", first, "--out", out).returncode == 0
    extended = coordqa("agentic", "grid", more, "--out", out, columns=400)
    assert extended.returncode == 0, extended.stderr
    said = " ".join(extended.stderr.split())
    assert (
        f"{out} holds grid 'my-grid' with 4 episodes; {more} adds 2 episodes to it: "
        "collab_escape seed 2 (self-play, escape-greedy)"
    ) in said, said
    assert (
        "a board that registered grid 'my-grid' as it was played (4 episodes) will not take "
        "the extended run; to keep that run as it is, give another --out"
    ) in said, said
    assert said.index("will not take") < said.index("playing 2 of 6 episodes (4 already done)")
    assert len(_moves(out)) == 6
    again = coordqa("agentic", "grid", more, "--out", out)
    assert again.returncode == 0 and "will not take" not in again.stderr, again.stderr
