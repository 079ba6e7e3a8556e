"""Re-checking a built dataset: every question re-rendered from its snapshot and re-solved.

Validation trusts nothing in the file: it restores each snapshot, renders the rules and the
description again, runs the solver again, and compares question, options, answer keys (as sets
of option texts: the stored order is the shuffled one) and concept. It also applies the
structural rules (duplicates, empty or repeated options, answer indices out of range) and reports
every problem at once.

A frozen release (CoordinationQA v1, shipped exactly as an earlier coordqa built it) is checked
against its pinned fingerprint, and each of its questions must either re-solve or be listed as
changed or removed in its successor's changelog (:func:`validate_dataset`).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from coordqa.dataset import (
    RELEASES,
    Release,
    dataset_fingerprint,
    is_bundled,
    load_rows,
    release,
    release_with_fingerprint,
)
from coordqa.errors import CoordqaError
from coordqa.scenarios.build import CHANGELOG_FILE
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.changelog import KIND_CHANGE, Change, read_changelog
from coordqa.scenarios.model import QuestionDraft, Scenario, ScenarioQuestions, ValidationFailed


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


def _row_problems(
    row: dict[str, Any], built: ScenarioQuestions, rendered: tuple[str, str], metadata: bool
) -> list[str]:
    qid = row["question_id"]
    draft = _draft_of(built, row["question_type"])
    if draft is None:
        made = sorted(d.question_type for d in built.drafts())
        kind = row["question_type"]
        return [f"{qid}: question type {kind!r} is not one the builder makes {made}"]
    description, rules = rendered
    problems = []
    if rules != row["game_description"]:
        problems.append(f"{qid}: game description differs from the game's rules text")
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
    if metadata and draft.concept != row["concept"]:
        problems.append(f"{qid}: concept differs from the builder's ({draft.concept!r})")
    return problems


def problems_by_question(
    rows: Iterable[dict[str, Any]], *, metadata: bool = True
) -> dict[str, list[str]]:
    """Re-render and re-solve every row; the mismatches of each question id (scenarios solved once).

    A scenario that cannot be rebuilt gives one problem to each of its questions. ``metadata``
    also compares the ``concept`` column (a frozen release predates per-question concepts).
    """
    problems: dict[str, list[str]] = {}
    solved: dict[str, tuple[ScenarioQuestions, tuple[str, str]] | str] = {}
    for row in rows:
        sid = row["scenario_id"]
        if sid not in solved:
            try:
                scenario = Scenario.from_row(row)
                builder = BUILDERS.get(scenario.game)
                game = builder.restore(scenario)
                rendered = (game.describe(scenario.player), game.game_description())
                solved[sid] = (builder.questions(game, scenario), rendered)
            except (CoordqaError, KeyError, ValueError) as error:
                solved[sid] = f"{sid}: cannot be rebuilt from its snapshot: {error}"
        entry = solved[sid]
        found = [entry] if isinstance(entry, str) else _row_problems(row, *entry, metadata)
        if found:
            problems[row["question_id"]] = found
    return problems


def solver_problems(rows: Iterable[dict[str, Any]]) -> list[str]:
    """Re-render and re-solve every row; one message per mismatch."""
    found: list[str] = []
    for messages in problems_by_question(rows).values():
        found.extend(m for m in messages if m not in found)
    return found


def _raise_if(problems: list[str]) -> None:
    if problems:
        shown = "\n  ".join(problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        raise ValidationFailed(f"{len(problems)} problem(s) in the dataset:\n  {shown}{more}")


def validate_rows_against_solvers(rows: list[dict[str, Any]]) -> int:
    """Run every check; return the number of questions checked.

    Raises:
        ValidationFailed: listing every problem found.
    """
    _raise_if(structural_problems(rows) + solver_problems(rows))
    return len(rows)


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate_dataset` checked."""

    checked: int
    """Questions checked."""
    resolved: int
    """Questions re-rendered and re-solved with no mismatch."""
    frozen: Release | None
    """The frozen release these rows are (content equal to its pinned fingerprint), if any."""
    superseded: tuple[str, ...]
    """Questions of a frozen release that the current builders render or solve differently, each
    listed as changed or removed in its successor's changelog."""
    successor: str | None
    """The release whose changelog lists :attr:`superseded`."""
    skipped: tuple[str, ...] = ()
    """Hand-written questions without a snapshot (the example dataset): there is no state to
    re-render or re-solve, so only their structure was checked."""


