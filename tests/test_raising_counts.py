"""``play --out`` and ``eval-set`` take a larger count on an existing run, as ``eval`` does.

The walkthrough (#59, #92): ``eval --trials`` and ``agentic run --episodes`` could be raised on
an existing run, but ``play --episodes 12`` on a 10-episode run was refused (after drawing a
``0/12`` bar) and ``eval-set --trials 3`` on a 2-trial set was refused. Now only what is missing
runs, the results equal a fresh run of the larger count, and a smaller count is refused in
eval's words before anything is drawn.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import coordqa

from coordqa.evalset.manifest import read_set
from coordqa.store import read_qa_run

PLAY = ["play", "collab_escape", "--seed", "3"]


def _episodes(run: Path) -> list[object]:
    lines = (run / "trajectories.jsonl").read_text().splitlines()
    return sorted((json.loads(line) for line in lines), key=lambda r: r["episode"])


def test_play_adds_the_missing_episodes_to_a_run_and_equals_a_fresh_run(tmp_path: Path) -> None:
    raised, fresh = tmp_path / "raised", tmp_path / "fresh"
    assert coordqa(*PLAY, "--episodes", "2", "--out", raised).returncode == 0
    more = coordqa(*PLAY, "--episodes", "3", "--out", raised)
    assert more.returncode == 0, more.stderr
    assert "(2 resumed)" in more.stdout and "episodes: 3" in more.stdout, more.stdout
    assert coordqa(*PLAY, "--episodes", "3", "--out", fresh).returncode == 0
    assert _episodes(raised) == _episodes(fresh)
    again = coordqa(*PLAY, "--episodes", "3", "--out", raised)  # the raised count resumes
    assert again.returncode == 0 and "(3 resumed)" in again.stdout, again.stderr


def test_play_refuses_fewer_episodes_in_evals_words_before_a_bar(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert coordqa(*PLAY, "--episodes", "2", "--out", out).returncode == 0
    fewer = coordqa(*PLAY, "--episodes", "1", "--out", out)
    assert fewer.returncode == 2
    (line,) = fewer.stderr.strip().splitlines()  # no "0/1" bar before it
    assert line == (
        f"error: {out} holds a run with 2 episodes of collab_escape; ask for --episodes 2 or "
        "more to resume it (more episodes are added to it), or use another --out"
    )
    other = coordqa(*PLAY[:-1], "4", "--episodes", "2", "--out", out)
    assert other.returncode == 2 and "seed: stored 3, requested 4" in other.stderr
    assert "episodes" not in other.stderr.splitlines()[0].split("error:")[0]  # no bar


SET = ["eval-set", "-m", "random", "--limit", "2"]


def _answers(folder: Path) -> dict[tuple[str, int], str | None]:
    """Every (question, trial)'s reply across the set's members."""
    replies = {}
    for member in read_set(folder).members:
        for key, call in read_qa_run(folder / member.run).last_calls().items():
            replies[key] = call.text
    return replies


def test_eval_set_adds_trials_to_a_set_and_equals_a_fresh_set(tmp_path: Path) -> None:
    raised, fresh = tmp_path / "raised", tmp_path / "fresh"
    assert coordqa(*SET, "--trials", "2", "--out", raised).returncode == 0
    more = coordqa(*SET, "--trials", "3", "--out", raised)
    assert more.returncode == 0, more.stderr
    (member,) = read_set(raised).members
    assert (member.status, member.answered, member.expected) == ("complete", 6, 6)
    assert read_set(raised).shared["trials"] == 3
    assert coordqa(*SET, "--trials", "3", "--out", fresh).returncode == 0
    assert _answers(raised) == _answers(fresh)


def test_eval_set_refuses_fewer_trials_in_evals_words(tmp_path: Path) -> None:
    out = tmp_path / "set"
    assert coordqa(*SET, "--trials", "2", "--out", out).returncode == 0
    fewer = coordqa(*SET, "--trials", "1", "--out", out)
    assert fewer.returncode == 2
    (line,) = fewer.stderr.strip().splitlines()
    assert line == (
        f"error: {out} holds an eval set with 2 trials; ask for --trials 2 or more to resume "
        "it (more trials are added to it), or use another --out"
    )


def test_play_says_another_run_is_one_before_advising_on_its_count(tmp_path: Path) -> None:
    """Walkthrough 6 B1: an overcooked request for 1 episode into a 2-episode collab_escape
    run was told the folder "holds a run with 2 episodes of overcooked" (the request's game)
    and to ask for --episodes 2, which was then refused for the game. As ``eval`` and
    ``agentic run`` do, the differences come first, in the folder's terms."""
    out = tmp_path / "run"
    assert coordqa(*PLAY, "--episodes", "2", "--out", out).returncode == 0
    others = {
        "game": ["play", "overcooked", "--layout", "cramped_room", "--seed", "3"],
        "seed": [*PLAY[:-1], "4"],
        "players": [*PLAY, "--players", "escape-greedy,escape-greedy"],
    }
    for setting, command in others.items():
        refused = coordqa(*command, "--episodes", "1", "--out", out)
        assert refused.returncode == 2, refused.stderr
        (line,) = refused.stderr.strip().splitlines()
        assert "different configuration" in line and f"{setting}: stored " in line, line
        assert "--episodes" not in line and "episodes of" not in line, line
    assert len(_episodes(out)) == 2
