"""Model limits shared by every Ray worker: one named actor per model connection.

Ray is the engine (no home-made distribution). A driver that sends model calls from Ray workers
attaches, before submitting its tasks, to one named :class:`LimiterActor` per model connection
(provider plus api_base; :func:`shared_limiters`); in each worker, models take their slots and
rate budget through :class:`RayLimiter`, an implementation of :class:`coordqa.llm.Limiter` that
forwards to that actor, installed through a :class:`~coordqa.llm.LimiterRegistry`. So
``concurrency`` and the per-minute budgets hold across all workers, as they do across the tasks
of one process. The agentic grid's Ray backend and the QA eval sets' both use it.

The actor is named by the connection only (:func:`actor_name`), as the local registry keys its
limiters, so every run on one cluster that calls an endpoint shares its budget whatever its own
settings; like :meth:`~coordqa.llm.LimiterRegistry.configure`, a model built with other bounds
sets them for every later call. The actor outlives the driver that made it while other runs use
it (``detached``, counted by :meth:`LimiterActor.attach`); the last run to leave kills it.

A worker that dies while holding a slot leaves it taken until the actor ends; Ray retries the
task, so size ``concurrency`` with some slack on unreliable clusters. A driver that dies without
leaving leaves the actor behind, and later runs reuse it.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import signal
import socket
import threading
import uuid
import warnings
from collections.abc import Iterator, Mapping
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
    nullcontext,
)
from typing import Any
from urllib.parse import urlsplit

from coordqa.errors import ConfigError, MissingDependencyError
from coordqa.jsonvalues import content_hash
from coordqa.llm.limits import Limiter, Limits, LocalLimiter

__all__ = [
    "NAMESPACE",
    "LimiterActor",
    "RayLimiter",
    "actor_name",
    "import_ray",
    "limiter_actor",
    "ray_cluster",
    "ray_for_backend",
    "shared_limiters",
]

NAMESPACE = "coordqa"
"""Ray namespace of the limiter actors."""


CLIENT_SCHEME = "ray://"
"""An address with this scheme is reached through the Ray Client, which needs ``ray[client]``."""
CLIENT_PORT = 10001
"""The Ray Client's port when an address names none (Ray's default)."""


def import_ray(address: str | None = None) -> Any:
    """The ``ray`` module, or an error that says how to install it.

    A ``ray://`` ``address`` also needs the Ray Client's package (grpcio, from ``ray[client]``),
    which a plain ``pip install ray`` lacks; Ray itself would only say so with a traceback once
    connecting, so it is checked here, before any command lists, shows or writes anything.
    """
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError(
            "the Ray backend needs ray; install it with: pip install 'coordqa[ray]'"
        ) from exc
    if _is_client_address(address) and importlib.util.find_spec("grpc") is None:
        raise MissingDependencyError(
            f"a {CLIENT_SCHEME} address needs the Ray Client; install it with: "
            "pip install 'coordqa[ray]' (or pip install 'ray[client]')"
        )
    return ray


def _is_client_address(address: str | None) -> bool:
    """Whether ``address`` is reached through the Ray Client."""
    return address is not None and address.startswith(CLIENT_SCHEME)


def actor_name(key: str) -> str:
    """The name of the limiter actor of a connection key (one per endpoint, whatever the limits)."""
    return f"coordqa-limiter-{content_hash([key])[:16]}"


class LimiterActor:
    """The limits of one model connection, held in one place for every worker (an async actor).

    It wraps a :class:`~coordqa.llm.LocalLimiter`: slots are taken and released by ticket, so a
    worker's ``async with`` maps to two actor calls.
    """

    def __init__(self, key: str, limits: Limits) -> None:
        """Hold the limits of connection ``key``."""
        self._key = key
        self._limits = limits
        self._limiter = LocalLimiter(key, limits)
        self._held: dict[str, AbstractAsyncContextManager[None]] = {}
        self._peak = 0
        self._runs = 0

    async def configure(self, limits: Limits) -> None:
        """Bound every later call by ``limits`` (slots already held finish under the old ones)."""
        if limits != self._limits:
            self._limiter = LocalLimiter(self._key, limits)
            self._limits = limits

    async def limits(self) -> Limits:
        """The bounds now in force."""
        return self._limits

    async def attach(self) -> int:
        """Count one more run using this actor; returns how many do."""
        self._runs += 1
        return self._runs

    async def detach(self) -> int:
        """Count one run fewer; returns how many still use the actor (0: kill it)."""
        self._runs = max(self._runs - 1, 0)
        return self._runs

    async def acquire(self, ticket: str) -> None:
        """Wait for a slot and hold it under ``ticket``."""
        slot = self._limiter.slot()
        await slot.__aenter__()
        self._held[ticket] = slot
        self._peak = max(self._peak, len(self._held))

    async def release(self, ticket: str) -> None:
        """Give back the slot held under ``ticket``."""
        slot = self._held.pop(ticket)
        await slot.__aexit__(None, None, None)

    async def admit(self, tokens: int) -> None:
        """Wait until a request of about ``tokens`` tokens fits the per-minute budgets."""
        await self._limiter.admit(tokens)

    async def settle(self, estimated: int, actual: int) -> None:
        """Correct the token budget with a request's real token count."""
        await self._limiter.settle(estimated, actual)

    async def peak(self) -> int:
        """The most slots ever held at once (to check the limit held across workers)."""
        return self._peak


