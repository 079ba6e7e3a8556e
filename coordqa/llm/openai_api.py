"""What an OpenAI-compatible endpoint's answers mean, whichever client asked (litellm or direct).

One home for the rules both transports follow, so that a refused key, an unknown model, a
rejected parameter, a rate limit or a server error gets the same decision and the same words
on either: :func:`classify_status` reads the status, the ``Retry-After`` and the endpoint's
message of a failed call; :data:`PLACEHOLDER_KEY` is what a keyless server of the user's own is
sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from coordqa.llm.retry import parse_retry_after
from coordqa.llm.types import RetryDecision

__all__ = [
    "CONTEXT_ADVICE",
    "CONTEXT_EXCEEDED",
    "PLACEHOLDER_KEY",
    "classify_status",
    "exceeds_context",
    "retry_after",
]

PLACEHOLDER_KEY = "no-key"
"""Sent to a keyless OpenAI-compatible server, because the OpenAI client requires some key."""

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
"""Client-error statuses that the next attempt may not get (timeouts, conflicts, rate limits)."""
FATAL_STATUS = frozenset({400, 401, 403, 404, 422})
"""Refused key, forbidden, unknown model, rejected parameter: every other call gets them too."""
_REQUEST_SPECIFIC = ("ContextWindowExceededError", "ContentPolicyViolationError")
_REQUEST_SPECIFIC_TEXT = re.compile(r"context length|context window|too long|content policy", re.I)
_OVER_CONTEXT = "ContextWindowExceededError"
_OVER_CONTEXT_TEXT = re.compile(
    r"maximum context length|context_length_exceeded|context window"
    r"|exceeds? the available context size|exceed_context_size",
    re.I,
)
"""How servers word a prompt longer than the model's context: OpenAI, vLLM and llama-cpp-python
(``This model's maximum context length is 2048 tokens...``), llama.cpp's llama-server
(``request (2769 tokens) exceeds the available context size (2048 tokens)``), litellm's class."""

CONTEXT_EXCEEDED = "the prompt does not fit the model's context"
"""In the error of a call refused as longer than the model's context (:func:`exceeds_context`):
the same prompt is refused on every try, so running the command again cannot help."""
CONTEXT_ADVICE = (
    "serve the model with a larger context (--n_ctx N; llama.cpp's llama-server: --ctx-size N) "
    "or use a model with a longer one"
)
"""What to do instead of running again, said with :data:`CONTEXT_EXCEEDED`."""


def exceeds_context(error: str) -> bool:
    """Whether a failed call's error says its prompt does not fit the model's context.

    >>> exceeds_context(f"BadRequestError: ...; not retried (HTTP 400: {CONTEXT_EXCEEDED})")
    True
    >>> exceeds_context("gave up after 6 attempts; last error: InternalServerError: overloaded")
    False
    """
    return CONTEXT_EXCEEDED in error


def _over_context(exc: Exception) -> bool:
    """Whether a client error says the request is longer than the model's context."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return _OVER_CONTEXT in names or bool(_OVER_CONTEXT_TEXT.search(str(exc)))


def about_this_request(exc: Exception) -> bool:
    """Whether a client error concerns one request's content (too long, filtered).

    Other requests to the same model may then succeed, so the error is not fatal.
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names.intersection(_REQUEST_SPECIFIC)) or bool(
        _REQUEST_SPECIFIC_TEXT.search(str(exc))
    )


def retry_after(exc: Exception) -> float | None:
    """The Retry-After of a failed response, in seconds, if the endpoint sent one.

    Read from the exception's response headers (``exc.response.headers``), or the copy litellm
    keeps (``exc.litellm_response_headers``); ``retry-after-ms`` wins over ``retry-after``.
    """
    for headers in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ):
        if headers is None:
            continue
        milliseconds = headers.get("retry-after-ms")
        if milliseconds is not None:
            seconds = parse_retry_after(milliseconds)
            return None if seconds is None else seconds / 1000.0
        seconds = parse_retry_after(headers.get("retry-after"))
        if seconds is not None:
            return seconds
    return None


def classify_status(exc: Exception, served_hint: Callable[[], str]) -> RetryDecision | None:
    """The decision on a failed call that got an HTTP status; None when it got none.

    Rate limits (429, with the endpoint's Retry-After), server errors (5xx), the transient 4xx
    of :data:`TRANSIENT_STATUS` and "success" with an unreadable body are retried. A refused key,
    an unknown model or a rejected parameter (:data:`FATAL_STATUS`, unless it is about this
    request's content: too long, filtered) is ``fatal``; a 404 adds ``served_hint()``, what the
    server serves instead. Other 4xx are this request's own (``no``): a prompt longer than the
    model's context says so (:data:`CONTEXT_EXCEEDED`) and what to do (:data:`CONTEXT_ADVICE`).
    """
    status: Any = getattr(exc, "status_code", None)
    known = isinstance(status, int)
    if known and 200 <= status < 300:
        return RetryDecision("transient", f"HTTP {status} with a body that is not a reply")
    if status == 429 or type(exc).__name__ == "RateLimitError":
        return RetryDecision("rate_limit", "rate limited (429)", retry_after(exc))
    if known and (status in TRANSIENT_STATUS or status >= 500):
        return RetryDecision("transient", f"HTTP {status}")
    if known and 400 <= status < 500 and _over_context(exc):
        return RetryDecision(
            "no", f"HTTP {status}: {CONTEXT_EXCEEDED}, on any try: {CONTEXT_ADVICE}"
        )
    if status in FATAL_STATUS and not about_this_request(exc):
        reason = f"HTTP {status}: no call to this model can succeed"
        if status == 404:
            reason += served_hint()
        return RetryDecision("fatal", reason)
    if known and 400 <= status < 500:
        return RetryDecision("no", f"HTTP {status} is a permanent client error")
    return None
