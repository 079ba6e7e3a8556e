"""Security headers for the web servers that show text written by others.

The leaderboard shows submitters' names; ``coordqa view`` shows what models wrote. Both send
:data:`SECURITY_HEADERS` with every response through :func:`add_security_headers`, and their
pages load script only from their own static files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response

__all__ = ["SECURITY_HEADERS", "add_security_headers"]

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
"""Sent with every response: scripts only from the server's own files (no inline script), no
framing, no MIME sniffing, no referrer leaking a page's query to the links it holds."""


def add_security_headers(app: FastAPI) -> None:
    """Send :data:`SECURITY_HEADERS` with every response of ``app`` (static files included)."""

    @app.middleware("http")
    async def security_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response
