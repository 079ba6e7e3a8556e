"""Descriptive statistics of a CoordinationQA dataset (``coordqa dataset stats``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
    ec_verbatim: pd.DataFrame
    """Per game and EC kind: questions, and how many have their answer printed in the state."""


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
    return DatasetStats(
        counts, option_counts, correct_positions, random_baseline, ec_verbatim(rows)
    )


def question_kind(row: Mapping[str, Any]) -> str:
    """The builder's question kind (``kind:`` tag), or ``""`` for rows without one."""
    return next((t.removeprefix("kind:") for t in row["tags"] if t.startswith("kind:")), "")


def answer_in_state(row: Mapping[str, Any]) -> bool:
    """Every correct option's text occurs in the state as a whole word or phrase (any case)."""
    text = row["state_description"]
    return all(
        re.search(rf"(?<!\w){re.escape(row['options'][i])}(?!\w)", text, re.IGNORECASE)
        for i in row["correct"]
    )


def ec_verbatim(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """EC questions per game and kind, how many are verbatim (:func:`answer_in_state`), share.

    The last row (``all``) totals every EC question.
    """
    records = [
        (row["game"], question_kind(row), answer_in_state(row))
        for row in rows
        if row["question_type"] == "EC"
    ]
    frame = pd.DataFrame(records, columns=["game", "kind", "verbatim"])
    table = frame.groupby(["game", "kind"], sort=False)["verbatim"].agg(["size", "sum"])
    table.loc[("all", ""), :] = [len(frame), int(frame["verbatim"].sum())]
    table = table.astype(int).rename(columns={"size": "questions", "sum": "verbatim"})
    table["share"] = table["verbatim"] / table["questions"]
    return table


def verbatim_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """:func:`ec_verbatim` as a Markdown table (for the dataset card)."""
    lines = ["| game | EC kind | questions | verbatim | share |", "|---|---|---:|---:|---:|"]
    for (game, kind), questions, verbatim, share in ec_verbatim(rows).itertuples():
        lines.append(f"| {game} | {kind or '(all EC)'} | {questions} | {verbatim} | {share:.2f} |")
    return "\n".join(lines)
