"""``coordqa eval``, ``coordqa score`` and ``coordqa report`` through the Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_support import coordqa
from rich.console import Console
from typer.testing import CliRunner

from coordqa.cli import app, qa
from coordqa.cli._lists import split_list
from coordqa.cli.agentic import _seeds
from coordqa.cli.qa import parse_ids
from coordqa.cli.runs import parse_sizes
from coordqa.errors import ConfigError
from coordqa.llm.testing import Fault, LocalOpenAIServer
from coordqa.store import open_run, read_qa_run

runner = CliRunner()


@pytest.fixture(autouse=True)
def private_cache_and_wide_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COORDQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(qa, "console", Console(width=200))


def run_eval(out: Path, *extra: str) -> None:
    args = ["eval", "--model", "random", "--dataset", "example", "--out", str(out), *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.output and str(out) in result.output


def test_eval_prints_tables_and_writes_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["eval", "--model", "random", "--dataset", "example", "--trials", "2"]
    result = runner.invoke(app, [*args, "--types", "EC,JP", "--out", str(out)])
    assert result.exit_code == 0, result.output
    for text in ("accuracy per question type", "per game x type", "acc ± SE", "none", "err"):
        assert text in result.output
    store = open_run(out)
    assert store.manifest.config["types"] == ["EC", "JP"]
    assert store.manifest.config["trials"] == 2
    assert {s.question_type for s in read_qa_run(out).samples()} == {"EC", "JP"}
    assert (out / "summary.json").exists() and (out / "scores.jsonl").exists()


def test_a_repeated_list_option_adds_to_the_list_as_its_comma_form_does(tmp_path: Path) -> None:
    """``--types EC --types JP`` is ``--types EC,JP``: same questions, same stored settings."""
    comma, repeated = tmp_path / "comma", tmp_path / "repeated"
    run_eval(comma, "--types", "EC,JP", "--games", "hanabi,overcooked", "--trials", "1")
    run_eval(
        repeated,
        *("--types", "EC", "--types", "JP", "--games", "hanabi", "--games", "overcooked"),
        *("--trials", "1"),
    )
    first, second = open_run(comma).manifest, open_run(repeated).manifest
    assert second.config["types"] == ["EC", "JP"]
    assert second.config["games"] == ["hanabi", "overcooked"]
    assert {k: v for k, v in first.config.items() if k != "out"} == {
        k: v for k, v in second.config.items() if k != "out"
    }


def test_eval_rerun_resumes_and_other_options_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_eval(out, "--trials", "1")
    again = runner.invoke(
        app, ["eval", "-m", "random", "--dataset", "example", "--trials", "1", "--out", str(out)]
    )
    assert again.exit_code == 0 and "already answered; nothing to ask" in again.output
    other = runner.invoke(
        app, ["eval", "-m", "random", "--dataset", "example", "--top-p", "0.5", "--out", str(out)]
    )
    assert other.exit_code != 0
    assert "different configuration" in str(other.exception)


def test_unknown_dataset_is_one_clean_line(tmp_path: Path) -> None:
    arguments = ["eval", "--model", "random", "--dataset", "exampel", "--out", str(tmp_path / "r")]
    result = coordqa(*arguments)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert "dataset" in result.stderr and "Did you mean 'example'" in result.stderr


def test_score_rescoring_after_a_changed_reply(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_eval(out, "--trials", "1", "--types", "EC")
    calls_path = out / "calls.jsonl"
    calls = [json.loads(line) for line in calls_path.read_text().splitlines()]
    question = {q["question_id"]: q for q in open_run(out).records("questions")}
    for call in calls:
        right = question[call["question_id"]]["correct"][0]
        call["text"] = f"Answer: {'ABCDEFGHIJ'[right]}"
    calls_path.write_text("".join(json.dumps(c) + "\n" for c in calls))
    result = runner.invoke(app, ["score", str(out)])
    assert result.exit_code == 0, result.output
    assert "1.000" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["accuracy"] == 1.0
    assert summary["overall"]["correct"] == len(calls)


def test_report_on_several_runs_writes_files(tmp_path: Path) -> None:
    runs = []
    # Three random runs whose accuracies differ on every question type (a correlation needs
    # variation); which seeds do depends on the prompts the random model's draws are keyed by.
    for seed in (0, 4, 6):
        out = tmp_path / f"run{seed}"
        run_eval(out, "--trials", "2", "--seed", str(seed))
        runs.append(str(out))
    report_dir = tmp_path / "report"
    result = runner.invoke(app, ["report", *runs, "--out", str(report_dir), "--sizes", "random=7B"])
    assert result.exit_code == 0, result.output
    assert "correlations across models" in result.output and "EC vs JP" in result.output
    for name in (
        "report.md",
        "models.csv",
        "models.parquet",
        "correlations.csv",
        "jp_failures.csv",
        "jp_failures_by_scenario.parquet",
        "accuracy_by_type.png",
        "correlations.png",
        "accuracy_vs_size.png",
    ):
        assert (report_dir / name).stat().st_size > 0, name
    assert (report_dir / "accuracy_by_type.png").read_bytes()[:4] == b"\x89PNG"
    markdown = (report_dir / "report.md").read_text()
    assert "## Correlations" in markdown and "random (seed=0)" in markdown
    # Three models: exact p-values, never below 2 of the 3! pairings, and a note that says so.
    assert "exact permutation p" in result.output
    correlations = pd.read_csv(report_dir / "correlations.csv")
    assert set(correlations["n"]) == {3} and set(correlations["p_method"]) == {"exact"}
    assert (correlations[["pearson_p", "spearman_p"]] >= 2 / 6 - 1e-9).all().all()
    assert correlations["note"].str.contains("no correlation can be significant").all()


def test_report_of_a_run_changed_after_scoring_scores_its_calls_and_says_so(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    run_eval(out, "--trials", "1", "--types", "EC")
    calls_path = out / "calls.jsonl"
    calls = [json.loads(line) for line in calls_path.read_text().splitlines()]
    calls.append({**calls[0], "text": None, "error": "HTTP 500"})  # a later failed call
    calls_path.write_text("".join(json.dumps(c) + "\n" for c in calls))
    result = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    assert "scores.jsonl is older than calls.jsonl" in result.output
    assert "coordqa score" in result.output
    models = pd.read_csv(tmp_path / "rep" / "models.csv")
    assert models.at[0, "error"] == 1  # the later failed call supersedes the first reply


def test_option_parsers() -> None:
    assert split_list(" hanabi, overcooked ,") == ("hanabi", "overcooked")
    assert split_list(None) is None and split_list(",") is None
    assert split_list(["EC", "ToM, JP"]) == ("EC", "ToM", "JP")
    assert split_list([]) is None
    assert _seeds(["3", "4,5"]) == [3, 4, 5] and _seeds(None) is None
    assert parse_sizes("a=7e9,b/c=70B,d=1.5t") == {"a": 7e9, "b/c": 70e9, "d": 1.5e12}
    with pytest.raises(ConfigError, match="MODEL=SIZE"):
        parse_sizes("llama=big")


def test_id_lists_are_read_from_text_or_a_file_and_errors_name_their_flag(tmp_path: Path) -> None:
    listed = tmp_path / "ids.txt"
    listed.write_text("# chosen by hand\nq1\n\nq2  # the second\n")
    assert parse_ids("q1, q2") == ("q1", "q2") == parse_ids(str(listed))
    assert parse_ids(None) is None
    assert parse_ids(["q1", str(listed)]) == ("q1", "q1", "q2")
    with pytest.raises(ConfigError, match="^--ids is empty"):
        parse_ids(" ")
    (tmp_path / "none.txt").write_text("# nothing yet\n")
    with pytest.raises(ConfigError, match="^--skip-ids file .*none.txt lists no question id"):
        parse_ids(str(tmp_path / "none.txt"), flag="--skip-ids")


def test_eval_counts_empty_replies_and_says_when_the_token_cap_cut_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    faults = {0: Fault.empty_content("stop"), 1: Fault.empty_content("length")}
    with LocalOpenAIServer(faults=faults) as server:
        args = ["eval", "-m", "openai/m", "--api-base", server.base_url, "--dataset", "example"]
        result = runner.invoke(app, [*args, "--limit", "3", "--trials", "1", "--concurrency", "1"])
    assert result.exit_code == 0, result.output
    assert "empty replies: 2 (the model answered nothing" in result.output
    assert "1 empty reply stopped at the token cap" in result.output
    assert "raise --max-tokens" in result.output


@pytest.mark.parametrize(("typo", "meant"), [("evl", "eval"), ("reprot", "report")])
def test_a_mistyped_command_gets_the_nearest_names(typo: str, meant: str) -> None:
    """Walkthrough rough R6: subcommand typos got "Did you mean", top-level ones did not (the
    root loads its commands on use, and typer suggests from the loaded ones only)."""
    result = coordqa(typo)
    assert result.returncode == 2
    assert f"No such command '{typo}'" in result.stderr
    assert f"Did you mean '{meant}'" in result.stderr


def test_a_mistyped_subcommand_gets_the_same_words() -> None:
    """A group under the root suggests by the same rule and words as the root itself."""
    result = coordqa("leaderboard", "jbo")
    assert result.returncode == 2
    assert "No such command 'jbo'. Did you mean 'job'?" in result.stderr, result.stderr


def test_a_pair_option_given_twice_is_refused_in_one_line() -> None:
    """``--players A,B`` is one pair: a second one is no union, so it is refused, not dropped."""
    result = coordqa("games", "show", "collab_escape", "--players", "a,b", "--players", "c,d")
    assert result.returncode == 2
    assert "--players was given 2 times; give it once" in result.stderr


def test_a_refused_prompt_layout_is_said_as_the_option_spells_it(tmp_path: Path) -> None:
    """Walkthrough 26a (#172): ``--prompt-layout no-system`` over a run of the default layout
    was refused as ``requested 'no_system'``, a spelling the user never typed."""
    out = tmp_path / "run"
    run_eval(out, "--trials", "1")
    other = coordqa(
        "eval", "-m", "random", "--dataset", "example", "--trials", "1",
        "--prompt-layout", "no-system", "--out", out,
    )  # fmt: skip
    assert other.returncode == 2, other.stderr
    assert "stored 'system', requested 'no-system'" in other.stderr


def test_an_eval_set_spec_takes_the_prompt_layout_as_the_option_spells_it(tmp_path: Path) -> None:
    """The refusal above says ``no-system``; a spec given that spelling took only
    ``no_system`` ("'no-system' is not one of system, no_system")."""
    spec = tmp_path / "set.yaml"
    spec.write_text("models: [random]\ndatasets: [example]\nprompt_layout: no-system\nlimit: 1\n")
    done = coordqa("eval-set", spec, "--out", tmp_path / "set")
    assert done.returncode == 0, done.stderr


def test_a_refused_filter_is_said_in_words_not_as_python_values(tmp_path: Path) -> None:
    """Walkthrough 27 (#27): ``--types EC`` over a run of every type was refused as ``types:
    stored none, requested ['EC']``: "none" meant all types, and the list was Python's."""
    out = tmp_path / "run"
    run_eval(out, "--trials", "1")
    other = coordqa(
        "eval", "-m", "random", "--dataset", "example", "--trials", "1", "--types", "EC",
        "--out", out,
    )  # fmt: skip
    assert other.returncode == 2, other.stderr
    assert "types: stored all types, requested EC" in " ".join(other.stderr.split())
