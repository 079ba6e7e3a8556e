"""Analysis numbers on hand-made score tables and run stores, checked by hand and against scipy."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qa_run_support import Row, write_qa_run
from scipy import stats

from coordqa.analysis import (
    Interval,
    accuracy_table,
    analyze_run,
    compare_runs,
    correlate,
    exact_correlation_p,
    jp_failures,
    load_scores,
    mean_ci,
    paired_ratio,
    summarize_failures,
)
from coordqa.errors import StoreError
from coordqa.store import RunManifest, RunStore


def row(qid: str, qtype: str, trial: int, status: str, correct: bool, **extra: Any) -> dict:
    return {
        "question_id": qid,
        "scenario_id": extra.get("scenario", qid.split("-")[0]),
        "game": extra.get("game", "hanabi"),
        "question_type": qtype,
        "trial": trial,
        "status": status,
        "correct": correct,
        "n_options": extra.get("n_options", 4),
        "n_correct": extra.get("n_correct", 1),
    }


def make_run(path: Path, model: str, rows: list[dict], questions: int, trials: int) -> Path:
    """A scored run whose stored calls produce ``rows`` (made with :func:`row`)."""
    wanted = [
        Row(
            r["question_id"],
            r["question_type"],
            r["trial"],
            r["status"],
            r["correct"],
            game=r["game"],
            scenario_id=r["scenario_id"],
            n_options=r["n_options"],
            n_correct=r["n_correct"],
        )
        for r in rows
    ]
    return write_qa_run(path, model, wanted, trials=trials, questions=questions)


def test_accuracy_mean_over_trials_and_se_ddof1() -> None:
    # EC: 2 questions x 3 trials, per-trial accuracy 1.0, 0.5, 0.0
    rows = [
        row("s1-ec", "EC", 0, "answered", True),
        row("s2-ec", "EC", 0, "answered", True),
        row("s1-ec", "EC", 1, "answered", True),
        row("s2-ec", "EC", 1, "answered", False),
        row("s1-ec", "EC", 2, "ambiguous", False),
        row("s2-ec", "EC", 2, "no_answer", False),
    ]
    table = accuracy_table(pd.DataFrame(rows)).set_index("question_type")
    per_trial = np.array([1.0, 0.5, 0.0])
    assert table.at["EC", "accuracy"] == pytest.approx(per_trial.mean())
    assert table.at["EC", "se"] == pytest.approx(per_trial.std(ddof=1) / math.sqrt(3))
    assert table.at["EC", "n_trials"] == 3
    assert table.at["EC", "ambiguous"] == 1 and table.at["EC", "no_answer"] == 1
    assert table.at["EC", "random_baseline"] == pytest.approx(0.25)


def test_errors_are_excluded_from_denominator_and_counted() -> None:
    rows = [
        row("a", "JP", 0, "answered", True),
        row("b", "JP", 0, "error", False),
        row("a", "JP", 1, "answered", False),
        row("b", "JP", 1, "answered", True),
    ]
    table = accuracy_table(pd.DataFrame(rows)).set_index("question_type")
    assert table.at["JP", "accuracy"] == pytest.approx((1.0 + 0.5) / 2)
    assert table.at["JP", "error"] == 1
    assert table.at["JP", "answered"] == 3


def test_se_is_nan_with_one_trial_and_accuracy_nan_when_all_errors() -> None:
    rows = [
        row("a", "EC", 0, "answered", True),
        row("b", "ToM", 0, "error", False),
    ]
    table = accuracy_table(pd.DataFrame(rows)).set_index("question_type")
    assert table.at["EC", "accuracy"] == 1.0
    assert math.isnan(table.at["EC", "se"])
    assert math.isnan(table.at["ToM", "accuracy"]) and table.at["ToM", "n_trials"] == 0
    assert list(table.index) == ["EC", "ToM"]


def test_random_baseline_uses_number_of_correct_options() -> None:
    rows = [
        row("a", "JP", 0, "answered", True, n_options=4, n_correct=2),
        row("a", "JP", 1, "answered", True, n_options=4, n_correct=2),
        row("b", "JP", 0, "answered", True, n_options=10, n_correct=1),
    ]
    table = accuracy_table(pd.DataFrame(rows), by=()).iloc[0]
    assert table["random_baseline"] == pytest.approx((0.5 + 0.1) / 2)


def test_game_by_type_table() -> None:
    rows = [
        row("a", "EC", 0, "answered", True, game="hanabi"),
        row("b", "EC", 0, "answered", False, game="overcooked"),
    ]
    table = accuracy_table(pd.DataFrame(rows), by=("game", "question_type"))
    assert table[["game", "accuracy"]].values.tolist() == [["hanabi", 1.0], ["overcooked", 0.0]]


def test_unknown_status_is_rejected() -> None:
    with pytest.raises(StoreError, match="unknown sample status"):
        accuracy_table(pd.DataFrame([row("a", "EC", 0, "maybe", True)]))


def scenario_rows(scenario: str, trial: int, ec: bool, tom: bool, jp: bool) -> list[dict]:
    return [
        row(f"{scenario}-ec", "EC", trial, "answered", ec, scenario=scenario),
        row(f"{scenario}-tom", "ToM", trial, "answered", tom, scenario=scenario),
        row(f"{scenario}-jp", "JP", trial, "answered", jp, scenario=scenario),
    ]


def test_synthesis_failures_per_scenario_and_trial() -> None:
    rows = [
        *scenario_rows("s1", 0, True, True, False),  # synthesis failure
        *scenario_rows("s1", 1, True, False, False),  # component failure
        *scenario_rows("s2", 0, False, False, True),  # jp correct
        *scenario_rows("s2", 1, True, True, False),  # synthesis failure
    ]
    rows[-1]["status"] = "error"  # s2 trial 1 JP failed to call: incomplete, not a failure
    failures = jp_failures(pd.DataFrame(rows))
    by_key = failures.set_index(["scenario_id", "trial"])["category"].to_dict()
    assert by_key == {
        ("s1", 0): "synthesis_failure",
        ("s1", 1): "component_failure",
        ("s2", 0): "jp_correct",
        ("s2", 1): "incomplete",
    }
    summary = summarize_failures(failures)
    assert summary["synthesis_failure"] == 1 and summary["component_failure"] == 1
    assert summary["jp_wrong"] == 2 and summary["synthesis_share"] == 0.5


def _brute_force_p(x: list[float], y: list[float]) -> float:
    """Share of all pairings whose |Pearson r| reaches the observed one, pairing by pairing."""
    observed = abs(stats.pearsonr(x, y).statistic)
    pairings = list(itertools.permutations(y))
    extreme = sum(abs(stats.pearsonr(x, list(p)).statistic) >= observed - 1e-12 for p in pairings)
    return extreme / len(pairings)


def test_correlate_small_samples_exact_and_needs_three_points() -> None:
    x = [0.9, 0.7, 0.5, 0.8]
    y = [0.4, 0.35, 0.1, 0.2]
    result = correlate(x, y, ("EC", "JP"))
    assert result.n == 4 and result.p_method == "exact"
    assert result.pearson_r == pytest.approx(stats.pearsonr(x, y).statistic)
    assert result.spearman_rho == pytest.approx(0.8)  # ranks 4,2,1,3 vs 4,3,1,2: sum d^2 = 2
    # Of the 24 rankings of 4, those with |rho| >= 0.8 have sum d^2 in {0, 2, 18, 20}: 1+3+3+1.
    assert result.spearman_p == pytest.approx(8 / 24)
    assert result.pearson_p == pytest.approx(_brute_force_p(x, y))
    assert "Spearman's ρ cannot be significant" in result.note
    assert "smallest possible p is 0.083" in result.note and "Pearson's r can" in result.note
    small = correlate([0.1, 0.2], [0.3, 0.4], ("EC", "JP"))
    assert math.isnan(small.pearson_r) and small.n == 2 and "at least 3" in small.note
    nan_dropped = correlate([0.1, float("nan"), 0.3, 0.5], [0.2, 0.1, 0.3, 0.4], ("EC", "JP"))
    assert nan_dropped.n == 3
    constant = correlate([0.5, 0.5, 0.5], [0.1, 0.2, 0.3], ("EC", "JP"))
    assert math.isnan(constant.spearman_rho) and "constant" in constant.note


def test_three_models_in_reverse_order_are_not_significant() -> None:
    """The issue's case: scipy gives p = 0 at rho = -1 with 3 models; 2 of 6 pairings reach it."""
    result = correlate([0.3, 0.5, 0.7], [0.6, 0.4, 0.2], ("EC", "JP"))
    assert result.spearman_rho == pytest.approx(-1.0)
    assert result.spearman_p == pytest.approx(2 / 6) and result.pearson_p == pytest.approx(2 / 6)
    assert "no correlation can be significant" in result.note


