"""``POST /api/submissions``: a bundle comes in, is re-scored or replayed, and is stored.

201 new, 200 already stored, 400 malformed JSON, 401 no, wrong or revoked token, 403 the
token's quota is used, 408 the body came too slowly, 409 the same results are already an entry
that shows them otherwise (``entry`` names it), 413 too large, 422 refused (with the reason), 429
the token's rate limit (with Retry-After). A 422 names the bundle's ``field`` it is about, where
one is (``model.display_name``: a name like another submitter's), else ``null``. Re-scoring runs
in the thread pool, so one slow submission does not stall page views.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from coordqa.leaderboard.db import DuplicateResultsError, QuotaError
from coordqa.leaderboard.intake import SchemaError, accept
from coordqa.leaderboard.routing import State, TooLarge, admit, error, read_body
from coordqa.leaderboard.verify import VerificationError

__all__ = ["router"]

router = APIRouter()
"""The submission route."""


@router.post("/api/submissions")
async def submit(request: Request, board: State) -> JSONResponse:
    """Let a bundle in, verify and store it; answer with its id and page."""
    db, catalog, limits = board.db, board.catalog, board.limits
    token_id = await admit(request, db, limits)
    if isinstance(token_id, JSONResponse):
        return token_id
    try:
        body = await read_body(request, board.max_body_bytes, board.body_timeout_s)
    except TooLarge:
        return error(
            413,
            f"the submission is larger than this server's limit of {board.max_body_bytes} bytes",
        )
    except TimeoutError:
        return error(
            408,
            f"the submission's body did not arrive within {board.body_timeout_s:.0f} s; send it "
            "again from a faster connection",
        )
    try:
        accepted = await run_in_threadpool(accept, db, catalog, body, token_id, limits.quota)
    except QuotaError as exc:
        return error(403, str(exc))
    except DuplicateResultsError as exc:
        return error(409, str(exc), entry=exc.existing_id)
    except SchemaError as exc:
        return error(exc.status, str(exc), errors=exc.errors, total_errors=exc.total)
    except VerificationError as exc:
        return error(exc.status, str(exc), field=exc.field)
    return JSONResponse(
        {
            "id": accepted.id,
            "created": accepted.created,
            "url": board.live.submission(accepted.id),
            "mismatches": accepted.mismatches,
            "hidden": accepted.hidden,
            "hidden_reason": accepted.hidden_reason,
            "trials": accepted.trials,
            "beside": [{"id": i, "trials": n} for i, n in accepted.beside],
        },
        status_code=201 if accepted.created else 200,
    )
