"""Serving an app with uvicorn so that idle or slow connections cannot pile up.

``coordqa leaderboard serve`` and ``coordqa view`` both run through :func:`serve`:

- the socket is bound before uvicorn starts (:func:`listen`), so a busy port is one clear error
  (:class:`coordqa.errors.ConfigError`), never "startup complete" followed by a traceback;
- every connection must send a request's headers within :data:`HEADER_TIMEOUT_S` seconds of
  opening (and of finishing its previous request), or it is closed: uvicorn itself waits for
  ever, so half-open connections used to pile up until file descriptors ran out;
- at most :data:`MAX_CONNECTIONS` connections are open at once: one more is closed as soon as it
  opens.

A request *body* has its own deadline in the app that reads it (the leaderboard's submissions).
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from coordqa.errors import ConfigError

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "HEADER_TIMEOUT_S",
    "MAX_CONNECTIONS",
    "GuardedProtocol",
    "guarded_protocol",
    "listen",
    "serve",
    "shown_url",
]

HEADER_TIMEOUT_S = 10.0
"""Seconds a connection has to send a request's headers (real clients send them at once)."""
MAX_CONNECTIONS = 1_000
"""Connections open at once; well under the usual limit of open files per process."""
BACKLOG = 2048
"""Connections the kernel queues until uvicorn accepts them."""


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a header deadline and a cap on open connections."""

    header_timeout_s: float = HEADER_TIMEOUT_S
    """Seconds to wait for a request's headers."""
    max_connections: int = MAX_CONNECTIONS
    """Most connections open at once."""
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        super().connection_made(transport)  # type: ignore[arg-type]
        if len(self.connections) > self.max_connections:
            transport.close()
            return
        self._await_headers()

    def _await_headers(self) -> None:
        self._stop_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _stop_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:  # noqa: D102
        super().on_response_complete()
        self._await_headers()  # a kept-alive connection's next request has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        self._stop_timer()
        super().connection_lost(exc)


def guarded_protocol(
    header_timeout_s: float = HEADER_TIMEOUT_S, max_connections: int = MAX_CONNECTIONS
) -> type[GuardedProtocol]:
    """A :class:`GuardedProtocol` class with these bounds (uvicorn builds one per connection)."""
    bounds = {"header_timeout_s": header_timeout_s, "max_connections": max_connections}
    return type("BoundedGuardedProtocol", (GuardedProtocol,), bounds)


def _bind_failure(host: str, port: int, exc: OSError) -> str:
    """Why nothing can listen on ``host:port``, and what to do instead."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"--port {port}: another program (perhaps another coordqa server) already listens "
            f"on {host}:{port}; pass another --port, or --port 0 for any free one"
        )
    if exc.errno == errno.EACCES:
        return f"--port {port}: this user may not listen on it; pass a port above 1023"
    return f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc})"


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (port 0: any free port).

    Raises:
        ConfigError: the port is out of range, in use, or not ours to bind (one line saying
            which, and what to do).
    """
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port must be in 0..65535, got {port}")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(_bind_failure(host, port, exc)) from None
    sock.listen(BACKLOG)
    return sock


def shown_url(sock: socket.socket, host: str) -> str:
    """The ``http://`` address a person opens for ``sock`` bound on ``host``."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{sock.getsockname()[1]}/"


def serve(
    app: FastAPI,
    sock: socket.socket,
    *,
    log_level: str = "info",
    header_timeout_s: float = HEADER_TIMEOUT_S,
    max_connections: int = MAX_CONNECTIONS,
    **options: Any,
) -> None:
    """Run ``app`` on the bound ``sock`` until Ctrl-C, with the bounds above.

    ``options`` are more :class:`uvicorn.Config` settings.
    """
    import uvicorn

    config = uvicorn.Config(
        app,
        http=guarded_protocol(header_timeout_s, max_connections),
        log_level=log_level,
        **options,
    )
    uvicorn.Server(config).run(sockets=[sock])
