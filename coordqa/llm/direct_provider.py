"""A model at an OpenAI-compatible endpoint, asked directly: the ``direct`` transport.

Self-hosted servers (vLLM, SGLang, llama.cpp's server, Ollama's ``/v1``, LM Studio) and
OpenAI-compatible APIs all answer ``POST {api_base}/chat/completions``. For a model named
``openai/NAME`` or ``hosted_vllm/NAME`` with an ``--api-base`` (:data:`DIRECT_PREFIXES`), coordqa
sends that request itself over one httpx keep-alive pool per event loop, sized to the calls in
flight, without litellm: no translation layer to import (4 CPU-seconds and 150 MB) or to run
(milliseconds of CPU per call). lm-evaluation-harness talks to such servers the same way
(``local-chat-completions``).

The contract is litellm's, tested on both transports (``tests/test_llm_transports.py``): the
same request body for the same options (sampling parameters; ``--model-arg`` settings at the
top level, ``extra_body`` merged into it, ``extra_headers`` sent as headers), the same key
(the explicit one, else the prefix's variable, else the placeholder a keyless server is sent),
the same decisions on failures (:func:`coordqa.llm.openai_api.classify_status`: the refusals of
a key, a model, a parameter, with the served models named on a 404; rate limits with their
Retry-After; server errors), the same reading of replies (:func:`coordqa.llm.providers.reply_of`)
and token counts. What differs: no parameter is dropped (a server that refuses one answers 400,
which stops the run with its words), and no call is priced (cost unknown; litellm's price list
is litellm's: ``--transport litellm`` for a priced API behind an ``api_base``).

Every request follows :mod:`coordqa.llm.http`: no redirect followed, a body read within
:data:`~coordqa.llm.bounds.MAX_BODY_BYTES` and the attempt's deadline, and, on a board, the
address guard on every new connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from coordqa.errors import ModelError
from coordqa.llm.addresses import AddressGuard, AddressRefused
from coordqa.llm.bounds import reported_count
from coordqa.llm.endpoints import (
    endpoint_route,
    refused_endpoint,
    stored_endpoint,
)
from coordqa.llm.openai_api import PLACEHOLDER_KEY, classify_status
from coordqa.llm.providers import BrokenReply, Completion, Provider, reply_of
from coordqa.llm.retry import connection_decision
from coordqa.llm.served import served_hint
from coordqa.llm.types import SAMPLING_FIELDS, GenerateConfig, Message, RetryDecision, Usage

if TYPE_CHECKING:
    import httpx

    from coordqa.llm.http import Lanes

__all__ = ["DIRECT_PREFIXES", "DirectProvider", "direct_applies", "direct_serves"]


@dataclass(frozen=True)
class KeySource:
    """Where the key of a prefix comes from when none is given, as litellm takes it."""

    variable: str
    """The environment variable read first."""
    placeholder: str
    """What a keyless server is sent when the variable is unset or blank."""


DIRECT_PREFIXES = {
    "openai": KeySource("OPENAI_API_KEY", PLACEHOLDER_KEY),
    "hosted_vllm": KeySource("HOSTED_VLLM_API_KEY", "fake-api-key"),
}
"""The model prefixes the direct transport serves (with an ``api_base``), and their keys.

Those for which litellm sends the OpenAI request as given: its other OpenAI-compatible prefixes
(``lm_studio``, ``llamafile``, ``custom_openai``) drop or add settings of their own, so they keep
litellm."""


def direct_serves(name: str, api_base: str | None) -> bool:
    """Whether model ``name`` at ``api_base`` can be asked directly (``--transport direct``)."""
    return bool(api_base) and name.split("/", 1)[0] in DIRECT_PREFIXES


def direct_applies(name: str, api_base: str | None) -> bool:
    """Whether ``--transport auto`` asks model ``name`` at ``api_base`` directly.

    Where the direct transport serves it and litellm has nothing to add: a model litellm knows
    (``openai/gpt-5`` behind a proxy) keeps litellm, which prices it and adapts its parameters
    (:func:`coordqa.llm.litellm_provider.known_to_litellm`).
    """
    from coordqa.llm.litellm_provider import known_to_litellm

    return direct_serves(name, api_base) and not known_to_litellm(name)


class APIStatusError(Exception):
    """The endpoint answered a chat request with an error status.

    Named per status as OpenAI's clients name them (:data:`_BY_STATUS`), so an error reads the
    same on either transport: ``AuthenticationError: Incorrect API key provided``.
    """

    def __init__(self, response: httpx.Response, message: str) -> None:
        """Keep the status, the headers (``Retry-After``) and the endpoint's own words."""
        super().__init__(message)
        self.status_code = response.status_code
        self.response = response


class BadRequestError(APIStatusError):
    """400: a request the endpoint cannot take (a parameter, a prompt too long)."""


class AuthenticationError(APIStatusError):
    """401: the key is refused."""


class PermissionDeniedError(APIStatusError):
    """403: the key may not use this model."""


class NotFoundError(APIStatusError):
    """404: no such model (or path) on this endpoint."""


class UnprocessableEntityError(APIStatusError):
    """422: a request the endpoint cannot read."""


class RateLimitError(APIStatusError):
    """429: too many requests or tokens."""


class InternalServerError(APIStatusError):
    """5xx: the server failed."""


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def _endpoint_words(raw: bytes) -> str:
    """The endpoint's message in an error body: OpenAI's ``error.message``, else the text."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text[:500]
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    if isinstance(message, str) and message.strip():
        return message.strip()[:500]
    detail = body.get("detail") if isinstance(body, dict) else None  # FastAPI servers
    return str(detail if detail is not None else text)[:500]


def status_error(response: httpx.Response, raw: bytes) -> APIStatusError:
    """The error of a chat request answered with ``response``'s status (and body ``raw``)."""
    status = response.status_code
    kind = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIStatusError)
    return kind(response, _endpoint_words(raw) or f"HTTP {status}")


