"""The one retry loop: bounded attempts, bounded total time, backoff with full jitter.

Every model call goes through :func:`call_with_retries`, governed by one
:class:`~coordqa.llm.types.CallPolicy`. The provider only classifies failures
(``should_retry(exc) -> RetryDecision``); this module decides when to try again. litellm's own
retries are switched off so that this loop is the only one.

A call that still fails is returned as an error :class:`Attempted` (never raised), with an
:data:`~coordqa.llm.types.ErrorKind` that tells the caller whether other calls can fare better
(``failed``) or not (``fatal``: the provider refused the key or the model; ``unreachable``: the
:class:`ConnectionBreaker` saw too many attempts in a row that never reached the server). Callers
decide what to do about it; configuration errors (:class:`CoordqaError`) are raised, because every
later call would fail the same way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Generic, TypeVar

from coordqa.errors import CoordqaError
from coordqa.llm.call_names import current_call
from coordqa.llm.types import CallPolicy, ErrorKind, RetryDecision
from coordqa.words import counted

log = logging.getLogger(__name__)
"""Each timed-out attempt, as it happens, named by its call (:mod:`coordqa.llm.call_names`);
its record's ``call`` and ``attempt`` say both apart (the CLI groups identical attempts)."""

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
    kind: ErrorKind | None = None
    """What the failure means for other calls (None on success)."""


class ConnectionBreaker:
    """Counts attempts in a row that never reached the server; open at ``threshold``.

    While open, calls are not retried: each makes one attempt and, if that fails to connect too,
    returns ``unreachable`` at once. A dead server then costs one refused connection per call
    instead of a full backoff schedule (minutes per call), and the caller hears about it within
    seconds. Any attempt that gets an answer (even an error status) closes it again. Shared by
    the calls of one model; thread-safe.
    """

    def __init__(self, threshold: int) -> None:
        """Open after ``threshold`` consecutive connection failures."""
        self.threshold = threshold
        self._misses = 0
        self._last_error = ""
        self._lock = threading.Lock()

    @property
    def open(self) -> bool:
        """Whether the endpoint counts as unreachable now."""
        with self._lock:
            return self._misses >= self.threshold

    def observe(self, reached: bool, error: str = "") -> None:
        """Count one finished attempt: it ``reached`` the server, or failed with ``error``."""
        with self._lock:
            if reached:
                self._misses = 0
            else:
                self._misses += 1
                self._last_error = error

    def describe(self) -> str:
        """Why calls are failing, for the error text of an ``unreachable`` call."""
        with self._lock:
            return (
                f"the server did not answer {counted(self._misses, 'attempt')} in a row "
                f"(--max-connection-failures {self.threshold}); last error: {self._last_error}"
            )


REFUSED_WAIT_MAX_S = 0.5
"""The longest wait before retrying a refused connection.

Backoff spares a server that is busy or a network that is congested; a refused connection is
neither: the host said at once that nothing listens. Waiting as for a 5xx made a server killed
mid-run stop a ``--concurrency 1`` eval only after ~23 s (the breaker needs
``--max-connection-failures`` attempts in a row, and one call spent ~15 s of backoff on its 6);
with this bound the 10 refusals take a few seconds, at any concurrency. A server restarting
within that time is found by the same command run again, which resumes.
"""


def backoff_delay(
    policy: CallPolicy, retry_number: int, decision: RetryDecision, rng: random.Random
) -> float:
    """Seconds to wait before retry number ``retry_number`` (1 for the first retry).

    Full jitter: uniform in [0, min(backoff_max_s, backoff_initial_s * 2**(n-1))], so many clients
    that failed together do not retry together; a refused connection waits at most
    :data:`REFUSED_WAIT_MAX_S`. A provider's Retry-After is a floor: we never
    retry sooner than it asked, even beyond ``backoff_max_s``.

    >>> policy = CallPolicy(backoff_initial_s=0.0)
    >>> backoff_delay(policy, 3, RetryDecision("rate_limit", retry_after=2.5), random.Random(0))
    2.5
    """
    cap = min(policy.backoff_max_s, policy.backoff_initial_s * 2 ** (retry_number - 1))
    if decision.refused:
        cap = min(cap, REFUSED_WAIT_MAX_S)
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


_CONNECTION_FAILURES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "ConnectError",
        "ConnectTimeout",
        "ReadError",
        "ReadTimeout",
        "RemoteProtocolError",
        "ServerDisconnectedError",
        "WriteError",
    }
)
"""Exception class names, in the HTTP clients providers use (httpx, openai, aiohttp), that
mean the request got no answer (refused, reset or closed before the reply); matched by name so
that no client library is imported here."""


