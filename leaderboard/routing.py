"""What the leaderboard's routers share: the board a route serves, and how a body is let in.

:func:`coordqa.leaderboard.server.create_app` builds one :class:`BoardState` and keeps it on the
app; every route reads it through the :data:`State` dependency. Submissions and endpoint
registrations are both let in the same way (:func:`admit`, :func:`read_body`) and refused with
the same JSON shape (:func:`error`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import anyio
from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from coordqa.jsonvalues import JSONObject
from coordqa.leaderboard.catalog import BoardCatalog
from coordqa.leaderboard.db import Database
from coordqa.leaderboard.limits import record_attempt
from coordqa.leaderboard.pages import Links
from coordqa.leaderboard.settings import BoardRunSettings, SubmitterLimits
from coordqa.leaderboard.tokens import authenticate

__all__ = [
    "DEFAULT_PAGE",
    "MAX_ID",
    "MAX_PAGE",
    "BoardState",
    "Page",
    "PageRequest",
    "Paging",
    "State",
    "TooLarge",
    "admit",
    "error",
    "read_body",
]

MAX_ID = 2**31 - 1
"""Largest id an ``Integer`` primary key holds on PostgreSQL; larger ones are answered 404
without a query (PostgreSQL would refuse to compare them with the column)."""


@dataclass(frozen=True)
class BoardState:
    """The board every route of one app serves: its database, catalog and settings."""

    db: Database
    """The board's database."""
    catalog: BoardCatalog
    """The datasets and grids it ranks."""
    limits: SubmitterLimits
    """Per-token rate limit and quota."""
    max_body_bytes: int
    """Larger submissions are answered with 413."""
    body_timeout_s: float
    """A body must arrive within this many seconds (408)."""
    board_run: BoardRunSettings
    """What board-run jobs run with, and which models the board hosts."""
    ranking: str
    """The entries the rankings show by default (``all``, ``board-run``)."""
    live: Links = Links()
    """How the live server's pages link."""


def board_state(request: Request) -> BoardState:
    """The :class:`BoardState` of the app serving ``request``."""
    state: BoardState = request.app.state.board
    return state


State = Annotated[BoardState, Depends(board_state)]
"""A route parameter that receives the board (not a query parameter)."""


DEFAULT_PAGE = 100
"""Rows a list answers when no ``limit`` is given."""
MAX_PAGE = 500
"""Most rows one page of a list holds."""


class Page(TypedDict):
    """A page of a ranking: the entries from ``offset``, and how many there are."""

    entries: list[JSONObject]
    total: int
    limit: int
    offset: int


@dataclass(frozen=True)
class PageRequest:
    """The page a list was asked for (``?limit=&offset=``), in range."""

    limit: int
    """Rows on the page, 1 to :data:`MAX_PAGE`."""
    offset: int
    """Rows skipped, 0 to :data:`MAX_ID`."""

    def of(self, entries: list[JSONObject]) -> Page:
        """The ranked ``entries`` from ``offset`` (at most ``limit``), with their total.

        Ranks are those of the whole ranking, whatever the page.
        """
        page = entries[self.offset : self.offset + self.limit]
        return {"entries": page, "total": len(entries), "limit": self.limit, "offset": self.offset}


def page_request(limit: int = DEFAULT_PAGE, offset: int = 0) -> PageRequest:
    """The page asked for; other values are answered 400 naming the allowed range."""
    if not 1 <= limit <= MAX_PAGE:
        raise HTTPException(
            400, f"limit must be from 1 to {MAX_PAGE} (default {DEFAULT_PAGE}), got {limit}"
        )
    if not 0 <= offset <= MAX_ID:
        raise HTTPException(400, f"offset must be from 0 to {MAX_ID}, got {offset}")
    return PageRequest(limit, offset)


Paging = Annotated[PageRequest, Depends(page_request)]
"""A route parameter that receives the page asked for; declared before the ranking, so a bad
page is refused before the ranking is computed."""


def error(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    """A refusal as JSON (``detail`` plus ``extra``); a 401 says which scheme to use."""
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer", **(headers or {})}
    return JSONResponse({"detail": message, **extra}, status_code=status, headers=headers)


async def admit(request: Request, db: Database, limits: SubmitterLimits) -> int | JSONResponse:
    """The token id of a submission allowed in, or the error answering it.

    In order: authentication (401), the rate limit (429 with Retry-After); both before the body
    is read. The quota (403) waits for the body: a bundle the board already holds makes no new
    entry, so it never meets the quota (:func:`~coordqa.leaderboard.limits.refuse_past_quota`
    in :func:`~coordqa.leaderboard.intake.admit`; a registration is counted as it queues its
    jobs, :func:`~coordqa.leaderboard.jobs.register_endpoint`).
    """
    token_id = await run_in_threadpool(authenticate, db, request.headers.get("authorization"))
    if token_id is None:
        return error(
            401,
            "submitting needs a valid bearer token (Authorization: Bearer <token>); the token "
            "is unknown or revoked: ask the leaderboard admin for one "
            "(`coordqa leaderboard token create NAME`)",
        )
    if limits.per_hour is not None:
        wait = await run_in_threadpool(record_attempt, db, token_id, limits.per_hour)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            return error(
                429,
                f"this token reached the server's limit of {limits.per_hour} submissions per "
                f"hour; try again in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )
    return token_id


class TooLarge(Exception):
    """The request body passed the size limit (answered with 413)."""


async def read_body(request: Request, limit: int, timeout_s: float) -> bytes:
    """The body, or :class:`TooLarge` past ``limit`` bytes, or TimeoutError after ``timeout_s``."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge
    chunks = []
    size = 0
    with anyio.fail_after(timeout_s):
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise TooLarge
            chunks.append(chunk)
    return b"".join(chunks)
