"""A resumed run asked at another endpoint is said once, before calls, with its credentials kept.

The endpoint may change on resume (:data:`coordqa.evaluation.RESUME_MAY_CHANGE`: servers move
between cluster jobs), but the server at the new address may serve another model under the same
name, and its answers would join the run's: the user is told where the stored answers came from
and where this session asks.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_evaluate_support import answers, fast_policy, write_dataset

from coordqa.evaluation import EvalConfig, evaluate
from coordqa.llm.endpoints import shown_endpoint
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.runs.moved import moved_endpoint

LOGGER = "coordqa.runs.moved"


@pytest.fixture(autouse=True)
def _key(openai_key: str) -> None:
    """Every test here talks to an openai/... model."""


def _config(dataset: str, base_url: str, out: Path) -> EvalConfig:
    return EvalConfig(
        model="openai/test-model",
        api_base=base_url,
        dataset=dataset,
        trials=1,
        cache=False,
        out=out,
        max_error_rate=1.0,
        policy=fast_policy(concurrency=1, max_attempts=1, timeout_s=30.0),
    )


def _reply(body: object, index: int) -> str:
    return "Explanation: obvious.\nAnswer: B"


def _notices(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_a_run_with_answers_resumed_elsewhere_says_where_each_came_from(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions
    out = tmp_path / "run"
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with LocalOpenAIServer(answers(), faults={1: Fault.error(500)}) as old:
        evaluate(_config(dataset, old.base_url, out))  # 2 answered, 1 error
    assert _notices(caplog) == []  # a new run: nothing to say
    with LocalOpenAIServer(answers()) as new:
        evaluate(_config(dataset, new.base_url, out))
    (notice,) = _notices(caplog)
    assert old.base_url in notice and new.base_url in notice, notice
    assert "--out" in notice and "one run" in notice, notice


def test_the_same_endpoint_or_a_run_with_nothing_answered_says_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    caplog.set_level(logging.WARNING, logger=LOGGER)
    failing = {n: Fault.error(500) for n in range(3)}
    with LocalOpenAIServer(answers(), faults=failing) as dead:
        evaluate(_config(dataset, dead.base_url, tmp_path / "empty"))  # nothing answered
    with LocalOpenAIServer(answers(), faults={0: Fault.error(500)}) as server:
        evaluate(_config(dataset, server.base_url, tmp_path / "empty"))
        evaluate(_config(dataset, server.base_url, tmp_path / "same"))
        evaluate(_config(dataset, server.base_url + "/", tmp_path / "same"))  # one endpoint
    assert _notices(caplog) == []


def test_endpoints_are_compared_as_addresses() -> None:
    assert moved_endpoint("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/") is None
    assert moved_endpoint("HTTP://Host:8000/v1", "http://host:8000/v1") is None
    assert moved_endpoint(None, None) is None
    assert moved_endpoint("http://a:8000/v1", "http://b:8000/v1") is not None
    assert moved_endpoint(None, "http://b:8000/v1") is not None  # the provider's, then a server


def test_the_notice_credits_the_last_session_only_with_its_endpoint() -> None:
    """Walkthrough 23 R4: a run answered 80 samples at 127.0.0.1 and 20 at localhost; the next
    session was told "the answers this run holds came from http://localhost:18600/v1". The
    manifest keeps only the latest session's endpoint, so the notice says that much, no more."""
    notice = moved_endpoint("http://localhost:18600/v1", "http://127.0.0.1:18600/v1")
    assert notice is not None
    assert "answers this run holds came from" not in notice, notice
    assert notice.startswith("this run's last session asked http://localhost:18600/v1"), notice


def test_credentials_in_an_endpoint_are_never_shown() -> None:
    secret = "http://alice:hunter22@gpu7.cluster:8000/v1?api-key=sk-xyz#frag"
    assert shown_endpoint(secret) == "http://gpu7.cluster:8000/v1"
    notice = moved_endpoint(secret, "http://bob:pw2@gpu9.cluster:8000/v1?token=t")
    assert notice is not None
    for leaked in ("alice", "hunter22", "sk-xyz", "bob", "pw2", "token", "frag"):
        assert leaked not in notice, notice
    assert "gpu7.cluster:8000/v1" in notice and "gpu9.cluster:8000/v1" in notice


def test_the_cli_says_it_once_on_stderr_before_the_results(tmp_path: Path) -> None:
    from test_cli_workflow import invoke

    dataset = write_dataset(tmp_path / "data", scenarios=1)
    out = tmp_path / "run"

    def run_at(base_url: str) -> tuple[int, str]:
        return invoke(
            "eval", "--model", "openai/test-model", "--api-base", base_url, "--dataset", dataset,
            "--no-cache", "--max-attempts", "1", "--max-error-rate", "1", "--out", out, "--json",
        )  # fmt: skip

    with LocalOpenAIServer(answers(), faults={1: Fault.error(500)}) as old:
        code, first = run_at(old.base_url)
    assert code == 0 and "last session asked" not in first, first
    with LocalOpenAIServer(answers()) as new:
        code, second = run_at(new.base_url)
    assert code == 0, second
    said = [line for line in second.splitlines() if "last session asked" in line]
    assert len(said) == 1 and said[0].startswith(f"warning: {out}: "), second
    assert old.base_url in said[0] and new.base_url in said[0]


def test_an_eval_set_member_says_it_too(tmp_path: Path) -> None:
    from cli_support import coordqa

    out = tmp_path / "set"

    def run_at(base_url: str) -> str:
        args = ["--model", "openai/m", "--api-base", base_url, "--limit", "2", "--trials", "1"]
        done = coordqa("eval-set", *args, "--max-attempts", "1", "--no-cache", "--out", out)
        return done.stderr

    with LocalOpenAIServer(_reply, faults={1: Fault.error(500)}) as old:
        first = run_at(old.base_url)
        assert old.count == 2, first
    assert "last session asked" not in first, first
    with LocalOpenAIServer(_reply) as new:
        second = run_at(new.base_url)
        assert new.count == 1, second  # only the failed sample is asked again
    said = [line for line in second.splitlines() if "last session asked" in line]
    assert len(said) == 1 and said[0].startswith("warning: "), second
    assert old.base_url in said[0] and new.base_url in said[0], said
