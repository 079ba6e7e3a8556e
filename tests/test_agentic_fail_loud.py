"""Agentic runs fail loudly and resume honestly (issue 23, item 1), in process.

Expectations come from the issue: an episode in which any decision failed because the model
failed is stored as ``failed`` with its cause, never as played; it is left out of reports,
counted and named, and played again by the same command once the model answers; fallbacks
because the model replied something unreadable stay fallbacks, counted apart from errors; a
refused call stops the run at once; ``--max-error-rate`` works as in eval; the report and
``runs list`` never present failures as results. The real-process cases (dead port, 401,
missing key, unready partner) are in ``test_agentic_fail_loud_cli.py``.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from coordqa.agentic import read_agentic_run
from coordqa.agentic.grid import GridConfig, parse_grid
from coordqa.agentic.report import agentic_report
from coordqa.agentic.runner import GridProgress, run_grid
from coordqa.analysis import list_runs
from coordqa.cli import app
from coordqa.errors import RunFailed, RunInterrupted
from coordqa.llm import Message
from coordqa.llm.offline import default_policy
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.store import open_run


@pytest.fixture(autouse=True)
def _key(openai_key: str) -> None:
    """Every test here talks to an openai/... model on the local server."""


def scripted(body: dict[str, Any], index: int) -> str:
    """Answer as the offline ``scripted`` model: the first option, verifications accepted."""
    return default_policy([Message(m["role"], m["content"]) for m in body["messages"]])


def port(server: LocalOpenAIServer) -> int:
    """The server's port: the rerun's server comes back there (the endpoint is in the grid)."""
    return int(urlsplit(server.base_url).port or 0)


def grid(base_url: str, agent: str = "llm", seeds: int = 1, **runtime: Any) -> GridConfig:
    """``agent`` with the capture-greedy partner on Collab Capture (CAC with its ToM call)."""
    return parse_grid(
        {
            "agents": [agent],
            "models": ["openai/test-model"],
            "api_base": base_url,
            "partners": ["capture-greedy"],
            "games": [{"game": "collab_capture", "seeds": list(range(seeds))}],
            "agent_options": {"cac": {"use_tom": True, "use_verifier": False}},
            "runtime": {"max_attempts": 1, "parallel_episodes": 1, **runtime},
        }
    )


@pytest.mark.slow  # about 5 s of CPU
def test_a_model_error_in_any_decision_fails_the_episode_and_the_rerun_plays_it(
    tmp_path: Path,
) -> None:
    """The failed call is CAC's theory-of-mind call, not the action: the episode still fails.

    CAC's first decision has no ToM call (the partner has not acted yet): request 0 is its
    action call, request 1 the ToM call of its second decision.
    """
    out = tmp_path / "run"
    with LocalOpenAIServer(scripted, faults={1: Fault.error(500)}) as server:
        with pytest.raises(RunFailed, match=r"1 of 1 episodes \(100.0%\) are errors"):
            run_grid(grid(server.base_url, agent="cac"), out)
        where = port(server)
    [failed_call] = [x for x in open_run(out).records("exchanges") if x.get("error")]
    assert failed_call["role"] == "tom"
    run = read_agentic_run(out)
    assert run.episodes() == [], "an episode with a failed call was stored as played"
    [(key, failure)] = run.failures().items()
    assert "tom call failed" in failure.error and failure.error_kind == "failed"
    assert open_run(out).manifest.status == "failed"
    assert [s.status for s in list_runs(tmp_path).runs] == ["failed"]
    report = agentic_report([out])
    assert report.tables == {} and list(report.failures) == [key]
    shown = CliRunner().invoke(app, ["agentic", "report", str(out)])
    assert shown.exit_code == 0, shown.output
    assert key in shown.output and "1 failed" in shown.output

    with LocalOpenAIServer(scripted, port=where) as server:
        result = run_grid(grid(server.base_url, agent="cac"), out)
    assert [e.key for e in result.played] == [key] and result.complete
    run = read_agentic_run(out)
    assert run.failures() == {} and len(run.episodes()) == 1
    assert open_run(out).manifest.status == "finished"
    assert [s.status for s in list_runs(tmp_path).runs] == ["finished"]


def test_unreadable_replies_stay_fallbacks_counted_apart_from_errors(tmp_path: Path) -> None:
    with LocalOpenAIServer(lambda body, index: "I would rather not say.") as server:
        result = run_grid(grid(server.base_url), tmp_path / "run")
    [episode] = result.played
    stats = episode.agent_stats[0]
    assert stats["errors"] == 0
    assert stats["fallbacks"] == stats["decisions"] - stats["forced"] > 0
    assert set(stats["fallback_reasons"]) == {"unreadable"}
    report = agentic_report([tmp_path / "run"])
    assert report.failures == {}
    assert report.tables["per_decision"]["fallback"].iloc[0].startswith("1.000")


def test_a_refused_call_stops_the_grid_at_once_and_the_rerun_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with LocalOpenAIServer(scripted) as server:
        run_grid(grid(server.base_url), tmp_path / "probe")
        refused = server.count  # the first call of the second episode
    with LocalOpenAIServer(scripted, faults={refused: Fault.bad_key()}) as server:
        with pytest.raises(RunFailed, match="Incorrect API key provided") as failed:
            run_grid(grid(server.base_url, seeds=4), out)
        assert server.count == refused + 1, "calls went on after the refusal"
        where = port(server)
    message = str(failed.value)
    assert "refused the call" in message and "1 of 4 episodes are played" in message
    assert failed.value.result is None  # stopped: no table of what it did
    assert len(read_agentic_run(out).episodes()) == 1
    with LocalOpenAIServer(scripted, port=where) as server:
        result = run_grid(grid(server.base_url, seeds=4), out)
    assert (result.resumed, len(result.played)) == (1, 3) and result.complete


def test_failures_within_max_error_rate_pass_and_each_kind_is_reported_once(
    tmp_path: Path,
) -> None:
    """Episodes 0 and 2 fail with a 500, episode 1 with a 502; episode 3 is played.

    One attempt per call and one episode at a time: each failing episode makes one request.
    """
    errors = {0: Fault.error(500), 1: Fault.error(502), 2: Fault.error(500)}
    seen: list[str] = []

    def progress(state: GridProgress) -> None:
        if state.new_error is not None:
            seen.append(state.new_error)

    with LocalOpenAIServer(scripted, faults=errors) as server:
        result = run_grid(
            grid(server.base_url, seeds=4, max_error_rate=0.75), tmp_path / "a", progress=progress
        )
    assert len(result.failures) == 3 and len(result.played) == 1
    assert len(seen) == 2 and "500" in seen[0] and "502" in seen[1]
    assert open_run(tmp_path / "a").manifest.status == "finished"
    assert len(agentic_report([tmp_path / "a"]).failures) == 3
    with LocalOpenAIServer(scripted, faults=errors) as server:
        strict = grid(server.base_url, seeds=4, max_error_rate=0.5)
        with pytest.raises(RunFailed, match=r"3 of 4 episodes \(75.0%\) are errors") as failed:
            run_grid(strict, tmp_path / "b")
    assert failed.value.result is not None and len(failed.value.result.played) == 1


def test_an_episode_played_with_failed_calls_by_an_older_run_is_a_failure_and_replayed(
    tmp_path: Path,
) -> None:
    """Runs made before this rule stored such episodes as played (fallback moves)."""
    out = tmp_path / "run"
    with LocalOpenAIServer(scripted) as server:
        config = grid(server.base_url, seeds=2)
        first = run_grid(config, out)
        stream = out / "episodes.jsonl"
        records = [json.loads(line) for line in stream.read_text().splitlines()]
        records[0]["agent_stats"]["0"]["errors"] = 2
        stream.write_text("".join(json.dumps(r) + "\n" for r in records))
        run = read_agentic_run(out)
        assert [e.key for e in run.episodes()] == [records[1]["key"]]
        assert "2 model call(s) failed" in run.failures()[records[0]["key"]].error
        again = run_grid(config, out)
    assert [e.key for e in again.played] == [first.played[0].key] and again.complete
    assert sorted(e.key for e in read_agentic_run(out).episodes()) == sorted(
        e.key for e in first.played
    )


def _sigterm_when(condition: bool) -> None:
    if condition:
        os.kill(os.getpid(), signal.SIGTERM)


def test_sigterm_interrupts_an_agentic_run_like_ctrl_c_and_keeps_finished_episodes(
    tmp_path: Path,
) -> None:
    config = parse_grid(
        {
            "agents": ["capture-planner"],
            "games": [{"game": "collab_capture", "seeds": [0, 1, 2, 3, 4]}],
            "runtime": {"parallel_episodes": 1},
        }
    )
    out = tmp_path / "run"
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(RunInterrupted, match="episodes finished") as stop:
        run_grid(config, out, progress=lambda state: _sigterm_when(state.done == 2))
    assert open_run(out).manifest.status == "interrupted"
    kept = len(read_agentic_run(out).episodes())
    assert 2 <= kept < 5 and f"{kept} of 5 episodes finished" in str(stop.value)
    assert signal.getsignal(signal.SIGTERM) is before  # the handler was put back
    result = run_grid(config, out)
    assert (result.resumed, len(result.played)) == (kept, 5 - kept)


def test_sigterm_interrupts_eval_and_play_the_same_way(tmp_path: Path) -> None:
    from coordqa.evaluation import EvalConfig, EvalInterrupted, evaluate
    from coordqa.play import PlayConfig, play, read_play_run

    assert EvalInterrupted is RunInterrupted  # one interruption for every kind of run
    config = EvalConfig(model="random", dataset="example", trials=1, out=tmp_path / "qa")
    with pytest.raises(RunInterrupted, match="samples are answered and stored"):
        evaluate(config, progress=lambda state: _sigterm_when(state.done == 3))
    assert open_run(tmp_path / "qa").manifest.status == "interrupted"
    played = PlayConfig("collab_capture", episodes=5)
    with pytest.raises(RunInterrupted, match="of 5 episodes are finished"):
        play(played, tmp_path / "play", lambda index, _: _sigterm_when(index == 1))
    assert open_run(tmp_path / "play").manifest.status == "interrupted"
    assert 2 <= read_play_run(tmp_path / "play").counts().done < 5
