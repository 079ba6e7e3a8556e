"""The model gateway: every model call in coordqa goes through :meth:`Model.generate`.

A :class:`Model` wraps one provider and adds, the same way for every provider: a check of its
configuration before the first call, the response cache, keyed concurrency and rate limits, the
bounded retry loop, the bounds of every reply (:mod:`coordqa.llm.bounds`: a reply cut to its
stated length, token counts checked), and usage accounting per role. Provider failures come back as
``Reply(text=None, error=...)``; configuration errors raise :class:`~coordqa.errors.ModelError`.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Sequence
from typing import Literal

from coordqa.errors import ConfigError
from coordqa.llm.allowance import admit_call
from coordqa.llm.bounds import checked_usage, cut_reply
from coordqa.llm.cache import ResponseCache, cache_key
from coordqa.llm.call_names import in_role
from coordqa.llm.endpoints import shown_endpoint
from coordqa.llm.ledger import UsageLedger
from coordqa.llm.limits import LimiterRegistry, Limits, limiters
from coordqa.llm.offline import Script, ScriptedProvider
from coordqa.llm.providers import Completion, Provider
from coordqa.llm.redaction import redact
from coordqa.llm.registry import create_provider
from coordqa.llm.retry import ConnectionBreaker, call_with_retries
from coordqa.llm.types import ROLES, CallPolicy, GenerateConfig, Message, Reply, Transport

DEFAULT_CONFIG = GenerateConfig()
"""Sampling parameters used when none are given: every one left to the provider."""

DEFAULT_POLICY = CallPolicy()
"""Call policy used when none is given: bounded attempts, timeouts and total time."""

CacheOption = ResponseCache | None | Literal["default"]
"""``"default"``: the user cache directory (or ``$COORDQA_CACHE_DIR``); None: no cache."""


def estimate_tokens(messages: Sequence[Message], config: GenerateConfig) -> int:
    """A rough token count for the per-minute token budget: 4 characters a token, plus the cap.

    >>> estimate_tokens([Message("user", "x" * 40)], GenerateConfig(max_tokens=10))
    21
    """
    prompt = sum(len(m.content) for m in messages) // 4 + 1
    return prompt + (config.max_tokens or 0)


def bounded(completion: Completion, messages: Sequence[Message]) -> Completion:
    """``completion`` within the bounds of :mod:`coordqa.llm.bounds`, whatever its transport.

    Its token counts are checked against the whole reply, then the reply is cut to its stated
    length and marked truncated if it was longer.
    """
    usage = checked_usage(completion.usage, messages, completion.text)
    text, truncated = cut_reply(completion.text)
    return dataclasses.replace(completion, text=text, usage=usage, truncated=truncated)


def _validated(messages: Sequence[Message]) -> tuple[Message, ...]:
    if isinstance(messages, str | Message) or not messages:
        raise ConfigError(
            "messages must be a non-empty sequence of Message, e.g. [Message('user', 'Hi')]"
        )
    for index, message in enumerate(messages):
        if not isinstance(message, Message) or message.role not in ROLES:
            raise ConfigError(
                f"messages[{index}] is {message!r}; expected Message(role, content) with role "
                f"one of {', '.join(ROLES)}"
            )
    return tuple(messages)


class Model:
    """A language model behind the gateway: cached, limited, retried and accounted."""

    def __init__(
        self,
        provider: Provider,
        *,
        policy: CallPolicy = DEFAULT_POLICY,
        cache: ResponseCache | None = None,
        ledger: UsageLedger | None = None,
        limiter_registry: LimiterRegistry | None = None,
        secrets: Sequence[str | None] = (),
    ) -> None:
        """Wrap ``provider``. Most code should call :func:`get_model` instead.

        Args:
            provider: answers one request at a time.
            policy: limits, retries and timeouts.
            cache: where successful replies are stored (None: not cached).
            ledger: usage totals to add to (share one between models to total a run).
            limiter_registry: where the connection's limiter lives (default: the process-wide
                one). The policy's limits become those of the whole endpoint, shared with every
                other model that calls it.
            secrets: keys the endpoint may echo (its API key): taken out of every reply and
                error this model returns (:func:`coordqa.llm.redaction.redact`), so no run
                folder, log or error message shows them.
        """
        self.provider = provider
        self.policy = policy
        self.cache = cache if provider.cacheable else None
        self.usage = ledger if ledger is not None else UsageLedger()
        self._limiters = limiter_registry or limiters
        self._limits = Limits.from_policy(policy)
        if provider.max_concurrency is not None:
            concurrency = min(self._limits.concurrency, provider.max_concurrency)
            self._limits = dataclasses.replace(self._limits, concurrency=concurrency)
        provider.plan_concurrency(self._limits.concurrency)
        self._limiters.configure(self.connection_key(), self._limits)
        self._jitter = random.Random()
        self._breaker = ConnectionBreaker(policy.max_connection_failures)
        self._checked = False
        self._check_lock = threading.Lock()
        self._secrets = tuple(secrets)

    @property
    def name(self) -> str:
        """The model string, e.g. ``openai/gpt-4o-mini`` or ``random``."""
        return self.provider.name

    @property
    def reads_context(self) -> bool:
        """Whether this model answers from the caller's context too (``generate(context=)``).

        Callers that have one to give (an agent's seat feed) keep it only for such models.
        """
        return self.provider.reads_context

    @property
    def api_base(self) -> str | None:
        """The endpoint, when one was given."""
        return self.provider.api_base

    @property
    def transport(self) -> str:
        """How calls reach the model: ``direct``, ``litellm`` or ``in-process``."""
        return self.provider.transport

    def connection_key(self) -> str:
        """The provider plus endpoint; calls with the same key share limits."""
        return self.provider.connection_key()

    def check(self) -> None:
        """Raise ModelError now if the model cannot be used (unknown provider, missing key).

        Runs once; :meth:`generate` calls it before the first request it sends (a reply from
        the cache needs no check).
        """
        with self._check_lock:
            if not self._checked:
                self.provider.check()
                self._checked = True

    async def generate(
        self,
        messages: Sequence[Message],
        config: GenerateConfig = DEFAULT_CONFIG,
        *,
        trial: int = 0,
        role: str = "default",
        context: object | None = None,
    ) -> Reply:
        """Ask the model; return its reply or, after bounded retries, an error reply.

        Args:
            messages: the conversation, last message last.
            config: sampling parameters (part of the cache key).
            trial: the repetition index (part of the cache key and of ``random``'s seed).
            role: who asks, for usage accounting (``qa``, ``tom``, ``action``, ``verifier`` ...).
            context: what the caller knows of the situation the call is about, for a model that
                reads it (:attr:`reads_context`: the offline ``bot`` plays an agent's seat from
                the agent's :class:`~coordqa.games.feed.SeatFeed`). Never sent to an endpoint,
                never part of the cache key; every other model ignores it.

        Raises:
            ModelError: the model is misconfigured (raised before anything is sent).
            ConfigError: ``messages`` is not a non-empty sequence of Message.
        """
        messages = _validated(messages)
        config = self.provider.with_defaults(config)
        key = None
        if self.cache is not None:
            key = cache_key(self.name, self.api_base, messages, config, trial)
            hit = self.cache.get(key)
            if hit is not None:
                reply = Reply(
                    hit.text,
                    usage=hit.usage,
                    attempts=0,
                    cached=True,
                    model=self.name,
                    finish_reason=hit.finish_reason,
                )
                self.usage.record(self.name, role, reply)
                return reply
        self.check()
        reply = await self._call(messages, config, trial, role, context)
        whole = reply.ok and not reply.truncated  # a reply cut to its bounds is never cached
        if key is not None and self.cache is not None and whole and reply.text is not None:
            self.cache.put(key, self.name, reply.text, reply.usage, reply.finish_reason)
        self.usage.record(self.name, role, reply)
        return reply

    def dropped_params(self, config: GenerateConfig) -> list[str]:
        """Parameters of ``config`` the provider drops from its requests, as unsupported."""
        return self.provider.dropped_params(config)

    async def aclose(self) -> None:
        """Close the connections the provider holds in the running event loop.

        Calls after it open new ones; a run calls it when its calls are done.
        """
        await self.provider.aclose()

    def in_cache(
        self,
        messages: Sequence[Message],
        config: GenerateConfig = DEFAULT_CONFIG,
        *,
        trial: int = 0,
    ) -> bool:
        """Whether :meth:`generate` would answer from the response cache.

        Such a call sends nothing, so it needs no :meth:`check` (for litellm models: no import
        of litellm, seconds saved when a whole run is cached).
        """
        if self.cache is None:
            return False
        config = self.provider.with_defaults(config)
        key = cache_key(self.name, self.api_base, _validated(messages), config, trial)
        return self.cache.get(key) is not None

    async def _call(
        self,
        messages: tuple[Message, ...],
        config: GenerateConfig,
        trial: int,
        role: str,
        context: object | None,
    ) -> Reply:
        """One call under the connection's limits, with the retry policy."""
        limiter = self._limiters.get(self.connection_key(), self._limits)
        tokens = estimate_tokens(messages, config)

        async def attempt(timeout_s: float) -> Completion:
            completion = bounded(
                await self.provider.complete_in_context(
                    messages, config, trial=trial, timeout_s=timeout_s, role=role, context=context
                ),
                messages,
            )
            if not completion.usage.implausible_counts:
                await limiter.settle(tokens, completion.usage.total_tokens)
            return completion

        async def admit() -> None:
            await limiter.admit(tokens)
            await admit_call()  # last: an attempt counted here is sent at once

        async with limiter.slot():
            started = time.monotonic()
            with in_role(role):  # names the call in the retry loop's messages
                outcome = await call_with_retries(
                    attempt,
                    self.provider.should_retry,
                    self.policy,
                    before_attempt=admit,
                    rng=self._jitter,
                    breaker=self._breaker,
                )
            latency = time.monotonic() - started
        if outcome.value is None:
            return Reply(
                None,
                None if outcome.error is None else redact(outcome.error, self._secrets),
                error_kind=outcome.kind or "failed",
                latency_s=latency,
                attempts=outcome.attempts,
                model=self.name,
            )
        completion = outcome.value
        text = completion.text
        return Reply(
            text
            if text is None or not self._secrets
            else redact(text, self._secrets, shapes=False),
            usage=completion.usage,
            latency_s=latency,
            attempts=outcome.attempts,
            model=self.name,
            finish_reason=completion.finish_reason,
            truncated=completion.truncated,
        )

    def __repr__(self) -> str:
        base = f", api_base={shown_endpoint(self.api_base)!r}" if self.api_base else ""
        return f"Model({self.name!r}{base})"


class ScriptedModel(Model):
    """A deterministic model for tests: replays ``script`` (a list, or a function of messages).

    Replies in a list are used in order, shared by all calls; one call too many raises
    ModelError (a test that asks more than it scripted should fail loudly). A list item that is
    an exception is raised as a provider failure, to test error handling. Never cached.
    """

    def __init__(
        self,
        script: Script,
        *,
        name: str = "scripted",
        policy: CallPolicy = DEFAULT_POLICY,
        ledger: UsageLedger | None = None,
    ) -> None:
        """Create the model; ``name`` is what replies and usage report."""
        super().__init__(ScriptedProvider(script, name), policy=policy, ledger=ledger)


def get_model(
    name: str | Model,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    policy: CallPolicy = DEFAULT_POLICY,
    cache: CacheOption = "default",
    ledger: UsageLedger | None = None,
    transport: Transport = "auto",
) -> Model:
    """The model called ``name``: a built-in (``random``, ``scripted``) or any litellm string.

    Args:
        name: ``random``, ``scripted``, or ``<litellm provider>/<model>`` such as
            ``openai/gpt-4o-mini``, ``anthropic/...``, ``gemini/...``, ``ollama/llama3``,
            ``hosted_vllm/<model>``. A Model is returned as is (with no other argument).
        api_base: the endpoint, for self-hosted or OpenAI-compatible servers.
        api_key: the API key (default: the provider's usual environment variable).
        policy: limits, retries and timeouts.
        cache: ``"default"`` (user cache dir or ``$COORDQA_CACHE_DIR``), a ResponseCache, or None.
        ledger: usage totals to add to (default: a new ledger for this model).
        transport: how a model at an ``api_base`` is reached: ``auto`` (direct for ``openai/``
            and ``hosted_vllm/`` models with an ``api_base``, litellm for the rest), ``direct``
            or ``litellm`` (see :data:`coordqa.llm.types.Transport`).

    Raises:
        ModelError: ``name`` is neither a built-in nor of the form ``provider/model``. Unknown
            litellm providers and missing keys are reported by ``Model.check()``.
    """
    if isinstance(name, Model):
        given = (api_base, api_key, ledger) != (None, None, None)
        if given or policy is not DEFAULT_POLICY or cache != "default" or transport != "auto":
            raise ConfigError(
                f"get_model({name!r}) got a Model and other arguments; configure the Model itself"
            )
        return name
    provider = create_provider(name, api_base, api_key, transport)
    if cache == "default":
        response_cache = ResponseCache() if provider.cacheable else None
    else:
        response_cache = cache
    return Model(provider, policy=policy, cache=response_cache, ledger=ledger, secrets=(api_key,))
