"""Verification on arrival: QA replies re-scored on a known dataset, agentic episodes replayed.

Nothing a submitter reports is used for ranking. Each raw reply is mapped to an option with
:mod:`coordqa.choices` (through the same outcome rule as ``coordqa score``), and accuracies with
standard errors come from :func:`coordqa.analysis.accuracy_table` with one difference from
``coordqa report``: a reply marked as a failed call counts as wrong, since a submitter could
otherwise relabel wrong replies as failures. For a run without errors the leaderboard's numbers
are exactly what ``coordqa score`` + ``coordqa report`` print.

An agentic bundle names a grid the server registered (:mod:`coordqa.leaderboard.catalog`); its
episodes must be exactly that grid's for one agent and model, and each is replayed on a game
the server builds from the episode's game, layout, seed and options, to the game's end.

Neither track ranks a model that plays from the game rather than from its prompts (the offline
``bot``, which answers from a game's strong policy: :attr:`coordqa.llm.Provider.reads_context`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from coordqa.errors import CoordqaError, GameError, StoreError, UnknownNameError
from coordqa.jsonvalues import json_mapping, json_records
from coordqa.leaderboard.bundle import (
    AgenticBundle,
    BundleBase,
    QABundle,
    agent_label,
    format_keys,
    missing_keys,
)
from coordqa.leaderboard.catalog import BoardCatalog, KnownDataset, KnownGrid
from coordqa.leaderboard.coverage import coverage_fix, coverage_problem
from coordqa.leaderboard.names import clean_name
from coordqa.leaderboard.rankable import unrankable_problem
from coordqa.registry import Registry
from coordqa.words import counted, format_list

if TYPE_CHECKING:
    from coordqa.agentic import AgenticEpisode

__all__ = [
    "CATALOG_CHECKS",
    "MAX_READ_CHARS",
    "REPORT_TOLERANCE",
    "VERIFIERS",
    "Verified",
    "VerificationError",
    "agentic_grid",
    "agentic_metrics",
    "metrics_of",
    "qa_dataset",
    "refuse_unrankable",
    "verify_agentic",
    "score_agentic",
    "score_qa",
    "verify_qa",
]

MAX_READ_CHARS = 1_000_000
"""Most characters of reply text one QA bundle may ask the server to read, each reply counted
as :func:`coordqa.scoring.read_window` reads it (at most 2,001 characters). Reading costs up to
about 3 microseconds a character, so this bounds a bundle's scoring to a few CPU-seconds; real
runs read far less (198 questions x 10 trials of 500-character replies is 990,000)."""
REPORT_TOLERANCE = 5e-4
"""A reported accuracy further than this from the recomputed one is shown as a mismatch."""


class VerificationError(CoordqaError):
    """A bundle breaks a submission rule; ``status`` is the HTTP status to answer with."""

    def __init__(
        self, problem: str, status: int = 422, *, fix: str | None = None, field: str | None = None
    ) -> None:
        """Say the ``problem``, then, for someone who submits from a terminal, the ``fix``.

        A board-run job words its own fix (its submitter has no terminal on the board): it
        reads :attr:`problem` alone. ``field``: the bundle's field the refusal is about
        (``model.display_name``), sent with it so a client can name the option that sets it.
        """
        super().__init__(problem if fix is None else f"{problem}; {fix}")
        self.problem = problem
        self.status = status
        self.field = field


@dataclass
class Verified:
    """A re-scored submission: per-sample rows and every number shown on the leaderboard."""

    samples: list[dict[str, Any]]
    """One row per (question, trial): ids, game, type, status, correct, chosen index (the reply
    text stays in the stored bundle only)."""
    metrics: dict[str, Any]
    """Accuracy ± SE overall, per type, per game and per game x type, with outcome counts."""
    run: dict[str, Any]
    """Columns of the submission row: ``model_name``, ``dataset_fingerprint``, ``trials``."""
    mismatches: list[str] = field(default_factory=list)
    """Where the submitter's reported numbers disagree with the recomputed ones."""
    episodes: list[dict[str, Any]] = field(default_factory=list)
    """Agentic track: one row per replayed episode (key, pairing, seed, score, metrics)."""


