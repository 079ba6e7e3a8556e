"""The one HTTP client for model endpoints: no redirects, bounded bodies, guarded addresses.

Every request coordqa itself sends to a model endpoint is made with a client from here: the
direct transport's chat calls (:mod:`coordqa.llm.direct_provider`), the probe before a run
(:mod:`coordqa.runs.endpoint`) and the listing of served models (:mod:`coordqa.llm.served`);
``coordqa submit`` reads a leaderboard's answers with it too (:mod:`coordqa.leaderboard.client`),
since a board is another machine. So these rules hold on each of them:

- **No redirect is followed.** An OpenAI-compatible API never needs one, and following one would
  send the request, its key included, wherever the endpoint points. A 3xx answer is an error,
  :class:`RedirectRefused`, that names the status and the Location (except under a guard: a
  board's job errors are public, and the Location is the endpoint's to choose).
- **A body is read up to** :data:`~coordqa.llm.bounds.MAX_BODY_BYTES` **and until a deadline**,
  uncompressed (the request asks for ``identity``): a longer body, one still arriving at the
  deadline, or a compressed one fails the attempt (:class:`BodyRefused`) instead of filling
  memory; what was read is dropped with the connection.
- **Under** :func:`coordqa.llm.addresses.guarded_endpoints` every new connection goes through
  the address guard (:class:`AsyncGuardedBackend`, :class:`GuardedBackend`), and proxy settings
  from the environment are not read, since a proxy would resolve the name itself.

httpx (0.28) takes no network backend as an argument (encode/httpx#3180): a guarded transport
is httpx's own with its connection pool replaced by httpcore's, given the backend
(:func:`_guarded_transport`). ``tests/test_llm_http.py`` checks that the guard is the one that
connects, so an httpx release that changes this fails a test rather than the guard.
"""

from __future__ import annotations

import functools
import ssl
import time
from collections.abc import AsyncIterator, Iterable, Iterator

import anyio
import httpcore
import httpx

from coordqa._version import __version__
from coordqa.llm.addresses import AddressGuard, AddressRefused, active_guard
from coordqa.llm.bounds import MAX_BODY_BYTES
from coordqa.llm.providers import BrokenReply

__all__ = [
    "AsyncGuardedBackend",
    "BodyRefused",
    "GuardedBackend",
    "Lanes",
    "RedirectRefused",
    "async_client",
    "read_body",
    "read_body_sync",
    "refuse_redirect",
    "sync_client",
]

HEADERS = {"Accept-Encoding": "identity", "User-Agent": f"coordqa/{__version__}"}
"""Sent with every request: an uncompressed body (so its size is what is read), and who asks."""


class RedirectRefused(Exception):
    """The endpoint answered with a redirect, which is never followed."""

    def __init__(self, status: int, location: str | None) -> None:
        """Say the status, and where it pointed when that may be shown (``location``)."""
        where = f" to {location}" if location else ""
        super().__init__(
            f"the endpoint answered {status} (a redirect{where}); coordqa follows no redirect: "
            "give the endpoint's own address as --api-base"
        )
        self.status_code = status


class BodyRefused(BrokenReply):
    """A response body that is not read to its end: too long, too slow, or compressed."""


def refuse_redirect(response: httpx.Response, *, show_location: bool) -> None:
    """Raise :class:`RedirectRefused` if ``response`` is a redirect (3xx).

    ``show_location``: name where it pointed, at most 200 characters of it (the command line
    user's own endpoint); a board's public errors leave it out.
    """
    if 300 <= response.status_code < 400:
        location = response.headers.get("location") if show_location else None
        raise RedirectRefused(response.status_code, None if location is None else location[:200])


class _Body:
    """A response body gathered chunk by chunk within its byte limit and deadline."""

    def __init__(self, response: httpx.Response, deadline: float) -> None:
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise BodyRefused(
                f"the endpoint sent its body compressed ({encoding[:40]}) though asked for it "
                "uncompressed"
            )
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise self._too_long(f"it declares {int(declared):,} bytes")
        self.deadline = deadline
        self.chunks: list[bytes] = []
        self.size = 0

    @staticmethod
    def _too_long(why: str) -> BodyRefused:
        return BodyRefused(
            f"the response body is longer than {MAX_BODY_BYTES:,} bytes ({why}); it was not read"
        )

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > MAX_BODY_BYTES:
            raise self._too_long(f"{self.size:,} bytes had arrived")
        if time.monotonic() > self.deadline:
            raise BodyRefused(
                f"the response body was still arriving at the attempt's deadline "
                f"({self.size:,} bytes read)"
            )
        self.chunks.append(chunk)

    def bytes(self) -> bytes:
        return b"".join(self.chunks)


async def read_body(response: httpx.Response, timeout_s: float) -> bytes:
    """The body of a streamed ``response``, read within its bounds and ``timeout_s`` seconds.

    Raises:
        BodyRefused: too long, still arriving after ``timeout_s``, or compressed.
    """
    body = _Body(response, time.monotonic() + timeout_s)
    chunks: AsyncIterator[bytes] = response.aiter_raw()
    async for chunk in chunks:
        body.add(chunk)
    return body.bytes()


def read_body_sync(response: httpx.Response, timeout_s: float) -> bytes:
    """:func:`read_body` for a response of the blocking client."""
    body = _Body(response, time.monotonic() + timeout_s)
    chunks: Iterator[bytes] = response.iter_raw()
    for chunk in chunks:
        body.add(chunk)
    return body.bytes()


