"""Re-checking a built dataset: every question re-rendered from its snapshot and re-solved.

Validation trusts nothing in the file: it restores each snapshot, renders the description
again, runs the solver again, and compares options and answer keys as sets of option texts
(the stored order is the shuffled one). It also applies the structural rules (duplicates, empty
or repeated options, answer indices out of range) and reports every problem at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from coordqa.errors import CoordqaError
from coordqa.scenarios.build import scenario_from_row
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.model import QuestionDraft, ScenarioQuestions, ValidationFailed


def structural_problems(rows: list[dict[str, Any]]) -> list[str]:
    """Duplicates, empty or repeated options and bad answer indices, one message each."""
    problems = []
    for qid, count in Counter(row["question_id"] for row in rows).items():
        if count > 1:
            problems.append(f"{qid}: question id appears {count} times")
    seen: dict[tuple[str, str, str], str] = {}
    for row in rows:
        qid = row["question_id"]
        key = (row["state_description"], row["question"], "\n".join(sorted(row["options"])))
        if key in seen:
            problems.append(f"{qid}: duplicate of question {seen[key]}")
        seen.setdefault(key, qid)
        options = row["options"]
        if any(not option.strip() for option in options):
            problems.append(f"{qid}: empty option")
        for option, count in Counter(options).items():
            if count > 1:
                problems.append(f"{qid}: option {option!r} repeated {count} times")
        correct = row["correct"]
        if not correct:
            problems.append(f"{qid}: no correct option")
        bad = [i for i in correct if not 0 <= i < len(options)]
        if bad:
            problems.append(f"{qid}: correct indices {bad} out of range 0..{len(options) - 1}")
    return problems


def _draft_of(built: ScenarioQuestions, question_type: str) -> QuestionDraft | None:
    """The builder's draft of that type, or None when the builder makes no such question."""
    drafts: dict[str, QuestionDraft] = {d.question_type: d for d in built.drafts()}
    return drafts.get(question_type)


def _row_problems(row: dict[str, Any], built: ScenarioQuestions, description: str) -> list[str]:
    qid = row["question_id"]
    draft = _draft_of(built, row["question_type"])
    if draft is None:
        made = sorted(d.question_type for d in built.drafts())
        kind = row["question_type"]
        return [f"{qid}: question type {kind!r} is not one the builder makes {made}"]
    problems = []
    if description != row["state_description"]:
        problems.append(f"{qid}: state description differs from the one rendered from its snapshot")
    if draft.question != row["question"]:
        problems.append(f"{qid}: question text differs from the builder's ({draft.question!r})")
    if sorted(draft.options) != sorted(row["options"]):
        problems.append(f"{qid}: options differ from the solver's {sorted(draft.options)}")
    solver_correct = {draft.options[i] for i in draft.correct}
    stored_correct = {row["options"][i] for i in row["correct"] if 0 <= i < len(row["options"])}
    if solver_correct != stored_correct:
        stored, solver = sorted(stored_correct), sorted(solver_correct)
        problems.append(f"{qid}: answer key {stored} but the solver says {solver}")
    return problems


def solver_problems(rows: Iterable[dict[str, Any]]) -> list[str]:
    """Re-render and re-solve every row; one message per mismatch (scenarios solved once)."""
    problems: list[str] = []
    solved: dict[str, tuple[ScenarioQuestions, str] | None] = {}
    for row in rows:
        sid = row["scenario_id"]
        if sid not in solved:
            solved[sid] = None
            try:
                scenario = scenario_from_row(row)
                builder = BUILDERS.get(scenario.game)
                game = builder.restore(scenario)
                solved[sid] = (builder.questions(game, scenario), game.describe(scenario.player))
            except (CoordqaError, KeyError, ValueError) as error:
                problems.append(f"{sid}: cannot be rebuilt from its snapshot: {error}")
        entry = solved[sid]
        if entry is not None:
            problems.extend(_row_problems(row, *entry))
    return problems


def validate_rows_against_solvers(rows: list[dict[str, Any]]) -> int:
    """Run every check; return the number of questions checked.

    Raises:
        ValidationFailed: listing every problem found.
    """
    problems = structural_problems(rows) + solver_problems(rows)
    if problems:
        shown = "\n  ".join(problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        raise ValidationFailed(f"{len(problems)} problem(s) in the dataset:\n  {shown}{more}")
    return len(rows)
