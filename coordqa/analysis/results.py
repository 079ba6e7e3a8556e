"""Runs question by question: the per-question table, the comparison of two runs, the run list.

The library behind ``coordqa results``, ``coordqa compare`` and ``coordqa runs list``. Every
run is read through :mod:`coordqa.store`; nothing calls a model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import pandas as pd

from coordqa.analysis.accuracy import INCOMPLETE_MARK, RunAnalysis, analyze_run
from coordqa.analysis.labels import run_labels
from coordqa.analysis.report import (
    SCOPES,
    check_question_sets,
    question_contents,
    question_set_row,
    same_questions,
)
from coordqa.analysis.stats import PairedDifference, paired_difference
from coordqa.analysis.tables import load_scores, question_accuracy
from coordqa.choices import option_letter
from coordqa.dataset.identity import told_apart_by_content
from coordqa.errors import ConfigError, StoreError
from coordqa.records import Question, Sample, SampleKey
from coordqa.registry import not_one_of, offer, spelled_as, suggest
from coordqa.store import (
    QARun,
    RunCounts,
    RunManifest,
    RunReader,
    RunStore,
    UnreadableRunError,
    no_runs_under,
    open_run,
    read_qa_run,
    survey_runs,
)
from coordqa.store.manifest import model_names

__all__ = [
    "AGREEMENTS",
    "DEFAULT_SELECTION",
    "SELECTIONS",
    "RunComparison",
    "compare_two_runs",
    "list_runs",
    "joined_run_list",
    "list_runs_in",
    "results_table",
]

MISSING = "missing"
"""What a results cell holds for a (question, trial) that has no call yet."""


def _outcome(sample: Sample | None) -> str:
    """A sample as one word: the chosen letter, or its status (``ambiguous``, ``error``...)."""
    if sample is None:
        return MISSING
    return sample.letter or sample.status


def _answer(correct: list[int]) -> str:
    return ",".join(option_letter(index) for index in correct)


def results_table(
    run: QARun | RunStore | str | Path,
    *,
    games: Sequence[str] | None = None,
    types: Sequence[str] | None = None,
    wrong: bool = False,
) -> pd.DataFrame:
    """One row per question: its game and type, the answer key, and each trial's outcome.

    Columns: ``question_id``, ``scenario_id``, ``game``, ``question_type``, ``answer`` (the
    correct letters), then per trial ``t``: ``trial_t`` (the chosen letter, or ``ambiguous``,
    ``no_answer``, ``error``, ``missing``) and ``trial_t_correct`` (True/False; None for an
    error or a missing sample), and ``correct_trials`` (right trials / counted trials).

    Args:
        run: the QA run.
        games: only questions of these games (None: all).
        types: only questions of these types (None: all).
        wrong: only questions with a trial that is not right (a wrong letter, ambiguous or
            no_answer; an error or a missing sample is not the model's answer, so not wrong).

    Raises:
        ConfigError: a game or type the run has no question of.
    """
    reader = read_qa_run(run)
    samples = {sample.key: sample for sample in reader.samples()}
    questions = list(reader.questions().values())
    games = _spelled_as_held(games, {q.game for q in questions})
    types = _spelled_as_held(types, {q.question_type for q in questions})
    _refuse_unknown(questions, games, types)
    rows = []
    for question in questions:
        if games and question.game not in games:
            continue
        if types and question.question_type not in types:
            continue
        row, right, counted = _question_row(question, samples, reader.trials)
        if wrong and right == counted:
            continue
        row["correct_trials"] = f"{right}/{counted}"
        rows.append(row)
    columns = ["question_id", "scenario_id", "game", "question_type", "answer"]
    for trial in range(reader.trials):
        columns += [f"trial_{trial}", f"trial_{trial}_correct"]
    return pd.DataFrame(rows, columns=[*columns, "correct_trials"])


def _spelled_as_held(names: Sequence[str] | None, held: set[str]) -> list[str] | None:
    """``names`` as the run spells them (any case, as ``coordqa eval`` reads its filters)."""
    return None if names is None else [spelled_as(name, held) for name in names]


def _refuse_unknown(
    questions: Sequence[Question], games: Sequence[str] | None, types: Sequence[str] | None
) -> None:
    """Refuse a game or type filter that names no question of the run (a typo: no empty table)."""
    for name, what, wanted, held in (
        ("--game", "games", games, {q.game for q in questions}),
        ("--type", "question types", types, {q.question_type for q in questions}),
    ):
        unknown = sorted(set(wanted or ()) - held)
        if unknown:
            spelled = {known.lower(): known for known in held}  # filters take any case
            close = dict.fromkeys(
                spelled[near] for typo in unknown for near in suggest(typo.lower(), sorted(spelled))
            )
            raise ConfigError(
                f"{name} {','.join(unknown)}: the run has no question of that kind."
                f"{offer(list(close))} Its {what} are {', '.join(sorted(held))}"
            )


def _question_row(
    question: Question, samples: Mapping[SampleKey, Sample], trials: int
) -> tuple[dict[str, object], int, int]:
    """One question's row of :func:`results_table` (without ``correct_trials``).

    With its right and its counted trials (an error or a missing sample is not counted).
    """
    row: dict[str, object] = {
        "question_id": question.question_id,
        "scenario_id": question.scenario_id,
        "game": question.game,
        "question_type": question.question_type,
        "answer": _answer(question.correct),
    }
    right = counted = 0
    for trial in range(trials):
        sample = samples.get((question.question_id, trial))
        row[f"trial_{trial}"] = _outcome(sample)
        counts = sample is not None and sample.status != "error"
        row[f"trial_{trial}_correct"] = sample.correct if counts and sample else None
        right += int(bool(counts and sample and sample.correct))
        counted += int(counts)
    return row, right, counted


AGREEMENTS = ("both-right", "a-right", "b-right", "both-wrong", "error")
"""How two runs did on one (question, trial): both right; only A right; only B right; both wrong
(ambiguous and no_answer count as wrong); ``error``: either call failed, so it is left out."""

SELECTIONS = ("a-right", "b-right", "both-right", "both-wrong", "disagree")
"""What ``coordqa compare --only`` can list: an agreement, or ``disagree`` (the two runs chose
differently, whether or not either was right)."""

DEFAULT_SELECTION = ("a-right", "b-right")
"""What ``coordqa compare`` lists by default: where exactly one of the runs was right."""


def _agreement(a: Sample, b: Sample) -> str:
    """The :data:`AGREEMENTS` entry of one (question, trial)."""
    if "error" in (a.status, b.status):
        return "error"
    if a.correct and b.correct:
        return "both-right"
    if a.correct or b.correct:
        return "a-right" if a.correct else "b-right"
    return "both-wrong"


@dataclass
class RunComparison:
    """Two runs of the same questions, question by question."""

    label_a: str
    """How run A is named: its label or model, told apart from B's (:func:`run_labels`)."""
    label_b: str
    """How run B is named."""
    pairs: pd.DataFrame
    """One row per (question, trial) both runs stored: the question, each run's outcome (a
    letter or a status) and correctness, and ``agreement`` (:data:`AGREEMENTS`)."""
    paired: dict[str, PairedDifference]
    """A - B per scope (question types and ``overall``), over shared questions."""
    mixed: bool
    """Whether the runs answered different question sets (allowed with ``allow_mixed``)."""
    shared_questions: int
    """Questions both runs asked with the same text and answer key: all that is paired."""
    analyses: tuple[RunAnalysis, RunAnalysis] | None = None
    """Both runs' numbers, A then B: what an incomplete run lacks (:attr:`RunAnalysis.lacks`),
    whose samples no pair holds."""

    def incomplete(self) -> list[tuple[str, str, RunAnalysis]]:
        """``("A", label, analysis)`` for each run that is incomplete (errors, missing samples)."""
        named = zip(("A", "B"), (self.label_a, self.label_b), self.analyses or (), strict=False)
        return [(side, label, run) for side, label, run in named if not run.complete]

    def require_shared(self) -> None:
        """Refuse a comparison of runs that share no question: its tests compare nothing.

        Runs of two releases (``--allow-mixed``) can give every id another text, so nothing is
        paired; all-NaN tables would read as a result.

        Raises:
            ConfigError: no question is shared.
        """
        if not self.shared_questions:
            raise _nothing_shared(self.label_a, self.label_b)

    @property
    def shared_samples(self) -> int:
        """(question, trial) pairs present in both runs."""
        return len(self.pairs)

    @property
    def differences(self) -> pd.DataFrame:
        """The pairs on which the runs' outcomes differ (another letter, or another status)."""
        return self.select(("disagree",))

    def counts(self) -> dict[str, int]:
        """Pairs per :data:`AGREEMENTS` entry: the cells of a McNemar table, and the errors."""
        found = self.pairs["agreement"].value_counts()
        return {agreement: int(found.get(agreement, 0)) for agreement in AGREEMENTS}

    def select(self, only: Sequence[str]) -> pd.DataFrame:
        """The pairs in any of ``only`` (:data:`SELECTIONS`), in question order.

        Raises:
            ConfigError: an unknown selection.
        """
        unknown = [name for name in only if name not in SELECTIONS] or ([] if only else [""])
        if unknown:
            raise ConfigError(
                f"{not_one_of('--only', unknown[0], SELECTIONS)} (comma-separated; default "
                f"{','.join(DEFAULT_SELECTION)})"
            )
        chosen = self.pairs["agreement"].isin(only)
        if "disagree" in only:
            chosen |= self.pairs["a"] != self.pairs["b"]
        return self.pairs[chosen].reset_index(drop=True)


def _nothing_shared(label_a: str, label_b: str) -> ConfigError:
    """The refusal of two runs that share no question: their tests would compare nothing."""
    return ConfigError(
        f"{label_a} and {label_b} share no question (none asked with the same text and answer "
        "key), so there is nothing to compare; compare runs of one dataset (coordqa report "
        "--allow-mixed shows each run's own accuracy)"
    )


def compare_two_runs(
    run_a: QARun | RunStore | str | Path,
    run_b: QARun | RunStore | str | Path,
    *,
    allow_mixed: bool = False,
) -> RunComparison:
    """Both runs question by question, with the paired test per scope.

    Raises:
        ConfigError: the runs share no question (walkthrough 28: they were told to pass
            ``allow_mixed``, which then refused them so), or answered different question sets
            and ``allow_mixed`` is False.
    """
    first, second = read_qa_run(run_a), read_qa_run(run_b)
    label_a, label_b = run_labels([(r.manifest, r.path) for r in (first, second)])
    same = same_questions(question_contents(first), question_contents(second))
    if not same:  # said first: the advice of mixed sets, --allow-mixed, would not help
        raise _nothing_shared(label_a, label_b)
    identity = pd.DataFrame([question_set_row(r) for r in (first, second)])
    mixed = check_question_sets(identity, allow_mixed, "compare")
    samples_a = {s.key: s for s in first.samples()}
    samples_b = {s.key: s for s in second.samples()}
    questions = first.questions()
    rows = []
    for key in sorted(k for k in set(samples_a) & set(samples_b) if k[0] in same):
        a, b = samples_a[key], samples_b[key]
        question = questions[key[0]]
        rows.append(
            {
                "question_id": key[0],
                "trial": key[1],
                "game": question.game,
                "question_type": question.question_type,
                "answer": _answer(question.correct),
                "a": _outcome(a),
                "b": _outcome(b),
                "a_correct": a.correct,
                "b_correct": b.correct,
                "agreement": _agreement(a, b),
            }
        )
    columns = ["question_id", "trial", "game", "question_type", "answer", "a", "b"]
    pairs = pd.DataFrame(rows, columns=[*columns, "a_correct", "b_correct", "agreement"])
    scores_a, scores_b = load_scores(first), load_scores(second)
    paired = {}
    for scope in SCOPES:
        left = question_accuracy(_in_scope(scores_a, scope))
        right = question_accuracy(_in_scope(scores_b, scope))
        left, right = left.align(right, join="inner")
        left, right = left[left.index.isin(same)], right[right.index.isin(same)]
        paired[scope] = paired_difference(left.to_numpy(), right.to_numpy())
    analyses = (
        analyze_run(first, list(samples_a.values())),
        analyze_run(second, list(samples_b.values())),
    )
    return RunComparison(label_a, label_b, pairs, paired, mixed, len(same), analyses)


def _in_scope(scores: pd.DataFrame, scope: str) -> pd.DataFrame:
    return scores if scope == "overall" else scores[scores["question_type"] == scope]


# -- the run list ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSummary:
    """One run of ``coordqa runs list``."""

    path: Path
    """The run directory, as it can be typed from where the list was asked (the folder given,
    joined with the run's place in it)."""
    kind: str
    """``qa``, ``agentic`` or ``play``."""
    model: str
    """The model(s) of the run, or ``-`` for runs without one."""
    dataset: str
    """The dataset name (QA), the game (play) or the grid name (agentic)."""
    status: str
    """``running`` (a process is writing it now), ``finished``, ``failed`` (stopped on errors),
    ``interrupted`` (Ctrl-C), ``stopped`` (killed), ``incomplete`` (a QA run with errors or
    missing samples that ended otherwise) or ``created``."""
    accuracy: str
    """Overall QA accuracy, marked when the run is incomplete; ``-`` when nothing is scored and
    for other kinds."""
    questions: int | None
    """Questions in a QA run (after its filters: a ``--limit 40`` run has 40); None otherwise."""
    answered: str
    """QA: samples answered of those planned (``12/120``); other kinds read by a reader given
    to :func:`list_runs`: episodes played of those planned (``3/8 ep``, with ``, 5 skipped``
    when a player was not ready); ``-`` otherwise."""
    created: datetime
    """When the run was created (UTC)."""
    label: str | None = None
    """The run's label (``coordqa eval --label``), if it has one."""
    players: str | None = None
    """Who plays, for kinds read by a reader that says (:meth:`RunReader.players`: an agentic
    run's ``cac with itself``); None otherwise."""
    fingerprint: str | None = None
    """The content fingerprint of a QA run's dataset; None for other kinds."""


def _describe(manifest: RunManifest) -> tuple[str, str]:
    """The model and dataset columns of a run of any kind."""
    config = manifest.config
    models = ",".join(model_names(config)) or "-"
    if manifest.kind == "qa":
        dataset = manifest.dataset.name if manifest.dataset else "?"
    elif manifest.kind == "play":
        dataset = str(config.get("game", "?"))
    else:
        dataset = str(config.get("name", "grid"))
    return str(models), dataset


ENDED_BADLY = ("failed", "interrupted")
"""Manifest statuses that say more about an incomplete run than ``incomplete`` does."""


RunCounter = Callable[[RunStore], RunReader]
"""Opens a run of one kind for reading (``read_agentic_run``): how :func:`list_runs` counts the
episodes of kinds the core does not read itself."""


def _episodes(counts: RunCounts) -> str:
    """``3/8 ep``, and ``, 5 skipped`` when some episodes waited on a player not ready."""
    planned = "?" if counts.planned is None else str(counts.planned)
    skipped = f", {counts.skipped} skipped" if counts.skipped else ""
    return f"{counts.done}/{planned} ep{skipped}"


def _summarise(path: Path, readers: Mapping[str, RunCounter]) -> RunSummary:
    store = open_run(path)
    manifest = store.manifest
    model, dataset = _describe(manifest)
    status: str = manifest.status
    accuracy, answered, questions, players = "-", "-", None, None
    if status == "running":
        status = "stopped"  # unless a process holds it (checked below): it was killed
    if manifest.kind == "qa":
        analysis = analyze_run(QARun(store))
        mean = float(analysis.overall[0]["accuracy"])
        if not math.isnan(mean):
            accuracy = f"{mean:.3f}"
            accuracy += "" if analysis.complete else f" {INCOMPLETE_MARK}"
        expected = analysis.expected_samples
        scored = analysis.stored_samples - analysis.errors
        answered = f"{scored}/{expected if expected is not None else '?'}"
        questions = manifest.dataset.num_questions if manifest.dataset else None
        if analysis.complete:
            status = "finished"
        elif status not in (*ENDED_BADLY, "stopped"):
            status = "incomplete"
    elif manifest.kind in readers:
        reader = readers[manifest.kind](store)
        counts, players = reader.counts(), reader.players()
        answered = _episodes(counts)
        if status == "failed" and counts.skipped and not counts.failed:
            status = "incomplete"  # nothing failed: episodes wait for a player to be ready
    if store.being_written():
        status = "running"
    return RunSummary(
        path,
        manifest.kind,
        model,
        dataset,
        status,
        accuracy,
        questions,
        answered,
        manifest.created_at,
        manifest.label,
        players,
        manifest.dataset.fingerprint if manifest.kind == "qa" and manifest.dataset else None,
    )


def _told_apart(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """``summaries``, a QA run's dataset named with its fingerprint where needed.

    Where a run listed with it names the same dataset with other content (a file regenerated
    in place), as an eval set's summary names its members
    (:func:`~coordqa.dataset.identity.told_apart_by_content`).
    """
    contents: dict[str, list[str | None]] = {}
    for summary in summaries:
        contents.setdefault(summary.dataset, []).append(summary.fingerprint)
    return [
        replace(s, dataset=told_apart_by_content(s.dataset, s.fingerprint, contents[s.dataset]))
        for s in summaries
    ]


@dataclass(frozen=True)
class RunList:
    """What ``coordqa runs list`` shows: the runs it read, and the run folders it could not."""

    runs: list[RunSummary]
    """The readable runs, newest first."""
    unreadable: list[UnreadableRunError]
    """Run folders that cannot be read, each with what is wrong and what to do, by path."""


def list_runs(root: str | Path, readers: Mapping[str, RunCounter] | None = None) -> RunList:
    """Every run under ``root`` (newest first), and the run folders there that cannot be read.

    One damaged run (a cut manifest, records without a manifest, a damaged stream) is listed
    with its cause and fix instead of stopping the listing of the others.

    Args:
        root: the folder to search.
        readers: by run kind, the reader that counts its episodes (``agentic``, ``play``:
            kinds the core does not read itself; the command line gives them).

    Raises:
        StoreError: ``root`` is not a directory, or holds no run folder at all.
    """
    return list_runs_in([root], readers)[0]


def list_runs_in(
    roots: Sequence[str | Path], readers: Mapping[str, RunCounter] | None = None
) -> list[RunList]:
    """:func:`list_runs` of each of ``roots``, its datasets told apart across all of them.

    A dataset name is shown with its content's fingerprint where any run listed, under any of
    ``roots``, names it with other content: ``runs list runs/a runs/b`` of two runs of a file
    regenerated in place must not show both as plain ``fresh/`` because each sits in a folder
    of its own (walkthrough 21, R1). Every root is read before any is returned, so a missing
    one is refused before anything is listed.

    Raises:
        StoreError: one of ``roots`` is not a directory, or holds no run folder at all.
    """
    read = [_read_runs(Path(root), readers or {}) for root in roots]
    told = _told_apart([summary for summaries, _ in read for summary in summaries])
    listings, start = [], 0
    for summaries, unreadable in read:
        runs = told[start : start + len(summaries)]
        start += len(summaries)
        listings.append(_ordered(runs, unreadable))
    return listings


def _ordered(runs: Sequence[RunSummary], unreadable: Sequence[UnreadableRunError]) -> RunList:
    """``runs`` newest first (then by path), ``unreadable`` by path: the order of a listing."""
    return RunList(
        sorted(runs, key=lambda s: (s.created, str(s.path)), reverse=True),
        sorted(unreadable, key=lambda problem: problem.path),
    )


def joined_run_list(listings: Sequence[RunList]) -> RunList:
    """The runs of ``listings`` (:func:`list_runs_in`) as one listing, each run folder once.

    ``runs list A B`` shows one table, newest first across the folders, as ``ls A B`` lists
    files (walkthrough 22 R8: a heading and column names per folder); a run named twice (``runs
    runs/a``) is listed once, by the path it was first found by.
    """
    seen: set[Path] = set()
    runs, unreadable = [], []
    for listing in listings:
        for summary in listing.runs:
            if summary.path.resolve() not in seen:
                seen.add(summary.path.resolve())
                runs.append(summary)
        for problem in listing.unreadable:
            if problem.path.resolve() not in seen:
                seen.add(problem.path.resolve())
                unreadable.append(problem)
    return _ordered(runs, unreadable)


def _read_runs(
    base: Path, readers: Mapping[str, RunCounter]
) -> tuple[list[RunSummary], list[UnreadableRunError]]:
    """The runs under ``base`` as they read, and those that cannot be read (see list_runs)."""
    survey = survey_runs(base)
    if not survey.runs and not survey.unreadable:
        raise no_runs_under(base)
    summaries, unreadable = [], list(survey.unreadable)
    for path in survey.runs:
        try:
            summaries.append(_summarise(path, readers))
        except StoreError as exc:
            unreadable.append(UnreadableRunError.of_records(path, exc))
    return summaries, unreadable
