"""The leaderboard web server: FastAPI app factory, JSON API, HTML pages and CSV export.

Routes:

- ``POST /api/submissions``: a bundle (bearer token needed); 201 new, 200 already stored,
  400 malformed JSON, 401 no, wrong or revoked token, 403 the token's quota is used, 408 the
  body came too slowly, 409 the same results are already an entry (``entry`` names it), 413
  too large, 422 refused (with the reason), 429 the token's rate limit (with Retry-After);
- ``GET /api/entries`` (``?dataset=&game=&sort=&order=&limit=&offset=``),
  ``GET /api/entries.csv``, ``GET /api/submissions/{id}``, ``GET /api/datasets``: public reading;
- ``GET /api/agentic/entries`` (``?grid=&sort=&order=&limit=&offset=``), ``GET /api/grids``: the
  agentic track's ranking on one registered grid, and the grids;
- ``POST /api/endpoints``: a board-run registration (bearer token; 201 with its queued jobs,
  422 refused), ``GET /api/jobs`` (``?limit=&offset=``) and ``GET /api/jobs/{id}``: the board's
  jobs (secret seeds once done; never a key, an endpoint's address or the admin's details);

The lists come in pages: ``limit`` (1 to :data:`MAX_PAGE`, default :data:`DEFAULT_PAGE`) rows
from ``offset`` (0 or more), with the ``total``; other values are answered 400 naming the range.
Ranks are those of the whole ranking, whatever the page.
- ``GET /``, ``GET /agentic`` and ``GET /submissions/{id}``: the pages. The rankings take
  ``?origin=all|board-run|uploaded`` (default: the server's ``--ranking``).

Every response carries :data:`coordqa.leaderboard.headers.SECURITY_HEADERS`; CSV cells that a
spreadsheet would run as formulas are defused (:func:`csv_cell`).

Re-scoring and database work run in the thread pool, so one slow submission does not stall
page views. This module imports FastAPI at the top: only the ``leaderboard`` commands import it.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, TypedDict

import anyio
from fastapi import FastAPI, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from coordqa.errors import ConfigError, CoordqaError
from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import (
    Database,
    DuplicateResultsError,
    LeaderboardError,
    QuotaError,
    open_database,
)
from coordqa.leaderboard.headers import add_security_headers
from coordqa.leaderboard.intake import SchemaError, accept, read_json, schema_error
from coordqa.leaderboard.jobs import (
    EndpointRequest,
    JobView,
    count_jobs,
    job_json,
    list_jobs,
    register_endpoint,
    unfinished_jobs,
)
from coordqa.leaderboard.limits import quota_reached, record_attempt
from coordqa.leaderboard.pages import Links, render_agentic, render_index, render_submission
from coordqa.leaderboard.settings import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_TRIALS,
    BoardRunSettings,
    SubmitterLimits,
)
from coordqa.leaderboard.tokens import authenticate
from coordqa.leaderboard.verify import VerificationError
from coordqa.leaderboard.views import (
    COLUMNS,
    COUNTS,
    ORIGINS,
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

__all__ = [
    "create_app",
    "csv_cell",
    "entries_csv",
]


class _Registered(TypedDict):
    """The answer to an endpoint registration: the endpoint, its queued jobs and their URLs."""

    endpoint: int
    jobs: list[JobView]
    urls: list[str]


class _Page(TypedDict):
    """A page of a ranking: the entries from ``offset``, and how many there are."""

    entries: list[JSONObject]
    total: int
    limit: int
    offset: int


class _EntriesPage(BoardJSON, _Page):
    """A page of the QA ranking."""


class _AgenticPage(AgenticBoardJSON, _Page):
    """A page of a grid's ranking."""


class _JobsPage(TypedDict):
    """A page of the board's jobs, newest first."""

    jobs: list[JobView]
    total: int
    limit: int
    offset: int


DEFAULT_PAGE = 100
"""Rows a list answers when no ``limit`` is given."""
MAX_PAGE = 500
"""Most rows one page of a list holds."""


