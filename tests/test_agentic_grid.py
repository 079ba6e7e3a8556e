"""Grids: expansion rules, resuming after SIGKILL, failures, and the Ray backend."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from coordqa.agentic.episodes import EPISODES
from coordqa.agentic.grid import load_grid, parse_grid
from coordqa.agentic.runner import run_grid
from coordqa.errors import ConfigError, RunFailed, StoreError
from coordqa.store import open_run


def test_expansion_follows_the_paper_defaults() -> None:
    grid = parse_grid(
        {
            "agents": ["cac", "planner"],
            "models": ["scripted", "random"],
            "partners": ["self", "greedy_human", "hanabi-iggi"],
            "games": [
                {"game": "overcooked", "layouts": ["cramped_room"], "seeds": [7]},
                {"game": "hanabi"},
            ],
        }
    )
    specs = grid.episodes()
    hanabi = [s for s in specs if s.game == "hanabi"]
    # the paper's Hanabi games: self-play seeds 321, 212, 628; cross-play 45, 114, 4788
    assert {s.seed for s in hanabi if s.self_play} == {321, 212, 628}
    assert {s.seed for s in hanabi if not s.self_play} == {
        45,
        114,
        4788,
    }  # the paper's cross-play games
    assert {s.partner for s in hanabi} == {None, "hanabi-iggi"}
    assert {s.position for s in hanabi} == {0}
    cross = [s for s in specs if s.game == "overcooked" and not s.self_play]
    assert {s.position for s in cross} == {0, 1}
    assert {s.partner for s in specs if s.game == "overcooked"} == {None, "greedy_human"}
    planner = [s for s in specs if s.agent == "planner"]
    assert planner and {s.model for s in planner} == {None}
    assert {s.model for s in specs if s.agent == "cac"} == {"scripted", "random"}
    # cac x 2 models x (1 self + 2 seats) + planner x (1 self + 2 seats), then Hanabi: cac only
    assert len(cross) == 2 * 2 + 2
    assert len({s.key for s in specs}) == len(specs)


def test_bad_grids_name_the_problem(tmp_path: Path) -> None:
    # a partner is checked when the grid is read, as its agents are, so its file is named
    with pytest.raises(ConfigError, match="^grid: unknown partner 'greedy_humn'. Did you mean"):
        parse_grid(
            {"agents": ["cac"], "partners": ["greedy_humn"], "games": [{"game": "overcooked"}]}
        )
    with pytest.raises(ConfigError, match="^grid: player 'hanabi-iggi' plays .*none of this grid"):
        parse_grid(
            {"agents": ["cac"], "partners": ["hanabi-iggi"], "games": [{"game": "overcooked"}]}
        )
    with pytest.raises(ConfigError, match="cac call a language model.*pass --model"):
        parse_grid({"agents": ["cac"], "games": [{"game": "overcooked"}]}).episodes()
    with pytest.raises(ConfigError, match="agents"):
        parse_grid({"agents": [], "games": [{"game": "hanabi"}]})
    bad = tmp_path / "bad.yaml"
    bad.write_text("agents: [cac]\ngames: [{game: hanabi, seeds: one}]\n")
    with pytest.raises(ConfigError, match=r"games\[0\].seeds: Input should be a valid list"):
        load_grid(bad)


def test_example_grids_are_valid() -> None:
    examples = sorted(Path(__file__).parents[1].joinpath("examples", "grids").glob("*.yaml"))
    assert examples
    for path in examples:
        grid = load_grid(path)
        assert grid.model_copy(update={"models": ["scripted"]}).episodes()


def test_resume_refuses_another_grid(tmp_path: Path) -> None:
    grid = {"agents": ["capture-planner"], "games": [{"game": "collab_capture", "seeds": [0]}]}
    run_grid(parse_grid(grid), tmp_path)
    with pytest.raises(StoreError, match="different configuration"):
        run_grid(parse_grid({**grid, "partners": ["capture-greedy"]}), tmp_path)


def test_a_run_of_another_grid_is_named_in_one_line_not_diffed(tmp_path: Path) -> None:
    """Walkthrough 12: a folder holding a run of grid g1 met ``coordqa agentic grid smoke``
    listed some twenty differences; the grid's name is what differs, and says what to do."""
    grid = {"name": "g1", "agents": ["capture-planner"], "partners": ["capture-greedy"]}
    first = {**grid, "games": [{"game": "collab_capture", "seeds": [0]}]}
    run_grid(parse_grid(first), tmp_path)
    other = {
        **grid,
        "name": "g2",
        "agents": ["cac", "hm"],
        "models": ["scripted"],
        "partners": ["self", "escape-greedy"],
        "games": [{"game": "collab_escape", "seeds": [0, 1]}, {"game": "hanabi"}],
    }
    with pytest.raises(StoreError) as refused:
        run_grid(parse_grid(other), tmp_path)
    said = str(refused.value)
    assert said == (
        f"{tmp_path} holds a run of another grid: 'g1', not 'g2'; give another --out, or the "
        "grid file or options it was made from to resume it"
    )


