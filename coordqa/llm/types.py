"""Value types of the model gateway: messages, sampling parameters, call policy, usage, replies.

Sampling parameters (:class:`GenerateConfig`) change what a model says and are part of the cache
key; the call policy (:class:`CallPolicy`: concurrency, retries, timeouts) changes only how we
ask, and is not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from coordqa.errors import SettingError

Role = Literal["system", "user", "assistant"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant")


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    """Who speaks: ``system``, ``user`` or ``assistant``."""
    content: str
    """The text."""


SAMPLING_FIELDS = ("temperature", "top_p", "max_tokens", "seed")
"""The sampling parameters :class:`GenerateConfig` names itself."""

NOT_EXTRA = frozenset(
    {
        *SAMPLING_FIELDS,
        "model",
        "messages",
        "api_key",
        "api_base",
        "base_url",
        "timeout",
        "num_retries",
        "max_retries",
        "drop_params",
        "stream",
        "n",
    }
)
"""Request settings that cannot be passed as extras: the gateway sets them (one reply per call,
no streaming, its own retries and timeouts) or :class:`GenerateConfig` names them."""


@dataclass(frozen=True)
class GenerateConfig:
    """Sampling parameters sent to the model (None: the provider's default)."""

    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling mass."""
    max_tokens: int | None = None
    """Cap on completion tokens."""
    seed: int | None = None
    """Provider-side sampling seed, where supported (offline ``random`` seeds with it too)."""
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    """Further provider settings, passed through as given (``reasoning_effort``,
    ``extra_body``...); JSON values. Offline models ignore them."""

    def __post_init__(self) -> None:
        _check_range(self, "temperature", 0.0)
        _check_range(self, "top_p", 0.0, 1.0, open_low=True)
        _check_range(self, "max_tokens", 1)
        for name, value in self.extra.items():
            if name in SAMPLING_FIELDS:  # named by the sampling setting: a command's flag
                raise SettingError(
                    name,
                    f"model argument {name!r} is coordqa's own sampling setting: give it as "
                    "{setting}",
                )
            if name in NOT_EXTRA:
                raise SettingError(
                    "model_args",
                    f"{{setting}} {name}: not a provider setting of its own: coordqa sets it "
                    "itself",
                )
            try:
                json.dumps(value, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise SettingError(
                    "model_args", f"{{setting}} {name}: the value must be JSON data ({exc})"
                ) from exc


@dataclass(frozen=True)
class CallPolicy:
    """How calls are made: limits, retries and timeouts. Bounded by default."""

    concurrency: int = 8
    """Calls in flight at once per connection (provider plus api_base)."""
    requests_per_minute: float | None = None
    """Optional request rate limit per connection."""
    tokens_per_minute: float | None = None
    """Optional token rate limit per connection (prompt plus completion, estimated)."""
    timeout_s: float = 120.0
    """Timeout of one attempt."""
    max_attempts: int = 6
    """Attempts per call, the first included."""
    max_total_s: float = 900.0
    """Give up on a call after this long, whatever attempts remain."""
    backoff_initial_s: float = 1.0
    """First backoff delay; doubled each retry, with full jitter."""
    backoff_max_s: float = 60.0
    """Upper bound of a single backoff delay (Retry-After is honoured up to max_total_s)."""
    max_connection_failures: int = 10
    """Consecutive attempts that fail to reach the endpoint (refused, reset, timed out) after
    which the endpoint counts as unreachable: calls stop retrying and fail at once as
    ``unreachable`` until an attempt reaches the server again."""

    def __post_init__(self) -> None:
        _check_range(self, "concurrency", 1)
        _check_range(self, "requests_per_minute", 0, open_low=True)
        _check_range(self, "tokens_per_minute", 0, open_low=True)
        _check_range(self, "timeout_s", 0, open_low=True)
        _check_range(self, "max_attempts", 1)
        _check_range(self, "max_total_s", 0, open_low=True)
        _check_range(self, "backoff_initial_s", 0)
        _check_range(self, "backoff_max_s", 0)
        _check_range(self, "max_connection_failures", 1)


Transport = Literal["auto", "direct", "litellm"]
"""How a model behind an ``api_base`` is reached: ``direct``, coordqa's own OpenAI
chat-completions client (:mod:`coordqa.llm.direct_provider`); ``litellm``, through litellm;
``auto``, direct where it applies (an OpenAI-compatible prefix with an ``api_base``), litellm
elsewhere. Models run in this process (``random``, ``llamacpp/...``) take no transport."""

TRANSPORTS: tuple[Transport, ...] = get_args(Transport)
"""The values of ``--transport``."""

RetryKind = Literal["no", "fatal", "transient", "rate_limit"]

ErrorKind = Literal["failed", "fatal", "unreachable"]
"""Why a call failed for good: ``failed``, this call only (retries exhausted, a request the
provider refused); ``fatal``, a permanent error every call to this model would get (key refused,
unknown model, bad parameter); ``unreachable``, the endpoint did not answer
``CallPolicy.max_connection_failures`` attempts in a row."""


@dataclass(frozen=True)
class RetryDecision:
    """A provider's verdict on a failed attempt: give up, or retry (after ``retry_after``)."""

    kind: RetryKind
    """``no``: this request cannot succeed (e.g. its prompt is too long); ``fatal``: no request
    to this model can (the key is refused, the model does not exist); ``transient``: retry with
    backoff; ``rate_limit``: retry, waiting at least ``retry_after`` when the provider said."""
    reason: str = ""
    """Short explanation, kept in the error text of a call that fails for good."""
    retry_after: float | None = None
    """Seconds the provider asked us to wait (the Retry-After header), if it said."""
    connection: bool = False
    """The attempt never got an answer from the server (connection refused or reset, timeout):
    counted towards ``CallPolicy.max_connection_failures``."""
    refused: bool = False
    """The host refused the connection (nothing listens there): retried after a short wait, not
    the backoff schedule (:data:`coordqa.llm.retry.REFUSED_WAIT_MAX_S`)."""

    @property
    def retry(self) -> bool:
        """Whether another attempt may succeed."""
        return self.kind in ("transient", "rate_limit")


def _check_range(
    owner: object,
    field_name: str,
    low: float,
    high: float | None = None,
    *,
    open_low: bool = False,
) -> None:
    """Raise unless the field is None or within [low, high] (or (low, high]).

    Raises:
        SettingError: naming the parameter (``top_p``), as its caller wrote it; a command names
            its flag for it (``--top-p``, :func:`coordqa.cli._errors.settings_as_options`).
            The library said ``--top-p`` to a Python caller (walkthrough 18, O1).
    """
    value = getattr(owner, field_name)
    if value is None:
        return
    too_low = value <= low if open_low else value < low
    if too_low or (high is not None and value > high):
        bound = f"> {low:g}" if open_low else f">= {low:g}"
        allowed = f"{bound} and <= {high:g}" if high is not None else bound
        raise SettingError(field_name, f"{{setting}} must be {allowed}, got {value:g}")


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one or more calls. ``cost`` is None when a price is unknown, never 0."""

    prompt_tokens: int = 0
    """Tokens sent."""
    completion_tokens: int = 0
    """Tokens received."""
    cost: float | None = None
    """US dollars, where litellm knows the price."""
    calls: int = 0
    """Number of model calls counted."""
    implausible_counts: int = 0
    """Calls whose token counts the endpoint reported implausibly (negative, not integers, more
    than the call could hold: :func:`coordqa.llm.bounds.checked_usage`): their tokens count as 0
    and their cost as unknown, so such a count limits, budgets and prices nothing."""
    unpriced: int = field(default=0, repr=False)
    """Of a sum's calls, those whose price is unknown (set by :meth:`__add__`; a single call's
    usage leaves it 0 and says it by ``cost`` None): "cost unknown for N calls"."""
    priced_cost: float = field(default=0.0, repr=False)
    """Of a sum whose ``cost`` is unknown, what its priced calls cost (set by :meth:`__add__`),
    so the known part is not hidden."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def unpriced_calls(self) -> int:
        """Calls counted whose price is unknown."""
        return self.calls if self.cost is None and self.unpriced == 0 else self.unpriced

    @property
    def known_cost(self) -> float:
        """What the calls with a price cost (all of ``cost`` when it is known)."""
        return self.cost if self.cost is not None else self.priced_cost

    def __add__(self, other: Usage) -> Usage:
        """Sum two usages; the cost stays known only if both are known (or one has no calls).

        A free call (cost 0, an offline or local model) is a known cost; the known part and
        the number of calls without a price are kept apart (:attr:`unpriced`).
        """
        if self.calls == 0:
            cost = other.cost
        elif other.calls == 0:
            cost = self.cost
        elif self.cost is None or other.cost is None:
            cost = None
        else:
            cost = self.cost + other.cost
        unknown = cost is None
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
            self.calls + other.calls,
            self.implausible_counts + other.implausible_counts,
            self.unpriced_calls + other.unpriced_calls if unknown else 0,
            self.known_cost + other.known_cost if unknown else 0.0,
        )


