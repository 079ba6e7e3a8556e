"""Descriptive statistics of a CoordinationQA dataset (``coordqa dataset stats``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from coordqa.dataset import QUESTION_TYPES


@dataclass(frozen=True)
class DatasetStats:
    """Tables describing a dataset's composition."""

    counts: pd.DataFrame
    """Questions per game (rows) and type (columns), with totals."""
    option_counts: pd.DataFrame
    """How many questions have each number of options, per type."""
    correct_positions: pd.DataFrame
    """How often each option position (A, B, ...) is a correct answer, per type."""
    random_baseline: pd.Series
    """Expected accuracy of uniform guessing per type (mean of |correct| / |options|)."""


def dataset_stats(rows: list[dict[str, Any]]) -> DatasetStats:
    """Compute the composition tables of ``rows``."""
    frame = pd.DataFrame(rows)
    frame["n_options"] = frame["options"].map(len)
    frame["chance"] = frame["correct"].map(len) / frame["n_options"]
    counts = pd.crosstab(frame["game"], frame["question_type"], margins=True, margins_name="total")
    option_counts = pd.crosstab(frame["n_options"], frame["question_type"])
    positions = frame[["question_type", "correct"]].explode("correct").reset_index(drop=True)
    positions["position"] = positions["correct"].map(lambda i: chr(ord("A") + int(i)))
    correct_positions = pd.crosstab(positions["position"], positions["question_type"])
    types = [t for t in QUESTION_TYPES if t in set(frame["question_type"])]
    counts = counts.reindex(columns=[*types, "total"])
    option_counts = option_counts.reindex(columns=types, fill_value=0)
    correct_positions = correct_positions.reindex(columns=types, fill_value=0)
    random_baseline = frame.groupby("question_type")["chance"].mean().reindex(types)
    random_baseline["all"] = frame["chance"].mean()
    return DatasetStats(counts, option_counts, correct_positions, random_baseline)
