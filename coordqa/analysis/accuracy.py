"""Numbers of one QA run: accuracy with its two uncertainties, outcome counts, baselines.

Everything here reads the *samples* of a run (:meth:`coordqa.store.QARun.samples`, one per
question and trial), never calls a model, and needs no pandas: ``coordqa eval`` computes its
tables after its last call, and importing pandas would cost it more CPU (about 0.3 s) than the
tables themselves (the scores tables of reports and comparisons, built on these rows, are
:mod:`coordqa.analysis.tables`).

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from coordqa.analysis.stats import (
    MeanSE,
    clustered_accuracy_ci,
    format_fraction,
    format_mean_se,
)
from coordqa.errors import StoreError
from coordqa.jsonvalues import JSONObject, json_records
from coordqa.llm.openai_api import exceeds_context
from coordqa.llm.retry import timed_out
from coordqa.records import QUESTION_TYPES, STATUSES, Sample
from coordqa.store import QARun, RunStore, read_qa_run

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ERROR_POLICY",
    "INCOMPLETE_MARK",
    "INCOMPLETE_NOTE",
    "INCOMPLETE_RUN",
    "NO_TRIAL_NOTE",
    "ONE_TRIAL_NOTE",
    "SCORE_COLUMNS",
    "AccuracyTable",
    "RUN_AGAIN",
    "RunAnalysis",
    "accuracy_of",
    "analyze_run",
    "check_columns",
    "format_accuracy",
    "format_interval",
    "incomplete_run_said",
    "score_rows",
    "trials_note",
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

MEASURES = ("accuracy", "se", "ci_low", "ci_high", "n_trials", "n_questions", "correct")
"""The columns of an accuracy table after its keys; then a count per status and the baseline."""


# -- the table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccuracyTable:
    """Accuracy per group, one row (a mapping of :attr:`columns`) per group, in report order.

    A sequence of rows: ``table[0]``, ``len(table)``, ``for row in table``. :meth:`frame` gives
    the same rows as a pandas DataFrame, for code that already works in pandas.
    """

    keys: tuple[str, ...]
    """The grouping columns (``("scope",)`` for the overall row, whose scope is ``all``)."""
    rows: tuple[Mapping[str, Any], ...]
    """The groups' rows."""

    @property
    def columns(self) -> list[str]:
        """The keys, :data:`MEASURES`, a count per status, ``random_baseline``."""
        return [*self.keys, *MEASURES, *STATUSES, "random_baseline"]

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> Mapping[str, Any]:
        return self.rows[index]

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return iter(self.rows)

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (imports pandas)."""
        import pandas as pd

        if not self.rows:
            return pd.DataFrame(columns=self.columns)
        return pd.DataFrame(list(self.rows), columns=list(self.rows[0]))


# -- computing it ----------------------------------------------------------------------------


def check_columns(columns: Iterable[str]) -> None:
    """Raise :class:`StoreError` unless ``columns`` hold every one of :data:`SCORE_COLUMNS`."""
    missing = [c for c in SCORE_COLUMNS if c not in columns]
    if missing:
        raise StoreError(f"scores table lacks columns {missing}; expected {list(SCORE_COLUMNS)}")


def score_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows of a scores table, checked: ``correct`` True only when answered, ``trial`` an int.

    Raises:
        StoreError: a row lacks a column of :data:`SCORE_COLUMNS`, or has an unknown status.
    """
    checked = []
    unknown: set[str] = set()
    for row in rows:
        check_columns(row)
        if row["status"] not in STATUSES:
            unknown.add(str(row["status"]))
        correct = row["correct"]
        given = correct is not None and not (isinstance(correct, float) and math.isnan(correct))
        checked.append(
            {
                **row,
                "correct": given and bool(correct) and row["status"] == "answered",
                "trial": int(row["trial"]),
            }
        )
    if unknown:
        raise StoreError(f"unknown sample status {sorted(unknown)}; allowed: {list(STATUSES)}")
    return checked