def test_the_small_sample_note_holds_for_the_p_values_beside_it() -> None:
    """Walkthrough 26 (#50): three models gave Pearson r -0.997 with p 0.167 beside a note
    that the smallest possible p is 0.333: that holds for Spearman's ρ (a ranking and its
    reverse reach the same |ρ|), but Pearson's r on unevenly spaced values is reached by its
    own pairing alone, 1 of 6."""
    result = correlate([0.2, 0.25, 0.9], [0.7, 0.6, 0.1], ("ToM", "JP"))
    assert result.pearson_p == pytest.approx(1 / 6) and result.spearman_p == pytest.approx(2 / 6)
    assert "0.167 for Pearson's r (1 of 6 pairings)" in result.note
    assert "0.333 for Spearman's ρ (2 of 6)" in result.note


def test_exact_p_from_five_models_on_and_asymptotic_above_ten() -> None:
    perfect = correlate([1, 2, 3, 4, 5], [2, 4, 6, 8, 10], ("EC", "JP"))
    assert perfect.spearman_p == pytest.approx(2 / 120) and perfect.note == ""
    rng = np.random.default_rng(3)
    x, y = list(rng.random(6)), list(rng.random(6))
    assert exact_correlation_p(x, y) == pytest.approx(_brute_force_p(x, y))
    x, y = list(rng.random(11)), list(rng.random(11))
    large = correlate(x, y, ("EC", "JP"))
    assert large.p_method == "asymptotic"
    assert large.spearman_p == pytest.approx(stats.spearmanr(x, y).pvalue)
    with pytest.raises(ValueError, match="2 to 10 paired values"):
        exact_correlation_p(x, y)


