"""Named, keyed concurrency and rate limits: the one place that decides when a call may start.

A :class:`Limiter` bounds the calls on one connection (a provider plus its ``api_base``): how many
are in flight at once, and optionally how many requests and tokens go out per minute. Limiters
live in a :class:`LimiterRegistry`, one per connection key, so a QA run and an agent match that
talk to the same host share one budget, even when they were configured differently, while two
hosts never share a slot. The bounds of a connection are those of its latest
:meth:`LimiterRegistry.configure` (every new :class:`~coordqa.llm.Model` configures its endpoint).

The registry is pluggable: a distributed backend (e.g. a Ray actor shared by workers) implements
:class:`Limiter` and is installed with ``limiters.use(factory)``. The default
:class:`LocalLimiter` is per process; its semaphore is created per event loop, because asyncio
primitives belong to the loop they first wait on and programs (and tests) may call
``asyncio.run`` many times.
"""

from __future__ import annotations

import abc
import asyncio
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from coordqa.errors import ConfigError
from coordqa.llm.types import CallPolicy


@dataclass(frozen=True)
class Limits:
    """The bounds one limiter enforces."""

    concurrency: int
    """Calls in flight at once."""
    requests_per_minute: float | None = None
    """Requests started per minute (None: unlimited)."""
    tokens_per_minute: float | None = None
    """Tokens (prompt plus completion) per minute (None: unlimited)."""

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {self.concurrency}")
        for name in ("requests_per_minute", "tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ConfigError(f"{name} must be > 0 or None (unlimited), got {value}")

    @classmethod
    def from_policy(cls, policy: CallPolicy) -> Limits:
        """The limits a call policy asks for."""
        return cls(policy.concurrency, policy.requests_per_minute, policy.tokens_per_minute)


class Limiter(abc.ABC):
    """Bounds the calls on one connection. Implement this for a shared, distributed limiter."""

    @abc.abstractmethod
    def slot(self) -> AbstractAsyncContextManager[None]:
        """Hold one of the ``concurrency`` slots for the duration of a call (retries included)."""

    @abc.abstractmethod
    async def admit(self, tokens: int) -> None:
        """Wait until one more request of about ``tokens`` tokens fits the per-minute budgets."""

    @abc.abstractmethod
    async def settle(self, estimated: int, actual: int) -> None:
        """Correct the token budget once a request's real token count is known."""


class _TokenBucket:
    """A reservation-based token bucket: callers take tokens now and wait out any debt.

    It holds at most one second's worth of budget (at least one unit), so bursts stay small, and
    it refills at ``per_minute / 60`` per second. Reserving before waiting keeps callers in
    arrival order without a loop or a lock held across awaits.
    """

    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self._level = self.capacity
        self._stamp = time.monotonic()
        self._lock = threading.Lock()

    def reserve(self, amount: float) -> float:
        """Take ``amount`` (capped at the capacity); return the seconds to wait before using it."""
        with self._lock:
            now = time.monotonic()
            self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
            self._stamp = now
            self._level -= min(amount, self.capacity)
            return max(0.0, -self._level / self.rate)

    def adjust(self, amount: float) -> None:
        """Take (positive) or give back (negative) tokens after the fact."""
        with self._lock:
            self._level = min(self.capacity, self._level - amount)


class LocalLimiter(Limiter):
    """A per-process limiter: an asyncio semaphore per event loop and token buckets."""

    def __init__(self, key: str, limits: Limits) -> None:
        """Create the limiter for connection ``key`` with ``limits``."""
        self.key = key
        self.limits = limits
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._semaphores = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        rpm, tpm = limits.requests_per_minute, limits.tokens_per_minute
        self._requests = _TokenBucket(rpm) if rpm is not None else None
        self._tokens = _TokenBucket(tpm) if tpm is not None else None

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        with self._lock:
            semaphore = self._semaphores.get(loop)
            if semaphore is None:
                semaphore = asyncio.Semaphore(self.limits.concurrency)
                self._semaphores[loop] = semaphore
            return semaphore

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the concurrency slots of the running event loop."""
        async with self._semaphore():
            yield

    async def admit(self, tokens: int) -> None:
        """Reserve one request and ``tokens`` tokens, then sleep off any deficit."""
        waits = [0.0]
        if self._requests is not None:
            waits.append(self._requests.reserve(1))
        if self._tokens is not None:
            waits.append(self._tokens.reserve(tokens))
        delay = max(waits)
        if delay > 0:
            await asyncio.sleep(delay)

    async def settle(self, estimated: int, actual: int) -> None:
        """Charge (or refund) the difference between the real and the estimated token count."""
        if self._tokens is not None:
            self._tokens.adjust(actual - estimated)


LimiterFactory = Callable[[str, Limits], Limiter]
"""Builds the limiter of one connection key."""


class LimiterRegistry:
    """One limiter per connection key: every caller on an endpoint shares its budget."""

    def __init__(self, factory: LimiterFactory = LocalLimiter) -> None:
        """Create an empty registry whose limiters are built by ``factory``."""
        self._factory = factory
        self._limiters: dict[str, Limiter] = {}
        self._limits: dict[str, Limits] = {}
        self._lock = threading.Lock()

    def get(self, key: str, limits: Limits) -> Limiter:
        """The limiter of ``key``; created with ``limits`` when the key has none yet.

        An existing limiter keeps its bounds whatever ``limits`` says, so callers configured
        differently still share one budget; use :meth:`configure` to change the bounds.
        """
        with self._lock:
            limiter = self._limiters.get(key)
            if limiter is None:
                limiter = self._factory(key, limits)
                self._limiters[key] = limiter
                self._limits[key] = limits
            return limiter

    def configure(self, key: str, limits: Limits) -> None:
        """Bound every later call on ``key`` by ``limits``.

        When the bounds change, the key gets a new limiter: calls already holding a slot finish
        under the old bounds, and every call that starts afterwards, from any caller, waits on
        the new one.
        """
        with self._lock:
            if self._limits.get(key) != limits:
                self._limiters[key] = self._factory(key, limits)
                self._limits[key] = limits

    def limits(self, key: str) -> Limits | None:
        """The bounds now in force on ``key`` (None: no call has configured it)."""
        with self._lock:
            return self._limits.get(key)

    def use(self, factory: LimiterFactory) -> None:
        """Build limiters with ``factory`` from now on, forgetting the existing ones.

        Call it before any model call, e.g. to install a limiter shared across Ray workers.
        """
        with self._lock:
            self._factory = factory
            self._limiters.clear()
            self._limits.clear()

    def keys(self) -> list[str]:
        """Connection keys that have a limiter, sorted."""
        with self._lock:
            return sorted(self._limiters)


limiters = LimiterRegistry()
"""The process-wide registry used by every model unless one is given explicitly."""


def limit(
    key: str, concurrency: int, *, registry: LimiterRegistry | None = None
) -> AbstractAsyncContextManager[None]:
    """Hold one of ``concurrency`` slots named ``key`` (use as ``async with``).

    Model calls take their slots through this same registry; use it directly for other work that
    must share a bound, e.g. simulations of one game engine.
    """
    return (registry or limiters).get(key, Limits(concurrency)).slot()
