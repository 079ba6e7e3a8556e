"""What a resumed run may change: the endpoint, and the number of trials (upwards)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_evaluate_support import answers, fast_policy, write_dataset

from coordqa.errors import ConfigError, StoreError
from coordqa.evaluation import EvalConfig, default_out, evaluate
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.store import open_run, read_qa_run


@pytest.fixture(autouse=True)
def _key(openai_key: str) -> None:
    """Every test here talks to an openai/... model."""


def config(dataset: str, base_url: str, **changes: object) -> EvalConfig:
    settings: dict[str, object] = {
        "model": "openai/test-model",
        "api_base": base_url,
        "dataset": dataset,
        "trials": 1,
        "cache": False,
        "policy": fast_policy(concurrency=1, max_attempts=1, timeout_s=30.0),
    }
    settings.update(changes)
    return EvalConfig(**settings)  # type: ignore[arg-type]


def test_raising_trials_adds_trials_and_keeps_the_old_ones(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions
    out = tmp_path / "run"
    with LocalOpenAIServer(answers()) as server:
        evaluate(config(dataset, server.base_url, out=out))
        first_calls = read_qa_run(out).calls()
        more = evaluate(config(dataset, server.base_url, out=out, trials=3))
        assert server.count == 3 + 6  # only trials 1 and 2 were asked
    assert (more.resumed_samples, more.new_samples) == (3, 6) and more.analysis.complete
    run = read_qa_run(out)
    assert run.calls()[:3] == first_calls  # the old trials are kept as they were
    expected = {(q, trial) for q in ("s0-ec", "s0-tom", "s0-jp") for trial in (0, 1, 2)}
    assert set(run.last_calls()) == expected
    manifest = open_run(out).manifest
    assert manifest.config["trials"] == 3 and manifest.sessions == 2
    assert more.analysis.expected_samples == 9
    with pytest.raises(ConfigError, match="holds a run with 3 trials; ask for --trials 3"):
        evaluate(config(dataset, server.base_url, out=out, trials=2))
    # Walkthrough 3's B1: with another setting changed too, the answered run was said to have
    # "no sample answered yet", with advice to remove it; walkthrough 4's #210: the count was
    # said first, and following its advice only then revealed the other setting. The setting
    # that makes it another run is said first, alone.
    with LocalOpenAIServer(answers()) as again, pytest.raises(StoreError) as said:
        evaluate(config(dataset, again.base_url, out=out, trials=1, temperature=0.1))
    words = str(said.value)
    assert "different configuration" in words and "temperature" in words, words
    assert "--trials" not in words and "no sample answered" not in words and "rm -r" not in words


def test_a_moved_server_resumes_the_run(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    out = tmp_path / "run"
    with LocalOpenAIServer(answers(), faults={1: Fault.error(500)}) as old:
        first = evaluate(config(dataset, old.base_url, out=out, max_error_rate=1.0))
    assert first.analysis.errors == 1
    with LocalOpenAIServer(answers()) as new:
        second = evaluate(config(dataset, new.base_url, out=out))
        assert new.count == 1  # only the failed sample is asked again, at the new address
    assert second.analysis.complete and second.resumed_samples == 2
    assert open_run(out).manifest.config["api_base"] == new.base_url


def test_the_default_directory_ignores_the_endpoint_and_names_other_trials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 4 #315-#317: ``--trials 4`` without ``--out`` raised the default 3-trial run,
    after which the README's own ``coordqa eval --model random`` was refused. A run of other
    trials gets a default folder of its own; the default count keeps the name it had."""
    monkeypatch.chdir(tmp_path)
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    base = config(dataset, "http://a:1/v1", trials=3)
    assert default_out(base) == default_out(config(dataset, "http://b:2/v1", trials=3))
    assert default_out(base) != default_out(config(dataset, "http://a:1/v1", temperature=0.0))
    four = default_out(config(dataset, "http://a:1/v1", trials=4))
    assert four != default_out(base) and "_trials4_" in four.name
    assert "trials" not in default_out(base).name
    assert default_out(config(dataset, "http://b:2/v1", trials=4)) == four