def is_connection_failure(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) means the server gave no answer.

    Client libraries wrap the refused connection several times (litellm turns it into an
    "InternalServerError" with status 500), so the whole ``__cause__`` chain is searched.
    """
    return any(
        isinstance(current, ConnectionError | TimeoutError | socket.gaierror)
        or any(cls.__name__ in _CONNECTION_FAILURES for cls in type(current).__mro__)
        for current in _chain(exc)
    )


def is_refused(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is a refused connection.

    The host answered at once that nothing listens on the port: a server that is down or was
    never started, not one that is slow or overloaded.
    """
    return any(isinstance(current, ConnectionRefusedError) for current in _chain(exc))


def connection_decision(exc: BaseException) -> RetryDecision | None:
    """The decision on an attempt that never reached the server, or None if ``exc`` did.

    The one reading of connection failures for every provider that talks to an endpoint. Each
    is retried and counted by the :class:`ConnectionBreaker`; a refused one is retried soon
    (:data:`REFUSED_WAIT_MAX_S`), so that a server that died stops the run within seconds.
    """
    if not is_connection_failure(exc):
        return None
    if is_refused(exc):
        return RetryDecision("transient", "connection refused", connection=True, refused=True)
    return RetryDecision("transient", "connection failure or timeout", connection=True)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def root_cause(exc: BaseException) -> BaseException:
    """The innermost exception ``exc`` was raised from (the client's own words)."""
    seen = {id(exc)}
    while (inner := exc.__cause__ or exc.__context__) is not None and id(inner) not in seen:
        seen.add(id(inner))
        exc = inner
    return exc


def provider_words(text: str) -> str:
    """``text`` with an OpenAI-style JSON error body in it replaced by the body's message.

    Clients that pass the server's body on as it came (litellm's HTTP handler does) would
    otherwise show the provider's sentence inside JSON.

    >>> provider_words('Error - {"error": {"message": "Incorrect API key", "type": "x"}}')
    'Error - Incorrect API key'
    >>> provider_words("no body here {not json}")
    'no body here {not json}'
    """
    start = text.find("{")
    while start != -1:
        try:
            body, end = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str) and message.strip():
            return text[:start] + message.strip() + text[end:]
        start = text.find("{", end)
    return text


_TIMEOUTS = frozenset(
    {"TimeoutError", "Timeout", "APITimeoutError", "ReadTimeout", "ConnectTimeout"}
)
"""Exception class names, in the clients providers use, that mean an attempt ran out of time."""


def is_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is an attempt running out of time."""
    return any(
        any(cls.__name__ in _TIMEOUTS for cls in type(current).__mro__) for current in _chain(exc)
    )


_CLIENT_PREFIXES = re.compile(r"^(?:(?:litellm\.)?\w+(?:Error|Exception)(?: - |: ))+")
"""The class names client libraries put before the provider's sentence, often several deep
(``litellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect API key``)."""


TIMED_OUT_CAUSE = (
    "a call given up on is not stopped on the server, and a server you run answers the next "
    "calls only after the replies it is still generating"
)
"""Why calls that timed out make later calls time out too: said once in a run's closing advice
(walkthrough 25, R2), as true of a hosted provider (it too finishes a reply given up on) as of a
served model (llama-cpp-python's server answers one request at a time)."""
TIMED_OUT_WAIT = "raise --timeout, or wait for that server or restart it"
"""What to do about calls that timed out, for a run whose replies are capped already."""
TIMED_OUT_FIX = (
    "cap replies with --max-tokens (e.g. 256) in a new run (another --out: a run keeps the "
    f"settings it began with); or {TIMED_OUT_WAIT}"
)
"""What to do about calls that timed out (:data:`TIMED_OUT_CAUSE`). The cap needs a new run:
"cap replies with --max-tokens, then run the same command again" was refused as a changed
setting (walkthrough 29)."""


def timed_out_fix(capped: bool) -> str:
    """:data:`TIMED_OUT_FIX`, less the cap for a run whose replies are ``capped`` already.

    A run given --max-tokens 256 was told to cap replies at 256 (walkthrough 31).
    """
    return TIMED_OUT_WAIT if capped else TIMED_OUT_FIX


TIMED_OUT_IN_PROCESS = (
    "a model run in this process stops a generation at the timeout: raise --timeout to let "
    "its replies finish"
)
"""Why and what to do, for a model with no server (``llamacpp/``): its generation is aborted at
the timeout and its replies are capped already (walkthrough 27: it was told of a server)."""


def timed_out(error: str) -> bool:
    """Whether a failed call's error says its last attempt ran out of time (--timeout).

    >>> timed_out("gave up after 2 attempts (--max-attempts); last error: timed out after 3 s "
    ...           "(--timeout)")
    True
    >>> timed_out("gave up after 6 attempts; last error: InternalServerError: overloaded")
    False
    """
    return _TIMED_OUT.search(error) is not None


_TIMED_OUT = re.compile(r"timed out after \S+ s \(--timeout\)")


def describe_error(exc: BaseException, timeout_s: float | None = None) -> str:
    """A one-line description of a failure, for the error text of a Reply.

    An attempt that ran out of time is said as such, with its limit: waiting on a server that
    never answers ends in a cancelled wait, whose own name (``CancelledError``) would say nothing.

    >>> describe_error(TimeoutError(), timeout_s=120)
    'timed out after 120 s (--timeout)'
    >>> describe_error(PermissionError("litellm.AuthenticationError: AuthenticationError: "
    ...                                "OpenAIException - Incorrect API key provided"))
    'PermissionError: Incorrect API key provided'
    """
    if timeout_s is not None and is_timeout(exc):
        return f"timed out after {timeout_s:g} s (--timeout)"
    text = _CLIENT_PREFIXES.sub("", provider_words(str(exc).strip()))
    first_line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first_line[:500]}" if first_line else type(exc).__name__