def grid_with_options(options: dict[str, dict[str, object]], in_game: bool = False) -> dict:
    game: dict[str, object] = {"game": "collab_capture", "seeds": [0]}
    if in_game:
        game["agent_options"] = options
    return {
        "agents": ["cac"],
        "models": ["scripted"],
        "partners": ["capture-greedy"],
        "games": [game],
        "agent_options": {} if in_game else options,
    }


@pytest.mark.parametrize("in_game", [False, True])
def test_a_misspelt_agent_option_is_refused_when_the_grid_is_read(in_game: bool) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_grid(grid_with_options({"cac": {"use_tomm": False}}, in_game), where="g.yaml")
    message = str(raised.value)
    assert message.startswith("g.yaml: ") and "invalid grid" not in message
    assert "'cac' has no option 'use_tomm'" in message
    assert "use_tom, use_verifier, max_verifier_retries, tom_level" in message
    assert "Did you mean 'use_tom'?" in message


def test_agent_option_values_are_checked_by_the_options_class_when_the_grid_is_read() -> None:
    with pytest.raises(ConfigError, match="tom_level must be 0, 1 or 2"):
        parse_grid(grid_with_options({"cac": {"tom_level": 7}}))
    with pytest.raises(ConfigError, match="option use_tom of 'cac' takes true.false, got 'maybe'"):
        parse_grid(grid_with_options({"cac": {"use_tom": "maybe"}}))
    with pytest.raises(ConfigError, match="'capture-greedy' takes no options"):
        parse_grid(grid_with_options({"capture-greedy": {"speed": 2}}))


def test_options_the_preset_merges_in_are_checked_together_when_the_grid_is_read() -> None:
    """The paper preset turns CAC's ToM off in Collab Capture, so tom_level=1 cannot hold."""
    data = {**grid_with_options({"cac": {"tom_level": 1}}), "preset": "paper"}
    with pytest.raises(ConfigError, match="tom_level=1 needs the ToM step"):
        parse_grid(data)


def test_failed_episode_is_recorded_and_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grid = parse_grid(
        {"agents": ["capture-planner"], "games": [{"game": "collab_capture", "seeds": [0]}]}
    )

    async def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("engine exploded")

    monkeypatch.setattr("coordqa.agentic.runner.play_match", broken)
    with pytest.raises(RunFailed, match="1 of 1 episodes .* are errors") as failed:
        run_grid(grid, tmp_path)
    result = failed.value.result
    assert not result.complete and len(result.failures) == 1
    assert "engine exploded" in result.failures[0].error
    store = open_run(tmp_path)
    assert store.manifest.status != "finished"
    assert [r["key"] for r in store.records("failures")] == [result.failures[0].key]
    monkeypatch.undo()
    assert run_grid(grid, tmp_path).complete


KILL_SCRIPT = """
import os, signal, sys
from coordqa.agentic.grid import parse_grid
from coordqa.agentic.runner import run_grid

grid = parse_grid({GRID})

def progress(state):
    if state.done >= 3:
        os.kill(os.getpid(), signal.SIGKILL)

run_grid(grid, sys.argv[1], progress=progress)
"""


