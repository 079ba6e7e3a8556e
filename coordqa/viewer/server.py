"""The viewer's web server: pages and a small JSON API over a :class:`RunCatalog`.

Routes:

- ``GET /``: the runs; ``GET /compare``: the QA runs side by side (two or more);
- ``GET /runs/{run}/``: a QA run's summary, or an agentic run's episode list;
- ``GET /runs/{run}/samples`` (``?game=&type=&outcome=&q=&sort=&order=``) and
  ``GET /runs/{run}/samples/{n}``: the sample table and one sample;
- ``GET /runs/{run}/episodes/{n}`` and ``GET /runs/{run}/episodes/{n}/steps/{s}``: an episode
  and one of its steps;
- ``GET /api/runs``, ``GET /api/runs/{run}/samples`` (same filters), ``GET
  /api/runs/{run}/episodes``: the same data as JSON.

A refusal (an unknown run, sample or page, a bad filter) is a small page with its words and a
link to the runs, except under ``/api/`` and ``/healthz``, answered ``{"detail": SENTENCE}``.

Requests whose ``Host`` header names another host than the viewer's are answered 400 (DNS
rebinding: :func:`coordqa.web.headers.allow_only_hosts`). Every response carries the
security headers it shares with the leaderboard (:mod:`coordqa.web.headers`): a
Content-Security-Policy that allows only the viewer's own stylesheets and script file, no
framing, no sniffing, no referrer. Pages are rendered in the
thread pool (FastAPI runs plain ``def`` routes there), so a slow first read of a large run does
not block other requests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import partial
from typing import Annotated, Any, NamedTuple, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject, json_mapping
from coordqa.viewer import pages
from coordqa.viewer.qa import SORT_KEYS, SampleFilter
from coordqa.viewer.runs import RunCatalog
from coordqa.web.headers import (
    LOOPBACK_HOSTS,
    SECURITY_HEADERS,
    add_security_headers,
    allow_only_hosts,
)
from coordqa.web.rendering import static_packages
from coordqa.web.validation import answer_pages_with_pages, answer_validation_errors

__all__ = ["SECURITY_HEADERS", "create_app"]

T = TypeVar("T")


def _answer(produce: Callable[[], T]) -> T:
    """Call ``produce``: an unknown run, sample, episode or step is 404, a bad parameter 400."""
    try:
        return produce()
    except LookupError as exc:
        raise HTTPException(404, str(exc.args[0] if exc.args else exc)) from exc
    except ConfigError as exc:
        raise HTTPException(400, str(exc)) from exc


def _page(render: Callable[[], str]) -> HTMLResponse:
    return HTMLResponse(_answer(render))


def _plain(row: Any) -> JSONObject:
    """A view row as JSON data (NaN, which JSON lacks, becomes null)."""
    return json_mapping({k: v for k, v in asdict(row).items() if k != "search"})


class TableQuery(NamedTuple):
    """The sample table's filters and order, from the query string."""

    where: SampleFilter
    """Which rows to show."""
    sort: str
    """One of :data:`coordqa.viewer.qa.SORT_KEYS`."""
    descending: bool
    """Largest first."""


def table_query(
    game: str = "",
    type: str = "",  # noqa: A002 - the query parameter's name
    outcome: str = "",
    q: str = "",
    sort: str = "number",
    order: str = "asc",
) -> TableQuery:
    """Parse ``?game=&type=&outcome=&q=&sort=&order=``; anything invalid is a 400."""
    if order not in ("asc", "desc"):
        raise HTTPException(400, f"order must be 'asc' or 'desc', got {order!r}")
    if sort not in SORT_KEYS:
        raise HTTPException(400, f"sort must be one of {', '.join(SORT_KEYS)}, got {sort!r}")
    try:
        where = SampleFilter(game=game, question_type=type, outcome=outcome, text=q)
    except ConfigError as exc:
        raise HTTPException(400, str(exc)) from exc
    return TableQuery(where, sort, order == "desc")


Table = Annotated[TableQuery, Depends(table_query)]


def run_catalog(request: Request) -> RunCatalog:
    """The runs of the app serving ``request``."""
    catalog: RunCatalog = request.app.state.catalog
    return catalog