def _check_count(bundle: QABundle, dataset: KnownDataset, max_trials: int) -> None:
    """Refuse more trials than the server ranks, or a reply count far from questions x trials.

    Both before any work proportional to trials: the manifest's ``trials`` is the submitter's
    word, so a bundle claiming 10^6 trials must cost no more than one that claims 3.
    """
    if bundle.trials > max_trials:
        raise VerificationError(
            f"manifest.config.trials is {bundle.trials}: this server ranks runs of at most "
            f"{counted(max_trials, 'trial')} per question",
            fix=f"run `coordqa eval --trials {max_trials}` (or fewer)",
        )
    expected, sent = len(dataset.rows) * bundle.trials, len(bundle.replies)
    if abs(expected - sent) > len(dataset.rows):
        raise VerificationError(
            f"manifest.config.trials is {bundle.trials}: dataset {dataset.name!r} "
            f"({counted(len(dataset.rows), 'question')}) x {counted(bundle.trials, 'trial')} needs "
            f"{counted(expected, 'reply', 'replies')}, "
            f"the bundle holds {sent}"
        )


def _check_reading(bundle: QABundle) -> None:
    """Refuse replies that would take more than :data:`MAX_READ_CHARS` characters to read."""
    from coordqa.scoring import READ_HEAD, READ_TAIL

    window = READ_HEAD + READ_TAIL + 1
    total = sum(min(len(reply.text or ""), window) for reply in bundle.replies)
    if total > MAX_READ_CHARS:
        raise VerificationError(
            f"the replies hold {total} characters to read (each reply counted up to {window}); "
            f"a bundle may ask for at most {MAX_READ_CHARS}",
            fix="submit fewer trials, or register the endpoint for the board to run (coordqa "
            "submit-endpoint)",
        )


def _check_keys(bundle: QABundle, dataset: KnownDataset, max_trials: int) -> None:
    _check_count(bundle, dataset, max_trials)
    _check_reading(bundle)
    present = [(r.question_id, r.trial) for r in bundle.replies]
    missing, duplicated, unknown = missing_keys(present, list(dataset.rows), bundle.trials)
    problems = []
    if unknown:
        problems.append(f"{len(unknown)} unknown (question_id, trial): {format_keys(unknown)}")
    if duplicated:
        problems.append(f"{len(duplicated)} duplicated: {format_keys(duplicated)}")
    if missing:
        problems.append(f"{len(missing)} missing: {format_keys(missing)}")
    if problems:
        raise VerificationError(
            f"the replies must hold every question of dataset {dataset.name!r} x "
            f"{counted(bundle.trials, 'trial')} exactly once; " + "; ".join(problems)
        )


def _score_rows(bundle: QABundle, dataset: KnownDataset) -> list[dict[str, Any]]:
    # The one outcome rule of coordqa.scoring (choose + is_correct + status mapping).
    from coordqa.scoring import reply_outcome

    rows = []
    for reply in bundle.replies:
        question = dataset.rows[reply.question_id]
        outcome = reply_outcome(
            reply.text, question["options"], question["correct"], question["question"]
        )
        choice = outcome.choice
        rows.append(
            {
                "question_id": reply.question_id,
                "scenario_id": question["scenario_id"],
                "game": question["game"],
                "question_type": question["question_type"],
                "trial": reply.trial,
                "status": outcome.status,
                "correct": outcome.correct,
                "choice": None if choice is None else choice.index,
                "n_options": len(question["options"]),
                "n_correct": len(question["correct"]),
            }
        )
    return rows