def test_analyze_run_reports_missing_and_errors(tmp_path: Path) -> None:
    rows = [row("a", "EC", 0, "answered", True), row("b", "EC", 0, "error", False)]
    run = make_run(tmp_path / "r", "m", rows, questions=2, trials=2)
    analysis = analyze_run(run)
    assert analysis.expected_samples == 4 and analysis.stored_samples == 2
    assert analysis.missing == 2 and analysis.errors == 1 and not analysis.complete
    summary = analysis.to_json()
    assert summary["by_type"][0]["se"] is None  # NaN written as null, never 0
    assert summary["overall"]["error"] == 1


def test_load_scores_of_a_run_of_another_kind_says_what_to_use(tmp_path: Path) -> None:
    manifest = RunManifest(kind="agentic", config={"model": "m"}, fingerprint="x")
    RunStore.create(tmp_path, manifest).close()
    with pytest.raises(StoreError, match="coordqa agentic report"):
        load_scores(tmp_path)


def test_compare_runs_one_point_per_model(tmp_path: Path) -> None:
    accuracies = {"m1": (1, 1, 0), "m2": (1, 0, 0), "m3": (0, 1, 1), "m4": (1, 1, 1)}
    runs = []
    for model, (ec, tom, jp) in accuracies.items():
        rows = scenario_rows("s1", 0, bool(ec), bool(tom), bool(jp))
        rows += scenario_rows("s1", 1, True, True, True)
        runs.append(make_run(tmp_path / model, model, rows, questions=3, trials=2))
    report = compare_runs(runs, sizes={"m1": 7e9, "m3": 70e9})
    models = report.models.set_index("model")
    assert models.at["m1", "JP"] == pytest.approx(0.5)
    assert models.at["m2", "EC"] == pytest.approx(1.0) and models.at["m2", "ToM"] == 0.5
    assert models.at["m1", "size"] == 7e9 and math.isnan(models.at["m2", "size"])
    ec_jp = report.correlations[0]
    expected = stats.pearsonr(models["EC"], models["JP"])
    assert ec_jp.n == 4 and ec_jp.pearson_r == pytest.approx(expected.statistic)
    failures = report.failures.set_index("model")
    assert failures.at["m1", "synthesis_failure"] == 1
    assert failures.at["m2", "component_failure"] == 1
    assert failures.at["m4", "jp_correct"] == 2
    assert len(report.failures_by_scenario) == 8


def test_same_model_twice_is_labelled_by_run(tmp_path: Path) -> None:
    rows = scenario_rows("s1", 0, True, True, True)
    a = make_run(tmp_path / "a", "m", rows, 3, 1)
    b = make_run(tmp_path / "b", "m", rows, 3, 1)
    report = compare_runs([a, b])
    assert list(report.models["model"]) == ["m (a)", "m (b)"]
    assert all(math.isnan(c.pearson_r) for c in report.correlations)


