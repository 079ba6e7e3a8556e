"""Several runs in one report: an episode found in more than one run is counted once.

The rule (written before the code): two records with the same episode ``key`` (same spec, same
seed) that played the same moves (:func:`coordqa.agentic.pooling.moves`) are one episode, counted
once, the record of the run given first kept. Two records of one key that played differently (a
model that samples) are two plays of that spec, and each is counted. Either case is said on stderr
and in report.md, so n never grows or shrinks without a word. A key that failed in one run and was
played in another is played: it is not listed as left out.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.agentic.episodes import AgenticEpisode, load_agentic_run
from coordqa.agentic.pooling import pool_episodes
from coordqa.agentic.records import Failure

SCRIPTED_CAC = ["--agent", "cac", "--model", "scripted"]
ESCAPE_SELF_PLAY = [*SCRIPTED_CAC, "--game", "collab_escape", "--self-play"]


def _escape_run(out: Path, *flags: str) -> None:
    """``coordqa agentic run`` of CAC (scripted) in Collab Escape self-play."""
    done = coordqa("agentic", "run", *ESCAPE_SELF_PLAY, *flags, "--out", out)
    assert done.returncode == 0, done.stderr


def _flat(text: str) -> str:
    return " ".join(text.split())


def _self_play_escapes(report_dir: Path) -> str:
    """The Table 7 cell of CAC's escapes in self-play, from the CSV the report wrote."""
    with (report_dir / "table7_collab.csv").open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["partner"] == "self"]
    (row,) = [r for r in rows if r["label"] == "cac[scripted]"]
    return row["escapes"]


def test_the_guides_two_runs_count_their_shared_episodes_once(tmp_path: Path) -> None:
    """docs/agentic.md's sequence: a 3-episode Escape run, then the smoke grid, which plays
    seeds 0 and 1 of the same self-play again (same keys, same moves: the scripted model is
    deterministic). The report said ``escaped 0/5 [0.00, 0.43]`` over 3 distinct episodes; it
    says 0/3 with Wilson's interval of 0/3 (upper bound z²/(3+z²) = 3.84/6.84 = 0.56)."""
    escape, smoke, report_dir = tmp_path / "cac-escape", tmp_path / "smoke-cac", tmp_path / "rep"
    _escape_run(escape, "--episodes", "3")
    grid = coordqa("agentic", "grid", "smoke", *SCRIPTED_CAC, "--out", smoke)
    assert grid.returncode == 0, grid.stderr
    shown = coordqa("agentic", "report", escape, smoke, "--out", report_dir)
    assert shown.returncode == 0, shown.stderr
    assert _self_play_escapes(report_dir) == "escaped 0/3 [0.00, 0.56]"
    with (report_dir / "episodes.csv").open(encoding="utf-8") as handle:
        episodes = list(csv.DictReader(handle))
    keys = [row["key"] for row in episodes]
    assert len(keys) == len(set(keys))
    escapes = [r for r in episodes if r["game"] == "collab_escape" and r["partner"] == "self"]
    assert sorted(int(r["seed"]) for r in escapes) == [0, 1, 2]
    note = "2 episodes appear in more than one run: counted once"
    assert note in _flat(shown.stderr)
    assert note in _flat((report_dir / "report.md").read_text(encoding="utf-8"))
    played = len(load_agentic_run(escape, with_exchanges=False)) + len(
        load_agentic_run(smoke, with_exchanges=False)
    )
    assert f"{played - 2} episodes from 2 runs" in _flat(shown.stderr)


