"""Read side: the ranking, the random baseline, correlations and one submission's breakdown.

The HTML pages, the JSON API, the CSV export and the static site all render what these
functions return, so the four never disagree. Entries are ranked within one dataset (numbers
on different question sets are not comparable) and, optionally, one game.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, defer

from coordqa.errors import UnknownNameError
from coordqa.jsonvalues import JSONObject, JSONValue, json_mapping, json_records
from coordqa.leaderboard.catalog import KnownDataset, KnownGrid
from coordqa.leaderboard.db import (
    EPISODE_FIELDS,
    Database,
    Endpoint,
    EpisodeResult,
    Job,
    LeaderboardError,
    SampleResult,
    Submission,
    shown_as,
)
from coordqa.records import QUESTION_TYPES

if TYPE_CHECKING:
    from coordqa.leaderboard.jobs import JobView

__all__ = [
    "COLUMNS",
    "ORIGINS",
    "UNCERTAINTY",
    "AgenticBoard",
    "AgenticBoardJSON",
    "AgenticDetail",
    "Board",
    "BoardJSON",
    "DatasetSummary",
    "Detail",
    "QADetail",
    "agentic_entry_row",
    "load_agentic_board",
    "baseline_row",
    "dataset_json",
    "entry_row",
    "grid_json",
    "load_board",
    "load_detail",
]

COLUMNS = ("overall", *QUESTION_TYPES)
"""Accuracy columns of the ranking, each with a ``<name>_se`` column beside it."""
COUNTS = ("answered", "ambiguous", "no_answer", "error")
SORTABLE = (*COLUMNS, "display_name", "n_trials", "error", "created_at", "private", "gap")
"""Columns the ranking can be sorted by (``?sort=``)."""
ORIGINS = ("uploaded", "board-run")
"""Where an entry came from: a bundle a submitter sent, or a job the board ran itself."""
CHART_SIZE = 220
"""Side of a correlation chart's plot area, in SVG pixels."""

BaselineRow = dict[str, float | str | None]
"""The random baseline as a ranking row: ``display_name`` and each accuracy column (its
uncertainty columns None: a baseline is exact)."""


class DatasetSummary(TypedDict):
    """A dataset as the JSON API names it."""

    name: str
    version: str | None
    fingerprint: str
    questions: int


class ChartPoint(TypedDict):
    """One entry on a correlation chart: its scores and its SVG position."""

    id: int
    label: str
    x: float
    y: float
    px: float
    py: float


class Chart(TypedDict):
    """A scatter of one score (``x``) against JP across the ranked entries."""

    x: str
    y: str
    size: int
    points: list[ChartPoint]


class BoardJSON(TypedDict):
    """The QA ranking as the JSON API gives it (:meth:`Board.to_json`)."""

    origin: str
    dataset: DatasetSummary | None
    datasets: list[DatasetSummary]
    game: str | None
    sort: str
    descending: bool
    entries: list[JSONObject]
    random_baseline: BaselineRow
    correlations: list[JSONObject]


@dataclass
class Board:
    """Everything the ranking page shows."""

    dataset: KnownDataset | None
    """The dataset ranked (None when the server knows none)."""
    datasets: list[KnownDataset]
    """Every known dataset, for the dataset switch."""
    game: str | None
    """The game filter (None: all games)."""
    games: list[str]
    """Games of the dataset, for the game filter."""
    entries: list[JSONObject]
    """Visible submissions, ranked (:func:`entry_row`)."""
    baseline: BaselineRow
    """The random baseline as a reference row."""
    correlations: list[JSONObject]
    """EC vs JP and ToM vs JP across entries: Pearson and Spearman."""
    charts: list[Chart] = field(default_factory=list)
    """Scatter points (SVG coordinates) per correlation."""
    sort: str = "overall"
    """Sort column."""
    descending: bool = True
    """Sort direction."""
    origin: str | None = None
    """``board-run``: only the entries the board ran itself; None: every entry."""

    def to_json(self) -> BoardJSON:
        """The JSON API form."""
        return {
            "origin": self.origin or "all",
            "dataset": None if self.dataset is None else dataset_json(self.dataset),
            "datasets": [dataset_json(d) for d in self.datasets],
            "game": self.game,
            "sort": self.sort,
            "descending": self.descending,
            "entries": self.entries,
            "random_baseline": self.baseline,
            "correlations": self.correlations,
        }