def test_mean_ci_brackets_the_mean_with_about_two_standard_errors() -> None:
    # ten coin flips, five heads: mean 0.5, SE 0.167, so a 95% interval near 0.5 ± 0.33
    interval = mean_ci([0.0] * 5 + [1.0] * 5)
    assert 0.1 <= interval.low <= 0.3 and 0.7 <= interval.high <= 0.9
    assert mean_ci([3.0, 3.0, 3.0]) == Interval(3.0, 3.0)  # no spread to resample
    assert not mean_ci([3.0]).known


def test_paired_ratio_keeps_pairs_together() -> None:
    reference = [10.0, 20.0, 5.0, 40.0]
    # every pair in the same proportion: every resample has the same ratio
    same = paired_ratio([0.9 * value for value in reference], reference)
    assert same.ratio == pytest.approx(0.9) and same.n == 4
    assert same.interval.low == pytest.approx(0.9) and same.interval.high == pytest.approx(0.9)
    assert same.format() == "0.90 [0.90, 0.90] (n=4)"
    # a reference that scores nothing has no ratio
    assert math.isnan(paired_ratio([1.0, 2.0], [0.0, 0.0]).ratio)
    # a reference that scores 0 on two of three seeds: about (2/3)^3 of the resamples hold no
    # point of it (expected 593 of 2000); they are left out and counted
    sometimes = paired_ratio([0.0, 0.0, 1.0], [0.0, 0.0, 1.0])
    assert sometimes.ratio == 1.0 and sometimes.interval == Interval(1.0, 1.0)
    assert 450 < sometimes.undefined < 750
    # NaN pairs are left out
    assert paired_ratio([1.0, math.nan], [2.0, 3.0]).n == 1


def test_a_run_with_no_sample_yet_has_no_accuracy_and_says_what_is_missing(
    tmp_path: Path,
) -> None:
    """Interrupted before its first call: nothing to score, nothing invented."""
    run = write_qa_run(tmp_path / "r", "m", [], trials=3, questions=4)
    analysis = analyze_run(run)
    assert len(analysis.by_type) == 0 and len(analysis.by_game_type) == 0
    overall = analysis.overall[0]
    assert math.isnan(overall["accuracy"]) and overall["n_questions"] == 0
    assert analysis.missing == 12 and not analysis.complete
    assert analysis.to_json()["overall"]["accuracy"] is None


def test_a_run_label_names_the_dataset_the_run_answered_not_its_unset_option() -> None:
    """Two random runs, v1 named with --dataset and v1.2 by default: the label said
    'dataset=none' for the default run; it names the dataset the manifest records."""
    from coordqa.analysis.labels import run_labels
    from coordqa.store import DatasetInfo, RunManifest

    def run(option: str | None, name: str, seed: int | None) -> RunManifest:
        dataset = DatasetInfo(name=name, fingerprint=name, num_questions=198)
        config = {"model": "random", "dataset": option, "seed": seed}
        return RunManifest(kind="qa", config=config, fingerprint=name, dataset=dataset)

    labels = run_labels(
        [
            (run("coordinationqa-v1", "coordinationqa-v1", 0), Path("v1")),
            (run(None, "coordinationqa-v1.2", None), Path("v12")),
        ]
    )
    assert labels == [
        "random (dataset=coordinationqa-v1, seed=0)",
        "random (dataset=coordinationqa-v1.2, seed=none)",
    ]


def test_runs_differing_in_trials_are_told_apart_by_trials_not_by_settings_they_share() -> None:
    """Walkthrough 6 R4: in a folder with --limit and --sample runs, a 3-trial and a 1-trial
    run of ``random`` read ``random (limit=none, sample=none, random)`` and ``random
    (limit=none, sample=none, random-1-trial)``: the first two differing settings by name, which
    both share, then their folders. Each run is named by what tells it from its nearest runs,
    in the options' words."""
    from coordqa.analysis.labels import run_labels
    from coordqa.store import RunManifest

    def run(**config: object) -> RunManifest:
        settings = {"model": "random", "limit": None, "sample": None, "trials": 3, **config}
        return RunManifest(kind="qa", config=settings, fingerprint="x")

    labels = run_labels(
        [
            (run(), Path("runs/random")),
            (run(trials=1), Path("runs/random-1-trial")),
            (run(limit=5, sample=3), Path("runs/random-small")),
        ]
    )
    assert labels == [
        "random (trials=3)",
        "random (trials=1)",
        "random (limit=5, sample=3)",
    ]
    top = run_labels([(run(top_p=0.5), Path("a")), (run(top_p=0.9), Path("b"))])
    assert top == ["random (top-p=0.5)", "random (top-p=0.9)"]  # as --top-p says it


