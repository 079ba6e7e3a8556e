"""Failing loudly: a broken endpoint stops the run with the provider's words; nothing is lost."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from test_evaluate_support import answers, eval_config, fast_policy, write_dataset

from coordqa import evaluation
from coordqa.evaluation import EvalConfig, EvalFailed, EvalProgress, evaluate
from coordqa.llm import CallPolicy
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.local_servers import free_port
from coordqa.store import open_run, read_qa_run


@pytest.fixture(autouse=True)
def _key(openai_key: str) -> None:
    """Every test here talks to an openai/... model."""


def config(dataset: str, out: Path, base_url: str, **changes: object) -> EvalConfig:
    """eval_config with one call at a time and a 30 s timeout (unless ``changes`` name a policy)."""
    policy = fast_policy(concurrency=1, timeout_s=30.0)
    return eval_config(dataset, out, base_url, **{"policy": policy, **changes})


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (Fault.bad_key(), "Incorrect API key provided"),
        (Fault.unknown_model(), "does not exist"),
        (Fault.bad_parameter(), "Unsupported parameter"),
        (Fault.error(403, "Your organization is not allowed"), "not allowed"),
    ],
)
def test_a_refused_call_stops_the_run_at_once_and_the_rerun_resumes(
    tmp_path: Path, fault: Fault, words: str
) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 questions x 2 trials
    # Requests 0-3 are answered, request 4 is refused: the run stops there.
    with LocalOpenAIServer(answers(), faults={4: fault}) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url)
        with pytest.raises(EvalFailed, match=words) as failed:
            evaluate(cfg)
        assert server.count == 5, "the run went on after a refused call"
        assert "4 of 12 samples are answered" in str(failed.value)
        assert open_run(tmp_path / "run").manifest.status == "failed"
        result = evaluate(cfg)
        assert server.count == 5 + 8  # the refused key and the 7 never asked
    assert result.resumed_samples == 4 and result.new_samples == 8
    assert result.analysis.complete and open_run(result.run_dir).manifest.status == "finished"


def test_a_dead_server_is_said_before_the_first_call(tmp_path: Path) -> None:
    """The endpoint probe (one GET to --api-base) fails at once: no call, no run directory."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    cfg = config(
        dataset, tmp_path / "run", f"http://127.0.0.1:{free_port()}/v1", policy=CallPolicy()
    )
    started = time.monotonic()
    with pytest.raises(EvalFailed, match="stopped before the first call") as failed:
        evaluate(cfg)
    assert time.monotonic() - started < 10
    message = str(failed.value)
    assert "is unreachable: ConnectionRefusedError" in message and "--api-base" in message
    assert "nothing new was stored" in message and not (tmp_path / "run").exists()


def test_the_stop_reports_the_attempt_that_reached_the_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """N consecutive connection failures stop the run, and the error says N, not N + 1.

    With 32 calls in flight, more attempts fail while the stopping error is being written; here
    its write is made slow (the first fsync from a worker thread waits), so that a later call's
    error ("11 attempts in a row") is stored first. The run must still report the call that
    reached the threshold.
    """
    real_fsync = os.fsync
    slowed: list[int] = []

    def slow_first_fsync(fd: int) -> None:
        if threading.current_thread() is not threading.main_thread() and not slowed:
            slowed.append(fd)
            time.sleep(0.5)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_first_fsync)
    monkeypatch.setattr(
        evaluation, "check_reachable", lambda api_base, timeout_s: None
    )  # the breaker's turn
    dataset = write_dataset(tmp_path / "data", scenarios=6)  # 36 samples
    policy = fast_policy(concurrency=32, max_attempts=6, max_connection_failures=10)
    cfg = config(dataset, tmp_path / "run", f"http://127.0.0.1:{free_port()}/v1", policy=policy)
    with pytest.raises(EvalFailed, match="is unreachable") as failed:
        evaluate(cfg)
    assert slowed, "the stopping error was not written from a worker thread"
    assert "did not answer 10 attempts in a row" in str(failed.value)