def test_grid_killed_midway_resumes_without_replaying(tmp_path: Path) -> None:
    data = {
        "agents": ["cac"],
        "models": ["scripted"],
        "partners": ["capture-greedy"],
        "games": [{"game": "collab_capture", "seeds": list(range(6))}],
        "runtime": {"parallel_episodes": 1},
    }
    script = textwrap.dedent(KILL_SCRIPT).replace("{GRID}", repr(data))
    killed = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, timeout=120
    )
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    lines = (tmp_path / f"{EPISODES}.jsonl").read_text().splitlines()
    before = [json.loads(line)["key"] for line in lines]
    assert len(before) == 3
    result = run_grid(parse_grid(data), tmp_path)
    assert result.resumed == 3 and result.complete
    played = [e.key for e in result.played]
    assert len(played) == 3 and not set(played) & set(before)
    after = [
        json.loads(line)["key"] for line in (tmp_path / "episodes.jsonl").read_text().splitlines()
    ]
    assert sorted(after) == sorted({*before, *played}) and len(after) == 6
    manifest = open_run(tmp_path).manifest
    assert manifest.status == "finished" and manifest.sessions == 2


@pytest.mark.slow
def test_ray_backend_matches_local_backend(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    data = {
        "agents": ["cac", "capture-planner"],
        "models": ["scripted"],
        "partners": ["self", "capture-greedy"],
        "games": [{"game": "collab_capture", "seeds": [0, 1]}],
        "runtime": {"concurrency": 2},
    }
    local = run_grid(parse_grid(data), tmp_path / "local")
    ray.init(num_cpus=2, include_dashboard=False, namespace="coordqa")
    try:
        remote = run_grid(
            parse_grid({**data, "runtime": {"backend": "ray", "concurrency": 2}}),
            tmp_path / "ray",
        )
        left = [n for n in ray.util.list_named_actors() if n.startswith("coordqa-limiter-")]
        peak = _peak_of_slots_held_from_workers(ray, tasks=4, concurrency=1)
        _one_limiter_per_endpoint(ray)
    finally:
        ray.shutdown()
    assert left == [], "the last run to leave a limiter actor kills it"
    assert remote.complete and len(remote.played) == len(local.played) == 8
    by_key = {e.key: e for e in local.played}
    for episode in remote.played:
        twin = by_key[episode.key]
        assert episode.trajectory == twin.trajectory
        assert episode.agent_stats.keys() == twin.agent_stats.keys()
        assert [x.role for x in episode.exchanges] == [x.role for x in twin.exchanges]
    assert peak == 1, "workers must share the limiter actor's slots"


def _one_limiter_per_endpoint(ray: Any) -> None:
    """Two runs with different settings on one endpoint share its actor; the latest bounds hold."""
    from coordqa.llm import Limits
    from coordqa.llm.ray_limits import limiter_actor

    first = limiter_actor("test:endpoint", Limits(1))
    assert ray.get(first.attach.remote()) == 1
    second = limiter_actor("test:endpoint", Limits(3, requests_per_minute=60))
    assert ray.get(second.attach.remote()) == 2  # the same actor: one budget per endpoint
    assert ray.get(first.limits.remote()) == Limits(3, requests_per_minute=60)
    other = limiter_actor("test:other-endpoint", Limits(3, requests_per_minute=60))
    assert ray.get(other.attach.remote()) == 1  # another endpoint, its own actor
    assert ray.get(first.detach.remote()) == 1 and ray.get(second.detach.remote()) == 0
    for actor in (first, other):
        ray.kill(actor)


def _peak_of_slots_held_from_workers(ray: Any, tasks: int, concurrency: int) -> int:
    """Run ``tasks`` Ray tasks at once, each holding a RayLimiter slot; the actor's peak."""
    from coordqa.llm import Limits
    from coordqa.llm.ray_limits import limiter_actor

    limits = Limits(concurrency)
    actor = limiter_actor("test:shared", limits)

    def hold() -> None:
        import asyncio

        from coordqa.llm.ray_limits import RayLimiter

        async def inside() -> None:
            async with RayLimiter("test:shared", limits).slot():
                await asyncio.sleep(0.2)

        asyncio.run(inside())

    remote = ray.remote(hold).options(num_cpus=0.25)
    ray.get([remote.remote() for _ in range(tasks)], timeout=120)
    peak: int = ray.get(actor.peak.remote())
    ray.kill(actor)
    return peak


def test_players_without_weights_are_skipped_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))  # no SAD/OBL registered
    monkeypatch.delenv("COORDQA_HANABI_WEIGHTS", raising=False)
    grid = parse_grid(
        {
            "agents": ["hanabi-convention", "sad"],
            "partners": ["self", "obl1"],
            "games": [{"game": "hanabi", "seeds": [1]}],
        }
    )
    with pytest.raises(RunFailed, match="3 of 4 episodes were skipped") as failed:
        run_grid(grid, tmp_path / "run")
    result = failed.value.result
    # only hanabi-convention's self-play needs no weights; SAD (agent) and OBL-1 (partner) wait
    assert [e.key for e in result.played] == [
        s.key for s in grid.episodes() if s.agent == "hanabi-convention" and s.self_play
    ]
    assert set(result.skipped) == {"sad", "obl1"}
    assert all("add-hanabi" in reason for reason in result.skipped.values())
    assert result.skipped_episodes == 3 and not result.complete
    assert open_run(tmp_path / "run").manifest.status != "finished"