def dataset_json(dataset: KnownDataset) -> DatasetSummary:
    """A dataset as the JSON API names it: name, version, fingerprint and size."""
    return {
        "name": dataset.name,
        "version": dataset.version,
        "fingerprint": dataset.fingerprint,
        "questions": len(dataset.rows),
    }


UNCERTAINTY = ("se", "ci_low", "ci_high", "n_questions")
"""Beside each accuracy column ``c``: ``c_se`` (standard error across trials), ``c_ci_low`` and
``c_ci_high`` (95% bootstrap interval over questions) and ``c_n_questions``: a deterministic model
has an SE of 0, while the questions it was asked still leave its accuracy uncertain."""


def _cells(
    overall: Mapping[str, Any] | None, by_type: Mapping[str, Mapping[str, Any]]
) -> dict[str, float | None]:
    row: dict[str, float | None] = {}
    for column, source in (("overall", overall), *((t, by_type.get(t)) for t in QUESTION_TYPES)):
        row[column] = None if source is None else source["accuracy"]
        for part in UNCERTAINTY:
            row[f"{column}_{part}"] = None if source is None else source.get(part)
    return row


def _utc(moment: datetime) -> datetime:
    """SQLite returns naive datetimes; every stored time is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def entry_row(sub: Submission, game: str | None = None) -> JSONObject | None:
    """One ranking row of ``sub`` (restricted to ``game``); None when it has no such game."""
    metrics = sub.metrics
    if game is None:
        overall = metrics["overall"]
        by_type = {r["question_type"]: r for r in metrics["by_type"]}
    else:
        overall = next((r for r in metrics["by_game"] if r["game"] == game), None)
        if overall is None:
            return None
        by_type = {r["question_type"]: r for r in metrics["by_game_type"] if r["game"] == game}
    return {
        **_common(sub),
        "dataset_fingerprint": sub.dataset_fingerprint,
        "n_trials": sub.trials,
        **_cells(overall, by_type),
        **{status: overall[status] for status in COUNTS},
        "games": {
            r["game"]: {"accuracy": r["accuracy"], "se": r["se"]} for r in metrics["by_game"]
        },
        **_private_cells(metrics, game),
    }


def _private_cells(metrics: Mapping[str, Any], game: str | None) -> dict[str, float | None]:
    """A board-run entry's private split and its gap to the public release (None otherwise).

    The gap is public minus private overall accuracy, with the standard error of a difference
    of independent means; a large positive gap says the model does better on the questions it
    could have seen than on fresh ones (contamination). Per game, the private split is not
    broken down (too few questions), so the gap is left out.
    """
    private = metrics.get("private")
    if private is None or game is not None:
        return {
            "private": None,
            "private_se": None,
            "private_questions": None,
            "gap": None,
            "gap_se": None,
        }
    public, fresh = metrics["overall"], private["overall"]
    known = public["se"] is not None and fresh["se"] is not None  # None: one trial, no SE
    return {
        "private": fresh["accuracy"],
        "private_se": fresh["se"],
        "private_questions": private["questions"],
        "gap": public["accuracy"] - fresh["accuracy"],
        "gap_se": math.sqrt(public["se"] ** 2 + fresh["se"] ** 2) if known else None,
    }


_BASELINES: dict[tuple[str, str | None], BaselineRow] = {}
"""Baselines by (dataset fingerprint, game): a dataset's content never changes."""


def baseline_row(dataset: KnownDataset, game: str | None = None) -> BaselineRow:
    """The random baseline (expected accuracy of a uniform guess) per column."""
    key = (dataset.fingerprint, game)
    if key not in _BASELINES:
        _BASELINES[key] = _baseline(dataset, game)
    return dict(_BASELINES[key])