def test_the_default_folder_of_the_default_trials_keeps_mains_name() -> None:
    """The walkthrough's ``coordqa eval --model random`` ran into this folder (log #315): a run
    begun before the count was named must be found by the same command."""
    from coordqa.evaluation import DEFAULT_RUNS_DIR

    named = default_out(EvalConfig(model="random"))
    assert named == DEFAULT_RUNS_DIR / "random_coordinationqa-v1.2_972c064c"


def test_a_default_folder_of_more_trials_asks_only_the_new_trials_of_a_cached_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replies are cached by trial, so a second default folder of more trials costs only those."""
    monkeypatch.chdir(tmp_path)
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions
    with LocalOpenAIServer(answers()) as server:
        first = evaluate(config(dataset, server.base_url, trials=1, cache=True))
        more = evaluate(config(dataset, server.base_url, trials=2, cache=True))
        assert server.count == 3 + 3  # trial 0 came from the cache
    assert first.run_dir != more.run_dir
    assert more.analysis.complete and more.analysis.expected_samples == 6


def test_other_changes_are_still_refused(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    out = tmp_path / "run"
    with LocalOpenAIServer(answers()) as server:
        evaluate(config(dataset, server.base_url, out=out))
        with pytest.raises(StoreError, match="temperature: stored 0.6, requested 0.0"):
            evaluate(config(dataset, server.base_url, out=out, temperature=0.0))


def test_a_run_with_no_sample_answered_says_how_to_start_over_with_fewer_trials(
    tmp_path: Path,
) -> None:
    """Walkthrough 2, R3: a 401 stopped a 3-trial run before any answer; --trials 1 into it was
    refused as if answers were at stake, with no word on how to go on."""
    from coordqa.evaluation import EvalFailed

    dataset = write_dataset(tmp_path / "data", scenarios=1)
    out = tmp_path / "run"
    with LocalOpenAIServer(always=Fault.error(401)) as server:
        with pytest.raises(EvalFailed):
            evaluate(config(dataset, server.base_url, out=out, trials=3))
        with pytest.raises(ConfigError) as refused:
            evaluate(config(dataset, server.base_url, out=out, trials=1))
    said = str(refused.value)
    assert "no sample answered yet" in said and f"rm -r {out}" in said
    assert "--trials 1" in said


def _swap_manifest(into: Path, from_run: Path) -> None:
    """Put another run's manifest over ``into``'s (a manifest restored from the wrong run)."""
    (into / "manifest.json").write_bytes((from_run / "manifest.json").read_bytes())


@pytest.mark.parametrize(
    ("stored", "resumed"),
    [
        ({"model": "random"}, {"model": "scripted"}),  # another model's calls
        ({"model": "random"}, {"model": "random", "temperature": 0.0}),  # other parameters
        ({"model": "random"}, {"model": "random", "prompt_layout": "no_system"}),  # another prompt
    ],
)
def test_resuming_counts_only_calls_made_with_the_runs_identity(
    tmp_path: Path, stored: dict[str, object], resumed: dict[str, object]
) -> None:
    """Issue 35: resuming matched stored calls on (question, trial) alone, so a folder holding
    another run's calls under this run's manifest reported those calls as this run's."""
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    common = {"dataset": dataset, "trials": 2, "cache": False}
    theirs, alone_dir = tmp_path / "theirs", tmp_path / "alone"
    evaluate(EvalConfig(**common, **stored, out=theirs))  # type: ignore[arg-type]
    alone = evaluate(EvalConfig(**common, **resumed, out=alone_dir))  # type: ignore[arg-type]
    _swap_manifest(theirs, alone_dir)
    result = evaluate(EvalConfig(**common, **resumed, out=theirs))  # type: ignore[arg-type]
    assert (result.resumed_samples, result.new_samples) == (0, 6)  # every sample asked again
    [mine] = {str(c.settings) for c in read_qa_run(theirs).calls()[6:]}
    assert {c.settings for c in read_qa_run(alone_dir).calls()} == {mine}
    assert result.analysis.to_json()["overall"] == alone.analysis.to_json()["overall"]


def test_a_resume_with_the_same_identity_still_skips_every_answered_call(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    out = tmp_path / "r"
    settings = EvalConfig(model="random", dataset=dataset, trials=2, cache=False, out=out)
    evaluate(settings)
    again = evaluate(settings)
    assert (again.resumed_samples, again.new_samples) == (6, 0)