def accuracy_of(
    rows: Iterable[Mapping[str, Any]],
    by: Sequence[str] = ("question_type",),
    *,
    errors_count_as_wrong: bool = False,
    questions: Iterable[Mapping[str, Any]] = (),
) -> AccuracyTable:
    """Accuracy with its trial SE and question-level CI, outcome counts and baseline, per group.

    Args:
        rows: the rows of a scores table (see :data:`SCORE_COLUMNS`), checked here.
        by: grouping columns; empty for one overall row.
        errors_count_as_wrong: score ``error`` samples as wrong instead of leaving them out of
            the denominators (the leaderboard's rule: a submitter cannot raise an accuracy by
            labelling wrong replies as failed calls).
        questions: the run's questions (``n_correct``, ``n_options``), for the baseline of the
            overall row when no sample is there yet (a run stopped before its first answer);
            without them that baseline is NaN.

    Returns:
        One row per group (sorted by its keys, question types in :data:`QUESTION_TYPES` order)
        with ``accuracy``, ``se`` (trial SE), ``ci_low`` and ``ci_high`` (question-level 95%
        CI), ``n_trials``, ``n_questions``, ``correct``, a count per status in
        :data:`STATUSES` and ``random_baseline`` (mean over the group's questions of
        len(correct) / len(options)). With no row at all: no group, or for the overall table
        one row that says so, NaN where a number would be invented.
    """
    checked = score_rows(rows)
    keys = tuple(by) or ("scope",)
    if not checked:
        return _no_samples(tuple(by), questions)
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in checked:
        key = tuple(row[k] for k in by) if by else ("all",)
        groups.setdefault(key, []).append(row)
    table = [
        _group_row(dict(zip(keys, key, strict=True)), groups[key], errors_count_as_wrong)
        for key in sorted(groups)
    ]
    return AccuracyTable(keys, tuple(_in_type_order(table, keys)))


def _group_row(
    key: dict[str, Any], rows: list[dict[str, Any]], errors_count_as_wrong: bool
) -> dict[str, Any]:
    """One group's row (see :func:`accuracy_of`)."""
    matrix = _outcomes(rows, errors_count_as_wrong)
    with np.errstate(invalid="ignore"):  # a trial with nothing counted: 0 / 0, NaN
        per_trial = np.nansum(matrix, axis=0) / (~np.isnan(matrix)).sum(axis=0)
    trials = MeanSE.of(list(per_trial))
    interval = clustered_accuracy_ci(matrix)
    first: dict[str, Mapping[str, Any]] = {}
    for row in rows:
        first.setdefault(row["question_id"], row)
    return {
        **key,
        "accuracy": trials.mean,
        "se": trials.se,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "n_trials": trials.n,
        "n_questions": len(first),
        "correct": sum(row["correct"] for row in rows),
        **{status: sum(row["status"] == status for row in rows) for status in STATUSES},
        "random_baseline": _compensated_mean(
            [q["n_correct"] / q["n_options"] for q in first.values()]
        ),
    }


def _compensated_mean(values: Sequence[float]) -> float:
    """The mean of ``values`` by Kahan's compensated sum, in their order.

    The summation pandas' grouped mean uses: the baselines stored before the tables were
    computed without pandas keep their last digit (a correctly rounded sum differs from it in
    the 17th digit now and then).
    """
    total = compensation = 0.0
    for value in values:
        corrected = value - compensation
        running = total + corrected
        compensation = running - total - corrected
        total = running
    return total / len(values)


def _outcomes(rows: list[dict[str, Any]], errors_count_as_wrong: bool) -> np.ndarray:
    """Questions (sorted by id) x trials (sorted) of 1.0 right, 0.0 wrong, NaN not counted.

    Not counted: an error (unless ``errors_count_as_wrong``), or a trial the question lacks.
    The rows' order is the bootstrap's, so the interval does not depend on the run's order.

    Raises:
        StoreError: a (question, trial) appears twice.
    """
    questions = {qid: i for i, qid in enumerate(sorted({row["question_id"] for row in rows}))}
    trials = {trial: i for i, trial in enumerate(sorted({row["trial"] for row in rows}))}
    matrix = np.full((len(questions), len(trials)), np.nan)
    seen = np.zeros(matrix.shape, dtype=bool)
    for row in rows:
        at = questions[row["question_id"]], trials[row["trial"]]
        if seen[at]:
            raise StoreError(
                f"question {row['question_id']} has two samples of trial {row['trial']}"
            )
        seen[at] = True
        if errors_count_as_wrong or row["status"] != "error":
            matrix[at] = 1.0 if row["correct"] else 0.0
    return matrix