def test_a_server_that_dies_mid_run_stops_it_and_keeps_the_answers(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    policy = fast_policy(concurrency=1, max_connection_failures=3, max_attempts=6, timeout_s=30.0)
    dead = {index: Fault.disconnect() for index in range(5, 100)}
    with LocalOpenAIServer(answers(), faults=dead) as server:
        with pytest.raises(EvalFailed, match="3 attempts in a row") as failed:
            evaluate(config(dataset, tmp_path / "run", server.base_url, policy=policy))
        assert server.count == 5 + 3
    assert "5 of 12 samples are answered" in str(failed.value)
    answered = [s for s in read_qa_run(tmp_path / "run").samples() if s.correct]
    assert len(answered) == 5


def test_errors_within_max_error_rate_pass_and_beyond_fail(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 12 samples
    policy = fast_policy(concurrency=1, max_attempts=1, timeout_s=30.0)
    faults = {0: Fault.error(500), 1: Fault.error(503)}  # 2 of 12 samples fail (16.7%)
    with LocalOpenAIServer(answers(), faults=faults) as server:
        allowed = evaluate(
            config(dataset, tmp_path / "a", server.base_url, policy=policy, max_error_rate=0.2)
        )
    assert allowed.analysis.errors == 2 and allowed.error_rate == pytest.approx(2 / 12)
    assert open_run(allowed.run_dir).manifest.status == "finished"
    with LocalOpenAIServer(answers(), faults=faults) as server:
        strict = config(dataset, tmp_path / "b", server.base_url, policy=policy, max_error_rate=0.1)
        with pytest.raises(EvalFailed, match=r"2 of 12 samples \(16.7%\) are errors") as failed:
            evaluate(strict)
    assert failed.value.result is not None and failed.value.result.analysis.errors == 2
    assert "503" in str(failed.value) and "500" in str(failed.value)


def test_the_first_error_of_each_kind_is_reported_as_it_happens(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    policy = fast_policy(concurrency=1, max_attempts=1, timeout_s=30.0)
    faults = {0: Fault.error(500), 2: Fault.error(500), 3: Fault.error(502), 7: Fault.error(500)}
    seen: list[EvalProgress] = []
    with LocalOpenAIServer(answers(), faults=faults) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url, policy=policy, max_error_rate=1)
        evaluate(cfg, progress=seen.append)
    reported = [(p.done, p.new_error) for p in seen if p.new_error is not None]
    assert [done for done, _ in reported] == [1, 4]  # samples 1 (500) and 4 (502)
    assert "500" in (reported[0][1] or "") and "502" in (reported[1][1] or "")
    assert seen[-1].errors == 4


def test_calls_cache_hits_and_resumed_samples_are_counted_apart(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions x 2 trials
    with LocalOpenAIServer(answers()) as server:
        first = evaluate(config(dataset, tmp_path / "a", server.base_url, cache=True))
        cached = evaluate(config(dataset, tmp_path / "b", server.base_url, cache=True))
        resumed = evaluate(config(dataset, tmp_path / "b", server.base_url, cache=True))
        assert server.count == 6
    assert (first.calls.sent, first.calls.cache_hits, first.new_samples) == (6, 0, 6)
    assert first.calls.usage.total_tokens > 0 and first.calls.usage.calls == 6
    assert (cached.calls.sent, cached.calls.cache_hits, cached.new_samples) == (0, 6, 6)
    assert cached.calls.usage.total_tokens == 0, "cache hits spend no tokens"
    assert (cached.run_calls.sent, cached.run_calls.cache_hits) == (0, 6)
    assert (resumed.calls.requests, resumed.resumed_samples, resumed.new_samples) == (0, 6, 0)
    assert resumed.run_calls == cached.run_calls  # the run's totals survive the resume
    assert first.run_calls.usage == first.calls.usage
    summary = resumed.to_json()
    assert summary["calls"]["run"]["cache_hits"] == 6 and summary["samples"]["resumed"] == 6


def test_statuses_of_a_stopped_run_are_one_per_key(tmp_path: Path) -> None:
    """Calls in flight when the run stops are cancelled, not stored as answers or errors."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)
    policy = fast_policy(concurrency=4, timeout_s=30.0)
    with LocalOpenAIServer(answers(), latency_s=0.05, faults={6: Fault.bad_key()}) as server:
        with pytest.raises(EvalFailed):
            evaluate(config(dataset, tmp_path / "run", server.base_url, policy=policy))
    run = read_qa_run(tmp_path / "run")
    keys = Counter(call.key for call in run.calls())
    assert set(keys.values()) == {1}
    statuses = Counter(s.status for s in run.samples())
    assert statuses["error"] == 1 and sum(statuses.values()) < 12


def test_a_server_still_generating_an_abandoned_call_is_said_busy_not_dead(tmp_path: Path) -> None:
    """Walkthrough 7 R7: llama-cpp-python's server keeps generating a request its client gave
    up on (``--timeout`` shorter than a generation) and answers nothing else until it is done.
    The next run's probe said "a hung server. Start the server or fix --api-base ... (nothing
    was stored)": the wrong way (it is busy, at the right address), and the folder held samples.
    """
    from coordqa.errors import RunFailed
    from coordqa.runs.endpoint import check_reachable

    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions x 2 trials
    policy = fast_policy(concurrency=1, timeout_s=0.5, max_attempts=1)
    with LocalOpenAIServer(answers(), faults={4: Fault.slow(60)}, one_at_a_time=True) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url, policy=policy)
        with pytest.raises(EvalFailed, match="timed out"):
            evaluate(cfg)  # request 4 is abandoned after 0.5 s; the server keeps at it
        assert len(read_qa_run(tmp_path / "run").samples()) >= 4
        with pytest.raises(RunFailed) as probed:
            check_reachable(server.base_url, timeout_s=0.5)  # a --timeout set: the wait
    said = " ".join(str(probed.value).split())
    assert "sent no answer within 0.5 s" in said, said
    assert "hung, or still busy" in said and "gave up on" in said, said
    assert "Wait for it" in said and "raise --timeout" in said, said
    assert "restart the server" in said, said
    assert "fix --api-base" not in said and "nothing new was stored" in said, said
