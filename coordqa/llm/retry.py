"""The one retry loop: bounded attempts, bounded total time, backoff with full jitter.

Every model call goes through :func:`call_with_retries`, governed by one
:class:`~coordqa.llm.types.CallPolicy`. The provider only classifies failures
(``should_retry(exc) -> RetryDecision``); this module decides when to try again. litellm's own
retries are switched off so that this loop is the only one.

A call that still fails is returned as an error :class:`Attempted` (never raised), because one
failed question must not abort an evaluation; configuration errors (:class:`CoordqaError`) are
raised, because every later call would fail the same way.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Generic, TypeVar

from coordqa.errors import CoordqaError
from coordqa.llm.types import CallPolicy, RetryDecision

T = TypeVar("T")


@dataclass(frozen=True)
class Attempted(Generic[T]):
    """The result of a call after its retries: a value, or why there is none."""

    value: T | None
    """The successful attempt's result (None when the call failed for good)."""
    error: str | None
    """Why the call failed for good (None on success)."""
    attempts: int
    """Attempts made, the successful one included."""


def backoff_delay(
    policy: CallPolicy, retry_number: int, decision: RetryDecision, rng: random.Random
) -> float:
    """Seconds to wait before retry number ``retry_number`` (1 for the first retry).

    Full jitter: uniform in [0, min(backoff_max_s, backoff_initial_s * 2**(n-1))], so many clients
    that failed together do not retry together. A provider's Retry-After is a floor: we never
    retry sooner than it asked, even beyond ``backoff_max_s``.

    >>> policy = CallPolicy(backoff_initial_s=0.0)
    >>> backoff_delay(policy, 3, RetryDecision("rate_limit", retry_after=2.5), random.Random(0))
    2.5
    """
    cap = min(policy.backoff_max_s, policy.backoff_initial_s * 2 ** (retry_number - 1))
    jitter = rng.uniform(0.0, cap)
    return max(jitter, decision.retry_after or 0.0)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date), or None.

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after("0.5")
    0.5
    >>> parse_retry_after("soon") is None
    True
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:  # not a number of seconds: the other form is an HTTP date
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds)


def describe_error(exc: BaseException) -> str:
    """A one-line description of a failure, for the error text of a Reply."""
    if isinstance(exc, asyncio.TimeoutError | TimeoutError) and not str(exc):
        return "TimeoutError: the attempt exceeded its timeout"
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first_line[:500]}" if first_line else type(exc).__name__


async def call_with_retries(
    attempt: Callable[[float], Awaitable[T]],
    should_retry: Callable[[Exception], RetryDecision],
    policy: CallPolicy,
    *,
    before_attempt: Callable[[], Awaitable[None]] | None = None,
    rng: random.Random | None = None,
) -> Attempted[T]:
    """Run ``attempt(timeout_s)`` until it succeeds, a failure is permanent, or a bound is hit.

    Args:
        attempt: one try; receives its timeout (also enforced here with ``asyncio.wait_for``).
        should_retry: the provider's classification of a failed try.
        policy: attempt count, per-attempt timeout, total time and backoff.
        before_attempt: awaited before each try, outside its timeout (rate-limit admission).
        rng: source of jitter (tests pass a seeded one).

    Returns:
        The value of the first successful try, or the reason the call failed for good.

    Raises:
        CoordqaError: raised by ``attempt`` for a configuration problem; never retried.
    """
    rng = rng or random.Random()
    deadline = time.monotonic() + policy.max_total_s
    last_error = "no attempt was made"
    for number in range(1, policy.max_attempts + 1):
        if before_attempt is not None:
            await before_attempt()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return Attempted(
                None, _gave_up(f"max_total_s={policy.max_total_s:g}", last_error), number - 1
            )
        timeout_s = min(policy.timeout_s, remaining)
        try:
            value = await asyncio.wait_for(attempt(timeout_s), timeout=timeout_s)
        except CoordqaError:
            raise
        except Exception as exc:  # every provider failure becomes a decision, never a crash
            decision = should_retry(exc)
            last_error = describe_error(exc)
            if not decision.retry:
                reason = f" ({decision.reason})" if decision.reason else ""
                return Attempted(None, f"{last_error}; not retried{reason}", number)
            if number == policy.max_attempts:
                break
            delay = backoff_delay(policy, number, decision, rng)
            if time.monotonic() + delay >= deadline:
                bound = f"max_total_s={policy.max_total_s:g} (next wait {delay:.1f} s)"
                return Attempted(None, _gave_up(bound, last_error), number)
            await asyncio.sleep(delay)
        else:
            return Attempted(value, None, number)
    return Attempted(
        None, _gave_up(f"max_attempts={policy.max_attempts}", last_error), policy.max_attempts
    )


def _gave_up(bound: str, last_error: str) -> str:
    return f"gave up at {bound}; last error: {last_error}"