Runs = Annotated[RunCatalog, Depends(run_catalog)]
"""A route parameter that receives the viewer's runs (not a query parameter)."""

LIVE = pages.Links()
"""How the live server's pages link (to its routes)."""

router = APIRouter()
"""Every route of the viewer."""


@router.get("/", response_class=HTMLResponse)
def index(catalog: Runs) -> HTMLResponse:
    """The runs, with those written since the viewer started."""
    catalog.find_new_runs()
    return _page(lambda: pages.index_page(catalog, LIVE))


@router.get("/compare", response_class=HTMLResponse)
def compare(catalog: Runs) -> HTMLResponse:
    """The QA runs side by side."""
    return _page(lambda: pages.compare_page(catalog, LIVE))


@router.get("/runs/{run_id}/", response_class=HTMLResponse)
def run(run_id: str, catalog: Runs) -> HTMLResponse:
    """A QA run's summary, or an agentic run's episode list."""
    return _page(lambda: pages.run_page(catalog, run_id, LIVE))


@router.get("/runs/{run_id}/samples", response_class=HTMLResponse)
def samples(run_id: str, catalog: Runs, query: Table) -> HTMLResponse:
    """A QA run's sample table."""
    return _page(lambda: pages.samples_page(catalog, run_id, LIVE, *query))


@router.get("/runs/{run_id}/samples/{number}", response_class=HTMLResponse)
def sample(run_id: str, number: int, catalog: Runs) -> HTMLResponse:
    """One sample."""
    return _page(lambda: pages.sample_page(catalog, run_id, number, LIVE))


@router.get("/runs/{run_id}/episodes/{number}", response_class=HTMLResponse)
def episode(run_id: str, number: int, catalog: Runs) -> HTMLResponse:
    """One episode."""
    return _page(lambda: pages.episode_page(catalog, run_id, number, LIVE))


@router.get("/runs/{run_id}/episodes/{number}/steps/{step}", response_class=HTMLResponse)
def step(run_id: str, number: int, step: int, catalog: Runs) -> HTMLResponse:
    """One step of an episode."""
    return _page(lambda: pages.step_page(catalog, run_id, number, step, LIVE))


# The rows are JSON already (JSONObject is a type checker's alias, not a response model).
@router.get("/api/runs", response_model=None)
def api_runs(catalog: Runs) -> list[JSONObject]:
    """The runs as JSON, with those written since the viewer started."""
    catalog.find_new_runs()
    return [
        {"id": e.id, "kind": e.kind, "label": e.label, "path": str(e.path)} for e in catalog.entries
    ]


@router.get("/api/runs/{run_id}/samples", response_model=None)
def api_samples(run_id: str, catalog: Runs, query: Table) -> list[JSONObject]:
    """A QA run's samples as JSON (the table's filters)."""
    return [_plain(r) for r in _answer(lambda: catalog.qa(run_id).filtered(*query))]


@router.get("/api/runs/{run_id}/episodes", response_model=None)
def api_episodes(run_id: str, catalog: Runs) -> list[JSONObject]:
    """An agentic run's episodes as JSON."""
    return [_plain(r) for r in _answer(lambda: catalog.agentic(run_id).rows)]


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """Whether the server answers."""
    return {"status": "ok"}


def create_app(catalog: RunCatalog, hosts: Sequence[str] = LOOPBACK_HOSTS) -> FastAPI:
    """The viewer app for the runs of ``catalog``, answering requests for ``hosts`` only.

    ``hosts`` are the names the viewer may be reached by (its ``Host`` header); the default,
    this machine's loopback names, refuses DNS-rebinding pages.
    """
    # No Swagger UI: it needs an inline script and a CDN, both refused by the security headers.
    app = FastAPI(title="coordqa view", docs_url=None, redoc_url=None)
    app.state.catalog = catalog
    app.mount("/static", StaticFiles(packages=static_packages("coordqa.viewer")), name="static")
    add_security_headers(app)
    answer_validation_errors(app)
    answer_pages_with_pages(app, partial(pages.error_page, links=LIVE))
    allow_only_hosts(app, hosts)
    app.include_router(router)
    return app