def test_a_models_own_key_is_refused_on_the_ray_backend(tmp_path: Path) -> None:
    import anyio

    from coordqa.agentic.runner import run_grid_async

    grid = parse_grid(
        {
            "agents": ["llm"],
            "models": ["openai/m"],
            "partners": ["self"],
            "games": [{"game": "collab_capture", "seeds": [0]}],
            "runtime": {"backend": "ray"},
        }
    )

    async def run() -> None:
        await run_grid_async(grid, tmp_path / "run", api_keys={"openai/m": "sk-x"})

    with pytest.raises(ConfigError, match="own api key is for the local backend"):
        anyio.run(run)
    assert not (tmp_path / "run").exists()


def test_the_ray_backend_without_ray_fails_before_any_progress_or_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 3, rough 21: a resumed grid drew its full bar (39/39), then said 'needs ray'."""
    from coordqa.errors import MissingDependencyError

    data = {
        "agents": ["capture-planner"],
        "partners": ["self"],
        "games": [{"game": "collab_capture", "seeds": [0]}],
    }
    run_grid(parse_grid(data), tmp_path / "played")  # every episode stored: a resume
    monkeypatch.setitem(sys.modules, "ray", None)  # 'import ray' raises ImportError
    ray_grid = parse_grid({**data, "runtime": {"backend": "ray"}})
    for out in (tmp_path / "played", tmp_path / "new"):
        seen: list[object] = []
        with pytest.raises(MissingDependencyError, match=r"pip install 'coordqa\[ray\]'"):
            run_grid(ray_grid, out, progress=seen.append)
        assert seen == [], "no progress before the failure"
    assert not (tmp_path / "new").exists()


def test_a_grid_reads_its_games_in_any_case_as_eval_does() -> None:
    grid = parse_grid(
        {"agents": ["cac"], "models": ["scripted"], "games": [{"game": "Collab_Escape"}]}
    )
    assert [entry.game for entry in grid.games] == ["collab_escape"]
    assert {spec.game for spec in grid.episodes()} == {"collab_escape"}


def test_the_report_of_skipped_episodes_says_to_install_the_weights_before_the_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 18 R9b: `agentic report` said "6 skipped (a player not ready); the same run
    command plays them again" of OBL episodes whose weights were not installed: the same
    command skips them again until they are."""
    from cli_support import coordqa

    monkeypatch.setenv("COORDQA_DATA_DIR", str(tmp_path / "data"))  # no SAD/OBL registered
    monkeypatch.delenv("COORDQA_HANABI_WEIGHTS", raising=False)
    grid = parse_grid(
        {
            "agents": ["hanabi-convention"],
            "partners": ["self", "obl1"],
            "games": [{"game": "hanabi", "seeds": [1]}],
        }
    )
    with pytest.raises(RunFailed, match="1 of 2 episodes were skipped"):
        run_grid(grid, tmp_path / "run")
    report = coordqa("agentic", "report", str(tmp_path / "run"))
    assert report.returncode == 0, report.stderr
    said = " ".join(report.stderr.split())
    summary = next(line for line in report.stderr.splitlines() if "left out" in line)
    assert "plays them again" not in summary, summary
    assert "1 skipped (a player not ready)" in summary, summary
    assert "make each player ready as its cause below says" in summary, summary
    # the cause under it is the registry's advice: what is missing and how to install it
    assert "obl1: partner 'obl1' needs weights: get the authors' OBL files" in said, said
    # what makes obl1 ready (walkthrough 23, h23h item 2): --name obl1 itself is refused
    assert "coordqa partners add-hanabi PATH --name obl1-a --kind obl" in said, said
    assert "coordqa partners add-hanabi FOLDER" in said and "icml_OBL1/" in said, said
