"""The board's public reading: rankings, submissions, datasets and grids, as pages, JSON and CSV.

- ``GET /api/entries`` (``?dataset=&game=&sort=&order=``), ``GET /api/entries.csv``,
  ``GET /api/submissions/{id}``, ``GET /api/datasets``;
- ``GET /api/agentic/entries`` (``?grid=&sort=&order=&origin=``), ``GET /api/grids``: the agentic
  track's ranking on one registered grid, and the grids;
- ``GET /``, ``GET /agentic`` and ``GET /submissions/{id}``: the pages. The rankings take
  ``?origin=all|board-run|uploaded`` (default: the server's ``--ranking``).

CSV cells that a spreadsheet would run as formulas are defused (:func:`csv_cell`).
"""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import HTMLResponse, PlainTextResponse

from coordqa.errors import CoordqaError
from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.db import LeaderboardError
from coordqa.leaderboard.pages import render_agentic, render_index, render_submission
from coordqa.leaderboard.routing import MAX_ID, BoardState, Page, Paging, State
from coordqa.leaderboard.views import (
    COLUMNS,
    COUNTS,
    UNCERTAINTY,
    AgenticBoard,
    AgenticBoardJSON,
    Board,
    BoardJSON,
    DatasetSummary,
    Detail,
    dataset_json,
    grid_json,
    load_agentic_board,
    load_board,
    load_detail,
)

__all__ = ["csv_cell", "entries_csv", "router"]


class EntriesPage(BoardJSON, Page):
    """A page of the QA ranking."""


class AgenticPage(AgenticBoardJSON, Page):
    """A page of a grid's ranking."""


router = APIRouter()
"""The reading routes."""

CSV_FIELDS = (
    "rank",
    "id",
    "display_name",
    "provider",
    "organisation",
    "parameters",
    "model_name",
    "origin",
    *(
        name
        for column in COLUMNS
        for name in (column, *(f"{column}_{part}" for part in UNCERTAINTY))
    ),
    "private",
    "private_se",
    "private_questions",
    "gap",
    "gap_se",
    "n_trials",
    *COUNTS,
    "verification",
    "reported_agrees",
    "provenance_checked",
    "created_at",
)


def entries_csv(board: Board) -> str:
    """The ranking as CSV (one row per entry, accuracies as fractions; formulas defused)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for entry in board.entries:
        writer.writerow({k: csv_cell(entry.get(k)) for k in CSV_FIELDS})
    return out.getvalue()


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet runs a cell that starts with one of these as a formula."""


def csv_cell(value: Any) -> Any:
    """A value for a CSV cell: text that a spreadsheet would run as a formula gets a ``'``."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def shown_origin(board: BoardState, origin: str | None) -> str | None:
    """The origin a ranking shows for ``?origin=`` (default: the server's ``--ranking``).

    None for ``all``. Both rankings take it from here, so ``--ranking board-run`` holds for both.
    """
    shown = origin or board.ranking
    return None if shown == "all" else shown


def qa_board(
    board: State,
    dataset: str | None = None,
    game: str | None = None,
    sort: str = "overall",
    order: str = "desc",
    origin: str | None = None,
) -> Board:
    """The QA ranking ``?dataset=&game=&sort=&order=&origin=`` asks for; a bad one is a 400."""
    if order not in ("asc", "desc"):
        raise HTTPException(400, f"order must be 'asc' or 'desc', got {order!r}")
    datasets = board.catalog.datasets
    if dataset and not any(dataset in (d.name, d.fingerprint) for d in datasets.values()):
        datasets.refresh()  # registered since the server started?
    try:
        return load_board(
            board.db,
            datasets,
            dataset=dataset,
            game=game,
            sort=sort,
            descending=order == "desc",
            origin=shown_origin(board, origin),
        )
    except CoordqaError as exc:
        raise HTTPException(400, str(exc)) from exc


QABoard = Annotated[Board, Depends(qa_board)]
"""A route parameter that receives the QA ranking its query string asks for."""


def agentic_board(
    board: State,
    grid: str | None = None,
    sort: str | None = None,
    order: str = "desc",
    origin: str | None = None,
) -> AgenticBoard:
    """The agentic ranking ``?grid=&sort=&order=&origin=`` asks for; a bad one is a 400."""
    if order not in ("asc", "desc"):
        raise HTTPException(400, f"order must be 'asc' or 'desc', got {order!r}")
    try:
        return load_agentic_board(
            board.db,
            board.catalog.grids,
            grid=grid,
            sort=sort,
            descending=order == "desc",
            origin=shown_origin(board, origin),
        )
    except CoordqaError as exc:
        raise HTTPException(400, str(exc)) from exc


GridBoard = Annotated[AgenticBoard, Depends(agentic_board)]
"""A route parameter that receives the agentic ranking its query string asks for."""


def detail(state: BoardState, submission_id: int) -> Detail:
    """One submission's detail; an unknown id is a 404."""
    if not 0 < submission_id <= MAX_ID:
        raise HTTPException(404, f"no submission with id {submission_id}")
    try:
        return load_detail(state.db, submission_id)
    except LeaderboardError as exc:
        raise HTTPException(404, str(exc)) from exc


# The API's answers are JSON already: their annotations are for the type checker, not
# response models that FastAPI would validate again (response_model=None).
@router.get("/api/entries", response_model=None)
def api_entries(page: Paging, ranking: QABoard) -> EntriesPage:
    """A page of the QA ranking as JSON."""
    whole = ranking.to_json()
    return EntriesPage(**{**whole, **page.of(whole["entries"])})


@router.get("/api/entries.csv", response_class=PlainTextResponse)
def api_entries_csv(ranking: QABoard) -> PlainTextResponse:
    """The QA ranking as a CSV download."""
    return PlainTextResponse(
        entries_csv(ranking),
        media_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="coordinationqa-leaderboard.csv"'},
    )


@router.get("/api/submissions/{submission_id}", response_model=None)
def api_submission(submission_id: int, board: State) -> Detail:
    """One submission as JSON."""
    return detail(board, submission_id)


@router.get("/api/agentic/entries", response_model=None)
def api_agentic_entries(page: Paging, ranking: GridBoard) -> AgenticPage:
    """A page of the agentic ranking as JSON."""
    whole = ranking.to_json()
    return AgenticPage(**{**whole, **page.of(whole["entries"])})


@router.get("/agentic", response_class=HTMLResponse)
def agentic_page(board: State, ranking: GridBoard) -> HTMLResponse:
    """The agentic ranking page."""
    return HTMLResponse(render_agentic(ranking, board.live))


@router.get("/api/grids", response_model=None)
def api_grids(board: State) -> list[JSONObject]:
    """The registered grids."""
    return [grid_json(g) for g in board.catalog.grids.values()]


@router.get("/api/datasets", response_model=None)
def api_datasets(board: State) -> list[DatasetSummary]:
    """The registered datasets."""
    return [dataset_json(d) for d in board.catalog.datasets.values()]


@router.get("/", response_class=HTMLResponse)
def index(board: State, ranking: QABoard) -> HTMLResponse:
    """The QA ranking page."""
    return HTMLResponse(render_index(ranking, board.live))


@router.get("/submissions/{submission_id}", response_class=HTMLResponse)
def submission_page(submission_id: int, board: State) -> HTMLResponse:
    """One submission's page."""
    return HTMLResponse(render_submission(detail(board, submission_id), board.live))
