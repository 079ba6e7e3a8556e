"""Board-run jobs: an endpoint registered, its jobs queued and shown.

``POST /api/endpoints`` registers an endpoint and queues its jobs (bearer token; 201 with its
queued jobs; 403 past the token's quota, as an upload; 422 refused); ``GET /api/jobs`` and
``GET /api/jobs/{id}`` show them (seeds once ended; never a key or an endpoint's address).
"""

from __future__ import annotations

from typing import TypedDict

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from coordqa.errors import ConfigError
from coordqa.leaderboard.db import LeaderboardError, QuotaError
from coordqa.leaderboard.intake import SchemaError, read_json, schema_error
from coordqa.leaderboard.jobs import (
    EndpointRequest,
    JobView,
    SameRegistration,
    count_jobs,
    job_json,
    list_jobs,
    register_endpoint,
    same_registrations,
)
from coordqa.leaderboard.routing import (
    MAX_ID,
    BoardState,
    Paging,
    State,
    TooLarge,
    admit,
    error,
    read_body,
)
from coordqa.leaderboard.verify import VerificationError

__all__ = ["router"]

router = APIRouter()
"""The job routes."""

MAX_ENDPOINT_BYTES = 20_000
"""Largest endpoint registration (a few short fields)."""


class JobsPage(TypedDict):
    """A page of the board's jobs, newest first."""

    jobs: list[JobView]
    total: int
    limit: int
    offset: int


class _Registered(TypedDict):
    """The answer to an endpoint registration.

    The endpoint, its queued jobs and their URLs, and the token's earlier jobs of the same
    endpoint, model, name and test (their entries are ranked beside the new ones).
    """

    endpoint: int
    jobs: list[JobView]
    urls: list[str]
    same: list[SameRegistration]


@router.post("/api/endpoints")
async def register(request: Request, board: State) -> JSONResponse:
    """Register an endpoint for the board to run; answer with its queued jobs."""
    token_id = await admit(request, board.db, board.limits)
    if isinstance(token_id, JSONResponse):
        return token_id
    try:
        body = await read_body(request, MAX_ENDPOINT_BYTES, board.body_timeout_s)
        answer = await run_in_threadpool(_register, board, token_id, body)
    except TooLarge:
        return error(413, f"a registration is at most {MAX_ENDPOINT_BYTES} bytes")
    except TimeoutError:
        return error(408, f"the body did not arrive within {board.body_timeout_s:.0f} s")
    except SchemaError as exc:
        return error(exc.status, str(exc), errors=exc.errors, total_errors=exc.total)
    except QuotaError as exc:
        return error(403, str(exc))
    except VerificationError as exc:
        return error(422, str(exc), field=exc.field)
    except ConfigError as exc:
        return error(422, str(exc))
    return JSONResponse(answer, status_code=201)


def _register(board: BoardState, token_id: int, body: bytes) -> _Registered:
    db, catalog, limits = board.db, board.catalog, board.limits
    data = read_json(body)
    try:
        wanted = EndpointRequest.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc) from exc
    if set(wanted.grids) - set(catalog.grids):
        catalog.grids.refresh()  # registered since the server started?
    endpoint, jobs = register_endpoint(
        db, token_id, wanted, board.board_run, grids=tuple(catalog.grids), quota=limits.quota
    )
    return {
        "endpoint": endpoint.id,
        "jobs": [job_json(job, endpoint) for job in jobs],
        "urls": [f"/api/jobs/{job.id}" for job in jobs],
        "same": same_registrations(db, jobs),
    }


# The API's answers are JSON already: their annotations are for the type checker, not
# response models that FastAPI would validate again (response_model=None).
@router.get("/api/jobs", response_model=None)
def api_jobs(page: Paging, board: State) -> JobsPage:
    """A page of the board's jobs, newest first."""
    jobs = list_jobs(board.db, limit=page.limit, offset=page.offset)
    return {"jobs": jobs, "total": count_jobs(board.db), "limit": page.limit, "offset": page.offset}


@router.get("/api/jobs/{job_id}", response_model=None)
def api_job(job_id: int, board: State) -> JobView:
    """One job."""
    if not 0 < job_id <= MAX_ID:
        raise HTTPException(404, f"no job {job_id}")
    try:
        return list_jobs(board.db, job_id)[0]
    except LeaderboardError as exc:
        raise HTTPException(404, str(exc)) from exc