def test_runs_with_distinct_keys_pool_to_their_sum(tmp_path: Path) -> None:
    first, second, report_dir = tmp_path / "s012", tmp_path / "s34", tmp_path / "rep"
    _escape_run(first, "--seeds", "0,1,2")
    _escape_run(second, "--seeds", "3,4")
    shown = coordqa("agentic", "report", first, second, "--out", report_dir)
    assert shown.returncode == 0, shown.stderr
    assert "5 episodes from 2 runs" in _flat(shown.stderr)
    assert "/5 [" in _self_play_escapes(report_dir)
    assert "more than one run" not in shown.stderr
    assert "more than one run" not in (report_dir / "report.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def escape_episodes(tmp_path_factory: pytest.TempPathFactory) -> list[AgenticEpisode]:
    """Two played Escape episodes (seeds 0 and 1) of one run."""
    out = tmp_path_factory.mktemp("pooling") / "run"
    _escape_run(out, "--seeds", "0,1")
    return sorted(load_agentic_run(out, with_exchanges=False), key=lambda e: e.spec.seed)


def test_one_key_played_differently_in_two_runs_is_two_plays(
    escape_episodes: list[AgenticEpisode],
) -> None:
    """A sampling model can play one spec two ways: both plays count, and a note says so."""
    first, other = escape_episodes
    steps = first.trajectory.steps[:-1]
    replayed = dataclasses.replace(
        first, trajectory=dataclasses.replace(first.trajectory, steps=steps), attempt="again"
    )
    pooled = pool_episodes([[first, other], [replayed]], [{}, {}])
    assert [e.attempt for e in pooled.episodes] == [first.attempt, other.attempt, "again"]
    assert pooled.notes() == [
        "1 episode was played differently in more than one run (a model that samples): "
        "each distinct play counted"
    ]


def test_an_identical_copy_keeps_the_first_runs_record(
    escape_episodes: list[AgenticEpisode],
) -> None:
    first, other = escape_episodes
    copy = dataclasses.replace(first, attempt="copy", wall_s=99.0)
    pooled = pool_episodes([[first], [copy, other]], [{}, {}])
    assert [e.attempt for e in pooled.episodes] == [first.attempt, other.attempt]
    assert pooled.notes() == [
        "1 episode appears in more than one run: counted once (the first run's record)"
    ]


def test_a_key_failed_in_one_run_and_played_in_another_is_not_left_out(
    escape_episodes: list[AgenticEpisode],
) -> None:
    first, other = escape_episodes
    failed = Failure(key=first.key, error="ModelCallFailed: boom", error_kind="failed")
    still = Failure(key="collab_escape/x/never#00000000", error="boom", error_kind="failed")
    pooled = pool_episodes([[first, other], []], [{}, {failed.key: failed, still.key: still}])
    assert pooled.failures == {still.key: still}
    assert pooled.notes() == []


def test_runs_against_different_partner_checkpoints_are_not_pooled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 27 R8: a grid played against the shipped ``bc-cramped_room`` and again
    against one retrained with ``coordqa partners train-bc`` were pooled into one cell, with a
    note blaming "a model that samples". A partner with other weights is another partner: the
    report refuses, naming the partner, both checkpoints and the run that played each."""
    pytest.importorskip("overcooked_ai_py")
    import json

    from leaderboard_support import bc_grid, shipped_and_retrained_bc

    shipped, retrained = shipped_and_retrained_bc()
    grid_file = tmp_path / "bc-small.yaml"
    grid_file.write_text(json.dumps(bc_grid("bc-small", 30, agents=["cac"])))
    runs = {shipped.fingerprint: tmp_path / "bc-grid", retrained.fingerprint: tmp_path / "s1"}
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))
    for fingerprint, out in runs.items():
        if fingerprint == retrained.fingerprint:
            retrained.save(tmp_path / "data" / "partners" / "bc-cramped_room.npz")
        played = coordqa("agentic", "grid", grid_file, "--model", "scripted", "--out", out)
        assert played.returncode == 0, played.stderr
    shown = coordqa("agentic", "report", *runs.values(), "--out", tmp_path / "rep")
    assert shown.returncode == 2, shown.stderr
    said = _flat(shown.stderr)
    assert "a model that samples" not in said, said
    assert f"{shipped.fingerprint} (the one coordqa ships) in {runs[shipped.fingerprint]};" in said
    assert f"{retrained.fingerprint} in {runs[retrained.fingerprint]}" in said, said
    assert "bc-cramped_room" in said and "report each run on its own" in said, said
    assert not (tmp_path / "rep").exists()
    # one run alone is reported as before
    alone = coordqa("agentic", "report", runs[retrained.fingerprint])
    assert alone.returncode == 0, alone.stderr


def test_one_run_whose_partner_played_two_checkpoints_is_told_to_play_again(
    escape_episodes: list[AgenticEpisode],
) -> None:
    """A run resumed after ``train-bc`` holds plays of two checkpoints: reporting it on its own
    would not help, so the refusal says to play the grid again against one checkpoint."""
    from coordqa.agentic.partners.played import mixed_checkpoints_problem

    marked = [  # seat 1 stands for a BC partner's: only the recorded fingerprint is read
        dataclasses.replace(episode, agent_stats={1: {"checkpoint": fingerprint * 16}})
        for episode, fingerprint in zip(escape_episodes, "ab", strict=True)
    ]
    said = mixed_checkpoints_problem([("runs/x", marked)])
    assert said is not None
    assert f"{'a' * 16} in runs/x; {'b' * 16} in runs/x" in said, said
    assert "play the grid again into a new folder" in said, said
    assert "report each run on its own" not in said, said
    assert mixed_checkpoints_problem([("runs/x", marked[:1]), ("runs/y", marked[:1])]) is None