def _baseline(dataset: KnownDataset, game: str | None) -> BaselineRow:
    import pandas as pd

    from coordqa.analysis import accuracy_table

    rows = [
        {
            "question_id": qid,
            "scenario_id": row["scenario_id"],
            "game": row["game"],
            "question_type": row["question_type"],
            "trial": 0,
            "status": "answered",
            "correct": False,
            "n_options": len(row["options"]),
            "n_correct": len(row["correct"]),
        }
        for qid, row in dataset.rows.items()
        if game is None or row["game"] == game
    ]
    if not rows:
        return {"display_name": "random baseline", **_cells(None, {})}
    scores = pd.DataFrame(rows)
    overall = json_records(accuracy_table(scores, by=()))[0]
    by_type = {r["question_type"]: r for r in json_records(accuracy_table(scores))}
    row: BaselineRow = {"display_name": "random baseline"}
    for column, source in (("overall", overall), *((t, by_type.get(t)) for t in QUESTION_TYPES)):
        row[column] = None if source is None else _number(source["random_baseline"])
        row.update({f"{column}_{part}": None for part in UNCERTAINTY})
    return row


def _sort_key(column: str, descending: bool) -> Any:
    def key(entry: Mapping[str, Any]) -> tuple[int, Any]:
        value = entry.get(column)
        missing = value is None or (isinstance(value, float) and math.isnan(value))
        if isinstance(value, str):
            value = value.casefold()
        return (1 if missing else 0, 0 if missing else (_negate(value) if descending else value))

    return key


def _negate(value: Any) -> Any:
    if isinstance(value, (int, float)):
        return -value
    return _Reversed(value)


@dataclass(frozen=True)
class _Reversed:
    value: Any

    def __lt__(self, other: _Reversed) -> bool:
        return bool(self.value > other.value)


def _number(value: JSONValue) -> float | None:
    """A score read back from JSON (None when it has none: JSON writes NaN as null)."""
    return value if isinstance(value, int | float) else None


def _num(value: JSONValue) -> float:
    """An entry's score as a float (NaN when it has none)."""
    number = _number(value)
    return math.nan if number is None else float(number)


def _pick_dataset(
    datasets: Mapping[str, KnownDataset], counts: Mapping[str, int], wanted: str | None
) -> KnownDataset | None:
    from coordqa.dataset import DEFAULT_DATASET, dataset_name, is_bundled

    if not datasets:
        return None
    if wanted:
        if is_bundled(wanted):
            wanted = dataset_name(wanted)  # an alias such as "coordinationqa" names a release
        for fingerprint, dataset in datasets.items():
            if wanted in (dataset.name, fingerprint) or (
                len(wanted) >= 8 and fingerprint.startswith(wanted)
            ):
                return dataset
        names = ", ".join(sorted(d.name for d in datasets.values()))
        raise UnknownNameError(f"unknown dataset {wanted!r}; known: {names}")
    for dataset in datasets.values():
        if dataset.name == DEFAULT_DATASET:
            return dataset
    return max(datasets.values(), key=lambda d: (counts.get(d.fingerprint, 0), d.name))


def _chart(entries: Sequence[Mapping[str, Any]], x: str) -> Chart:
    points: list[ChartPoint] = [
        {
            "id": e["id"],
            "label": e["display_name"],
            "x": e[x],
            "y": e["JP"],
            "px": round(e[x] * CHART_SIZE, 1),
            "py": round((1 - e["JP"]) * CHART_SIZE, 1),
        }
        for e in entries
        if e.get(x) is not None and e.get("JP") is not None
    ]
    return {"x": x, "y": "JP", "size": CHART_SIZE, "points": points}


def shared_ranks(scores: Sequence[float | None]) -> list[int | None]:
    """Each score's rank, highest first; equal scores share one (1, 2, 2, 4), None has none.

    Neither of two equal entries is ahead: both boards rank so (walkthrough 31: the QA board
    ranked three equal entries 2, 3 and 4). Scores equal to 9 decimals are equal.

    >>> shared_ranks([0.9, 0.5, 0.5, 0.1, None])
    [1, 2, 2, 4, None]
    """
    scored = [round(score, 9) for score in scores if score is not None]
    return [
        None if score is None else 1 + sum(other > round(score, 9) for other in scored)
        for score in scores
    ]


def ranked_submissions(track: str, origin: str | None) -> Select[Submission]:
    """The query of a track's visible submissions, only those of ``origin`` when given.

    The one home of the origin rule, so that both rankings show the same entries for the same
    ``?origin=`` (``board-run``: the entries the board ran itself; None: every entry).

    Raises:
        UnknownNameError: an unknown origin (with the allowed values).
    """
    if origin not in (None, *ORIGINS):
        raise UnknownNameError(f"unknown origin {origin!r}; allowed: all, {', '.join(ORIGINS)}")
    query = (
        select(Submission)
        .options(defer(Submission.bundle))
        .where(Submission.track == track, Submission.hidden.is_(False))
    )
    return query if origin is None else query.where(Submission.origin == origin)


