"""Re-checking a built dataset: every question re-rendered from its snapshot and re-solved.

Validation trusts nothing in the file: it restores each snapshot, renders the rules and the
description again, runs the solver again, and compares question, options, answer keys (as sets
of option texts: the stored order is the shuffled one) and concept; then it checks that the texts
say what the keys assume (:mod:`.consistency`: directive, card knowledge, history, ties, names).
It also applies the structural rules (duplicates, empty or repeated options, answer indices out
of range) and reports every problem at once.

A frozen release (CoordinationQA v1 and v1.1, shipped exactly as an earlier coordqa built them) is
checked against its pinned fingerprint, and each of its questions must either re-solve or be
listed as changed or removed in the changelog of a later release (:func:`validate_dataset`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from coordqa.dataset import (
    RELEASES,
    QuestionRow,
    Release,
    dataset_fingerprint,
    is_bundled,
    load_rows,
    release,
    release_with_fingerprint,
)
from coordqa.errors import CoordqaError, MissingDependencyError
from coordqa.games import Game
from coordqa.jsonvalues import JSONObject
from coordqa.scenarios.build import CHANGELOG_FILE
from coordqa.scenarios.builder import BUILDERS
from coordqa.scenarios.changelog import DIRECTIVE_PREFIX, KIND_CHANGE, Change, read_changelog
from coordqa.scenarios.consistency import CHECKS, consistency_problems
from coordqa.scenarios.model import QuestionDraft, Scenario, ScenarioQuestions, ValidationFailed


def structural_problems(rows: Sequence[QuestionRow]) -> list[str]:
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
    row: QuestionRow, built: ScenarioQuestions, rendered: tuple[str, str], metadata: bool
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


@dataclass(frozen=True)
class _Solved:
    """One scenario rebuilt from a row's snapshot, rendered and solved."""

    scenario: Scenario
    game: Game
    built: ScenarioQuestions
    rendered: tuple[str, str]
    """The state description and the game description, as rendered now."""


def problems_by_question(
    rows: Iterable[QuestionRow], *, metadata: bool = True, consistency: bool = True
) -> dict[str, list[str]]:
    """Re-render and re-solve every row; the mismatches of each question id (scenarios solved once).

    A scenario that cannot be rebuilt gives one problem to each of its questions; a game engine
    that is not installed is no problem of the data and stops the check at once. ``metadata``
    also compares the ``concept`` column (a frozen release predates per-question concepts);
    ``consistency`` also runs the text-against-key checks of :mod:`.consistency` (a frozen
    release was shipped before them).

    Raises:
        MissingDependencyError: a question's game engine is not installed.
    """
    problems: dict[str, list[str]] = {}
    solved: dict[str, _Solved | str] = {}
    for row in rows:
        sid = row["scenario_id"]
        if sid not in solved:
            try:
                scenario = Scenario.from_row(row)
                builder = BUILDERS.get(scenario.game)
                game = builder.restore(scenario)
                rendered = (game.describe(scenario.player), game.game_description())
                solved[sid] = _Solved(scenario, game, builder.questions(game, scenario), rendered)
            except MissingDependencyError:
                raise  # the machine's, not the data's: said once, with its install line
            except (CoordqaError, KeyError, ValueError) as error:
                solved[sid] = f"{sid}: cannot be rebuilt from its snapshot: {error}"
        entry = solved[sid]
        if isinstance(entry, str):
            found = [entry]
        else:
            found = _row_problems(row, entry.built, entry.rendered, metadata)
            if consistency:
                found += consistency_problems(row, entry.game, entry.scenario)
        if found:
            problems[row["question_id"]] = found
    return problems


def solver_problems(rows: Iterable[QuestionRow]) -> list[str]:
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


def validate_rows_against_solvers(rows: Sequence[QuestionRow]) -> int:
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
    listed as changed or removed in a later release's changelog."""
    changelogs: tuple[str, ...]
    """The changelogs that list :attr:`superseded`, oldest first, each named by the releases it
    goes between (``"coordinationqa-v1 -> coordinationqa-v1.1"``): every one of them was read."""
    skipped: tuple[str, ...] = ()
    """Hand-written questions without a snapshot (the example dataset): there is no state to
    re-render or re-solve, so only their structure was checked."""
    checks: tuple[str, ...] = ()
    """The checks of :mod:`.consistency` run on every re-solved question (none on a frozen
    release, shipped before them)."""

    @property
    def changelogs_named(self) -> str:
        """:attr:`changelogs` as a message names them: "the changelogs A -> B and B -> C"."""
        return _changelog_words(self.changelogs)