def _in_type_order(table: list[dict[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """``table`` sorted by its other keys, then question type in :data:`QUESTION_TYPES` order.

    Types outside it come last, in the order they came.
    """
    if "question_type" not in keys:
        return table
    order = {t: i for i, t in enumerate(QUESTION_TYPES)}
    others = [k for k in keys if k != "question_type"]
    return sorted(
        table,
        key=lambda row: (
            *(row[k] for k in others),
            order.get(row["question_type"], len(order)),
        ),
    )


def _no_samples(keys: tuple[str, ...], questions: Iterable[Mapping[str, Any]]) -> AccuracyTable:
    """:func:`accuracy_of` of no sample at all (a run interrupted before its first call).

    Per group: no row. Overall: one row that says so (no scope), NaN where a number would be
    invented; its random baseline is that of ``questions`` (NaN with none).
    """
    if keys:
        return AccuracyTable(keys, ())
    measures = AccuracyTable((), ()).columns
    baselines = [q["n_correct"] / q["n_options"] for q in questions]
    row = dict.fromkeys(measures, 0) | dict.fromkeys(
        ("accuracy", "se", "ci_low", "ci_high", "random_baseline"), math.nan
    )
    if baselines:
        row["random_baseline"] = _compensated_mean(baselines)
    return AccuracyTable((), (row,))


# -- saying it -------------------------------------------------------------------------------

INCOMPLETE_MARK = "*"
"""Follows every accuracy of an incomplete run (errors or missing samples) wherever shown."""
INCOMPLETE_RUN = "incomplete run"
"""What a run that lacks some of its planned work is called wherever it is shown: the QA
reports and ``coordqa compare`` (:data:`INCOMPLETE_NOTE`), and ``coordqa agentic report``."""
RUN_AGAIN = "run the command that wrote it again"
"""How an incomplete run of any kind is finished: the same command resumes it."""
INCOMPLETE_NOTE = (
    f"{INCOMPLETE_MARK} {INCOMPLETE_RUN}: errors and missing samples are left out of its "
    f"accuracy; {RUN_AGAIN} to retry them (`coordqa eval` with the same options; "
    "`coordqa eval-set` with its spec for a member of an eval set)"
)
"""The footnote that explains :data:`INCOMPLETE_MARK`."""


def incomplete_run_said(who: str, lacks: str, left_out: str, how: str) -> str:
    """One incomplete run in a line: what it lacks, what is left out, how to finish it.

    In the words of :data:`INCOMPLETE_NOTE`, for one run named where it is shown (``coordqa
    compare``'s A or B, after the mark; an agentic run's folder in ``coordqa agentic report``)::

        A (random) is an incomplete run: 40 missing of 594 samples, left out of this
        comparison; run the command that wrote it again to finish it (`coordqa eval` ...)
    """
    return f"{who} is an {INCOMPLETE_RUN}: {lacks}, {left_out}; {RUN_AGAIN} to finish it ({how})"


ONE_TRIAL_NOTE = "one trial: no trial SE"
"""Said beside the accuracy of a run of one trial, where the trial SE would be: a spread over
trials needs two of them, and ``± NaN`` reads like a failure."""
NO_TRIAL_NOTE = "no trial scored yet"
"""Said instead where no trial has a scored sample (a run stopped before its first reply)."""


def trials_note(trials: int) -> str | None:
    """What stands beside an accuracy scored over ``trials`` trials, where its trial SE would.

    >>> trials_note(1), trials_note(0), trials_note(3)
    ('one trial: no trial SE', 'no trial scored yet', None)
    """
    if trials >= 2:
        return None
    return ONE_TRIAL_NOTE if trials == 1 else NO_TRIAL_NOTE


def format_accuracy(mean: float, se: float, *, complete: bool, trials: int | None = None) -> str:
    """``0.512 ± 0.034``, followed by :data:`INCOMPLETE_MARK` for an incomplete run.

    With ``trials`` below 2 the trial SE is left out (the caller says :data:`ONE_TRIAL_NOTE`).

    >>> format_accuracy(0.5, 0.1, complete=False)
    '0.500 ± 0.100 *'
    >>> format_accuracy(0.5, math.nan, complete=True, trials=1)
    '0.500'
    """
    one_trial = trials is not None and trials < 2 and not math.isnan(mean)
    shown = format_fraction(mean) if one_trial else format_mean_se(mean, se)
    return shown if complete else f"{shown} {INCOMPLETE_MARK}"


def format_interval(low: float, high: float) -> str:
    """The question-level CI as ``[0.331, 0.478]`` (``NaN`` when it could not be computed)."""
    if math.isnan(low) or math.isnan(high):
        return "NaN"
    return f"[{format_fraction(low)}, {format_fraction(high)}]"


# -- one run ---------------------------------------------------------------------------------


@dataclass
class RunAnalysis:
    """The numbers of one run."""

    model: str
    """Model name from the manifest."""
    run_dir: Path
    """The run directory."""
    overall: AccuracyTable
    """One row: all questions together."""
    by_type: AccuracyTable
    """One row per question type."""
    by_game_type: AccuracyTable
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
    errors_over_context: int = 0
    """Error samples whose prompt the model refused as longer than its context: running the
    command again fails them the same way (:func:`coordqa.llm.openai_api.exceeds_context`)."""
    errors_timed_out: int = 0
    """Error samples whose last attempt ran out of time (:func:`coordqa.llm.retry.timed_out`)."""
    replies_capped: bool = False
    """Whether the run capped its replies (``--max-tokens``)."""

    @property
    def name(self) -> str:
        """What to call the run: its label, else its model."""
        return self.label or self.model

    @property
    def errors(self) -> int:
        """Samples whose model call failed after retries."""
        return int(self.overall[0]["error"])

    @property
    def missing(self) -> int:
        """Planned samples not stored at all (a run that was killed or stopped)."""
        return max(0, (self.expected_samples or 0) - self.stored_samples)

    @property
    def complete(self) -> bool:
        """Whether every planned sample is stored and none is an error."""
        return self.errors == 0 and self.missing == 0

    @property
    def lacks(self) -> str:
        """``""`` for a complete run, else what it lacks: ``3 errors, 2 missing of 120 samples``."""
        if self.complete:
            return ""
        parts = [f"{self.errors} error{'s' * (self.errors != 1)}"] if self.errors else []
        parts += [f"{self.missing} missing"] if self.missing else []
        return f"{', '.join(parts)} of {self.expected_samples} samples"

    @property
    def status_note(self) -> str:
        """``""`` for a complete run, else what makes it incomplete (``3 errors, 2 missing``)."""
        return f"incomplete: {self.lacks}" if self.lacks else ""

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


def _score_row(sample: Sample) -> dict[str, Any]:
    """The scores-table columns of a sample."""
    return {column: getattr(sample, column) for column in SCORE_COLUMNS}


def analyze_run(
    run: QARun | RunStore | str | Path, samples: Sequence[Sample] | None = None
) -> RunAnalysis:
    """Compute the tables of one run (from ``samples``, by default the run's own)."""
    reader = read_qa_run(run)
    scored = reader.samples() if samples is None else samples
    rows = [_score_row(sample) for sample in scored]
    manifest = reader.manifest
    trials = manifest.config.get("trials")
    expected = (
        manifest.dataset.num_questions * int(trials)
        if manifest.dataset is not None and isinstance(trials, int)
        else None
    )
    empty = [sample for sample in scored if sample.empty_reply]
    return RunAnalysis(
        model=str(manifest.config.get("model", "?")),
        run_dir=reader.path,
        overall=accuracy_of(
            rows,
            by=(),
            questions=[
                {"n_correct": len(q.correct), "n_options": len(q.options)}
                for q in reader.questions().values()
            ],
        ),
        by_type=accuracy_of(rows, by=("question_type",)),
        by_game_type=accuracy_of(rows, by=("game", "question_type")),
        expected_samples=expected,
        stored_samples=len(rows),
        warnings=list(reader.warnings),
        empty_replies=len(empty),
        empty_at_max_tokens=sum(sample.finish_reason == "length" for sample in empty),
        errors_over_context=sum(exceeds_context(sample.error or "") for sample in scored),
        errors_timed_out=sum(timed_out(sample.error or "") for sample in scored),
        replies_capped=manifest.config.get("max_tokens") is not None,
        label=manifest.label,
    )
