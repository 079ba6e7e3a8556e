"""Security headers for the web servers that show text written by others.

The leaderboard shows submitters' names; ``coordqa view`` shows what models wrote. Both send
:data:`SECURITY_HEADERS` with every response through :func:`add_security_headers`, and their
pages load script only from their own static files.

``coordqa view`` also answers only requests addressed to it (:func:`allow_only_hosts`): a web
page elsewhere can point a name it controls at 127.0.0.1 (DNS rebinding) and then read a local
server as its own origin, but its requests still carry that name in their ``Host`` header.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from fastapi import FastAPI, Request, Response
from fastapi.responses import PlainTextResponse

__all__ = [
    "LOOPBACK_HOSTS",
    "SECURITY_HEADERS",
    "add_security_headers",
    "allow_only_hosts",
    "host_name",
]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names of this machine a local server answers to."""

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


def host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port, lower-cased.

    >>> host_name("127.0.0.1:8010"), host_name("[::1]:8010"), host_name("LocalHost")
    ('127.0.0.1', '::1', 'localhost')
    """
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


def allow_only_hosts(app: FastAPI, hosts: Iterable[str]) -> None:
    """Answer 400 to any request of ``app`` whose ``Host`` header names none of ``hosts``."""
    allowed = frozenset(host.lower().strip("[]") for host in hosts)
    shown = ", ".join(sorted(allowed))

    @app.middleware("http")
    async def host_check(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        host = host_name(request.headers.get("host", ""))
        if host not in allowed:
            return PlainTextResponse(
                f"this server answers requests for {shown}, not {host!r} (a page elsewhere may "
                "be trying to read it); to open it under that name, restart it with "
                f"--allow-host {host or 'NAME'}",
                status_code=400,
                headers=SECURITY_HEADERS,
            )
        return await call_next(request)
