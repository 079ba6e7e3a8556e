"""Refusals as the leaderboard and ``coordqa view`` answer them: one sentence, or a page.

Both answer an API refusal as ``{"detail": SENTENCE}`` (``limit must be from 1 to 500 (default
100), got 0``); FastAPI's own answer to a parameter it cannot read (``?limit=abc``) is a list of
error objects instead, a second shape for a client to handle: :func:`answer_validation_errors`
gives both servers the one shape. A refused page (an unknown run or submission) is a page for
the browser that asked, with the same words and a way back (:func:`answer_pages_with_pages`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

__all__ = [
    "JSON_PREFIXES",
    "answer_pages_with_pages",
    "answer_validation_errors",
    "validation_sentence",
]

JSON_PREFIXES = ("/api/", "/healthz")
"""Paths answered as JSON, refusals included; every other path is a page for a browser."""

SHOWN_INPUT_CHARS = 40
"""How much of a value the client sent an answer repeats (it is the client's own, cut)."""
SHOWN_ERRORS = 3
"""How many parameters one answer names."""


def _problem(error: Mapping[str, Any]) -> str:
    """``limit (query parameter) must be a valid integer, ..., got 'abc'``."""
    place, *path = [str(part) for part in error.get("loc", ())] or ["request"]
    name = ".".join(path) or place
    where = f"{name} ({place} parameter)" if path else name
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    wanted = message.removeprefix("Input should be ")
    told = f"must be {wanted}" if wanted != message else f"is refused: {message}"
    value = error.get("input")
    if isinstance(value, str):
        cut = value if len(value) <= SHOWN_INPUT_CHARS else value[:SHOWN_INPUT_CHARS] + "..."
        told += f", got {cut!r}"
    return f"{where} {told}"


def validation_sentence(errors: Sequence[Mapping[str, Any]]) -> str:
    """The errors of a request FastAPI could not read, as one sentence (the first few)."""
    shown = "; ".join(_problem(error) for error in errors[:SHOWN_ERRORS])
    more = len(errors) - SHOWN_ERRORS
    return shown + (f" (and {more} more)" if more > 0 else "")


def answer_validation_errors(app: FastAPI) -> None:
    """Answer a request whose parameters FastAPI cannot read with 422 ``{"detail": SENTENCE}``."""

    @app.exception_handler(RequestValidationError)
    async def one_sentence(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_sentence(exc.errors())}, status_code=422)


ErrorPage = Callable[[int, str, str], str]
"""Renders a refused page: (status, title, message) -> the HTML page."""


def answer_pages_with_pages(app: FastAPI, error_page: ErrorPage) -> None:
    """Answer a refusal of a page route as a page (``error_page``: same words, a way back).

    An API path (:data:`JSON_PREFIXES`) keeps the JSON answer.
    """

    @app.exception_handler(StarletteHTTPException)
    async def page_or_json(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith(JSON_PREFIXES):
            return await http_exception_handler(request, exc)
        title = HTTPStatus(exc.status_code).phrase if exc.status_code in _STATUSES else "Error"
        page = error_page(exc.status_code, title, str(exc.detail))
        return HTMLResponse(page, status_code=exc.status_code, headers=exc.headers)


_STATUSES = {status.value for status in HTTPStatus}
