"""Messages read as sentences: articles, plurals, no list said twice, no Python words."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cli_support import CliResult, coordqa as run_coordqa
from qa_run_support import SIX_QUESTIONS, manifest_of, outcome_rows, question_of, write_qa_run

from coordqa.store import RunManifest, RunStore


def coordqa(*args: str | Path) -> CliResult:
    return run_coordqa(*args, env={"NO_COLOR": "1"}, columns=200)


def test_an_agentic_run_is_an_agentic_run(tmp_path: Path) -> None:
    agentic = tmp_path / "agentic"
    RunStore.create(agentic, RunManifest(kind="agentic", config={}, fingerprint="x")).close()
    result = coordqa("results", agentic)
    assert result.returncode == 2
    assert "is an agentic run, not a QA one" in result.stderr, result.stderr


def test_one_question_one_sample_one_call_are_singular(tmp_path: Path) -> None:
    args = ("eval", "--model", "random", "--limit", "1", "--trials", "1", "--out", tmp_path / "r")
    first = coordqa(*args)
    assert first.returncode == 0, first.stderr
    assert "1 question x 1 trial;" in first.stdout, first.stdout
    assert "This session: 1 call sent" in first.stderr + first.stdout
    again = coordqa(*args)
    assert "the 1 sample already answered; nothing to ask" in again.stderr + again.stdout


def test_sizes_naming_no_run_lists_each_name_once(tmp_path: Path) -> None:
    run = write_qa_run(tmp_path / "a", "model-a", outcome_rows(SIX_QUESTIONS), trials=2)
    result = coordqa("report", run, "--sizes", "model-b=1e9", "--out", tmp_path / "rep")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    listed = line.partition("The runs' models are ")[2]
    assert listed.count("model-a") == 1, line
    assert "Did you mean 'model-a'?" in line, line


def test_a_run_without_samples_has_the_random_baseline_of_its_questions(tmp_path: Path) -> None:
    # walkthrough 26, R5: a run interrupted before its first answer stores its questions, whose
    # analytic baseline (mean of |correct| / |options|) is known: it said "unknown"
    first_trials = [row for row in outcome_rows(SIX_QUESTIONS) if row.trial == 0]
    first_trials[0] = replace(first_trials[0], n_options=2)  # 1/2 and five 1/4: 0.292
    empty = tmp_path / "empty"
    with RunStore.create(empty, manifest_of("m", 2, len(first_trials))) as store:
        for row in first_trials:  # interrupted before its first call: questions, no reply
            store.append_record("questions", question_of(row))
    result = coordqa("report", empty, "--out", tmp_path / "rep")
    said = " ".join(result.stdout.split())  # rich wraps at the terminal's width
    assert "random baseline nan" not in said and "unknown" not in said
    assert "random baseline 0.292; incomplete: 12 missing of 12 samples" in said, result.stdout
    assert "NaN *" in said  # no accuracy yet, and the run is marked incomplete
    assert "one trial" not in said  # a two-trial run with none scored yet
    assert said.count("m (no trial scored yet)") == 1, result.stdout
    markdown = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "one trial: no trial SE" not in markdown and "m: no trial scored yet." in markdown
    assert "| NaN * | NaN | 0.292 |" in markdown, markdown
    scored = coordqa("score", empty)
    assert scored.returncode == 0, scored.stderr
    assert "no sample is answered (incomplete: 12 missing of 12 samples); random 0.292" in (
        " ".join(scored.stdout.split())
    ), scored.stdout


def test_a_run_without_questions_says_why_it_has_no_random_baseline(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    RunStore.create(empty, manifest_of("m", 2, 6)).close()  # stopped before its questions
    result = coordqa("report", empty, "--out", tmp_path / "rep")
    said = " ".join(result.stdout.split())
    assert "random baseline unknown (no question stored yet)" in said, result.stdout + result.stderr


def test_a_changed_filter_says_it_in_words_not_python_none(tmp_path: Path) -> None:
    args = ("eval", "--model", "random", "--limit", "1", "--trials", "1", "--out", tmp_path / "r")
    assert coordqa(*args).returncode == 0
    refused = coordqa(*args, "--sample", "1")
    assert refused.returncode == 2
    assert "sample: stored no sample, requested 1" in refused.stderr, refused.stderr
    assert "None" not in refused.stderr
