"""The provider contract and the provider registry.

A provider turns messages into one completion, once: no retries, no cache, no limits (the gateway,
:class:`~coordqa.llm.gateway.Model`, adds those uniformly). It also classifies its own failures
(:meth:`Provider.should_retry`) and names its connection (:meth:`Provider.connection_key`), so
limits are shared per host.

Which provider serves a model name is :mod:`coordqa.llm.registry`'s job.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from coordqa.llm.types import GenerateConfig, Message, RetryDecision, Usage


class BrokenReply(Exception):
    """A provider answered "success" with a body that is not a reply (no choices, no message).

    Classified as transient: the same request usually works on the next try. A well-formed
    reply with empty content is not broken: it is the model's answer (:class:`Completion`).
    """


@dataclass(frozen=True)
class Completion:
    """One successful provider response."""

    text: str
    """The reply text; empty (or only whitespace) when the model answered nothing."""
    usage: Usage
    """Tokens and cost of this response."""
    finish_reason: str | None = None
    """Why the model stopped, as the provider says (``stop``, ``length``: it hit the token cap,
    ``content_filter``...); None when the provider does not say."""
    truncated: bool = False
    """Whether :attr:`text` is the reply cut to its bounds (set by the gateway, never by a
    provider: :func:`coordqa.llm.bounds.cut_reply`)."""


def reply_of(
    has_choice: bool, has_message: bool, content: object, finish_reason: object
) -> tuple[str, str | None]:
    """The text and finish reason of a response's first choice, if the response is well formed.

    Well formed: it has a choice with a message whose content is text, or, where the content is
    missing, a finish reason that explains it (``length``: a reasoning model spent its token
    budget; ``content_filter``). Empty text is then the model's reply, not a fault: retrying a
    seeded request gets the same silence. Missing content with ``stop`` (or no finish reason)
    is broken with the rest (no choices, no message). The one rule of both transports.

    >>> reply_of(True, True, "Answer: B", "stop")
    ('Answer: B', 'stop')
    >>> reply_of(True, True, None, "length")
    ('', 'length')

    Raises:
        BrokenReply: the response is not well formed (retried as transient).
    """
    if not has_choice:
        raise BrokenReply("the response has no choices")
    if not has_message:
        raise BrokenReply("the response's first choice has no message")
    reason = finish_reason if isinstance(finish_reason, str) else None
    if isinstance(content, str):
        return content, reason
    if content is None and reason not in (None, "stop"):
        return "", reason
    raise BrokenReply(
        f"the response's message has no content ({repr(content)[:100]}) and no finish reason "
        "that explains why"
    )


class Provider(abc.ABC):
    """One model behind one endpoint. Subclasses implement :meth:`complete`."""

    transport: str = "in-process"
    """How calls reach the model: ``direct`` or ``litellm`` over HTTP (see
    :data:`coordqa.llm.types.Transport`), ``in-process`` for a model run here. Recorded in each
    run's manifest."""

    cacheable: bool = True
    """Whether replies may be stored in the response cache (False for deterministic offline
    models, where caching would only cost disk, and for scripts consumed in order)."""

    max_concurrency: int | None = None
    """Requests this provider can serve at once, whatever the call policy asks (None: no limit
    of its own); a model loaded in this process serves one at a time."""

    reads_context: bool = False
    """Whether replies depend on the caller's context as well as the messages
    (:meth:`complete_in_context`): true only for models that play from a game seat's view, such
    as the offline ``bot``, whose callers then keep the context it reads. Real models read the
    messages alone."""

    runs_in_process: bool = False
    """Whether the model runs inside coordqa and calls no server (the offline models, the
    ``bot``, GGUF files): an ``api_base`` or key given for it is refused, never ignored
    (:func:`coordqa.llm.registry.create_provider`)."""

    answers_at_once: bool = False
    """Whether every reply comes at once from coordqa's own code (the offline models and the
    ``bot``): a call cannot outlast any timeout, so ``--timeout`` given for such a model alone
    is refused, never ignored (:func:`coordqa.llm.registry.refuse_a_timeout`). A model loaded
    in this process (``llamacpp/``) generates for as long as it takes: its timeout is kept."""

    reads_model_args: bool = True
    """Whether the model reads model arguments (``--model-arg``, a set's or grid's
    ``model_args``): every model behind a server is sent them, ``llamacpp/`` passes them to
    llama.cpp; the offline models and the ``bot`` read none, so any given is refused
    (:func:`coordqa.llm.registry.refuse_unread_model_args`)."""

    cached_as: str = (
        "asked before of this model name at this endpoint, with the same prompt and settings. "
        "If the server now serves another model or checkpoint under that name, run again with "
        "--no-cache and another --out."
    )
    """What a reply from the reply cache was asked of, and when it is stale, as a session's
    note says it after "N replies came from the reply cache: ". The cache knows a model behind
    a server by its name and endpoint (:func:`~coordqa.llm.cache.cache_key`), so another
    checkpoint served under that name and address would be read as the earlier one's replies
    (walkthrough 10); a model with no server says it in its own terms."""

    question_refusal: str | None = None
    """Why this model cannot answer a question on its own, in the user's terms (the offline
    ``bot`` plays from an agent's seat feed only); None for every model that can. A QA
    evaluation refuses such a model before it makes a run."""

    def __init__(self, name: str, api_base: str | None = None) -> None:
        """Name the model (the string given to ``get_model``) and its endpoint, if any."""
        self.name = name
        self.api_base = api_base

    def connection_key(self) -> str:
        """The limiter key: provider plus endpoint, so two hosts never share a slot."""
        return f"{self.name}@{self.api_base or 'default'}"

    def check(self) -> None:  # noqa: B027 (optional hook: most offline providers need no check)
        """Raise ModelError if the model cannot be used (unknown provider, missing key)."""

    def with_defaults(self, config: GenerateConfig) -> GenerateConfig:
        """``config`` with the settings this provider sends when the caller gave none.

        The gateway applies it before the cache key is made, so a default that changes replies
        (llama.cpp's reply cap) is part of the key. Most providers add nothing.
        """
        return config

    def dropped_params(self, config: GenerateConfig) -> list[str]:
        """Parameters of ``config`` this provider leaves out of its requests (none by default)."""
        return []

    def plan_concurrency(self, calls: int) -> None:  # noqa: B027 (optional hook)
        """Told the most calls the gateway will have in flight on this provider at once.

        A provider with a connection pool sizes it so; most need nothing.
        """

    async def aclose(self) -> None:  # noqa: B027 (optional hook: most hold no connection)
        """Close what this provider holds open in the running event loop (connections)."""

    @abc.abstractmethod
    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """Ask once. Raise on failure (classified by :meth:`should_retry`), never retry here."""

    async def complete_in_context(
        self,
        messages: Sequence[Message],
        config: GenerateConfig,
        *,
        trial: int,
        timeout_s: float,
        role: str,
        context: object | None,
    ) -> Completion:
        """Ask once, told who asks (``role``) and what the caller passed as ``context``.

        What the gateway calls. A provider that reads only the messages (every real model)
        ignores both: this default is :meth:`complete`. A provider with :attr:`reads_context`
        overrides it; the context is never sent anywhere and never enters a cache key.
        """
        return await self.complete(messages, config, trial=trial, timeout_s=timeout_s)

    def should_retry(self, exc: Exception) -> RetryDecision:
        """Classify a failed attempt. Subclasses extend this for their own exception types."""
        if isinstance(exc, BrokenReply):
            return RetryDecision("transient", "the provider returned an unusable reply")
        if isinstance(exc, asyncio.TimeoutError | TimeoutError):
            return RetryDecision("transient", "timeout", connection=True)
        return RetryDecision("no", "not a known transient failure")


ProviderFactory = Callable[[str, str | None, str | None], Provider]
"""Builds a provider from (model name, api_base, api_key)."""