@dataclass(frozen=True)
class Reply:
    """The outcome of one model call after retries.

    Exactly one of ``text`` and ``error`` is set: a call that still fails after its retries is an
    error outcome, never an answer. An empty ``text`` is an answer: the model replied nothing.
    """

    text: str | None
    """The model's reply text (None when the call failed)."""
    error: str | None = None
    """Why the call failed for good (None on success)."""
    usage: Usage = field(default_factory=Usage)
    """Tokens and cost of this call (for a cached reply: of the original call, not spent again;
    for an error reply: nothing, as failed attempts report no usage)."""
    latency_s: float = 0.0
    """Wall time of the call, retries and waits included."""
    attempts: int = 1
    """Attempts made (0 when served from the cache)."""
    cached: bool = False
    """Whether the reply came from the response cache."""
    model: str = ""
    """The model string that answered."""
    error_kind: ErrorKind | None = None
    """What the failure means for other calls (None on success); see :data:`ErrorKind`."""
    finish_reason: str | None = None
    """Why the model stopped (``stop``, ``length``...), where the provider says; None for an
    error or a provider that does not say."""
    truncated: bool = False
    """Whether the reply was longer than :data:`coordqa.llm.bounds.MAX_REPLY_CHARS` and
    :attr:`text` holds only its beginning and end (:func:`coordqa.llm.bounds.cut_reply`)."""

    @property
    def ok(self) -> bool:
        """Whether the call produced a reply text."""
        return self.error is None and self.text is not None


PAPER_SAMPLING = GenerateConfig(temperature=0.6, top_p=0.9)
"""The CoordinationQA paper's sampling, the default of QA runs (EvalConfig, ``coordqa eval``)."""