def limiter_actor(key: str, limits: Limits) -> Any:
    """The named limiter actor of ``key`` (created on first use), bounded by ``limits`` from now."""
    ray = import_ray()
    remote = ray.remote(LimiterActor)
    actor = remote.options(
        name=actor_name(key), namespace=NAMESPACE, get_if_exists=True, lifetime="detached"
    ).remote(key, limits)
    actor.configure.remote(limits)
    return actor


class RayLimiter(Limiter):
    """A :class:`~coordqa.llm.Limiter` whose state lives in a shared :class:`LimiterActor`."""

    def __init__(self, key: str, limits: Limits) -> None:
        """Attach to (or create) the actor of connection ``key`` with ``limits``."""
        self._actor = limiter_actor(key, limits)

    @asynccontextmanager
    async def slot(self) -> Any:
        """Hold one of the connection's slots, counted across all workers."""
        ticket = uuid.uuid4().hex
        await self._actor.acquire.remote(ticket)
        try:
            yield
        finally:
            await self._actor.release.remote(ticket)

    async def admit(self, tokens: int) -> None:
        """Wait for the shared per-minute budgets."""
        await self._actor.admit.remote(tokens)

    async def settle(self, estimated: int, actual: int) -> None:
        """Correct the shared token budget."""
        await self._actor.settle.remote(estimated, actual)


@contextmanager
def ray_cluster(address: str | None) -> Iterator[Any]:
    """Yield ``ray`` connected: to ``address``, to the Ray already initialised, or to a new one.

    A Ray started here (a local one when ``address`` is None) is shut down at the end; one that
    was already initialised is left running. Ray's own log says only its errors (``ERROR``):
    its start-up notes ("Token authentication is enabled", "Started a local Ray instance") are
    no news to a user who asked for Ray, and went to stderr among coordqa's messages.

    Raises:
        MissingDependencyError: ray (or, for a ``ray://`` address, its client) is not installed.
        ConfigError: nothing answers at ``address``: at once where its port takes no
            connection, else after Ray's own retries (about 30 s for the Ray Client).
    """
    ray = import_ray(address)
    started_here = not ray.is_initialized()
    if started_here:
        _connect(ray, address)
    try:
        yield ray
    finally:
        if started_here:
            ray.shutdown()


