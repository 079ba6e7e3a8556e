"""QA runs side by side, question set by question set: accuracy per type, paired tests, differences.

Runs are compared only with the runs of their question set
(:func:`coordqa.analysis.group_by_question_set`, the rule of ``coordqa report``): an eval set of
three models on two datasets gives two sections of three runs, not one of six in which each model
counts twice, and a ``--limit 3`` run is not paired or correlated with a full one (``report``
mixes them only when told ``--allow-mixed``, which the viewer does not take). Every number comes
from
:mod:`coordqa.analysis`: the accuracy tables of each run, and for each run against the first of
its dataset :func:`coordqa.analysis.compare_two_runs` (the paired test per question type and the
(question, trial) pairs whose outcomes differ, as ``coordqa compare`` shows them). This module
only lines them up and links each difference to its sample pages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coordqa.analysis import (
    QUESTION_TYPES,
    Correlation,
    DatasetGroup,
    PairedDifference,
    RunComparison,
    compare_two_runs,
    correlate,
    group_by_question_set,
)
from coordqa.viewer.qa import QAView

__all__ = [
    "AccuracyCell",
    "Comparison",
    "DatasetComparison",
    "Difference",
    "PairView",
    "TypeRow",
    "compare",
    "compare_by_question_set",
]


@dataclass(frozen=True)
class AccuracyCell:
    """A run's accuracy on one scope, with both uncertainties."""

    accuracy: float
    """Mean over trials of per-trial accuracy."""
    se: float
    """The paper's trial SE (NaN with one trial)."""
    ci_low: float
    """Lower end of the question-level 95% CI."""
    ci_high: float
    """Upper end of the question-level 95% CI."""


@dataclass(frozen=True)
class TypeRow:
    """Accuracy of one question type (or ``overall``) in each run."""

    scope: str
    """A question type, or ``overall``."""
    cells: list[AccuracyCell | None]
    """One per run; None when the run has no question of the type."""


@dataclass(frozen=True)
class Difference:
    """A (question, trial) on which the two runs of a pair did not do the same."""

    question_id: str
    """The question."""
    trial: int
    """The trial."""
    game: str
    """Its game."""
    question_type: str
    """Its type."""
    answer: str
    """Letters of the correct options."""
    a: str
    """What the reference run chose (a letter, or its status)."""
    b: str
    """What the other run chose."""
    a_correct: bool
    """Whether the reference run was right."""
    b_correct: bool
    """Whether the other run was right."""
    a_number: int | None
    """The reference run's sample page, if it stored the sample."""
    b_number: int | None
    """The other run's sample page."""


@dataclass(frozen=True)
class PairView:
    """One run against the reference run (the first)."""

    other: int
    """Index of the other run among the compared runs."""
    comparison: RunComparison
    """Paired tests and differences, from :func:`coordqa.analysis.compare_two_runs`."""
    differences: list[Difference]
    """The comparison's differences, with links."""

    def paired(self) -> list[tuple[str, PairedDifference]]:
        """The paired test per scope, in table order (scopes with no shared question left out)."""
        return [(s, p) for s, p in self.comparison.paired.items() if p.n_questions > 0]


@dataclass(frozen=True)
class Comparison:
    """Everything the comparison page shows."""

    by_type: list[TypeRow]
    """Accuracy per type and overall, run by run."""
    pairs: list[PairView]
    """Each run after the first against the first."""
    correlations: list[Correlation]
    """EC vs JP and ToM vs JP across the runs, one point per run, as ``coordqa report`` gives
    them (exact p-values up to 10 runs); shown from three runs on."""


def _cell(row: Mapping[str, Any]) -> AccuracyCell:
    """The accuracy and uncertainties of one row of an :class:`coordqa.analysis.AccuracyTable`."""
    return AccuracyCell(*(float(row[k]) for k in ("accuracy", "se", "ci_low", "ci_high")))


def _type_rows(views: Sequence[QAView]) -> list[TypeRow]:
    tables = [{row["question_type"]: row for row in v.analysis.by_type} for v in views]
    rows = []
    for qtype in QUESTION_TYPES:
        cells = [_cell(t[qtype]) if qtype in t else None for t in tables]
        if any(cells):
            rows.append(TypeRow(qtype, cells))
    rows.append(TypeRow("overall", [_cell(v.analysis.overall[0]) for v in views]))
    return rows


def _pair(views: Sequence[QAView], other: int) -> PairView:
    reference, run = views[0], views[other]
    comparison = compare_two_runs(reference.run, run.run)
    numbers = [{(r.question_id, r.trial): r.number for r in v.rows} for v in (reference, run)]
    differences = [
        Difference(
            question_id=str(d["question_id"]),
            trial=int(d["trial"]),
            game=str(d["game"]),
            question_type=str(d["question_type"]),
            answer=str(d["answer"]),
            a=str(d["a"]),
            b=str(d["b"]),
            a_correct=bool(d["a_correct"]),
            b_correct=bool(d["b_correct"]),
            a_number=numbers[0].get((str(d["question_id"]), int(d["trial"]))),
            b_number=numbers[1].get((str(d["question_id"]), int(d["trial"]))),
        )
        for d in comparison.differences.to_dict(orient="records")
    ]
    return PairView(other, comparison, differences)


def compare(views: Sequence[QAView]) -> Comparison:
    """Line up ``views`` (QA runs; the first is the reference of the pairs; one has no pair).

    Raises:
        ValueError: no run.
        ConfigError: the runs answered different question sets.
    """
    if not views:
        raise ValueError("a comparison needs at least one QA run")
    rows = _type_rows(views)
    return Comparison(rows, [_pair(views, i) for i in range(1, len(views))], _correlations(rows))


@dataclass(frozen=True)
class DatasetComparison:
    """The runs of one question set compared among themselves."""

    group: DatasetGroup
    """The dataset (and question set), and which of the compared runs answered it (indices)."""
    comparison: Comparison
    """Its runs side by side; the first of them is the reference of its pairs."""


def compare_by_question_set(views: Sequence[QAView]) -> list[DatasetComparison]:
    """:func:`compare` on the runs of each question set among ``views``, datasets in order."""
    groups = group_by_question_set([view.run for view in views])
    return [
        DatasetComparison(group, compare([views[i] for i in group.members])) for group in groups
    ]


def _correlations(rows: Sequence[TypeRow]) -> list[Correlation]:
    """EC vs JP and ToM vs JP over the runs (a run without the type is left out)."""
    accuracy = {
        row.scope: [math.nan if cell is None else cell.accuracy for cell in row.cells]
        for row in rows
    }
    if "JP" not in accuracy:
        return []
    pairs = [x for x in ("EC", "ToM") if x in accuracy]
    return [correlate(accuracy[x], accuracy["JP"], (x, "JP")) for x in pairs]
