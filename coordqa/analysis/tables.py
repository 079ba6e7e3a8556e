"""Scores tables of QA runs in pandas: for reports, comparisons and the leaderboard.

A scores table has one row per sample (question x trial) and the columns of
:data:`~coordqa.analysis.accuracy.SCORE_COLUMNS`. The accuracy tables computed from it are
:mod:`coordqa.analysis.accuracy`'s (:func:`accuracy_table` is
:func:`~coordqa.analysis.accuracy.accuracy_of` as a DataFrame), where the rule of how outcomes
count is stated; here are what reports add: per-question accuracy (the unit of paired
comparisons) and how each scenario's JP question went.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from coordqa.analysis.accuracy import SCORE_COLUMNS, accuracy_of, check_columns, score_rows
from coordqa.jsonvalues import JSONObject
from coordqa.records import QUESTION_TYPES, Sample
from coordqa.store import QARun, RunStore, read_qa_run

__all__ = [
    "FAILURE_CATEGORIES",
    "accuracy_table",
    "check_scores",
    "jp_failures",
    "load_scores",
    "question_accuracy",
    "samples_frame",
    "summarize_failures",
]


def check_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Validate a scores table and normalise it (:func:`~coordqa.analysis.accuracy.score_rows`).

    ``correct`` is True only when answered, ``trial`` an int.
    """
    check_columns(scores.columns)
    rows = score_rows(scores.to_dict(orient="records"))
    return pd.DataFrame(rows, index=scores.index, columns=scores.columns)


def accuracy_table(
    scores: pd.DataFrame,
    by: Sequence[str] = ("question_type",),
    *,
    errors_count_as_wrong: bool = False,
) -> pd.DataFrame:
    """:func:`~coordqa.analysis.accuracy.accuracy_of` a scores table, as a DataFrame."""
    return accuracy_of(
        check_scores(scores).to_dict(orient="records"),
        by,
        errors_count_as_wrong=errors_count_as_wrong,
    ).frame()


def question_accuracy(scores: pd.DataFrame, *, errors_count_as_wrong: bool = False) -> pd.Series:
    """Per question: the share of its counted trials that are right (NaN when none counted).

    The unit of the paired tests: two runs are compared question by question.
    """
    df = check_scores(scores)
    counted = pd.Series(True, index=df.index) if errors_count_as_wrong else df["status"] != "error"
    value = df["correct"].astype(float).where(counted)
    return value.groupby(df["question_id"]).mean()


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


def load_scores(run: QARun | RunStore | str | Path) -> pd.DataFrame:
    """The scores table of a run, as :meth:`coordqa.store.QARun.samples` reads it."""
    return samples_frame(read_qa_run(run).samples())


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