def _page(limit: int, offset: int) -> tuple[int, int]:
    """``(limit, offset)`` when both are in range; else 400 naming the allowed values."""
    if not 1 <= limit <= MAX_PAGE:
        raise HTTPException(
            400, f"limit must be from 1 to {MAX_PAGE} (default {DEFAULT_PAGE}), got {limit}"
        )
    if not 0 <= offset <= MAX_ID:
        raise HTTPException(400, f"offset must be from 0 to {MAX_ID}, got {offset}")
    return limit, offset


def _page_of(entries: list[JSONObject], limit: int, offset: int) -> _Page:
    """The ranked ``entries`` from ``offset`` (at most ``limit``), with their total."""
    limit, offset = _page(limit, offset)
    page = entries[offset : offset + limit]
    return {"entries": page, "total": len(entries), "limit": limit, "offset": offset}


MAX_ENDPOINT_BYTES = 20_000
"""Largest endpoint registration (a few short fields)."""
BODY_TIMEOUT_S = 120.0
"""Seconds a submission's body has to arrive: 20 MB at 170 kB/s (headers have their own
deadline: :mod:`coordqa.leaderboard.serving`)."""

MAX_ID = 2**31 - 1
"""Largest id an ``Integer`` primary key holds on PostgreSQL; larger ones are answered 404
without a query (PostgreSQL would refuse to compare them with the column)."""

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


