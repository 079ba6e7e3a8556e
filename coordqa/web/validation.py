"""A request parameter of the wrong type, answered as one sentence like every other refusal.

The leaderboard and ``coordqa view`` answer a refusal as ``{"detail": SENTENCE}`` (``limit must
be from 1 to 500 (default 100), got 0``); FastAPI's own answer to a parameter it cannot read
(``?limit=abc``) is a list of error objects instead, a second shape for a client to handle.
:func:`answer_validation_errors` gives both servers the one shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

__all__ = ["answer_validation_errors", "validation_sentence"]

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
