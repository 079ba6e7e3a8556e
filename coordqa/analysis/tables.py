"""Numbers of one QA run: accuracy with its two uncertainties, outcome counts, baselines.

Everything here reads the *samples* of a run (:meth:`coordqa.store.QARun.samples`, one per
question and trial) and never calls a model.

How outcomes count (the one rule every number below follows):

- ``answered`` samples are right or wrong by the answer key;
- ``ambiguous`` and ``no_answer`` samples are the model's doing and count as **wrong**; an
  **empty reply** (the model answered nothing: empty or only whitespace) is a ``no_answer``,
  counted apart as well (:attr:`RunAnalysis.empty_replies`; those cut at the token cap, finish
  reason ``length``, in :attr:`RunAnalysis.empty_at_max_tokens`: a higher ``--max-tokens`` may
  turn them into answers);
- ``error`` samples (the call failed after its retries) say nothing about the model: they are
  **excluded** from accuracy denominators and always reported as a separate count, and a run with
  errors or missing samples is **incomplete**: its accuracy is never shown without the mark
  :data:`INCOMPLETE_MARK` (:func:`format_accuracy`), and resuming the run retries them. (The
  leaderboard counts errors as wrong instead, ``errors_count_as_wrong``: it cannot tell a failed
  call from a wrong reply relabelled as one. For a complete run both rules give the same numbers.)

Accuracy of a group (a question type, a game x type cell) is the mean over trials of the
per-trial accuracy. Two uncertainties go with it (:mod:`coordqa.analysis.stats`):

- ``se``, the paper's **trial SE**: the standard error of the per-trial accuracies (sample sd,
  ddof=1, over sqrt(n trials)); NaN with fewer than 2 trials, 0 for a deterministic model. It
  says how much the trials disagree, not how much the number depends on the questions;
- ``ci_low``/``ci_high``, the **question-level 95% CI**: a bootstrap over questions that keeps
  the trials of a question together (NaN with fewer than 2 questions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from coordqa.analysis.stats import MeanSE, clustered_accuracy_ci, format_mean_se
from coordqa.errors import StoreError
from coordqa.jsonvalues import JSONObject, json_records
from coordqa.records import QUESTION_TYPES, STATUSES, Sample
from coordqa.store import QARun, RunStore, read_qa_run

__all__ = [
    "ERROR_POLICY",
    "INCOMPLETE_MARK",
    "INCOMPLETE_NOTE",
    "ONE_TRIAL_NOTE",
    "SCORE_COLUMNS",
    "RunAnalysis",
    "accuracy_table",
    "analyze_run",
    "check_scores",
    "format_accuracy",
    "format_interval",
    "jp_failures",
    "load_scores",
    "outcome_matrix",
    "question_accuracy",
    "samples_frame",
    "summarize_failures",
]

ERROR_POLICY = (
    "error samples (calls that failed after retries) are excluded from accuracy denominators and "
    "counted separately; ambiguous and no_answer replies count as wrong"
)

SCORE_COLUMNS = (
    "question_id",
    "scenario_id",
    "game",
    "question_type",
    "trial",
    "status",
    "correct",
    "n_options",
    "n_correct",
)
"""Columns every scores table has (extra columns are kept)."""


# -- one run ---------------------------------------------------------------------------------


def check_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Validate a scores table and normalise its dtypes (``correct`` as bool)."""
    missing = [c for c in SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise StoreError(f"scores table lacks columns {missing}; expected {list(SCORE_COLUMNS)}")
    unknown = sorted(set(scores["status"]) - set(STATUSES))
    if unknown:
        raise StoreError(f"unknown sample status {unknown}; allowed: {list(STATUSES)}")
    out = scores.copy()
    out["correct"] = out["correct"].fillna(False).astype(bool) & (out["status"] == "answered")
    out["trial"] = out["trial"].astype(int)
    return out


def accuracy_table(
    scores: pd.DataFrame,
    by: Sequence[str] = ("question_type",),
    *,
    errors_count_as_wrong: bool = False,
) -> pd.DataFrame:
    """Accuracy with its trial SE and question-level CI, outcome counts and baseline, per group.

    Args:
        scores: a scores table (see :data:`SCORE_COLUMNS`).
        by: grouping columns; empty for one overall row.
        errors_count_as_wrong: score ``error`` samples as wrong instead of leaving them out of
            the denominators (the leaderboard's rule: a submitter cannot raise an accuracy by
            labelling wrong replies as failed calls).

    Returns:
        One row per group with ``accuracy``, ``se`` (trial SE), ``ci_low`` and ``ci_high``
        (question-level 95% CI), ``n_trials``, ``n_questions``, ``correct``, a count per status
        in :data:`STATUSES` and ``random_baseline`` (mean over the group's questions of
        len(correct) / len(options)).
    """
    df = check_scores(scores)
    keys = list(by)
    if df.empty:
        return _no_samples(keys)
    if not keys:
        df = df.assign(scope="all")
        keys = ["scope"]
    scored = pd.Series(True, index=df.index) if errors_count_as_wrong else df["status"] != "error"
    df = df.assign(value=df["correct"].astype(float).where(scored))
    stats = df.groupby(keys)[["question_id", "trial", "value"]].apply(_group_accuracy)

    counts = (
        df.groupby(keys)["status"]
        .value_counts()
        .unstack(fill_value=0)
        .reindex(columns=list(STATUSES), fill_value=0)
    )
    counts.columns = list(STATUSES)
    questions = df.drop_duplicates([*keys, "question_id"])
    baseline = (
        (questions["n_correct"] / questions["n_options"])
        .groupby([questions[k] for k in keys])
        .mean()
    )
    table = stats.join(counts)
    table["correct"] = df.groupby(keys)["correct"].sum()
    table["n_questions"] = df.groupby(keys)["question_id"].nunique()
    table["random_baseline"] = baseline
    table = table.reset_index()
    table["n_trials"] = table["n_trials"].astype(int)
    table = _in_type_order(table, keys)
    columns = [*keys, "accuracy", "se", "ci_low", "ci_high", "n_trials", "n_questions"]
    return table[[*columns, "correct", *STATUSES, "random_baseline"]]


def _in_type_order(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``table`` sorted by its other keys, then question type in :data:`QUESTION_TYPES` order."""
    if "question_type" not in table.columns:
        return table
    order = {t: i for i, t in enumerate(QUESTION_TYPES)}
    return table.sort_values(
        [*[k for k in keys if k != "question_type"], "question_type"],
        key=lambda col: col.map(order).fillna(len(order)) if col.name == "question_type" else col,
    ).reset_index(drop=True)


def _no_samples(keys: list[str]) -> pd.DataFrame:
    """:func:`accuracy_table` of a run with no sample yet (interrupted before its first call).

    Per group: no row. Overall: one row that says so, NaN where a number would be invented.
    """
    columns = [*keys, "accuracy", "se", "ci_low", "ci_high", "n_trials", "n_questions"]
    columns += ["correct", *STATUSES, "random_baseline"]
    if keys:
        return pd.DataFrame(columns=columns)
    row = dict.fromkeys(columns, 0) | dict.fromkeys(
        ("accuracy", "se", "ci_low", "ci_high", "random_baseline"), math.nan
    )
    return pd.DataFrame([row], columns=columns)


def outcome_matrix(group: pd.DataFrame) -> pd.DataFrame:
    """Questions x trials of 1.0 (right), 0.0 (wrong) or NaN (not counted, or no sample).

    ``group`` has ``question_id``, ``trial`` and ``value`` (the counted correctness).
    """
    return group.set_index(["question_id", "trial"])["value"].unstack("trial")


def _group_accuracy(group: pd.DataFrame) -> pd.Series:
    """Accuracy, trial SE, question-level CI and trials counted of one group."""
    matrix = outcome_matrix(group)
    per_trial = MeanSE.of(list(matrix.mean(axis=0, skipna=True)))
    interval = clustered_accuracy_ci(matrix.to_numpy(dtype=float))
    return pd.Series(
        {
            "accuracy": per_trial.mean,
            "se": per_trial.se,
            "ci_low": interval.low,
            "ci_high": interval.high,
            "n_trials": per_trial.n,
        }
    )


def question_accuracy(scores: pd.DataFrame, *, errors_count_as_wrong: bool = False) -> pd.Series:
    """Per question: the share of its counted trials that are right (NaN when none counted).

    The unit of the paired tests: two runs are compared question by question.
    """
    df = check_scores(scores)
    counted = pd.Series(True, index=df.index) if errors_count_as_wrong else df["status"] != "error"
    value = df["correct"].astype(float).where(counted)
    return value.groupby(df["question_id"]).mean()


INCOMPLETE_MARK = "*"
"""Follows every accuracy of an incomplete run (errors or missing samples) wherever shown."""
INCOMPLETE_NOTE = (
    f"{INCOMPLETE_MARK} incomplete run: errors and missing samples are left out of its accuracy; "
    "run the same `coordqa eval` command again to retry them"
)
"""The footnote that explains :data:`INCOMPLETE_MARK`."""


ONE_TRIAL_NOTE = "one trial: no trial SE"
"""Said beside the accuracy of a run of one trial, where the trial SE would be: a spread over
trials needs two of them, and ``± NaN`` reads like a failure."""


def format_accuracy(mean: float, se: float, *, complete: bool, trials: int | None = None) -> str:
    """``0.512 ± 0.034``, followed by :data:`INCOMPLETE_MARK` for an incomplete run.

    With ``trials`` below 2 the trial SE is left out (the caller says :data:`ONE_TRIAL_NOTE`).

    >>> format_accuracy(0.5, 0.1, complete=False)
    '0.500 ± 0.100 *'
    >>> format_accuracy(0.5, math.nan, complete=True, trials=1)
    '0.500'
    """
    one_trial = trials is not None and trials < 2 and not math.isnan(mean)
    shown = f"{mean:.3f}" if one_trial else format_mean_se(mean, se)
    return shown if complete else f"{shown} {INCOMPLETE_MARK}"


def format_interval(low: float, high: float) -> str:
    """The question-level CI as ``[0.331, 0.478]`` (``NaN`` when it could not be computed)."""
    if math.isnan(low) or math.isnan(high):
        return "NaN"
    return f"[{low:.3f}, {high:.3f}]"


@dataclass
class RunAnalysis:
    """The numbers of one run."""

    model: str
    """Model name from the manifest."""
    run_dir: Path
    """The run directory."""
    overall: pd.DataFrame
    """One row: all questions together."""
    by_type: pd.DataFrame
    """One row per question type."""
    by_game_type: pd.DataFrame
    """One row per game x question type."""
    expected_samples: int | None
    """Questions x trials planned by the run (None when the manifest does not say)."""
    stored_samples: int
    """Samples present in the scores."""
    warnings: list[str] = field(default_factory=list)
    """Problems met while reading the run (truncated lines)."""
    label: str | None = None
    """The run's label (``coordqa eval --label``), if it has one."""
    empty_replies: int = 0
    """``no_answer`` samples whose reply was empty: the model answered nothing."""
    empty_at_max_tokens: int = 0
    """Those of :attr:`empty_replies` cut at the token cap (finish reason ``length``)."""

    @property
    def name(self) -> str:
        """What to call the run: its label, else its model."""
        return self.label or self.model

    @property
    def errors(self) -> int:
        """Samples whose model call failed after retries."""
        return int(self.overall["error"].sum())

    @property
    def missing(self) -> int:
        """Planned samples not stored at all (a run that was killed or stopped)."""
        return max(0, (self.expected_samples or 0) - self.stored_samples)

    @property
    def complete(self) -> bool:
        """Whether every planned sample is stored and none is an error."""
        return self.errors == 0 and self.missing == 0

    @property
    def status_note(self) -> str:
        """``""`` for a complete run, else what makes it incomplete (``3 errors, 2 missing``)."""
        if self.complete:
            return ""
        parts = [f"{self.errors} error{'s' * (self.errors != 1)}"] if self.errors else []
        parts += [f"{self.missing} missing"] if self.missing else []
        return f"incomplete: {', '.join(parts)} of {self.expected_samples} samples"

    def to_json(self) -> JSONObject:
        """The JSON summary written as ``summary.json`` (NaN becomes null)."""
        return {
            "model": self.model,
            "label": self.label,
            "complete": self.complete,
            "expected_samples": self.expected_samples,
            "stored_samples": self.stored_samples,
            "missing_samples": self.missing,
            "error_policy": ERROR_POLICY,
            "status_note": self.status_note,
            "se": "trial SE: sample sd (ddof=1) of per-trial accuracies / sqrt(n_trials); "
            "null when n < 2",
            "ci": "question-level 95% CI (ci_low, ci_high): percentile bootstrap over questions, "
            "the trials of a question resampled together; null with fewer than 2 questions",
            "overall": json_records(self.overall)[0],
            "by_type": json_records(self.by_type),
            "by_game_type": json_records(self.by_game_type),
            "empty_replies": self.empty_replies,
            "empty_replies_at_max_tokens": self.empty_at_max_tokens,
            "warnings": self.warnings,
        }


def samples_frame(samples: Sequence[Sample]) -> pd.DataFrame:
    """A scores table of typed samples: one row each, the choice as its ``letter``."""
    rows = [
        {
            **sample.model_dump(exclude={"choice"}),
            "letter": sample.letter,
            "empty_reply": sample.empty_reply,
        }
        for sample in samples
    ]
    columns = [*SCORE_COLUMNS, "letter", "empty_reply", "finish_reason"]
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=columns)
    return check_scores(frame)


def _empty_replies(table: pd.DataFrame) -> tuple[int, int]:
    """Empty replies in a scores table, and those cut at the token cap.

    (0, 0) for a table made without the ``empty_reply`` column.
    """
    if "empty_reply" not in table.columns:
        return 0, 0
    empty = table["empty_reply"].fillna(False).astype(bool)
    cut = empty & (table.get("finish_reason", pd.Series(None, index=table.index)) == "length")
    return int(empty.sum()), int(cut.sum())


def load_scores(run: QARun | RunStore | str | Path) -> pd.DataFrame:
    """The scores table of a run, as :meth:`coordqa.store.QARun.samples` reads it."""
    return samples_frame(read_qa_run(run).samples())


def analyze_run(
    run: QARun | RunStore | str | Path, scores: pd.DataFrame | None = None
) -> RunAnalysis:
    """Compute the tables of one run (from ``scores`` or the run's samples)."""
    reader = read_qa_run(run)
    table = load_scores(reader) if scores is None else check_scores(scores)
    manifest = reader.manifest
    trials = manifest.config.get("trials")
    expected = (
        manifest.dataset.num_questions * int(trials)
        if manifest.dataset is not None and isinstance(trials, int)
        else None
    )
    empty, cut = _empty_replies(table)
    return RunAnalysis(
        model=str(manifest.config.get("model", "?")),
        run_dir=reader.path,
        overall=accuracy_table(table, by=()),
        by_type=accuracy_table(table, by=("question_type",)),
        by_game_type=accuracy_table(table, by=("game", "question_type")),
        expected_samples=expected,
        stored_samples=len(table),
        warnings=list(reader.warnings),
        empty_replies=empty,
        empty_at_max_tokens=cut,
        label=manifest.label,
    )


# -- JP failures per scenario ----------------------------------------------------------------


def jp_failures(scores: pd.DataFrame) -> pd.DataFrame:
    """Classify each (scenario, trial) by how its JP question went.

    ``category`` is ``jp_correct``; ``synthesis_failure`` (JP wrong while EC and ToM are both
    right: the model understood the state and its partner but did not put them together);
    ``component_failure`` (JP wrong with EC or ToM wrong too); or ``incomplete`` (a question of
    the three is missing or an error sample, so nothing is claimed). A type with several
    questions in a scenario counts as right only if all of them are right.
    """
    df = check_scores(scores)
    df = df[df["question_type"].isin(QUESTION_TYPES)]
    keys = ["scenario_id", "game", "trial"]
    usable = df.assign(usable=df["status"] != "error")
    right = usable.pivot_table(
        index=keys, columns="question_type", values="correct", aggfunc="all"
    ).reindex(columns=list(QUESTION_TYPES))
    ok = usable.pivot_table(
        index=keys, columns="question_type", values="usable", aggfunc="all"
    ).reindex(columns=list(QUESTION_TYPES))
    complete = ok.fillna(False).astype(bool).all(axis=1)
    right = right.fillna(False).astype(bool)
    category = np.select(
        [
            ~complete,
            right["JP"],
            right["EC"] & right["ToM"],
        ],
        ["incomplete", "jp_correct", "synthesis_failure"],
        default="component_failure",
    )
    out = pd.DataFrame(
        {
            "ec_correct": right["EC"],
            "tom_correct": right["ToM"],
            "jp_correct": right["JP"],
            "category": category,
        },
        index=right.index,
    )
    return out.reset_index()


FAILURE_CATEGORIES = ("jp_correct", "synthesis_failure", "component_failure", "incomplete")


def summarize_failures(failures: pd.DataFrame) -> JSONObject:
    """Counts per category over (scenario, trial) pairs, and the synthesis share of JP misses."""
    counts = {c: int((failures["category"] == c).sum()) for c in FAILURE_CATEGORIES}
    misses = counts["synthesis_failure"] + counts["component_failure"]
    share = counts["synthesis_failure"] / misses if misses else float("nan")
    return {**counts, "jp_wrong": misses, "synthesis_share": share}
