"""Descriptive statistics of a CoordinationQA dataset (``coordqa dataset stats``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from coordqa.dataset import QUESTION_TYPES, QuestionRow


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


def dataset_stats(rows: Sequence[QuestionRow]) -> DatasetStats:
    """Compute the composition tables of ``rows``."""
    frame = pd.DataFrame(rows)
    frame["n_options"] = frame["options"].map(len)
    frame["chance"] = frame["correct"].map(len) / frame["n_options"]
    counts = pd.crosstab(frame["game"], frame["question_type"], margins=True, margins_name="total")
    option_counts = pd.crosstab(frame["n_options"], frame["question_type"])
    positions = frame[["question_type", "correct"]].explode("correct").dropna()
    positions = positions.reset_index(drop=True)  # a question without answer key adds none
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


def _occurs(text: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.IGNORECASE) is not None


def answer_in_state(row: Mapping[str, Any]) -> bool:
    """Every correct option's text occurs in the state as a whole word or phrase (any case)."""
    return all(_occurs(row["state_description"], row["options"][i]) for i in row["correct"])


def found_by_search(row: Mapping[str, Any]) -> bool:
    """Searching the state for the option texts finds the correct ones and no other."""
    wrong = [o for i, o in enumerate(row["options"]) if i not in row["correct"]]
    return answer_in_state(row) and not any(_occurs(row["state_description"], o) for o in wrong)


def builder_version(row: Mapping[str, Any]) -> int:
    """The version of the builder that wrote the row (``builder:GAME-vN`` tag), 0 without one."""
    versions = (re.fullmatch(r"builder:.+-v(\d+)", tag) for tag in row["tags"])
    return next((int(found.group(1)) for found in versions if found), 0)


def printed_kind(row: Mapping[str, Any]) -> bool:
    """The question's kind is one whose answer the state prints, in the row's own text.

    The builder version that wrote the row decides (v1.1's Hanabi card lists were not counted
    yet), not the current builder's lookup kinds.
    """
    from coordqa.scenarios.builder import BUILDERS

    if row["game"] not in BUILDERS:
        return False
    return BUILDERS.get(row["game"]).prints_answer(question_kind(row), builder_version(row))


LOOKUP_MEASURES = {
    "verbatim": answer_in_state,
    "found by search": found_by_search,
    "printed kind": printed_kind,
}
"""Three views of "the answer is a lookup", from the loosest string test to the kind's nature."""


def ec_verbatim(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """EC questions per game and kind, and how many are lookups by each measure.

    The measures are :data:`LOOKUP_MEASURES`; the last row (``all``) totals every EC question.
    """
    records = [
        (row["game"], question_kind(row), *(test(row) for test in LOOKUP_MEASURES.values()))
        for row in rows
        if row["question_type"] == "EC"
    ]
    columns = list(LOOKUP_MEASURES)
    frame = pd.DataFrame(records, columns=["game", "kind", *columns])
    table = frame.groupby(["game", "kind"], sort=False)[columns].sum()
    table.insert(0, "questions", frame.groupby(["game", "kind"], sort=False).size())
    table.loc[("all", ""), :] = [len(frame), *(int(frame[c].sum()) for c in columns)]
    return table.astype(int)


def verbatim_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """:func:`ec_verbatim` as a Markdown table with shares (for the dataset card)."""
    table = ec_verbatim(rows)
    header = " | ".join(LOOKUP_MEASURES)
    lines = [f"| game | EC kind | questions | {header} |", "|---|---|---:|" + "---:|" * 3]
    for (game, kind), questions, *counts in table.itertuples():
        cells = " | ".join(f"{count} ({count / questions:.2f})" for count in counts)
        lines.append(f"| {game} | {kind or '(all EC)'} | {questions} | {cells} |")
    return "\n".join(lines)
