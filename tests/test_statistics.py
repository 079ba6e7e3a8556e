"""The two uncertainties of an accuracy, the paired test and the one mean ± SE.

Expectations come from the definitions: a cluster bootstrap over questions, a sign-flip
permutation test, and the standard error of the mean (sample sd / sqrt(n)).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from qa_run_support import Row, write_qa_run

from coordqa.analysis import (
    MeanSE,
    accuracy_table,
    analyze_run,
    clustered_accuracy_ci,
    compare_runs,
    format_mean_se,
    paired_difference,
)
from coordqa.analysis.stats import RESAMPLES, SEED
from coordqa.evaluation import EvalConfig, evaluate


def identical_trials(correct_per_question: list[bool], trials: int) -> list[Row]:
    """A deterministic model: every trial of a question gets the same outcome."""
    return [
        Row(f"s{q}-ec", "EC", t, "answered", right)
        for q, right in enumerate(correct_per_question)
        for t in range(trials)
    ]


def test_a_deterministic_model_has_zero_trial_se_but_a_real_question_interval(
    tmp_path: Path,
) -> None:
    right = [True] * 12 + [False] * 8  # 20 questions, accuracy 0.6 in every trial
    run = write_qa_run(tmp_path / "run", "m", identical_trials(right, 3), trials=3)
    row = analyze_run(run).by_type[0]
    assert row["accuracy"] == pytest.approx(0.6) and row["se"] == 0.0
    # 20 questions at p = 0.6: a binomial interval is about 0.6 ± 1.96 * sqrt(0.24 / 20)
    assert row["ci_low"] < 0.45 and row["ci_high"] > 0.75
    assert row["ci_low"] <= 0.6 <= row["ci_high"]


def test_one_trial_has_a_nan_trial_se_and_a_finite_question_interval(tmp_path: Path) -> None:
    run = write_qa_run(tmp_path / "run", "m", identical_trials([True, False] * 10, 1), trials=1)
    row = analyze_run(run).overall[0]
    assert math.isnan(row["se"])
    assert math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"])
    assert row["ci_low"] < 0.5 < row["ci_high"]


def test_trials_of_a_question_are_resampled_together() -> None:
    # 40 questions x 3 identical trials: resampling the 120 samples one by one (as if they
    # were independent) would narrow the interval by about sqrt(3); the clustered one must not.
    right = np.array([1.0] * 20 + [0.0] * 20)
    matrix = np.repeat(right[:, None], 3, axis=1)
    clustered = clustered_accuracy_ci(matrix)
    rng = np.random.default_rng(SEED)
    flat = matrix.ravel()
    naive = [rng.choice(flat, flat.size).mean() for _ in range(RESAMPLES)]
    naive_width = float(np.percentile(naive, 97.5) - np.percentile(naive, 2.5))
    assert clustered.high - clustered.low > 1.4 * naive_width
    assert clustered_accuracy_ci(matrix) == clustered  # fixed seed: the same interval


def test_interval_of_many_questions_matches_the_normal_approximation() -> None:
    matrix = np.array([[1.0], [0.0]] * 100)  # 200 questions, one trial, p = 0.5
    interval = clustered_accuracy_ci(matrix)
    half = 1.96 * math.sqrt(0.25 / 200)  # 0.069
    assert interval.low == pytest.approx(0.5 - half, abs=0.015)
    assert interval.high == pytest.approx(0.5 + half, abs=0.015)


def test_errors_are_left_out_of_the_interval_and_one_question_gives_none() -> None:
    with_error = np.array([[1.0, np.nan], [0.0, 0.0], [1.0, 1.0]])
    assert clustered_accuracy_ci(with_error).known
    assert not clustered_accuracy_ci(np.array([[1.0, 0.0, 1.0]])).known  # one question


def test_two_seeds_of_the_random_model_agree_within_their_uncertainty(tmp_path: Path) -> None:
    """The issue's case: two seeds differed by more than 3 trial SEs. Under the question-level
    intervals two runs of one model overlap (for equal widths they fail to only when the runs
    differ by more than 2.77 standard errors of one run: 0.6% of the time), and the paired test
    finds no difference between a model and itself."""
    runs, tables = [], []
    for seed in (0, 1):
        # a fixed release (the test was measured on v1.1), not whatever the default becomes
        config = EvalConfig(
            model="random",
            dataset="coordinationqa-v1.1",
            trials=3,
            seed=seed,
            out=tmp_path / f"s{seed}",
        )
        runs.append(config.out)
        tables.append({r["question_type"]: r for r in evaluate(config).analysis.by_type})
    first, second = tables
    for qtype in ("EC", "ToM", "JP"):
        a, b = first[qtype], second[qtype]
        assert a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"], (qtype, a, b)
    report = compare_runs(runs)
    overall = report.comparisons.set_index("scope").loc["overall"]
    assert overall["p_value"] > 0.05 and overall["ci_low"] <= 0 <= overall["ci_high"]


def test_paired_difference_of_identical_runs_is_zero_with_p_one() -> None:
    scores = [1.0, 0.0, 0.5, 1.0, 0.0]
    result = paired_difference(scores, scores)
    assert result.difference == 0.0 and result.p_value == 1.0
    assert (result.interval.low, result.interval.high) == (0.0, 0.0)
    assert not result.significant


def test_paired_difference_of_a_clear_winner() -> None:
    result = paired_difference([1.0] * 30, [0.0] * 30)
    assert result.difference == 1.0 and result.n_questions == 30
    assert result.p_value < 0.001 and result.significant


def test_paired_p_value_matches_the_exact_sign_test() -> None:
    # 4 questions all won by A: of the 16 sign patterns, 2 are as extreme (all + or all -).
    result = paired_difference([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])
    assert result.p_value == pytest.approx(2 / 16, abs=0.02)


@pytest.mark.parametrize(
    ("a", "b", "p"),
    [
        # 3 questions differ, all for A: 2 of the 8 sign patterns are as extreme (+3, -3)
        ([1.0, 1.0, 1.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.5, 0.0], 2 / 8),
        # differences +1, +1, -1, +0.5 (|sum| 1.5): the sums of the 16 sign patterns are
        # +-3.5, +-2.5 once each and +-1.5, +-0.5 three times each: 10 of 16 reach 1.5
        ([1.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.5, 0.0], 10 / 16),
        # nothing differs: the one pattern is as extreme
        ([1.0, 0.0, 1.0], [1.0, 0.0, 1.0], 1.0),
    ],
)
def test_the_sign_flip_p_is_exact_when_few_questions_differ(
    a: list[float], b: list[float], p: float
) -> None:
    """Enumerated over every sign pattern of the questions that differ (zeros flip to
    themselves): worked out by hand; it was sampled (0.254 where 0.25 is exact)."""
    result = paired_difference(a, b)
    assert result.p_value == p and result.p_exact


def test_the_sign_flip_p_is_sampled_and_said_so_when_many_questions_differ() -> None:
    result = paired_difference([1.0] * 15 + [0.0] * 10, [0.0] * 15 + [1.0] * 10)
    assert not result.p_exact and 0 < result.p_value < 1


def _fresh_weights(rng: np.random.Generator, n: int) -> np.ndarray:
    """The bootstrap weights drawn as every interval drew them before they were kept per n."""
    return rng.multinomial(n, np.full(n, 1 / n), size=RESAMPLES)


@pytest.mark.parametrize("questions", [2, 17, 66])
def test_a_kept_resampling_gives_the_interval_a_fresh_draw_gives(questions: int) -> None:
    """Same seed, same interval: the weights drawn once per n are the ones each call drew."""
    matrix = np.random.default_rng(questions).integers(0, 2, (questions, 3)).astype(float)
    matrix[0, 1] = np.nan
    weights = _fresh_weights(np.random.default_rng(SEED), questions)
    scored = (~np.isnan(matrix)).astype(float)
    hits, counted = weights @ np.nan_to_num(matrix), weights @ scored
    per_trial = np.where(counted > 0, hits / np.where(counted > 0, counted, 1), np.nan)
    resampled = np.nanmean(per_trial, axis=1)
    expected = np.percentile(resampled, [2.5, 97.5])
    for _ in range(2):  # the first call draws them, the second reuses them
        interval = clustered_accuracy_ci(matrix)
        assert (interval.low, interval.high) == (expected[0], expected[1])


def test_a_kept_resampling_leaves_the_sign_flips_where_a_fresh_draw_left_them() -> None:
    a = np.array([1.0] * 15 + [0.0] * 10 + [1.0] * 5)
    b = np.array([0.0] * 15 + [1.0] * 10 + [1.0] * 5)
    diffs = a - b
    rng = np.random.default_rng(SEED)
    _fresh_weights(rng, diffs.size)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(5 * RESAMPLES, diffs.size))
    extreme = np.count_nonzero(np.abs(signs @ diffs / diffs.size) >= abs(diffs.mean()) - 1e-12)
    expected = (1 + extreme) / (1 + 5 * RESAMPLES)
    clustered_accuracy_ci(np.ones((diffs.size, 1)))  # the weights of n = 30 drawn before
    assert paired_difference(a, b).p_value == expected


def test_paired_difference_uses_questions_both_answered_and_is_antisymmetric() -> None:
    a = [1.0, 0.0, float("nan"), 1.0, 1.0]
    b = [0.0, 0.0, 1.0, float("nan"), 0.5]
    forward, backward = paired_difference(a, b), paired_difference(b, a)
    assert forward.n_questions == 3  # questions 3 and 4 lack a value on one side
    assert forward.difference == pytest.approx(0.5)
    assert backward.difference == pytest.approx(-0.5)
    assert forward.p_value == pytest.approx(backward.p_value)


def test_one_mean_se_for_both_tracks() -> None:
    values = [1.0, 0.0, 1.0, 0.0]
    stat = MeanSE.of([*values, float("nan")])  # NaN is no data
    assert stat.n == 4 and stat.mean == 0.5
    assert stat.se == pytest.approx(np.std(values, ddof=1) / 2)
    assert stat.format() == format_mean_se(0.5, stat.se) == "0.500 ± 0.289"
    assert stat.format(digits=2) == "0.50 ± 0.29"
    assert math.isnan(MeanSE.of([3.0]).se)


def test_accuracy_table_se_is_the_mean_se_of_per_trial_accuracies() -> None:
    rows = []
    for trial, rights in enumerate(([1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0])):
        for q, right in enumerate(rights):
            rows.append(
                {
                    "question_id": f"q{q}",
                    "scenario_id": f"s{q}",
                    "game": "hanabi",
                    "question_type": "EC",
                    "trial": trial,
                    "status": "answered",
                    "correct": bool(right),
                    "n_options": 4,
                    "n_correct": 1,
                }
            )
    row = accuracy_table(pd.DataFrame(rows)).iloc[0]
    expected = MeanSE.of([0.5, 0.25, 0.75])
    assert row["accuracy"] == pytest.approx(expected.mean)
    assert row["se"] == pytest.approx(expected.se)
    assert row["ci_low"] <= row["accuracy"] <= row["ci_high"]