def metrics_of(samples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Every leaderboard number of one submission, from its per-sample rows.

    Errors (calls the submitter reports as failed) count as wrong: the server cannot tell a
    failed call from a wrong reply relabelled as one, so an error can never raise a number.
    """
    import pandas as pd

    from coordqa.analysis import accuracy_table, jp_failures, summarize_failures

    scores = pd.DataFrame(list(samples))
    failures = jp_failures(scores)

    def table(*by: str) -> list[dict[str, Any]]:
        return json_records(accuracy_table(scores, by=by, errors_count_as_wrong=True))

    return {
        "overall": table()[0],
        "by_type": table("question_type"),
        "by_game": table("game"),
        "by_game_type": table("game", "question_type"),
        "jp_failures": json_mapping(summarize_failures(failures)),
    }


def _mismatches(bundle: QABundle, metrics: Mapping[str, Any]) -> list[str]:
    reported = bundle.reported
    if reported is None:
        return []
    ours = {"overall": metrics["overall"]["accuracy"]}
    ours.update({row["question_type"]: row["accuracy"] for row in metrics["by_type"]})
    theirs: dict[str, float | None] = {"overall": reported.overall}
    theirs.update((str(kind), value) for kind, value in reported.by_type.items())
    problems = []
    for key, value in theirs.items():
        if value is None:
            continue
        mine = ours.get(key)
        if mine is None or abs(mine - value) > REPORT_TOLERANCE:
            shown = "absent" if mine is None else f"{mine:.4f}"
            problems.append(f"{key}: reported {value:.4f}, recomputed {shown}")
    return problems


def refuse_unrankable(model: str | None) -> None:
    """Refuse a model that plays from the game's state instead of its prompts (``bot``).

    The rule and its words are :func:`~coordqa.leaderboard.rankable.unrankable_problem`'s,
    which the bundle builder applies too.

    Raises:
        VerificationError: ``model`` reads its caller's context.
    """
    problem = unrankable_problem(model)
    if problem is not None:
        raise VerificationError(problem)


def verify_qa(bundle: QABundle, catalog: BoardCatalog) -> Verified:
    """Check a QA bundle against the dataset it names and re-score it.

    Raises:
        VerificationError: unknown dataset fingerprint (lists the known ones), more trials than
            the catalog's cap, or replies that miss, repeat or add (question_id, trial) pairs
            (names a few of each).
    """
    return score_qa(bundle, qa_dataset(bundle, catalog), catalog.max_trials)


def qa_dataset(bundle: QABundle, catalog: BoardCatalog) -> KnownDataset:
    """The registered dataset a QA bundle was run on: the cheap part of :func:`verify_qa`.

    A look-up, run before the submitter's quota is counted (:data:`CATALOG_CHECKS`), so a
    bundle the board could never rank is refused as such, not as over the quota.

    Raises:
        VerificationError: a model that is never ranked (``bot``), an unknown dataset.
    """
    model = bundle.manifest.config.get("model")
    refuse_unrankable(model if isinstance(model, str) else None)
    try:
        return catalog.dataset(bundle.dataset_fingerprint)
    except UnknownNameError as exc:
        raise VerificationError(str(exc)) from exc


def score_qa(bundle: QABundle, dataset: KnownDataset, max_trials: int) -> Verified:
    """Re-score a QA bundle on a known ``dataset`` (:func:`verify_qa` after the lookup).

    The board's worker also scores a job's private split with it.

    Raises:
        VerificationError: more trials than ``max_trials``, or replies that miss, repeat or add
            (question_id, trial) pairs.
    """
    _check_keys(bundle, dataset, max_trials)
    samples = _score_rows(bundle, dataset)
    metrics = metrics_of(samples)
    metrics["dataset"] = dataset.name
    metrics["dataset_version"] = dataset.version
    run = {
        "model_name": model_under_test(bundle),
        "dataset_fingerprint": bundle.dataset_fingerprint,
        "trials": bundle.trials,
    }
    return Verified(samples, metrics, run, _mismatches(bundle, metrics))


def _groups(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    from coordqa.analysis.stats import MeanSE

    scores: dict[tuple[Any, ...], list[float]] = {}
    for row in rows:
        scores.setdefault(tuple(row[k] for k in keys), []).append(float(row["score"]))
    return [
        {**dict(zip(keys, key, strict=True)), **MeanSE.of(values).to_json()}
        for key, values in sorted(scores.items(), key=lambda item: str(item[0]))
    ]


def agentic_metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean score ± SE per game and pairing kind (self/cross), and per exact pairing."""
    return {
        "episodes": len(rows),
        "by_game": _groups(rows, ("game", "pairing")),
        "by_pairing": _groups(rows, ("game", "layout", "partner", "position")),
    }


def model_under_test(bundle: BundleBase) -> str:
    """The model a bundle's run tested, as its entry's ``model_name`` column holds it.

    A QA run's model, or an agentic run's agent and model (``cac[openai/gpt-4o]``; one per
    bundle, checked on verification). It is read before anything is verified, so that results
    already stored are compared with their entry by model too: another model's identical
    replies are not that entry's run, and its refusal says so.

    Raises:
        VerificationError: an agentic episode's agent and model are no readable name.
    """
    if not isinstance(bundle, AgenticBundle):
        return str(bundle.manifest.config.get("model", "?"))
    spec = bundle.episodes[0].get("spec")
    agent = spec.get("agent") if isinstance(spec, dict) else None
    model = spec.get("model") if isinstance(spec, dict) else None
    if not isinstance(agent, str) or not (model is None or isinstance(model, str)):
        raise VerificationError("episodes.0: spec names no agent and model")
    try:
        return clean_name(agent_label(agent, model), what="agent and model")
    except ValueError as exc:
        raise VerificationError(f"episodes: {exc}") from exc


def _episodes(bundle: AgenticBundle) -> list[AgenticEpisode]:
    """The bundle's episode records, parsed; each one at most once."""
    from coordqa.agentic import AgenticEpisode

    episodes = []
    for number, record in enumerate(bundle.episodes):
        try:
            episodes.append(AgenticEpisode.from_record(record))
        except StoreError as exc:
            raise VerificationError(f"episodes.{number}: {exc}") from exc
    counts = Counter(e.key for e in episodes)
    repeated = sorted(k for k, n in counts.items() if n > 1)
    if repeated:
        raise VerificationError(f"episodes stored more than once: {', '.join(repeated[:5])}")
    return episodes


def _check_one_configuration(episodes: list[AgenticEpisode]) -> None:
    """Refuse episodes of one game played with different agent options or sampling.

    An entry is one configuration: a grid (through its preset or its per-game options) may set
    them per game, but never per episode, or a submitter could keep each seed's best setting.
    """
    configurations: dict[str, set[str]] = {}
    for episode in episodes:
        setting = json.dumps(
            [dict(episode.spec.agent_options), episode.spec.generate], sort_keys=True
        )
        configurations.setdefault(episode.spec.game, set()).add(setting)
    for game, settings in sorted(configurations.items()):
        if len(settings) > 1:
            shown = format_list(sorted(settings))
            raise VerificationError(
                f"the {game} episodes use {len(settings)} configurations (agent options and "
                f"sampling: {shown}); an entry plays each game with one configuration",
                fix="run one grid per configuration and submit each",
            )


def _check_coverage(episodes: list[AgenticEpisode], grid: KnownGrid) -> None:
    """The episodes must play each task of the grid exactly once, with one agent and model.

    A task is everything the grid fixes (game, layout, seed, partner, seat, game options such
    as the horizon, preset), so a forged horizon or a cherry-picked subset of seeds is refused
    here, before anything is replayed; so is a game played with several configurations. (A
    task played twice would need two configurations, or two episodes with one key, refused on
    reading.)
    """
    tested = sorted({agent_label(e.spec.agent, e.spec.model) for e in episodes})
    if len(tested) != 1:
        raise VerificationError(
            f"a submission ranks one agent and model; this one tests {', '.join(tested)}"
        )
    _check_one_configuration(episodes)
    played = [e.spec.task.key for e in episodes]
    problem = coverage_problem(played, grid.name, grid.version, grid.tasks())
    if problem is not None:
        spec = episodes[0].spec
        fix = coverage_fix(played, grid.tasks(), grid.play, spec.agent, spec.model)
        raise VerificationError(problem, fix=fix)


def verify_agentic(bundle: AgenticBundle, catalog: BoardCatalog) -> Verified:
    """Check an agentic bundle against its registered grid and replay every episode.

    Every seat the server can play (partners, and a non-LLM agent) is asked again at each of
    its turns (:func:`coordqa.agentic.verify_episodes`); a partner it cannot play (SAD/OBL
    weights not registered here) marks the entry "partner unverified" (``metrics
    ["partner_check"]``), which the board ranks apart.

    Raises:
        VerificationError: an unknown grid, a malformed or repeated episode, several agents,
            models or per-game configurations under test, episodes that miss or leave the grid,
            or an episode whose start is not its game's, that stops before the game ends, whose
            partner chooses other moves than the stored ones, or that does not replay to its
            stored score and metrics (named by its key).
    """
    grid = agentic_grid(bundle, catalog)
    try:
        return score_agentic(bundle, grid)
    except VerificationError as exc:
        same = _grid_of_these_tasks(bundle, catalog, grid)
        if same is None:
            raise
        raise VerificationError(
            f"{exc.problem}. These episodes play exactly the tasks of grid {same!r} registered "
            f"here: submit them with --grid {same} (a saved bundle keeps the grid it was made "
            f"for: make it again from the run's folder, `coordqa submit RUN_DIR --grid {same}`)"
        ) from exc


def agentic_grid(bundle: AgenticBundle, catalog: BoardCatalog) -> KnownGrid:
    """The registered grid an agentic bundle names: the cheap part of :func:`verify_agentic`.

    Raises:
        VerificationError: no grid of that name is registered (the closest names offered).
    """
    try:
        return catalog.grid(bundle.grid)
    except UnknownNameError as exc:
        raise VerificationError(str(exc)) from exc


def _grid_of_these_tasks(
    bundle: AgenticBundle, catalog: BoardCatalog, refused: KnownGrid
) -> str | None:
    """The registered grid whose tasks the bundle's episodes are, other than ``refused``.

    A changed grid file is registered under a new name (``my-grid-v2``) while its ``name:``
    still says the old one, so a run of it is sent under the old name; the board knows by its
    tasks which grid it played, and says so.
    """
    played = {e.spec.task.key for e in _episodes(bundle)}
    for name, grid in sorted(catalog.grids.items()):
        if grid.fingerprint != refused.fingerprint and set(grid.tasks()) == played:
            return name
    return None


def score_agentic(bundle: AgenticBundle, grid: KnownGrid) -> Verified:
    """Check an agentic bundle against ``grid`` and replay it (:func:`verify_agentic`'s check).

    The board's worker checks a board-run grid, with its secret seeds, with it.

    Raises:
        VerificationError: as :func:`verify_agentic`.
    """
    from coordqa.agentic import shipped_checkpoints_only, verify_episodes

    episodes = _episodes(bundle)
    _check_coverage(episodes, grid)
    refuse_unrankable(episodes[0].spec.model)
    try:
        with shipped_checkpoints_only():  # what submit asks a run to have played
            replayed = verify_episodes(episodes)
    except GameError as exc:
        raise VerificationError(f"an episode failed its replay: {exc}") from exc
    rows = [
        {
            "key": v.key,
            "game": v.spec.game,
            "layout": v.spec.layout,
            "partner": v.spec.partner or "self",
            "pairing": "self" if v.spec.self_play else "cross",
            "position": v.spec.position,
            "seed": v.spec.seed,
            "score": v.score,
            "metrics": v.metrics,
        }
        for v in replayed
    ]
    metrics = agentic_metrics(rows)
    unchecked = sorted({v.unchecked for v in replayed if v.unchecked})
    metrics["partner_check"] = {"verified": not unchecked, "unchecked": unchecked}
    mismatches = []
    ours = {f"{g['game']}/{g['pairing']}": g["mean"] for g in metrics["by_game"]}
    for key, value in (bundle.reported or {}).items():
        if value is not None and (ours.get(key) is None or abs(ours[key] - value) > 1e-9):
            mismatches.append(f"{key}: reported {value:.4f}, recomputed {ours.get(key)}")
    run = {
        "model_name": model_under_test(bundle),
        "grid_fingerprint": grid.fingerprint,
        "trials": len(rows),
    }
    metrics["grid"] = grid.name
    return Verified([], metrics, run, mismatches, rows)


VERIFIERS: Registry[Callable[[Any, BoardCatalog], Verified]] = Registry("submission track verifier")
"""Verifier per track (the keys of :data:`coordqa.leaderboard.bundle.TRACKS`)."""
VERIFIERS.add("qa", verify_qa)
VERIFIERS.add("agentic", verify_agentic)

CATALOG_CHECKS: Registry[Callable[[Any, BoardCatalog], object]] = Registry(
    "submission track catalog check"
)
"""The cheap first step of each track's verifier: what the bundle names is registered here.
The intake runs it before the quota, and the verifier's re-scoring after it (walkthrough 17,
R3: a bundle of an unknown grid was refused as over the quota, then as invalid)."""
CATALOG_CHECKS.add("qa", qa_dataset)
CATALOG_CHECKS.add("agentic", agentic_grid)