def _connect(ray: Any, address: str | None) -> None:
    """``ray.init`` to ``address``, with an unreachable cluster said in one line.

    The Ray Client takes no dashboard option (it would log that it forwards it) and warns on a
    timeout before raising; the error below says the same, so the warning is not repeated.
    ``ray.init`` sets its own SIGTERM handler, ``sys.exit(15)``: the run's own handler (a
    SIGTERM stops a run as Ctrl-C does, with what is kept said) is put back (walkthrough 23: a
    SIGTERM ended a Ray eval-set with status 15 in silence, its members left "pending").
    """
    options: dict[str, Any] = (
        {} if _is_client_address(address) else {"include_dashboard": False}
    ) | {"logging_level": logging.ERROR}
    unreachable = _unreachable(address)
    if unreachable is not None:
        raise ConfigError(_no_cluster(address, unreachable))
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            ray.init(address=address, namespace=NAMESPACE, **options)
    except ConnectionError as exc:
        raise ConfigError(_no_cluster(address)) from exc
    finally:
        if sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, sigterm)


def _no_cluster(address: str | None, why: str | None = None) -> str:
    """The one refusal of an address where no Ray cluster answers (``why``: what was seen)."""
    seen = f" ({why})" if why else ""
    port = f"client port ({CLIENT_PORT}" if _is_client_address(address) else f"port ({GCS_PORT}"
    return (
        f"no Ray cluster answered at {address}{seen}: check that one runs there (ray start "
        f"--head) and that this machine can reach its {port} by default)"
    )


CONNECT_S = 5.0
"""How long the look at a Ray address may wait for a connection."""

GCS_PORT = 6379
"""A Ray cluster's port when a ``host:port`` address names none (Ray's default, ``ray start``)."""

_HOST_PORT = re.compile(r"^(?P<host>[^:/\s]+):(?P<port>\d{1,5})$")
"""A cluster's ``host:port`` address (not ``auto``, ``local`` or ``ray://...``)."""


def _unreachable(address: str | None) -> str | None:
    """Why nothing can connect to a Ray address now, or None: looked at before ``ray.init``.

    For the Ray Client (``ray://host:port``) and a cluster's ``host:port``. Ray's client retries
    for about 30 s before it says anything, and ``ray.init("host:port")`` waits for a cluster
    there forever, printing a warning every 5 s (walkthrough 30: killed after 400 s), where a
    port that refuses says so in a millisecond. A connection taken is left to Ray.
    """
    target = _host_and_port(address)
    if target is None:
        return None
    try:
        with socket.create_connection(target, timeout=CONNECT_S):
            return None
    except TimeoutError:
        return f"no connection within {CONNECT_S:g} s"
    except ConnectionRefusedError:
        return "the connection was refused"
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def _host_and_port(address: str | None) -> tuple[str, int] | None:
    """The host and port a Ray address connects to; None for ``auto``, ``local`` or none."""
    if address is None:
        return None
    if _is_client_address(address):
        parts = urlsplit(address)
        try:
            port = parts.port or CLIENT_PORT
        except ValueError:
            return None
        return (parts.hostname, port) if parts.hostname else None
    found = _HOST_PORT.match(address.strip())
    return (found["host"], int(found["port"])) if found else None


def ray_for_backend(backend: str, address: str | None) -> AbstractContextManager[Any]:
    """Ray connected for a whole command when ``backend`` is ``"ray"`` (nothing otherwise).

    Commands enter it before they write anything, so a cluster that cannot be reached leaves no
    run folder behind; the backend's own :func:`ray_cluster` inside then reuses the connection.
    """
    return ray_cluster(address) if backend == "ray" else nullcontext()


@contextmanager
def shared_limiters(limits: Mapping[str, Limits]) -> Iterator[dict[str, Any]]:
    """Attach, from the driver, to the limiter actor of each connection key (creating it).

    Yields the actors by key. At the end the run leaves them, and those no other run uses are
    killed. Call it inside :func:`ray_cluster`.
    """
    ray = import_ray()
    actors = {key: limiter_actor(key, limits[key]) for key in sorted(limits)}
    ray.get([actor.attach.remote() for actor in actors.values()])
    try:
        yield actors
    finally:
        for actor in actors.values():
            if ray.get(actor.detach.remote()) == 0:
                ray.kill(actor)
