"""Matches, the stored episode format, loading and verification by replay."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from coordqa.agentic import (
    EpisodeReplayError,
    EpisodeSpec,
    load_agentic_run,
    run_match,
    verify_episodes,
)
from coordqa.agentic.grid import parse_grid
from coordqa.agentic.records import AgentRecord
from coordqa.agentic.runner import run_grid
from coordqa.errors import ConfigError, StoreError


def test_scripted_match_replays_and_counts_decisions() -> None:
    spec = EpisodeSpec(
        game="collab_capture",
        layout="default",
        seed=3,
        agent="capture-planner",
        partner="capture-greedy",
        position=1,
    )
    episode = run_match(spec)
    assert episode.trajectory.players == ["capture-greedy", "capture-planner"]
    assert episode.agent_stats == {}
    assert episode.exchanges == []
    [verified] = verify_episodes([episode])
    assert verified.score == episode.score
    assert verified.metrics == episode.metrics
    steps = len(episode.trajectory.steps)
    assert verified.decisions == {0: steps, 1: steps}


def test_run_match_works_inside_a_running_event_loop() -> None:
    """A notebook, or Playwright's sync API, runs a loop in this thread: asyncio.run would fail."""
    spec = EpisodeSpec(
        game="collab_capture", layout="default", seed=3,
        agent="capture-planner", partner="capture-greedy",
    )  # fmt: skip

    async def called_from_a_loop() -> float:
        return run_match(spec).score

    assert asyncio.run(called_from_a_loop()) == run_match(spec).score


def test_llm_agent_match_records_every_exchange_with_seat_and_step() -> None:
    spec = EpisodeSpec(
        game="collab_capture", layout="default", seed=0, agent="cac", model="scripted"
    )
    episode = run_match(spec)
    assert set(episode.agent_stats) == {0, 1}
    assert episode.exchanges, "an LLM agent's exchanges must be recorded"
    roles = {e.role for e in episode.exchanges}
    assert {"action", "verifier"} <= roles
    steps = len(episode.trajectory.steps)
    for exchange in episode.exchanges:
        assert exchange.episode == spec.key
        assert exchange.attempt == episode.attempt
        assert exchange.seat in (0, 1)
        assert exchange.step is not None and 0 <= exchange.step < steps
    calls = sum(1 for e in episode.exchanges if e.role != "events")
    assert calls == sum(s["llm_calls"] for s in episode.agent_stats.values())
    verify_episodes([episode])


def test_llm_agent_without_model_is_a_config_error() -> None:
    spec = EpisodeSpec(game="collab_capture", layout="default", seed=0, agent="cac")
    with pytest.raises(ConfigError, match="language model"):
        run_match(spec)


def test_self_play_spec_rejects_a_seat() -> None:
    with pytest.raises(ValueError, match="self-play"):
        EpisodeSpec(game="hanabi", layout="default", seed=1, agent="llm", position=1)


def test_tampered_episode_fails_verification() -> None:
    spec = EpisodeSpec(
        game="hanabi",
        layout="default",
        seed=45,
        agent="hanabi-convention",
        partner="hanabi-iggi",
    )
    episode = run_match(spec)
    inflated = dataclasses.replace(episode, score=episode.score + 1)
    with pytest.raises(EpisodeReplayError, match="differ from the replayed"):
        verify_episodes([inflated])
    step = episode.trajectory.steps[0]
    moved = dataclasses.replace(step, reward=step.reward + 5)
    forged = dataclasses.replace(
        episode,
        trajectory=dataclasses.replace(
            episode.trajectory, steps=[moved, *episode.trajectory.steps[1:]]
        ),
    )
    with pytest.raises(EpisodeReplayError, match="does not replay"):
        verify_episodes([forged])
    swapped = dataclasses.replace(
        episode, trajectory=dataclasses.replace(episode.trajectory, players=["x", "y"])
    )
    with pytest.raises(EpisodeReplayError, match="players"):
        verify_episodes([swapped])


def _small_grid() -> dict[str, object]:
    return {
        "agents": ["cac"],
        "models": ["scripted"],
        "partners": ["capture-greedy"],
        "games": [{"game": "collab_capture", "seeds": [0, 1]}],
    }


def test_run_directory_round_trip_ignores_exchanges_of_unfinished_attempts(
    tmp_path: Path,
) -> None:
    result = run_grid(parse_grid(_small_grid()), tmp_path / "run")
    assert result.complete and len(result.played) == 2
    # an exchange of an attempt that was killed before its episode record was written
    orphan = {**result.played[0].exchanges[0].to_json(), "attempt": "killed"}
    with (tmp_path / "run" / "exchanges.jsonl").open("a") as handle:
        handle.write(json.dumps(orphan) + "\n")
    episodes = load_agentic_run(tmp_path / "run")
    assert {e.key for e in episodes} == {e.key for e in result.played}
    for loaded in episodes:
        played = next(e for e in result.played if e.key == loaded.key)
        assert loaded.trajectory == played.trajectory
        assert loaded.agent_stats == played.agent_stats
        assert len(loaded.exchanges) == len(played.exchanges)
        assert all(x.attempt == loaded.attempt for x in loaded.exchanges)
    assert [v.key for v in verify_episodes(episodes)] == [e.key for e in episodes]
    assert all(e.exchanges == [] for e in load_agentic_run(tmp_path / "run", with_exchanges=False))


def test_edited_record_key_is_rejected(tmp_path: Path) -> None:
    run_grid(parse_grid(_small_grid()), tmp_path / "run")
    path = tmp_path / "run" / "episodes.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[0]["spec"]["seed"] = 99
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(StoreError, match="not its spec's key"):
        load_agentic_run(tmp_path / "run")


def test_load_refuses_a_run_of_another_kind(tmp_path: Path) -> None:
    from coordqa.play import PlayConfig, play

    play(PlayConfig("collab_capture", episodes=1), out=tmp_path / "play")
    with pytest.raises(StoreError, match="not an agentic one"):
        load_agentic_run(tmp_path / "play")


def test_an_agents_recorder_leads_nowhere_near_its_partner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0's recorder reaches neither the partner player (whose last description shows seat
    0's Hanabi cards) nor seat 1's records, nor the caller's sink; records still all arrive."""
    import asyncio

    from coordqa.agentic import match
    from coordqa.agentic.episodes import EpisodeSpec
    from coordqa.games.testing import reachable

    built: dict[int, object] = {}
    build = match.build_player

    def spy(spec: EpisodeSpec, seat: int, **kwargs: object) -> object:
        built[seat] = build(spec, seat, **kwargs)  # type: ignore[arg-type]
        return built[seat]

    monkeypatch.setattr(match, "build_player", spy)
    streamed: list[AgentRecord] = []
    spec = EpisodeSpec(game="hanabi", layout="default", seed=3, agent="cac", model="scripted")
    episode = asyncio.run(match.play_match(spec, on_record=streamed.append))
    assert streamed == episode.exchanges and {r.seat for r in streamed} == {0, 1}
    for seat in (0, 1):
        reached = [value for value, _ in reachable(built[seat].recorder)]  # type: ignore[attr-defined]
        ids = {id(value) for value in reached}
        assert id(built[1 - seat]) not in ids and id(streamed) not in ids
        assert not any(isinstance(v, AgentRecord) and v.seat == 1 - seat for v in reached)