def _error(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer", **(headers or {})}
    return JSONResponse({"detail": message, **extra}, status_code=status, headers=headers)


async def _admit(request: Request, db: Database, limits: SubmitterLimits) -> int | JSONResponse:
    """The token id of a submission allowed in, or the error answering it.

    In order: authentication (401), the rate limit (429 with Retry-After), the quota (403);
    all before the body is read. The quota is checked again when the entry is stored.
    """
    token_id = await run_in_threadpool(authenticate, db, request.headers.get("authorization"))
    if token_id is None:
        return _error(
            401,
            "submitting needs a valid bearer token (Authorization: Bearer <token>); the token "
            "is unknown or revoked: ask the leaderboard admin for one "
            "(`coordqa leaderboard token create NAME`)",
        )
    if limits.per_hour is not None:
        wait = await run_in_threadpool(record_attempt, db, token_id, limits.per_hour)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            return _error(
                429,
                f"this token reached the server's limit of {limits.per_hour} submissions per "
                f"hour; try again in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )
    if limits.quota is not None:
        refusal = await run_in_threadpool(quota_reached, db, token_id, limits.quota)
        if refusal is not None:
            return _error(403, refusal)
    return token_id


class _TooLarge(Exception):
    """The request body passed the size limit (answered with 413)."""


async def _read_body(request: Request, limit: int, timeout_s: float) -> bytes:
    """The body, or :class:`_TooLarge` past ``limit`` bytes, or TimeoutError after ``timeout_s``."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _TooLarge
    chunks = []
    size = 0
    with anyio.fail_after(timeout_s):
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _TooLarge
            chunks.append(chunk)
    return b"".join(chunks)


def create_app(
    db_url: str | None = None,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    limits: SubmitterLimits = SubmitterLimits(),  # noqa: B008 (frozen dataclass)
    max_trials: int = DEFAULT_MAX_TRIALS,
    body_timeout_s: float = BODY_TIMEOUT_S,
    board_run: BoardRunSettings = BoardRunSettings(),  # noqa: B008 (frozen dataclass)
    ranking: str = "all",
) -> FastAPI:
    """Build the leaderboard app on the database at ``db_url`` (created or migrated on open).

    Args:
        db_url: SQLAlchemy URL; None: the default SQLite file (see
            :func:`coordqa.leaderboard.db.default_db_url`).
        max_body_bytes: larger submissions are answered with 413.
        limits: per-token rate limit and quota.
        max_trials: most trials per question a QA submission may hold.
        body_timeout_s: a submission's body must arrive within this many seconds (408).
        board_run: what board-run jobs run with, and which models the board hosts.
        ranking: the entries the ranking shows by default: ``all``, or ``board-run`` (only the
            entries the board ran itself; ``?origin=all`` still shows every one).
    """
    if ranking not in ("all", *ORIGINS):
        raise ConfigError(f"--ranking must be all or {' or '.join(ORIGINS)}, got {ranking!r}")
    db = open_database(db_url)
    catalog = BoardCatalog(db, max_trials=max_trials)
    # No interactive API docs: Swagger UI needs inline script, which the CSP forbids.
    app = FastAPI(title="CoordinationQA leaderboard", docs_url=None, redoc_url=None)
    app.state.db = db
    app.state.catalog = catalog
    app.mount("/static", StaticFiles(packages=[("coordqa.leaderboard", "static")]), name="static")
    live = Links()

    add_security_headers(app)

    def board(
        dataset: str | None, game: str | None, sort: str, order: str, origin: str | None
    ) -> Board:
        if order not in ("asc", "desc"):
            raise HTTPException(400, f"order must be 'asc' or 'desc', got {order!r}")
        datasets = catalog.datasets
        if dataset and not any(dataset in (d.name, d.fingerprint) for d in datasets.values()):
            datasets.refresh()  # registered since the server started?
        shown = origin or ranking
        try:
            return load_board(
                db,
                datasets,
                dataset=dataset,
                game=game,
                sort=sort,
                descending=order == "desc",
                origin=None if shown == "all" else shown,
            )
        except CoordqaError as exc:
            raise HTTPException(400, str(exc)) from exc

    def agentic_board(grid: str | None, sort: str | None, order: str) -> AgenticBoard:
        if order not in ("asc", "desc"):
            raise HTTPException(400, f"order must be 'asc' or 'desc', got {order!r}")
        try:
            return load_agentic_board(
                db, catalog.grids, grid=grid, sort=sort, descending=order == "desc"
            )
        except CoordqaError as exc:
            raise HTTPException(400, str(exc)) from exc

    def detail(submission_id: int) -> Detail:
        if not 0 < submission_id <= MAX_ID:
            raise HTTPException(404, f"no submission with id {submission_id}")
        try:
            return load_detail(db, submission_id)
        except LeaderboardError as exc:
            raise HTTPException(404, str(exc)) from exc

    @app.post("/api/submissions")
    async def submit(request: Request) -> JSONResponse:
        token_id = await _admit(request, db, limits)
        if isinstance(token_id, JSONResponse):
            return token_id
        try:
            body = await _read_body(request, max_body_bytes, body_timeout_s)
        except _TooLarge:
            return _error(
                413,
                f"the submission is larger than this server's limit of {max_body_bytes} bytes",
            )
        except TimeoutError:
            return _error(
                408,
                f"the submission's body did not arrive within {body_timeout_s:.0f} s; send it "
                "again from a faster connection",
            )
        try:
            accepted = await run_in_threadpool(accept, db, catalog, body, token_id, limits.quota)
        except QuotaError as exc:
            return _error(403, str(exc))
        except DuplicateResultsError as exc:
            return _error(409, str(exc), entry=exc.existing_id)
        except SchemaError as exc:
            return _error(exc.status, str(exc), errors=exc.errors, total_errors=exc.total)
        except VerificationError as exc:
            return _error(exc.status, str(exc))
        return JSONResponse(
            {
                "id": accepted.id,
                "created": accepted.created,
                "url": live.submission(accepted.id),
                "mismatches": accepted.mismatches,
            },
            status_code=201 if accepted.created else 200,
        )

    # The API's answers are JSON already: their annotations are for the type checker, not
    # response models that FastAPI would validate again (response_model=None).
    @app.get("/api/entries", response_model=None)
    def api_entries(
        dataset: str | None = None,
        game: str | None = None,
        sort: str = "overall",
        order: str = "desc",
        origin: str | None = None,
        limit: int = DEFAULT_PAGE,
        offset: int = 0,
    ) -> _EntriesPage:
        _page(limit, offset)  # a bad page is refused before the ranking is computed
        ranking = board(dataset, game, sort, order, origin).to_json()
        return {**ranking, **_page_of(ranking["entries"], limit, offset)}

    @app.get("/api/entries.csv", response_class=PlainTextResponse)
    def api_entries_csv(
        dataset: str | None = None,
        game: str | None = None,
        sort: str = "overall",
        order: str = "desc",
        origin: str | None = None,
    ) -> PlainTextResponse:
        text = entries_csv(board(dataset, game, sort, order, origin))
        return PlainTextResponse(
            text,
            media_type="text/csv",
            headers={
                "Content-Disposition": 'attachment; filename="coordinationqa-leaderboard.csv"'
            },
        )

    @app.get("/api/submissions/{submission_id}", response_model=None)
    def api_submission(submission_id: int) -> Detail:
        return detail(submission_id)

    @app.get("/api/agentic/entries", response_model=None)
    def api_agentic_entries(
        grid: str | None = None,
        sort: str | None = None,
        order: str = "desc",
        limit: int = DEFAULT_PAGE,
        offset: int = 0,
    ) -> _AgenticPage:
        _page(limit, offset)  # a bad page is refused before the ranking is computed
        ranking = agentic_board(grid, sort, order).to_json()
        return {**ranking, **_page_of(ranking["entries"], limit, offset)}

    @app.get("/agentic", response_class=HTMLResponse)
    def agentic_page(
        grid: str | None = None, sort: str | None = None, order: str = "desc"
    ) -> HTMLResponse:
        return HTMLResponse(render_agentic(agentic_board(grid, sort, order), live))

    @app.get("/api/grids", response_model=None)
    def api_grids() -> list[JSONObject]:
        return [grid_json(g) for g in catalog.grids.values()]

    @app.get("/api/datasets", response_model=None)
    def api_datasets() -> list[DatasetSummary]:
        return [dataset_json(d) for d in catalog.datasets.values()]

    @app.get("/", response_class=HTMLResponse)
    def index(
        dataset: str | None = None,
        game: str | None = None,
        sort: str = "overall",
        order: str = "desc",
        origin: str | None = None,
    ) -> HTMLResponse:
        return HTMLResponse(render_index(board(dataset, game, sort, order, origin), live))

    @app.get("/submissions/{submission_id}", response_class=HTMLResponse)
    def submission_page(submission_id: int) -> HTMLResponse:
        return HTMLResponse(render_submission(detail(submission_id), live))

    @app.post("/api/endpoints")
    async def register(request: Request) -> JSONResponse:
        token_id = await _admit(request, db, limits)
        if isinstance(token_id, JSONResponse):
            return token_id
        try:
            body = await _read_body(request, MAX_ENDPOINT_BYTES, body_timeout_s)
            answer = await run_in_threadpool(_register, token_id, body)
        except _TooLarge:
            return _error(413, f"a registration is at most {MAX_ENDPOINT_BYTES} bytes")
        except TimeoutError:
            return _error(408, f"the body did not arrive within {body_timeout_s:.0f} s")
        except SchemaError as exc:
            return _error(exc.status, str(exc), errors=exc.errors, total_errors=exc.total)
        except (ConfigError, VerificationError) as exc:
            return _error(422, str(exc))
        return JSONResponse(answer, status_code=201)

    def _register(token_id: int, body: bytes) -> _Registered:
        data = read_json(body)
        try:
            wanted = EndpointRequest.model_validate(data)
        except ValidationError as exc:
            raise schema_error(exc) from exc
        if limits.quota is not None:
            pending = unfinished_jobs(db, token_id) + db.visible_entries_of(token_id)
            if pending >= limits.quota:
                raise ConfigError(
                    f"this token has {pending} visible entries and unfinished jobs, the "
                    f"server's quota of {limits.quota} per token"
                )
        if set(wanted.grids) - set(catalog.grids):
            catalog.grids.refresh()  # registered since the server started?
        endpoint, jobs = register_endpoint(
            db, token_id, wanted, board_run, grids=tuple(catalog.grids)
        )
        return {
            "endpoint": endpoint.id,
            "jobs": [job_json(job, endpoint) for job in jobs],
            "urls": [f"/api/jobs/{job.id}" for job in jobs],
        }

    @app.get("/api/jobs", response_model=None)
    def api_jobs(limit: int = DEFAULT_PAGE, offset: int = 0) -> _JobsPage:
        limit, offset = _page(limit, offset)
        jobs = list_jobs(db, limit=limit, offset=offset)
        return {"jobs": jobs, "total": count_jobs(db), "limit": limit, "offset": offset}

    @app.get("/api/jobs/{job_id}", response_model=None)
    def api_job(job_id: int) -> JobView:
        if not 0 < job_id <= MAX_ID:
            raise HTTPException(404, f"no job {job_id}")
        try:
            return list_jobs(db, job_id)[0]
        except LeaderboardError as exc:
            raise HTTPException(404, str(exc)) from exc

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