def request_body(model_id: str, messages: Sequence[Message], config: GenerateConfig) -> Any:
    """The JSON body of one chat request, as litellm builds it for the same options.

    The sampling parameters that are set, then every ``--model-arg`` setting at the top level
    with the keys of ``extra_body`` merged in; ``extra_headers`` are headers (:func:`_headers`).
    """
    body: dict[str, Any] = {
        "model": model_id,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
    }
    for name in SAMPLING_FIELDS:
        value = getattr(config, name)
        if value is not None:
            body[name] = value
    extra = {k: v for k, v in config.extra.items() if k not in ("extra_body", "extra_headers")}
    body.update(extra)
    extra_body = config.extra.get("extra_body")
    if isinstance(extra_body, dict):
        body.update(extra_body)
    return body


def read_completion(raw: bytes) -> Completion:
    """The completion in a 2xx body: text, finish reason and the token counts as reported.

    Raises:
        BrokenReply: the body is not a chat completion.
    """
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise BrokenReply(f"the response body is not JSON ({exc})") from exc
    if not isinstance(payload, dict):
        raise BrokenReply("the response body is not a JSON object")
    choices = payload.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    text, finish_reason = reply_of(
        first is not None,
        isinstance(message, dict),
        message.get("content") if isinstance(message, dict) else None,
        first.get("finish_reason") if isinstance(first, dict) else None,
    )
    usage = payload.get("usage")
    counts = usage if isinstance(usage, dict) else {}
    tokens = Usage(
        reported_count(counts.get("prompt_tokens")),
        reported_count(counts.get("completion_tokens")),
        None,
        1,
    )
    return Completion(text, tokens, finish_reason)


class DirectProvider(Provider):
    """A model at an OpenAI-compatible ``api_base``, asked over coordqa's own HTTP client."""

    transport = "direct"

    def __init__(
        self, name: str, api_base: str, api_key: str | None, guard: AddressGuard | None = None
    ) -> None:
        """Remember the model and endpoint; nothing is imported or connected yet.

        ``guard``: every connection goes through it (a board's worker), and a redirect's
        Location is left out of errors (they are public there).
        """
        super().__init__(name, api_base)
        self.prefix, self.model_id = name.split("/", 1)
        self._api_key = api_key
        self._guard = guard
        self._pool_size = 8
        self._lanes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Lanes]
        self._lanes = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def connection_key(self) -> str:
        """Prefix plus endpoint, as litellm's models of the same endpoint are keyed."""
        return f"{self.prefix}@{stored_endpoint(self.api_base)}"

    def check(self) -> None:
        """Raise ModelError for an ``api_base`` that is not an http(s) URL, or an empty key."""
        parts = urlsplit(str(self.api_base))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ModelError(refused_endpoint(str(self.api_base)))
        if self._api_key is not None and not self._api_key.strip():
            raise ModelError(f"the API key given for model {self.name!r} is empty")

    def plan_concurrency(self, calls: int) -> None:
        """Keep as many connections alive as calls may be in flight."""
        self._pool_size = calls

    def _key(self) -> str:
        """The key sent: the given one, else the prefix's variable, else its placeholder."""
        if self._api_key is not None:
            return self._api_key
        source = DIRECT_PREFIXES[self.prefix]
        return os.environ.get(source.variable, "").strip() or source.placeholder

    def _pools(self) -> Lanes:
        """This event loop's pools (connections belong to the loop that made them)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            lanes = self._lanes.get(loop)
            if lanes is None:
                from coordqa.llm.http import Lanes

                lanes = Lanes(self._pool_size, self._guard)
                self._lanes[loop] = lanes
        return lanes

    async def aclose(self) -> None:
        """Close the running loop's pools and their connections."""
        with self._lock:
            lanes = self._lanes.pop(asyncio.get_running_loop(), None)
        if lanes is not None:
            await lanes.aclose()

    def _headers(self, config: GenerateConfig) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self._key()}"}
        extra = config.extra.get("extra_headers")
        if isinstance(extra, dict):
            headers.update({str(k): str(v) for k, v in extra.items()})
        return headers

    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """One chat request, its body read within bounds; its completion or the error."""
        from coordqa.llm.http import read_body, refuse_redirect

        lanes = self._pools()
        lane = lanes.pick()
        try:
            async with lanes.clients[lane].stream(
                "POST",
                endpoint_route(str(self.api_base), "chat/completions"),
                json=request_body(self.model_id, messages, config),
                headers=self._headers(config),
                timeout=timeout_s,
            ) as response:
                refuse_redirect(response, show_location=self._guard is None)
                raw = await read_body(response, timeout_s)
        finally:
            lanes.done(lane)
        if not 200 <= response.status_code < 300:
            raise status_error(response, raw)
        return read_completion(raw)

    def should_retry(self, exc: Exception) -> RetryDecision:
        """As litellm's calls are decided (:func:`classify_status`), plus this client's own.

        A redirect or a refused address is ``fatal``: every call to the endpoint gets it.
        """
        from coordqa.llm.http import RedirectRefused

        if isinstance(exc, RedirectRefused):
            return RetryDecision("fatal", "the endpoint redirects its requests")
        if isinstance(exc, AddressRefused):
            return RetryDecision("fatal", "the endpoint's address may not be called")
        if (lost := connection_decision(exc)) is not None:
            return lost
        decision = classify_status(
            exc, lambda: served_hint(self.api_base, self.prefix, self._key())
        )
        return decision or super().should_retry(exc)
