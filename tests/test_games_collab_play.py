"""The play library on the Collab games: summaries, run store, resume, defaults and errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from coordqa.analysis.stats import MeanSE
from coordqa.errors import ConfigError, GameError, UnknownNameError
from coordqa.play import PlayConfig, advance, default_players, play, resolve


def test_mean_se() -> None:
    value = MeanSE.of([1.0, 0.0, 1.0, 0.0])
    assert value.mean == 0.5 and value.n == 4
    assert math.isclose(value.se, math.sqrt(1 / 3) / 2)
    assert math.isnan(MeanSE.of([1.0]).se)
    assert str(MeanSE.of([])) == "NaN (n=0)"  # no data: no mean and no SE


def test_defaults_cover_the_four_games() -> None:
    # each game's strong policy (its profile's) in both seats: the players that play it best
    assert default_players("overcooked") == ("planner", "planner")
    assert default_players("hanabi") == ("hanabi-convention", "hanabi-convention")
    assert default_players("collab_capture") == ("capture-planner", "capture-planner")
    config = resolve(PlayConfig("collab_escape"))
    assert config.players == ("escape-planner", "escape-planner")
    assert config.layout == "default"


def test_play_summary_and_metrics() -> None:
    summary = play(PlayConfig("collab_capture", ("capture-greedy", "capture-planner"), episodes=3))
    assert [t.seed for t in summary.trajectories] == [0, 1, 2]
    assert summary.score.mean == 1.0 and summary.metrics()["captured"].n == 3
    won = summary.turns_when_won()
    assert won is not None and won.mean == summary.metrics()["turns"].mean
    data = summary.to_dict()
    assert data["players"] == ["capture-greedy", "capture-planner"]
    json.dumps(data, allow_nan=False)


def test_play_stores_and_resumes_by_episode(tmp_path: Path) -> None:
    out = tmp_path / "run"
    seen: list[int] = []
    first = play(PlayConfig("collab_escape", episodes=3, seed=5), out, lambda i, _t: seen.append(i))
    assert seen == [0, 1, 2] and first.resumed == 0
    records = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert [r["episode"] for r in records] == [0, 1, 2]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "play" and manifest["config"]["seed"] == 5
    assert manifest["status"] == "finished"
    again = play(PlayConfig("collab_escape", episodes=3, seed=5), out)
    assert again.resumed == 3
    assert [t.to_dict() for t in again.trajectories] == [t.to_dict() for t in first.trajectories]
    assert json.loads((out / "summary.json").read_text())["episodes"] == 3


def test_resume_finishes_missing_episodes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play(PlayConfig("collab_capture", episodes=2), out)
    lines = (out / "trajectories.jsonl").read_text().splitlines()
    (out / "trajectories.jsonl").write_text(lines[0] + "\n")
    summary = play(PlayConfig("collab_capture", episodes=2), out)
    assert summary.resumed == 1 and len(summary.trajectories) == 2


def test_tampered_episode_fails_replay(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play(PlayConfig("collab_capture", episodes=1), out)
    record = json.loads((out / "trajectories.jsonl").read_text())
    record["trajectory"]["score"] = 0.0
    (out / "trajectories.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(GameError, match="does not replay"):
        play(PlayConfig("collab_capture", episodes=1), out)


def test_bad_names_and_counts_are_clear_errors() -> None:
    with pytest.raises(UnknownNameError, match="Did you mean 'collab_escape'"):
        resolve(PlayConfig("collab_escap"))
    with pytest.raises(UnknownNameError, match="capture-planner"):
        resolve(PlayConfig("collab_capture", ("capture-planer", "capture-planner")))
    with pytest.raises(ConfigError, match="cannot play collab_capture"):
        resolve(PlayConfig("collab_capture", ("escape-planner", "capture-planner")))
    with pytest.raises(ConfigError, match="at least 1"):
        resolve(PlayConfig("collab_capture", episodes=0))
    with pytest.raises(ConfigError, match="steps must be"):
        advance("collab_capture", steps=-1)


def test_advance_plays_the_given_steps_and_stops_at_the_end() -> None:
    advanced = advance("collab_escape", seed=2, steps=2)
    assert advanced.game.snapshot()["state"]["turn"] == 2 and advanced.steps == 2
    done = advance("collab_capture", steps=100)
    assert done.game.is_terminal() and done.game.metrics()["turns"] == 3 == done.steps


def test_turns_when_won_only_for_win_lose_games() -> None:
    summary = play(PlayConfig("collab_escape", ("escape-greedy", "escape-greedy"), episodes=6))
    won = summary.turns_when_won()
    assert summary.win_metric == "escaped" and won is not None
    assert won.n == sum(t.metrics["escaped"] == 1.0 for t in summary.trajectories)
    summary.win_metric = None
    assert summary.turns_when_won() is None