def test_a_run_that_left_a_filter_unset_is_labelled_in_words() -> None:
    """Walkthrough 22 R4: a full run beside a ``--limit 5`` one read ``random (limit=none)``, a
    limit of none; it reads ``random (no limit)``, an unset ``--games`` ``all games``."""
    from coordqa.analysis.labels import run_labels
    from coordqa.store import RunManifest

    def run(**config: object) -> RunManifest:
        settings = {"model": "random", "limit": None, "games": None, "trials": 3, **config}
        return RunManifest(kind="qa", config=settings, fingerprint="x")

    labels = run_labels([(run(), Path("a")), (run(limit=5), Path("b"))])
    assert labels == ["random (no limit)", "random (limit=5)"]
    games = run_labels([(run(), Path("a")), (run(games=["hanabi"]), Path("b"))])
    assert games == ["random (all games)", "random (games=hanabi)"]


def test_mixed_runs_pair_only_questions_with_the_same_content(tmp_path: Path) -> None:
    """--allow-mixed across releases paired questions by id alone, so a v1 and a v1.2 question
    with one id and different texts were compared as 'the same question'. Pairs need the same
    id, text and answer key: here s1-ec's text differs, so the overall test has 5 questions."""
    from qa_run_support import SIX_QUESTIONS, outcome_rows, write_qa_run

    rows = outcome_rows(SIX_QUESTIONS)
    a = write_qa_run(tmp_path / "a", "m1", rows, trials=2)
    b = write_qa_run(tmp_path / "b", "m2", rows, trials=2)
    questions = b / "questions.jsonl"
    text = questions.read_text()
    assert text.count('"q-s1-ec"') == 1
    questions.write_text(text.replace('"q-s1-ec"', '"q-s1-ec-reworded"'))
    report = compare_runs([a, b], allow_mixed=True)
    by_scope = report.comparisons.set_index("scope")["n_questions"]
    assert by_scope["overall"] == 5 and by_scope["EC"] == 1


def test_the_mixed_set_refusal_tells_apart_runs_of_one_name_in_two_folders(tmp_path: Path) -> None:
    """The fifth walkthrough's ``report runs/``: one command run into runs/local and
    runs/local-ray wrote two folders of one name, and the refusal listed both runs under one
    label; the refusal names each run by its directory (walkthrough 22 R4), whole."""
    from qa_run_support import SIX_QUESTIONS, outcome_rows

    from coordqa.errors import ConfigError

    rows = outcome_rows(SIX_QUESTIONS)
    local = write_qa_run(tmp_path / "local" / "random_x", "random", rows, trials=1)
    ray = write_qa_run(tmp_path / "local-ray" / "random_x", "random", rows, trials=1)
    part = write_qa_run(tmp_path / "part", "scripted", rows[:3], trials=1)
    with pytest.raises(ConfigError) as refused:
        compare_runs([local, ray, part])
    listed = [line.split(": ")[-1] for line in str(refused.value).splitlines()[2:4]]
    assert listed == [f"2 runs ({local}, {ray})", f"1 run ({part})"]


def test_an_undefined_correlation_is_said_once_in_its_cell() -> None:
    """Walkthrough 20, R8: a variable constant across models gave ``nan (NaN)``, two spellings of
    one missing value in one cell; the cell says ``NaN``, as report.md and the docs do, and the
    note says why."""
    from rich.console import Console

    from coordqa.analysis.stats import correlate
    from coordqa.cli.runs import correlation_table

    constant = correlate([0.2, 0.2, 0.2], [0.1, 0.5, 0.3], ("ToM", "JP"))
    defined = correlate([0.1, 0.4, 0.3], [0.1, 0.5, 0.3], ("EC", "JP"))
    console = Console(width=200, record=True)
    console.print(correlation_table([defined, constant]))
    lines = console.export_text().splitlines()
    (row,) = [line for line in lines if "ToM vs JP" in line]
    assert row.split()[4:7] == ["NaN", "NaN", "one"], row
    assert "nan" not in row
    (row,) = [line for line in lines if "EC vs JP" in line]
    assert "1.000 (0.333)" in row, row
