"""End-to-end QA evaluation against the local OpenAI-compatible server (offline, 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
from test_evaluate_support import answers, eval_config as config, fast_policy, write_dataset

from coordqa.errors import ConfigError, StoreError
from coordqa.evaluation import EvalConfig, EvalFailed, EvalProgress, evaluate, score
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.store import RunManifest, RunStore, open_run, read_qa_run


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_faults_are_retried_and_every_key_has_one_outcome(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 questions x 2 trials
    replies = {"s1-ec": "I cannot decide.", "s1-tom": "Answer: A or C", "s0-jp": "Answer: A"}
    faults = {
        0: Fault.rate_limit(0.01),  # first key: 429 with Retry-After, then 500, then ok
        1: Fault.error(500),
        3: Fault.invalid_json(),  # second key: a broken 200 body, then one without choices
        4: Fault.no_choices(),
        6: Fault.error(500),  # third key: fails on every attempt -> an error sample
        7: Fault.error(503),
        8: Fault.error(500),
        9: Fault.missing_content(),  # fourth key: a 200 with no content and no finish reason
    }
    # Timeouts are generous here (timing-free faults); test_timeouts_are_retried covers them.
    policy = fast_policy(concurrency=1, max_attempts=3, timeout_s=30.0)
    with LocalOpenAIServer(answers(replies), faults=faults) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url, policy=policy)
        with pytest.raises(EvalFailed, match=r"1 of 12 samples \(8.3%\) are errors") as failed:
            evaluate(cfg)
        assert server.count == 12 + 2 + 2 + 2 + 1
    result = failed.value.result
    assert result is not None

    run = read_qa_run(result.run_dir)
    store = run.store
    keys = Counter(call.key for call in run.calls())
    assert len(keys) == 12 and set(keys.values()) == {1}
    samples = {sample.key: sample for sample in run.samples()}
    statuses = Counter(s.status for s in samples.values())
    assert statuses == {"answered": 7, "error": 1, "no_answer": 2, "ambiguous": 2}
    assert samples[("s0-tom", 0)].status == "error"
    first = samples[("s0-ec", 0)]
    assert first.status == "answered" and first.correct is True and first.letter == "B"
    errored = [s for s in samples.values() if s.status == "error"]
    assert errored[0].correct is False and "500" in str(errored[0].error)

    calls = run.last_calls()
    assert calls[("s0-ec", 0)].attempts == 3
    assert calls[errored[0].key].text is None
    assert all(c.prompt_hash for c in calls.values())
    questions = list(run.questions().values())
    assert len(questions) == 6 and questions[0].messages[-1].role == "user"
    assert not (result.run_dir / "samples.jsonl").exists()  # outcomes live in scores.jsonl only

    analysis = result.analysis
    assert analysis.errors == 1 and not analysis.complete
    by_type = {row["question_type"]: row for row in analysis.by_type}
    assert by_type["JP"]["answered"] == 4  # s0-jp answers A (wrong) twice
    assert by_type["JP"]["accuracy"] == pytest.approx(0.5)
    summary = store.read_json("summary.json")
    assert summary["overall"]["error"] == 1 and summary["complete"] is False
    assert open_run(result.run_dir).manifest.status == "failed"


def test_timeouts_are_retried(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    policy = fast_policy(concurrency=1, max_attempts=4, timeout_s=1.0)
    with LocalOpenAIServer(answers(), faults={0: Fault.slow(3.0)}) as server:
        result = evaluate(
            config(dataset, tmp_path / "run", server.base_url, policy=policy, trials=1)
        )
        assert server.count >= 4
    calls = read_qa_run(result.run_dir).last_calls()
    assert calls[("s0-ec", 0)].attempts >= 2 and calls[("s0-ec", 0)].text is not None
    assert result.analysis.complete


def test_empty_replies_are_answers_counted_apart_and_never_retried(tmp_path: Path) -> None:
    """A well-formed empty reply is the model's: no_answer (method empty_reply), stored with its
    finish reason, counted in the summary, not retried, not an error; the run completes."""
    dataset = write_dataset(tmp_path / "data", scenarios=2)  # 6 questions x 2 trials
    replies = {"s0-ec": "", "s1-tom": " \n "}
    # Concurrency 1 asks question by question, trial by trial: request 4 is (s0-jp, 0).
    faults = {4: Fault.empty_content("length")}
    policy = fast_policy(concurrency=1, max_attempts=3)
    with LocalOpenAIServer(answers(replies), faults=faults) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url, policy=policy)
        result = evaluate(cfg)
        assert server.count == 12, "an empty reply was asked again"
        again = evaluate(cfg)
        assert server.count == 12 and again.new_samples == 0, "a resume re-asked empty replies"
    empty = {("s0-ec", 0), ("s0-ec", 1), ("s1-tom", 0), ("s1-tom", 1), ("s0-jp", 0)}
    run = read_qa_run(result.run_dir)
    samples = {sample.key: sample for sample in run.samples()}
    for key in empty:
        sample = samples[key]
        assert sample.status == "no_answer" and not sample.correct and sample.error is None
        assert sample.choice is not None and sample.choice.method == "empty_reply"
    assert all(samples[key].status == "answered" for key in set(samples) - empty)
    calls = run.last_calls()
    assert calls[("s0-ec", 0)].text == "" and calls[("s1-tom", 1)].text == " \n "
    assert calls[("s0-jp", 0)].finish_reason == "length"
    assert calls[("s0-ec", 0)].finish_reason == "stop"
    analysis = result.analysis
    assert analysis.errors == 0 and analysis.complete
    assert (analysis.empty_replies, analysis.empty_at_max_tokens) == (5, 1)
    summary = run.store.read_json("summary.json")
    assert summary["empty_replies"] == 5 and summary["empty_replies_at_max_tokens"] == 1
    assert summary["overall"]["no_answer"] == 5
    assert open_run(result.run_dir).manifest.status == "finished"


def test_resume_retries_error_samples_and_skips_answered(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)  # 3 questions x 2 trials
    policy = fast_policy(concurrency=1, max_attempts=1)
    with LocalOpenAIServer(answers(), faults={2: Fault.error(500)}) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url, policy=policy, max_error_rate=0.2)
        first = evaluate(cfg)
        assert first.analysis.errors == 1 and server.count == 6
        second = evaluate(cfg)
        assert server.count == 7  # only the error key is asked again
    assert second.resumed_samples == 5 and second.new_samples == 1
    assert second.analysis.complete and second.analysis.errors == 0
    run = read_qa_run(tmp_path / "run")
    assert run.manifest.status == "finished" and run.manifest.sessions == 2
    raw = Counter((c.question_id, c.trial, c.ok) for c in run.calls())
    assert sum(n for (_, _, ok), n in raw.items() if not ok) == 1
    assert all(n == 1 for n in raw.values())
    assert len(run.samples()) == 6 and all(s.status == "answered" for s in run.samples())
    assert not run.warnings  # scores.jsonl was rewritten after the resumed call


def test_identical_second_run_makes_no_http_request(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers()) as server:
        evaluate(config(dataset, tmp_path / "a", server.base_url, cache=True))
        assert server.count == 6
        again = evaluate(config(dataset, tmp_path / "b", server.base_url, cache=True))
        assert server.count == 6
    calls = read_qa_run(again.run_dir).calls()
    assert len(calls) == 6 and all(c.cached and c.attempts == 0 for c in calls)


def test_trials_are_distinct_cache_entries(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers()) as server:
        evaluate(config(dataset, tmp_path / "a", server.base_url, cache=True, trials=3))
        assert server.count == 9


def test_other_config_in_same_directory_is_refused(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers()) as server:
        evaluate(config(dataset, tmp_path / "run", server.base_url, trials=1))
        with pytest.raises(StoreError, match="top_p: stored 0.9, requested 0.5"):
            evaluate(config(dataset, tmp_path / "run", server.base_url, trials=1, top_p=0.5))
        assert server.count == 3


def test_killed_before_scoring_reads_fresh_samples(tmp_path: Path) -> None:
    """A run that stopped after its last call but before scoring is read from its calls."""
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers()) as server:
        cfg = config(dataset, tmp_path / "run", server.base_url)
        evaluate(cfg)
        (tmp_path / "run" / "scores.jsonl").unlink()
        run = read_qa_run(tmp_path / "run")
        assert len(run.samples()) == 6 and not run.warnings
        result = evaluate(cfg)
        assert server.count == 6
    assert result.new_samples == 0 and result.analysis.complete
    assert (tmp_path / "run" / "scores.jsonl").exists()


def test_progress_reports_every_sample(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    seen: list[EvalProgress] = []
    with LocalOpenAIServer(answers()) as server:
        evaluate(config(dataset, tmp_path / "run", server.base_url), progress=seen.append)
    assert [p.done for p in seen] == list(range(7))
    last = seen[-1]
    assert last.total == 6 and last.calls.sent == 6 and last.errors == 0
    assert last.calls.usage.total_tokens > 0 and last.run_dir == tmp_path / "run"


def test_offline_random_model_on_example_dataset(tmp_path: Path) -> None:
    cfg = EvalConfig(model="random", dataset="example", trials=2, out=tmp_path / "run")
    result = evaluate(cfg)
    assert result.analysis.stored_samples == 2 * result.manifest.dataset.num_questions
    assert result.analysis.errors == 0
    manifest = open_run(tmp_path / "run").manifest
    assert manifest.config["model"] == "random" and manifest.kind == "qa"
    assert manifest.dataset is not None and manifest.dataset.name == "example"


def test_default_out_is_deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = EvalConfig(model="random", dataset="example", trials=1, limit=2)
    first = evaluate(cfg)
    second = evaluate(cfg)
    assert first.run_dir == second.run_dir
    assert str(first.run_dir).startswith("runs/random_example_first2_")
    assert second.new_samples == 0 and second.resumed_samples == 2


def test_score_uses_current_scorer_on_stored_replies(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "data", scenarios=1)
    with LocalOpenAIServer(answers()) as server:
        result = evaluate(config(dataset, tmp_path / "run", server.base_url, trials=1))
    assert result.analysis.overall[0]["accuracy"] == 1.0
    calls_path = tmp_path / "run" / "calls.jsonl"
    calls = lines(calls_path)
    calls[0]["text"] = "Answer: C"
    calls_path.write_text("".join(json.dumps(c) + "\n" for c in calls))
    analysis = score(tmp_path / "run")
    assert analysis.overall[0]["accuracy"] == pytest.approx(2 / 3)
    assert open_run(tmp_path / "run").read_json("summary.json")["overall"]["correct"] == 2


def test_config_validation_messages() -> None:
    with pytest.raises(ConfigError, match="^trials must be >= 1, got 0$"):  # the parameter
        EvalConfig(model="random", trials=0)
    with pytest.raises(ConfigError, match="^prompt_layout 'sideways' is not one of"):
        EvalConfig(model="random", prompt_layout="sideways")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="^top_p must be > 0 and <= 1, got 2$"):
        EvalConfig(model="random", top_p=2.0)
    with pytest.raises(ConfigError, match="games must be a tuple"):
        EvalConfig(model="random", games="hanabi")  # type: ignore[arg-type]


def test_score_refuses_runs_of_another_kind(tmp_path: Path) -> None:
    RunStore.create(tmp_path, RunManifest(kind="play", config={}, fingerprint="x")).close()
    with pytest.raises(StoreError, match="only QA runs"):
        score(tmp_path)


def test_evaluate_inside_event_loop_points_to_async_api(tmp_path: Path) -> None:
    async def inner() -> None:
        evaluate(EvalConfig(model="random", dataset="example", out=tmp_path))

    with pytest.raises(ConfigError, match="evaluate_async"):
        asyncio.run(inner())


def test_evaluate_refuses_to_run_inside_an_event_loop(tmp_path: Path) -> None:
    cfg = EvalConfig(model="random", dataset="example", trials=1, out=tmp_path / "run")

    async def inside() -> None:
        evaluate(cfg)

    with pytest.raises(ConfigError, match="await evaluate_async"):
        asyncio.run(inside())
    assert not (tmp_path / "run").exists()