def _successor_changes(frozen: Release) -> tuple[tuple[str, ...], dict[str, Change]]:
    """The changelogs from ``frozen`` up to the current release, and their changes by question.

    Each bundled release's changelog names the release it starts from; following them from
    ``frozen`` gives every changelog read (``coordinationqa-v1 -> coordinationqa-v1.1``, then
    ``coordinationqa-v1.1 -> coordinationqa-v1.2``), named whole so that no step is left
    unsaid (walkthrough 15 N1 named only the last one). A
    question id changed or removed by any of them is listed (as its latest change, with the
    reasons of every release).

    Raises:
        ValidationFailed: no bundled release has a changelog from ``frozen``.
    """
    starts: dict[str, tuple[str, list[Change]]] = {}
    for candidate in RELEASES:
        path = candidate.folder / CHANGELOG_FILE
        if path.is_file():
            previous, changes = read_changelog(path.read_text(encoding="utf-8"))
            starts[previous] = (candidate.name, changes)
    if frozen.name not in starts:
        raise ValidationFailed(
            f"{frozen.name} is a frozen release but no bundled release has a changelog from it; "
            "its questions cannot be checked against the current solvers"
        )
    chain: list[str] = []
    listed: dict[str, Change] = {}
    current = frozen.name
    while current in starts and len(chain) < len(RELEASES):
        previous, (current, changes) = current, starts[current]
        chain.append(f"{previous} -> {current}")
        for change in changes:
            earlier = listed.get(change.question_id)
            reasons = (*earlier.reasons, *change.reasons) if earlier else change.reasons
            listed[change.question_id] = Change(change.question_id, change.change, reasons)
    return tuple(chain), listed


def _changelog_words(changelogs: Sequence[str]) -> str:
    """The changelogs a frozen release was checked through, as a message names them.

    >>> _changelog_words(["v1.1 -> v1.2"]), _changelog_words(["v1 -> v1.1", "v1.1 -> v1.2"])
    ('the changelog v1.1 -> v1.2', 'the changelogs v1 -> v1.1 and v1.1 -> v1.2')
    """
    *earlier, last = changelogs
    if not earlier:
        return f"the changelog {last}"
    return f"the changelogs {', '.join(earlier)} and {last}"


def _seen_by_resolving(change: Change) -> bool:
    """Whether re-solving the old question must now find the change the changelog lists.

    Not when a later release asks another kind of question about the state (the old one still
    holds), nor when only the directive changed (it is not a column: re-rendering the row
    cannot see it).
    """
    if any(reason.startswith(KIND_CHANGE) for reason in change.reasons):
        return False
    return any(not reason.startswith(DIRECTIVE_PREFIX) for reason in change.reasons)


def _state_of(row: QuestionRow) -> JSONObject:
    """A row's game state, without the game version (a later version may only reword texts)."""
    snapshot = dict(json.loads(row["snapshot"])["snapshot"])
    snapshot.pop("version", None)
    return snapshot


def _validate_frozen(rows: Sequence[QuestionRow], frozen: Release) -> ValidationReport:
    """Structure, then every question either re-solves or is listed in a later changelog.

    A listed question must really differ now, so a stale changelog is caught too; unless a later
    release only asks another kind of question about the state, changed only its directive, or
    stores the state with more in it (v1.2 names the Overcooked action under way): then the
    old row still re-solves from its own snapshot.
    """
    changelogs, changes = _successor_changes(frozen)
    latest = {row["question_id"]: row for row in load_rows(changelogs[-1].rsplit(" -> ", 1)[-1])}
    problems = structural_problems(rows)
    found = problems_by_question(rows, metadata=False, consistency=False)
    superseded = []
    for row in rows:
        qid = row["question_id"]
        listed = qid in changes and changes[qid].change in ("changed", "removed")
        same_state = qid in latest and _state_of(latest[qid]) == _state_of(row)
        if listed and qid not in found and same_state and _seen_by_resolving(changes[qid]):
            problems.append(
                f"{qid} is listed in {_changelog_words(changelogs)}, but it still re-solves"
            )
        elif qid in found and not listed:
            problems.extend(found[qid])
        elif listed and qid in found:
            superseded.append(qid)
    _raise_if(problems)
    resolved = len(rows) - len(superseded)
    return ValidationReport(len(rows), resolved, frozen, tuple(superseded), changelogs)


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
    checks = tuple(CHECKS) if with_state else ()
    return ValidationReport(len(rows), len(with_state), None, (), (), skipped, checks)


def has_snapshot(row: QuestionRow) -> bool:
    """Whether a question carries the game state it was built from (hand-written ones do not)."""
    return bool(str(row.get("snapshot") or "").strip())
