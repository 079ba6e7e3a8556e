"""Two or more QA runs side by side: accuracy per question type and the questions they differ on.

The accuracies are the runs' :mod:`coordqa.analysis` tables; this module only lines them up and
finds the questions whose outcomes differ between the runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coordqa.analysis import QUESTION_TYPES
from coordqa.viewer.qa import QAView, SampleRow

__all__ = ["Comparison", "QuestionCell", "QuestionDiff", "TypeRow", "compare"]


@dataclass(frozen=True)
class TypeRow:
    """Accuracy of one question type (or ``overall``) in each run."""

    scope: str
    """A question type, or ``overall``."""
    cells: list[tuple[float, float] | None]
    """``(accuracy, se)`` per run; None when the run has no question of the type."""


@dataclass(frozen=True)
class QuestionCell:
    """How one run did on one question, over its trials."""

    correct: int
    """Trials answered correctly."""
    trials: int
    """Trials stored."""
    chosen: list[str]
    """What each trial chose (letters, ``-`` for none), in trial order."""
    first: int
    """Number of the run's first sample of the question (for the link)."""


@dataclass(frozen=True)
class QuestionDiff:
    """A question on which the runs did not all do the same."""

    question_id: str
    """The question."""
    game: str
    """Its game."""
    question_type: str
    """Its type."""
    answer: str
    """Letters of the correct options."""
    cells: list[QuestionCell]
    """One per run."""


@dataclass(frozen=True)
class Comparison:
    """Everything the comparison page shows."""

    by_type: list[TypeRow]
    """Accuracy per type and overall, run by run."""
    differing: list[QuestionDiff]
    """Questions (asked in every run) whose outcomes differ, in the first run's order."""
    shared: int
    """Questions asked in every run."""
    unshared: int
    """Questions asked in some runs only (not compared)."""
    same_dataset: bool
    """Whether every run used the same dataset (by fingerprint)."""


def _cells(rows: Sequence[SampleRow]) -> dict[str, QuestionCell]:
    grouped: dict[str, list[SampleRow]] = {}
    for row in rows:
        grouped.setdefault(row.question_id, []).append(row)
    return {
        qid: QuestionCell(
            correct=sum(r.outcome == "correct" for r in group),
            trials=len(group),
            chosen=[r.chosen or "-" for r in sorted(group, key=lambda r: r.trial)],
            first=min(r.number for r in group),
        )
        for qid, group in grouped.items()
    }


def _type_rows(views: Sequence[QAView]) -> list[TypeRow]:
    rows = []
    tables = [v.analysis.by_type.set_index("question_type") for v in views]
    for qtype in QUESTION_TYPES:
        cells: list[tuple[float, float] | None] = [
            (float(t.at[qtype, "accuracy"]), float(t.at[qtype, "se"])) if qtype in t.index else None
            for t in tables
        ]
        if any(cells):
            rows.append(TypeRow(qtype, cells))
    overall = [v.analysis.overall.iloc[0] for v in views]
    rows.append(TypeRow("overall", [(float(o["accuracy"]), float(o["se"])) for o in overall]))
    return rows


def compare(views: Sequence[QAView]) -> Comparison:
    """Line up ``views`` (two or more QA runs).

    Raises:
        ValueError: fewer than two runs.
    """
    if len(views) < 2:
        raise ValueError(f"a comparison needs at least two QA runs, got {len(views)}")
    cells = [_cells(v.rows) for v in views]
    shared = [qid for qid in cells[0] if all(qid in c for c in cells[1:])]
    every = set().union(*cells)
    first_rows = {row.question_id: row for row in reversed(views[0].rows)}
    differing = []
    for qid in shared:
        per_run = [c[qid] for c in cells]
        if len({(c.correct, c.trials, tuple(sorted(c.chosen))) for c in per_run}) > 1:
            row = first_rows[qid]
            differing.append(QuestionDiff(qid, row.game, row.question_type, row.answer, per_run))
    fingerprints = {v.manifest.dataset.fingerprint if v.manifest.dataset else None for v in views}
    return Comparison(
        by_type=_type_rows(views),
        differing=differing,
        shared=len(shared),
        unshared=len(every) - len(shared),
        same_dataset=len(fingerprints) == 1,
    )