def _successor_changes(frozen: Release) -> tuple[str, dict[str, Change]]:
    """The bundled release whose changelog starts from ``frozen``, and its changes by question."""
    for candidate in RELEASES:
        path = candidate.folder / CHANGELOG_FILE
        if candidate.frozen or not path.is_file():
            continue
        previous, changes = read_changelog(path.read_text(encoding="utf-8"))
        if previous == frozen.name:
            return candidate.name, {c.question_id: c for c in changes}
    raise ValidationFailed(
        f"{frozen.name} is a frozen release but no bundled release has a changelog from it; "
        "its questions cannot be checked against the current solvers"
    )


def _recurated(change: Change) -> bool:
    """The successor asks another kind of question about the state (the old one still holds)."""
    return any(reason.startswith(KIND_CHANGE) for reason in change.reasons)


def _validate_frozen(rows: list[dict[str, Any]], frozen: Release) -> ValidationReport:
    """Structure, then every question either re-solves or is listed in the successor's changelog.

    A listed question must really differ now (unless the successor only asks another kind of
    question about the same state), so a stale changelog is caught too.
    """
    successor, changes = _successor_changes(frozen)
    problems = structural_problems(rows)
    found = problems_by_question(rows, metadata=False)
    superseded = []
    for row in rows:
        qid = row["question_id"]
        listed = qid in changes and changes[qid].change in ("changed", "removed")
        if listed and qid not in found and not _recurated(changes[qid]):
            problems.append(f"{qid}: {successor}'s changelog lists it, but it still re-solves")
        elif qid in found and not listed:
            problems.extend(found[qid])
        elif listed and qid in found:
            superseded.append(qid)
    _raise_if(problems)
    resolved = len(rows) - len(superseded)
    return ValidationReport(len(rows), resolved, frozen, tuple(superseded), successor)


def validate_dataset(name_or_path: str | os.PathLike[str] | None = None) -> ValidationReport:
    """Validate a dataset by name or path; a frozen release is recognised by its content.

    A frozen release (see :class:`~coordqa.dataset.Release`) must match its pinned fingerprint
    and is checked with :func:`_validate_frozen`; anything else like
    :func:`validate_rows_against_solvers`, except that hand-written questions without a
    snapshot are checked for structure only (:attr:`ValidationReport.skipped`).

    Raises:
        ValidationFailed: listing every problem found.
    """
    rows = load_rows(name_or_path)
    fingerprint = dataset_fingerprint(rows)
    named = (
        release(name_or_path)
        if isinstance(name_or_path, str) and is_bundled(name_or_path)
        else None
    )
    if named is not None and named.frozen and named.frozen_fingerprint != fingerprint:
        raise ValidationFailed(
            f"{named.name} is shipped as a frozen release with fingerprint "
            f"{named.frozen_fingerprint}, but its rows hash to {fingerprint}: the bundled files "
            "were modified; reinstall coordqa"
        )
    frozen = release_with_fingerprint(fingerprint)
    if frozen is not None and frozen.frozen:
        return _validate_frozen(rows, frozen)
    with_state = [row for row in rows if has_snapshot(row)]
    _raise_if(structural_problems(rows) + solver_problems(with_state))
    skipped = tuple(row["question_id"] for row in rows if not has_snapshot(row))
    return ValidationReport(len(rows), len(with_state), None, (), None, skipped)


def has_snapshot(row: dict[str, Any]) -> bool:
    """Whether a question carries the game state it was built from (hand-written ones do not)."""
    return bool(str(row.get("snapshot") or "").strip())