def load_board(
    db: Database,
    datasets: Mapping[str, KnownDataset],
    *,
    dataset: str | None = None,
    game: str | None = None,
    sort: str = "overall",
    descending: bool = True,
    origin: str | None = None,
) -> Board:
    """The ranking of visible QA submissions on one dataset, optionally one game.

    ``origin`` ``board-run`` ranks only the entries the board ran itself (None: all entries).

    Raises:
        UnknownNameError: an unknown dataset, game, origin or sort column (with the allowed
            values).
    """
    from coordqa.analysis import correlate

    if sort not in SORTABLE:
        raise UnknownNameError(f"unknown sort column {sort!r}; allowed: {', '.join(SORTABLE)}")
    query = ranked_submissions("qa", origin)
    with db.session() as session:
        subs = list(session.scalars(query))
    counts: dict[str, int] = defaultdict(int)
    for sub in subs:
        if sub.dataset_fingerprint is not None:
            counts[sub.dataset_fingerprint] += 1
    chosen = _pick_dataset(datasets, counts, dataset)
    games = sorted({str(r["game"]) for r in chosen.rows.values()}) if chosen else []
    if game is not None and game not in games:
        raise UnknownNameError(f"unknown game {game!r} for this dataset; allowed: {games}")
    rows = [
        row
        for sub in sorted(subs, key=lambda s: s.id)
        if chosen is not None and sub.dataset_fingerprint == chosen.fingerprint
        for row in [entry_row(sub, game)]
        if row is not None
    ]
    rows.sort(key=_sort_key(sort, descending))
    ranks = shared_ranks([_number(row["overall"]) for row in rows])
    for row, rank in zip(rows, ranks, strict=True):
        row["rank"] = rank
    correlations = [
        json_mapping(
            asdict(correlate([_num(e[x]) for e in rows], [_num(e["JP"]) for e in rows], (x, "JP")))
        )
        for x in ("EC", "ToM")
    ]
    return Board(
        dataset=chosen,
        datasets=sorted(datasets.values(), key=lambda d: d.name),
        game=game,
        games=games,
        entries=rows,
        baseline=baseline_row(chosen, game) if chosen else {},
        correlations=correlations,
        charts=[_chart(rows, x) for x in ("EC", "ToM")],
        sort=sort,
        descending=descending,
        origin=origin,
    )


CHECKS = {"qa": "replies re-scored", "agentic": "episodes replayed"}
"""What the server verified, per track: exactly this. Who or what produced the replies or
moves is the submitter's word (the model fields), unless an admin marked its provenance."""
PARTNER_UNVERIFIED = "episodes replayed; partner unverified"
"""An agentic entry with a partner the server could not play (or checked before partners were
re-played): its moves were replayed through the engine, its partner's choices not checked."""


def partner_check(sub: Submission) -> JSONObject:
    """Whether an agentic entry's partners were re-played, and why not (older entries: not)."""
    found = sub.metrics.get("partner_check")
    if found is None:
        return {"verified": False, "unchecked": ["submitted before partners were re-played"]}
    return dict(found)


def _verification(sub: Submission) -> str:
    if sub.track == "agentic" and not _partner_verified(partner_check(sub)):
        return PARTNER_UNVERIFIED
    return CHECKS[sub.track]


def _partner_verified(check: JSONValue) -> bool:
    """Whether a :func:`partner_check` says every partner was re-played."""
    return isinstance(check, Mapping) and bool(check["verified"])


def _common(sub: Submission) -> JSONObject:
    """Entry fields every track shows."""
    return {
        "id": sub.id,
        **shown_as(sub),
        "model_name": sub.model_name,
        "track": sub.track,
        "coordqa_version": sub.coordqa_version,
        "created_at": _utc(sub.created_at).isoformat(),
        "verification": _verification(sub),
        "reported_agrees": None if sub.reported is None else sub.agrees,
        "mismatches": list(sub.mismatches),
        "provenance_checked": sub.provenance_at is not None,
        "provenance_note": sub.provenance_note,
        "flags": list(sub.flags or ()),
        "origin": sub.origin,
        "job_id": sub.job_id,
    }