async def call_with_retries(
    attempt: Callable[[float], Awaitable[T]],
    should_retry: Callable[[Exception], RetryDecision],
    policy: CallPolicy,
    *,
    before_attempt: Callable[[], Awaitable[None]] | None = None,
    rng: random.Random | None = None,
    breaker: ConnectionBreaker | None = None,
) -> Attempted[T]:
    """Run ``attempt(timeout_s)`` until it succeeds, a failure is permanent, or a bound is hit.

    Args:
        attempt: one try; receives its timeout (also enforced here with ``asyncio.wait_for``).
        should_retry: the provider's classification of a failed try.
        policy: attempt count, per-attempt timeout, total time and backoff.
        before_attempt: awaited before each try, outside its timeout (rate-limit admission).
        rng: source of jitter (tests pass a seeded one).
        breaker: counts connection failures across calls; while open, no retries.

    Returns:
        The value of the first successful try, or the reason the call failed for good.

    Raises:
        CoordqaError: raised by ``attempt`` for a configuration problem; never retried.
    """
    rng = rng or random.Random()
    deadline = time.monotonic() + policy.max_total_s
    last_error = "no attempt was made"
    for number in range(1, policy.max_attempts + 1):
        if number > 1 and breaker is not None and breaker.open:
            return Attempted(None, breaker.describe(), number - 1, "unreachable")
        if before_attempt is not None:
            await before_attempt()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            bound = f"after {policy.max_total_s:g} s, the most one call may take"
            return Attempted(None, _gave_up(bound, last_error), number - 1, "failed")
        timeout_s = min(policy.timeout_s, remaining)
        try:
            value = await asyncio.wait_for(attempt(timeout_s), timeout=timeout_s)
        except CoordqaError:
            raise
        except Exception as exc:  # every provider failure becomes a decision, never a crash
            decision = should_retry(exc)
            cause = root_cause(exc) if decision.connection and not is_timeout(exc) else exc
            last_error = describe_error(cause, timeout_s)
            if breaker is not None:
                breaker.observe(not decision.connection, last_error)
            if is_timeout(exc):  # minutes may pass between attempts: say each as it happens
                then = "retrying" if decision.retry and number < policy.max_attempts else "stopping"
                what = f"attempt {number} of {policy.max_attempts} {last_error}; {then}"
                call = current_call()  # which call: a question and trial, a decision and role
                named = f"{call}: {what}" if call else what
                log.warning("%s", named, extra={"call": call, "attempt": what})
            if not decision.retry:
                reason = f" ({decision.reason})" if decision.reason else ""
                kind: ErrorKind = "fatal" if decision.kind == "fatal" else "failed"
                return Attempted(None, f"{last_error}; not retried{reason}", number, kind)
            if breaker is not None and breaker.open:
                return Attempted(None, breaker.describe(), number, "unreachable")
            if number == policy.max_attempts:
                break
            delay = backoff_delay(policy, number, decision, rng)
            if time.monotonic() + delay >= deadline:
                bound = (
                    f"before the next wait ({delay:.1f} s), which would pass the "
                    f"{policy.max_total_s:g} s one call may take"
                )
                return Attempted(None, _gave_up(bound, last_error), number, "failed")
            await asyncio.sleep(delay)
        else:
            if breaker is not None:
                breaker.observe(True)
            return Attempted(value, None, number)
    bound = f"after {counted(policy.max_attempts, 'attempt')} (--max-attempts)"
    return Attempted(None, _gave_up(bound, last_error), policy.max_attempts, "failed")


def _gave_up(bound: str, last_error: str) -> str:
    return f"gave up {bound}; last error: {last_error}"
