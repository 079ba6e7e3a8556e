"""The leaderboard web server: the FastAPI app, built from one router per concern.

Routes (each router's module says more):

- :mod:`coordqa.leaderboard.submission_routes`: ``POST /api/submissions``, a bundle (bearer
  token needed); 201 new, 200 already stored, 400 malformed JSON, 401 no, wrong or revoked
  token, 403 the token's quota is used, 408 the body came too slowly, 409 the same results are
  already an entry that shows them otherwise (``entry`` names it), 413 too large, 422 refused
  (with the reason), 429 the token's rate limit (with Retry-After);
- :mod:`coordqa.leaderboard.ranking_routes`: ``GET /api/entries``
  (``?dataset=&game=&sort=&order=&limit=&offset=``), ``GET /api/entries.csv``,
  ``GET /api/submissions/{id}``, ``GET /api/datasets``: public reading;
  ``GET /api/agentic/entries`` (``?grid=&sort=&order=&limit=&offset=``), ``GET /api/grids``: the
  agentic track's ranking on one registered grid, and the grids; ``GET /``, ``GET /agentic``
  and ``GET /submissions/{id}``: the pages.
  The rankings take ``?origin=all|board-run|uploaded`` (default: the server's ``--ranking``);
- :mod:`coordqa.leaderboard.job_routes`: ``POST /api/endpoints``, a board-run registration
  (bearer token; 201 with its queued jobs, 422 refused), ``GET /api/jobs``
  (``?limit=&offset=``) and ``GET /api/jobs/{id}``: the board's jobs (secret seeds once done;
  never a key, an endpoint's address or the admin's details).

The lists come in pages (:data:`~coordqa.leaderboard.routing.Paging`): ``limit`` (1 to 500,
default 100) rows from ``offset``, with the ``total``; other values are answered 400 naming the
range. Ranks are those of the whole ranking, whatever the page.

Every response carries :data:`coordqa.web.headers.SECURITY_HEADERS`; CSV cells that a
spreadsheet would run as formulas are defused
(:func:`~coordqa.leaderboard.ranking_routes.csv_cell`).

Re-scoring and database work run in the thread pool, so one slow submission does not stall
page views. This module imports FastAPI at the top: only the ``leaderboard`` commands import it.
"""

from __future__ import annotations

from functools import partial

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from coordqa.errors import ConfigError
from coordqa.leaderboard import job_routes, ranking_routes, submission_routes
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import open_database
from coordqa.leaderboard.pages import Links, render_error
from coordqa.leaderboard.routing import BoardState
from coordqa.leaderboard.settings import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_TRIALS,
    BoardRunSettings,
    SubmitterLimits,
)
from coordqa.leaderboard.views import ORIGINS
from coordqa.registry import not_one_of
from coordqa.web.headers import add_security_headers
from coordqa.web.rendering import static_packages
from coordqa.web.validation import answer_pages_with_pages, answer_validation_errors

__all__ = ["create_app"]

BODY_TIMEOUT_S = 120.0
"""Seconds a submission's body has to arrive: 20 MB at 170 kB/s (headers have their own
deadline: :mod:`coordqa.web.serving`)."""


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
        ranking: the entries the ranking shows by default: ``all``, ``board-run`` (only the
            entries the board ran itself) or ``uploaded``; ``?origin=all`` still shows every one.
    """
    if ranking not in ("all", *ORIGINS):
        raise ConfigError(not_one_of("--ranking", ranking, ["all", *ORIGINS]))
    db = open_database(db_url)
    db.record_quota(limits.quota)  # for `unhide`, which runs beside the server on the database
    catalog = BoardCatalog(db, max_trials=max_trials)
    # No interactive API docs: Swagger UI needs inline script, which the CSP forbids.
    app = FastAPI(title="CoordinationQA leaderboard", docs_url=None, redoc_url=None)
    app.state.db = db
    app.state.catalog = catalog
    app.state.board = BoardState(
        db, catalog, limits, max_body_bytes, body_timeout_s, board_run, ranking
    )
    app.mount("/static", StaticFiles(packages=static_packages()), name="static")
    add_security_headers(app)
    answer_validation_errors(app)
    answer_pages_with_pages(app, partial(render_error, links=Links()))
    for routes in (submission_routes, ranking_routes, job_routes):
        app.include_router(routes.router)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