PAIRING_LABELS = {"self": "self-play", "cross": "cross-play"}

AGENTIC_OVERALL = "overall"
"""The agentic board's ranking column (:func:`overall_scores`)."""

AGENTIC_RANKING_RULE = (
    "Entries are ranked by overall: the mean, over the grid's score columns, of the entry's "
    "score as a share of the best ranked entry's score in that column (1.00 is the best in "
    "every column; a column in which no entry scored above 0 is left out, and where no entry "
    "scored at all, all are tied at 0). Scores of different "
    "games are not comparable, so each counts by its share of the best. Equal overall scores "
    "share a rank. Sorting by another column reorders the rows; the rank stays."
)
"""How the agentic board ranks, as its page and API say it."""


def overall_scores(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[float | None]:
    """Each row's overall score (:data:`AGENTIC_RANKING_RULE`), in the order of ``rows``.

    The best of each column is taken over ``rows``; a row missing a column that counts has no
    overall score (None), rather than one made of the columns it has.

    >>> overall_scores([{"a": 2.0, "b": 0.0}, {"a": 1.0, "b": 0.0}], ["a", "b"])
    [1.0, 0.5]

    Where no entry scored in any column, every entry with all columns is tied at 0:

    >>> overall_scores([{"a": 0.0}, {"a": 0.0}, {}], ["a"])
    [0.0, 0.0, None]
    """
    best = {
        key: max((float(r[key]) for r in rows if r.get(key) is not None), default=0.0)
        for key in keys
    }
    counted = [key for key in keys if best[key] > 0]
    scores: list[float | None] = []
    for row in rows:
        if any(row.get(key) is None for key in counted or keys):
            scores.append(None)
        elif not counted:
            scores.append(0.0)  # no entry scored anywhere: all are tied, none is ahead
        else:
            scores.append(sum(float(row[key]) / best[key] for key in counted) / len(counted))
    return scores


class AgenticBoardJSON(TypedDict):
    """The agentic ranking as the JSON API gives it (:meth:`AgenticBoard.to_json`)."""

    grid: JSONObject | None
    grids: list[JSONObject]
    columns: list[dict[str, str]]
    sort: str
    descending: bool
    ranking: str
    origin: str
    entries: list[JSONObject]
    unverified: list[JSONObject]


@dataclass
class AgenticBoard:
    """Everything the agentic ranking page shows."""

    grid: KnownGrid | None
    """The grid ranked (None when the server has none registered)."""
    grids: list[KnownGrid]
    """Every registered grid, for the grid switch."""
    columns: list[dict[str, str]]
    """Score columns: one per game and pairing kind present (``key``, ``game``, ``pairing``,
    ``label``), in key order (a game's columns side by side, under one heading)."""
    entries: list[JSONObject]
    """Visible agentic submissions whose partners were re-played, sorted and ranked."""
    sort: str
    """Sort column (a column key, ``display_name``, ``episodes`` or ``created_at``)."""
    descending: bool = True
    """Sort direction."""
    unverified: list[JSONObject] = field(default_factory=list)
    """Visible entries with a partner the server could not play: sorted the same way, never
    ranked among the verified ones (``rank`` None)."""
    origin: str | None = None
    """``board-run``: only the entries the board ran itself; None: every entry."""

    @property
    def ranking(self) -> str:
        """How entries are ranked, in words (:data:`AGENTIC_RANKING_RULE`)."""
        return AGENTIC_RANKING_RULE

    def to_json(self) -> AgenticBoardJSON:
        """The JSON API form."""
        return {
            "grid": None if self.grid is None else grid_json(self.grid),
            "grids": [grid_json(g) for g in self.grids],
            "columns": self.columns,
            "sort": self.sort,
            "descending": self.descending,
            "ranking": self.ranking,
            "origin": self.origin or "all",
            "entries": self.entries,
            "unverified": self.unverified,
        }


def grid_json(grid: KnownGrid) -> JSONObject:
    """A grid as the JSON API shows it: name, version, fingerprint and what it fixes."""
    return {
        "name": grid.name,
        "version": grid.version,
        "fingerprint": grid.fingerprint,
        **grid.identity,
    }


def agentic_entry_row(sub: Submission) -> JSONObject:
    """One agentic ranking row: mean score ± SE per game and pairing kind."""
    row: JSONObject = {
        **_common(sub),
        "episodes": sub.metrics["episodes"],
        "partner_check": partner_check(sub),
    }
    for group in sub.metrics["by_game"]:
        key = f"{group['game']}/{group['pairing']}"
        row[key] = group["mean"]
        row[f"{key}_se"] = group["se"]
        row[f"{key}_n"] = group["n"]
    return row


def load_agentic_board(
    db: Database,
    grids: Mapping[str, KnownGrid],
    *,
    grid: str | None = None,
    sort: str | None = None,
    descending: bool = True,
    origin: str | None = None,
) -> AgenticBoard:
    """The agentic ranking on one registered grid: a column per game and pairing.

    Entries on different grids (other seeds, horizons or partners) are not comparable, so each
    grid has its own board; the default is the grid with the most visible entries. Entries with
    a partner the server could not re-play are listed apart (:attr:`AgenticBoard.unverified`).
    Scores of different games are not comparable either, so entries are ranked by their
    ``overall`` score (:func:`overall_scores`: each column as a share of its best ranked
    entry's score), the default sort; the rank does not follow another sort. ``origin`` as in
    :func:`ranked_submissions`: the best of each column is then the best of those entries.

    Raises:
        UnknownNameError: an unknown grid, origin or sort column (with the allowed ones).
    """
    query = ranked_submissions("agentic", origin)
    with db.session() as session:
        every = list(session.scalars(query))
    if grid is not None and grid not in grids:
        raise UnknownNameError(f"unknown grid {grid!r}; known: {', '.join(sorted(grids))}")
    counts = Counter(sub.grid_fingerprint for sub in every)
    chosen = grids[grid] if grid is not None else None
    if chosen is None and grids:
        chosen = max(grids.values(), key=lambda g: (counts[g.fingerprint], g.name))
    subs = [s for s in every if chosen is not None and s.grid_fingerprint == chosen.fingerprint]
    rows = [agentic_entry_row(sub) for sub in sorted(subs, key=lambda s: s.id)]
    keys = sorted(
        {k for sub in subs for k in (f"{g['game']}/{g['pairing']}" for g in sub.metrics["by_game"])}
    )
    columns = [
        {
            "key": k,
            "game": k.split("/")[0],
            "pairing": PAIRING_LABELS[k.split("/")[1]],
            "label": f"{k.split('/')[0]} {PAIRING_LABELS[k.split('/')[1]]}",
        }
        for k in keys
    ]
    allowed = (AGENTIC_OVERALL, *keys, "display_name", "episodes", "created_at")
    column = sort or AGENTIC_OVERALL
    if column not in allowed:
        raise UnknownNameError(f"unknown sort column {column!r}; allowed: {', '.join(allowed)}")
    ranked = [row for row in rows if _partner_verified(row["partner_check"])]
    overall = overall_scores(ranked, keys)
    for row, value, rank in zip(ranked, overall, shared_ranks(overall), strict=True):
        row[AGENTIC_OVERALL] = value
        row["rank"] = rank
    verified = sorted(ranked, key=_sort_key(column, descending))
    unverified: list[JSONObject] = sorted(
        (
            {**row, "rank": None, AGENTIC_OVERALL: None}
            for row in rows
            if not _partner_verified(row["partner_check"])
        ),
        key=_sort_key(column, descending),
    )
    return AgenticBoard(
        chosen,
        sorted(grids.values(), key=lambda g: g.name),
        columns,
        verified,
        column,
        descending,
        unverified,
        origin,
    )


class QuestionOutcome(TypedDict):
    """One stored sample of a QA entry, as its page lists it."""

    question_id: str
    scenario_id: str
    game: str
    question_type: str
    trial: int
    status: str
    correct: bool
    choice: int | None


class QADetail(TypedDict):
    """A QA entry's page: its ranking row, breakdowns and every scored sample."""

    track: Literal["qa"]
    job: JobView | None
    """The job behind a board-run entry (None: an uploaded one)."""
    private: JSONObject | None
    """A board-run entry's private split (accuracy on fresh scenarios)."""
    entry: JSONObject | None
    hidden: bool
    hidden_reason: str | None
    reported: JSONObject | None
    """The numbers the submitter reported (None: none)."""
    dataset: JSONValue
    dataset_version: JSONValue
    by_type: list[JSONObject]
    by_game: list[JSONObject]
    by_game_type: list[JSONObject]
    jp_failures: JSONValue
    scenarios: list[dict[str, str]]
    """Per scenario: ``game``, ``scenario_id`` and ``correct/trials`` per question type."""
    questions: list[QuestionOutcome]


class AgenticDetail(TypedDict):
    """An agentic entry's page: its ranking row, breakdowns and every replayed episode."""

    track: Literal["agentic"]
    job: JobView | None
    grid: JSONValue
    entry: JSONObject
    hidden: bool
    hidden_reason: str | None
    reported: JSONObject | None
    by_game: list[JSONObject]
    by_pairing: list[JSONObject]
    episodes: list[JSONObject]


Detail = QADetail | AgenticDetail
"""One submission's page data, by track."""


def load_detail(db: Database, submission_id: int) -> Detail:
    """One submission's page data; QA and agentic submissions have their own breakdowns.

    Raises:
        LeaderboardError: no submission has that id.
    """
    with db.session() as session:
        sub = session.get(Submission, submission_id)
        if sub is None:
            raise LeaderboardError(f"no submission with id {submission_id}")
        job = _job_facts(session, sub.job_id)
        if sub.track == "agentic":
            episodes = list(
                session.scalars(
                    select(EpisodeResult)
                    .where(EpisodeResult.submission_id == submission_id)
                    .order_by(EpisodeResult.key)
                )
            )
            return {
                "track": "agentic",
                "job": job,
                "grid": sub.metrics.get("grid"),
                "entry": agentic_entry_row(sub),
                "hidden": sub.hidden,
                "hidden_reason": sub.hidden_reason,
                "reported": sub.reported,
                "by_game": sub.metrics["by_game"],
                "by_pairing": sub.metrics["by_pairing"],
                "episodes": [{k: getattr(e, k) for k in EPISODE_FIELDS} for e in episodes],
            }
        samples = list(
            session.scalars(
                select(SampleResult)
                .where(SampleResult.submission_id == submission_id)
                .order_by(SampleResult.question_id, SampleResult.trial)
            )
        )
    entry = entry_row(sub)
    questions: list[QuestionOutcome] = [
        {
            "question_id": s.question_id,
            "scenario_id": s.scenario_id,
            "game": s.game,
            "question_type": s.question_type,
            "trial": s.trial,
            "status": s.status,
            "correct": s.correct,
            "choice": s.choice,
        }
        for s in samples
    ]
    return {
        "track": "qa",
        "job": job,
        "private": sub.metrics.get("private"),
        "entry": entry,
        "hidden": sub.hidden,
        "hidden_reason": sub.hidden_reason,
        "reported": sub.reported,
        "dataset": sub.metrics.get("dataset"),
        "dataset_version": sub.metrics.get("dataset_version"),
        "by_type": sub.metrics["by_type"],
        "by_game": sub.metrics["by_game"],
        "by_game_type": sub.metrics["by_game_type"],
        "jp_failures": sub.metrics["jp_failures"],
        "scenarios": _scenario_outcomes(questions),
        "questions": questions,
    }


def _job_facts(session: Session, job_id: int | None) -> JobView | None:
    """The public view of the job behind a board-run entry (seeds once it ended)."""
    from coordqa.leaderboard.jobs import job_json

    job = None if job_id is None else session.get(Job, job_id)
    if job is None:
        return None
    return job_json(job, session.get_one(Endpoint, job.endpoint_id))


def _scenario_outcomes(questions: Sequence[QuestionOutcome]) -> list[dict[str, str]]:
    """Per scenario and type: correct samples out of all trials (errors count as wrong)."""
    table: dict[tuple[str, str], dict[str, list[int]]] = {}
    for q in questions:
        cell = table.setdefault((q["game"], q["scenario_id"]), {}).setdefault(
            q["question_type"], [0, 0]
        )
        cell[0] += int(q["correct"])
        cell[1] += 1
    return [
        {
            "game": game,
            "scenario_id": scenario,
            **{t: (f"{c[0]}/{c[1]}" if (c := by_type.get(t)) else "") for t in QUESTION_TYPES},
        }
        for (game, scenario), by_type in sorted(table.items())
    ]