def _checked(guard: AddressGuard, host: str, port: int) -> list[str]:
    """``guard``'s checked addresses of ``host``; a name that does not resolve cannot connect.

    Raises:
        AddressRefused: the host resolves to an address the guard refuses.
        httpcore.ConnectError: it does not resolve.
    """
    try:
        return guard.checked(host, port)
    except AddressRefused:
        raise
    except OSError as exc:
        raise httpcore.ConnectError(f"{host} does not resolve: {exc}") from exc


class AsyncGuardedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that connects only to the addresses its guard checked."""

    def __init__(self, guard: AddressGuard) -> None:
        """Check with ``guard``; connect through httpcore's own anyio backend."""
        self.guard = guard
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve ``host`` once, check every address, connect to the first that answers.

        Raises:
            AddressRefused: the host resolves to an address the guard refuses.
            httpcore.ConnectError: it does not resolve, or no address takes the connection.
        """
        addresses = await anyio.to_thread.run_sync(_checked, self.guard, host, port)
        failure = httpcore.ConnectError(f"{host}: no address to connect to")
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        raise failure

    async def sleep(self, seconds: float) -> None:
        """Sleep as httpcore's own backend does (between its connection retries)."""
        await self._inner.sleep(seconds)


class GuardedBackend(httpcore.NetworkBackend):
    """The blocking twin of :class:`AsyncGuardedBackend`, for the probe and the model listing."""

    def __init__(self, guard: AddressGuard) -> None:
        """Check with ``guard``; connect through httpcore's own blocking backend."""
        self.guard = guard
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        """Resolve ``host`` once, check every address, connect to the first that answers."""
        failure = httpcore.ConnectError(f"{host}: no address to connect to")
        for address in _checked(self.guard, host, port):
            try:
                return self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        raise failure

    def sleep(self, seconds: float) -> None:
        """Sleep as httpcore's own backend does (between its connection retries)."""
        self._inner.sleep(seconds)


@functools.cache
def _tls(trust_env: bool) -> ssl.SSLContext:
    """The TLS settings of every client, made once: loading the CA bundle takes 40 ms."""
    return httpx.create_ssl_context(trust_env=trust_env)


def _limits(pool_size: int) -> httpx.Limits:
    """A pool that keeps ``pool_size`` connections alive; the gateway's limiter bounds use."""
    return httpx.Limits(max_connections=None, max_keepalive_connections=pool_size)


def _guarded_transport(
    transport: httpx.AsyncHTTPTransport | httpx.HTTPTransport,
    guard: AddressGuard,
    limits: httpx.Limits,
) -> None:
    """Give ``transport`` a connection pool whose every connection goes through ``guard``."""
    if isinstance(transport, httpx.AsyncHTTPTransport):
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=_tls(False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=AsyncGuardedBackend(guard),
        )
    else:
        transport._pool = httpcore.ConnectionPool(
            ssl_context=_tls(False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(guard),
        )


LANE_CONNECTIONS = 4
"""Connections kept alive per pool of :class:`Lanes`."""


class Lanes:
    """Several small keep-alive pools for one endpoint, each call sent on the least busy one.

    httpcore's pool looks at every connection it holds each time it assigns a request and each
    time one ends (whether it is idle, whether its socket was closed): with 32 connections that
    was about 1,800 checks and a third of the client's CPU per call, more than litellm's whole
    call. Pools of :data:`LANE_CONNECTIONS` keep each look short; together they keep
    ``pool_size`` connections alive.
    """

    def __init__(self, pool_size: int, guard: AddressGuard | None) -> None:
        """Make ``ceil(pool_size / LANE_CONNECTIONS)`` clients (see :func:`async_client`)."""
        count = max(1, -(-pool_size // LANE_CONNECTIONS))
        self.clients = [async_client(LANE_CONNECTIONS, guard) for _ in range(count)]
        self.busy = [0] * count

    def pick(self) -> int:
        """The index of the least busy client, counted busy until :meth:`done`."""
        lane = self.busy.index(min(self.busy))
        self.busy[lane] += 1
        return lane

    def done(self, lane: int) -> None:
        """A call on ``lane`` ended."""
        self.busy[lane] -= 1

    async def aclose(self) -> None:
        """Close every client and its connections."""
        for client in self.clients:
            await client.aclose()


def async_client(pool_size: int, guard: AddressGuard | None) -> httpx.AsyncClient:
    """An async client for one endpoint: no redirects, ``pool_size`` connections kept alive.

    ``guard``: every connection goes through it (and the environment's proxies are ignored).
    """
    limits = _limits(pool_size)
    trust_env = guard is None
    transport = httpx.AsyncHTTPTransport(verify=_tls(trust_env), limits=limits, trust_env=trust_env)
    if guard is not None:
        _guarded_transport(transport, guard, limits)
    return httpx.AsyncClient(
        transport=transport, headers=HEADERS, follow_redirects=False, trust_env=guard is None
    )


def sync_client(timeout: httpx.Timeout) -> httpx.Client:
    """A blocking client under the active guard (:func:`~coordqa.llm.addresses.active_guard`).

    For the one-off requests made before and around a run: the probe and the model listing.
    """
    guard = active_guard()
    limits = _limits(1)
    trust_env = guard is None
    transport = httpx.HTTPTransport(verify=_tls(trust_env), limits=limits, trust_env=trust_env)
    if guard is not None:
        _guarded_transport(transport, guard, limits)
    return httpx.Client(
        transport=transport,
        headers=HEADERS,
        follow_redirects=False,
        trust_env=guard is None,
        timeout=timeout,
    )
