"""Real models through litellm: any ``<provider>/<model>`` string litellm knows.

litellm is imported on first use (it takes seconds to import), with its model price map read from
the installed package (``LITELLM_LOCAL_MODEL_COST_MAP``) rather than downloaded. Its retries are
switched off (``num_retries=0``, ``max_retries=0``) so that :mod:`coordqa.llm.retry` is the only
retry loop.

``openai/...`` models are sent through litellm's own HTTP handler rather than the OpenAI SDK
(litellm's ``EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER``): the same request body and headers,
without the SDK's per-request type transform, which cost about a third of the client's CPU per
call (``benchmarks/bench_eval.py``). That handler does not send the OpenAI organization or
project headers, so it is left off when ``OPENAI_ORGANIZATION`` or ``OPENAI_PROJECT_ID`` is set;
setting ``EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER`` yourself (``false`` or ``true``) decides.

API keys come from the provider's usual environment variables (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY`` ...) or ``api_key=``. When ``api_base`` points an
OpenAI-compatible provider (:data:`KEY_OPTIONAL_WITH_API_BASE`) at a server of your own (vLLM,
Ollama, llama.cpp, LM Studio), a key is optional: if none is set, the placeholder
:data:`PLACEHOLDER_KEY` is sent, since such servers usually ignore it and the OpenAI client
refuses to send none. A server that does check keys then answers 401, reported as an error reply.
"""

from __future__ import annotations

import datetime
import functools
import importlib.util
import inspect
import json
import logging
import os
import uuid
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from coordqa.errors import MissingDependencyError, ModelError
from coordqa.llm.bounds import reported_count
from coordqa.llm.endpoints import stored_endpoint
from coordqa.llm.openai_api import PLACEHOLDER_KEY, classify_status
from coordqa.llm.providers import Completion, Provider, reply_of
from coordqa.llm.retry import connection_decision
from coordqa.llm.served import served_hint
from coordqa.llm.types import SAMPLING_FIELDS, GenerateConfig, Message, RetryDecision, Usage
from coordqa.registry import did_you_mean

KEY_OPTIONAL_WITH_API_BASE = frozenset(
    {
        "openai",
        "openai_like",
        "custom_openai",
        "hosted_vllm",
        "ollama",
        "ollama_chat",
        "lm_studio",
        "llamafile",
    }
)
"""litellm providers that need no API key when ``api_base`` names the server."""

KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
}
"""The one variable that holds the key of each of these providers, as
``litellm.validate_environment`` names it (a test holds the two to agreement): a missing key is
said before litellm is imported, which takes 4 to 20 seconds; other providers ask litellm."""

FAST_OPENAI_HANDLER = "EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER"
"""litellm's switch from the OpenAI SDK to its own HTTP handler for ``openai/...`` models."""

_SDK_ONLY_SETTINGS = ("OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID")
"""Environment settings only the OpenAI SDK sends (as headers): they keep the SDK path."""


_ABANDONED_REQUEST = (
    r"coroutine '(BaseLLMHTTPHandler\.async_completion|OpenAIChatCompletion\.acompletion)' "
    r"was never awaited"
)
"""The warning Python prints for a litellm request coroutine that was never awaited.

``litellm.acompletion`` builds the request coroutine in a worker thread and awaits it when the
thread returns; a call cancelled in between (its timeout, a run that stops, Ctrl-C) leaves it
unawaited by design, and Python would print this warning, naming litellm's internals, to the
person who pressed Ctrl-C."""


PRICE_MAP = "model_prices_and_context_window_backup.json"
"""litellm's list of the models it knows (prices, limits, parameters), in its package: the file
it reads itself under ``LITELLM_LOCAL_MODEL_COST_MAP``."""


def _price_map_text() -> str:
    """The text of litellm's model list, read without importing litellm ('' without litellm).

    Not kept: 3.5 MB, read once per model made.
    """
    spec = importlib.util.find_spec("litellm")
    folders = [] if spec is None else list(spec.submodule_search_locations or [])
    for folder in folders:
        try:
            return (Path(folder) / PRICE_MAP).read_text(encoding="utf-8")
        except OSError:
            continue
    return ""


def known_to_litellm(name: str) -> bool:
    """Whether litellm lists model ``name`` (``openai/gpt-5``) under its provider.

    Such a model is a hosted one, whatever ``api_base`` it is reached at (a proxy): litellm
    prices its calls and adapts its parameters (no ``top_p`` for ``gpt-5``), so ``auto`` keeps
    litellm for it. Looked up in the file's text (a few milliseconds; parsing it would take 70
    and 50 MB), so a self-hosted model's run never imports litellm.

    >>> known_to_litellm("openai/gpt-4o-mini"), known_to_litellm("openai/my-finetune")
    (True, False)
    """
    prefix, _, model_id = name.partition("/")
    text = _price_map_text()
    start = text.find(f"\n    {json.dumps(model_id)}: {{")
    if start == -1:
        return False
    entry = text[start : text.find("\n    }", start + 1)]
    return f'"litellm_provider": {json.dumps(prefix)}' in entry


def provider_prefix_of(name: str) -> str | None:
    """The provider prefix litellm's model map gives a bare model name (``gpt-4o``: ``openai``).

    Read from the two files the installed litellm ships (its model map and its provider list),
    without importing litellm, which takes seconds: a name refused for want of a prefix is told
    the one to use. None when litellm is not installed, the map does not know the name, or the
    map's provider is not a prefix litellm takes (``vertex_ai-language-models``).
    """
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    try:
        entry = _json_file(folder / "model_prices_and_context_window_backup.json").get(name)
        prefixes = _json_file(folder / "provider_endpoints_support_backup.json").get("providers")
    except (OSError, ValueError, AttributeError):
        return None
    provider = entry.get("litellm_provider") if isinstance(entry, dict) else None
    return provider if isinstance(prefixes, dict) and provider in prefixes else None


def _json_file(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@functools.cache
def import_litellm() -> ModuleType:
    """Import litellm (once), configured for offline price lookup, fast calls and quiet logs.

    Cached: every call asks for the module, and configuring it again (the environment, a
    warnings filter, the logger) cost a millisecond per call.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if not any(os.environ.get(name) for name in _SDK_ONLY_SETTINGS):
        os.environ.setdefault(FAST_OPENAI_HANDLER, "true")
    try:
        import litellm
    except ImportError as exc:
        raise MissingDependencyError(
            "litellm is needed for real models; install it with `pip install litellm` "
            "(offline models 'random' and 'scripted' work without it)"
        ) from exc
    litellm.suppress_debug_info = True
    warnings.filterwarnings("ignore", message=_ABANDONED_REQUEST, category=RuntimeWarning)
    logger = logging.getLogger("LiteLLM")
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.ERROR)  # its per-event-loop notices would flood test output
    return litellm


def blank_key_variables() -> list[str]:
    """Environment variables that look like credentials (``*_KEY``, ``*_TOKEN``) but are blank."""
    return sorted(
        name
        for name, value in os.environ.items()
        if name.endswith(("_KEY", "_TOKEN")) and not value.strip()
    )


@contextmanager
def _hidden(names: Sequence[str]) -> Iterator[None]:
    """Remove environment variables ``names`` for the duration of the block."""
    saved = {name: os.environ.pop(name) for name in names if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def read_reply(response: Any) -> tuple[str, str | None]:
    """The text and finish reason of the first choice of a litellm response (:func:`reply_of`).

    litellm reports a missing finish reason as ``stop``, which :func:`reply_of` reads as said.

    Raises:
        BrokenReply: the response is not well formed (retried as transient).
    """
    choices = getattr(response, "choices", None)
    first = choices[0] if choices else None
    message = getattr(first, "message", None)
    return reply_of(
        bool(choices),
        message is not None,
        getattr(message, "content", None),
        getattr(first, "finish_reason", None),
    )


def _token_counts(response: Any) -> tuple[int, int]:
    """(prompt, completion) tokens the response reports, as :func:`reported_count` reads them."""
    usage = getattr(response, "usage", None)
    return (
        reported_count(getattr(usage, "prompt_tokens", None)),
        reported_count(getattr(usage, "completion_tokens", None)),
    )


USER_HOOKS = (
    "callbacks",
    "success_callback",
    "failure_callback",
    "input_callback",
    "_async_success_callback",
    "_async_failure_callback",
    "_async_input_callback",
    "pre_call_rules",
    "post_call_rules",
)
"""litellm settings through which a user asks it to run code around every call."""


def wrapper_needed(litellm: ModuleType) -> bool:
    """Whether the user set litellm up to do something around calls that ``acompletion`` does.

    That is: callbacks, call rules, litellm's own cache or a budget (coordqa sets none of them).
    """
    hooked = any(getattr(litellm, name, None) for name in USER_HOOKS)
    return hooked or litellm.cache is not None or bool(litellm.max_budget)


def start_request(litellm: ModuleType, kwargs: dict[str, Any]) -> Any:
    """Run litellm's provider code for a request up to sending it; return what sends it.

    That is ``litellm.main.completion(..., acompletion=True)`` with the logging object
    ``litellm.acompletion`` would make: it builds the request and returns its coroutine (or,
    for a provider without an async path, the response itself).
    """
    call = {**kwargs, "litellm_call_id": str(uuid.uuid4())}
    started = datetime.datetime.now()  # litellm's logging object wants naive local time
    logging_obj, call = litellm.utils.function_setup(
        "acompletion", litellm.utils.Rules(), started, **call
    )
    return litellm.main.completion(**call, litellm_logging_obj=logging_obj, acompletion=True)


async def send(litellm: ModuleType, kwargs: dict[str, Any]) -> Any:
    """The response to one request, through litellm's provider code.

    ``litellm.acompletion`` runs the provider code (:func:`start_request`) in a thread pool,
    then prices the response, builds a logging payload and schedules success callbacks: about
    2.5 ms of CPU per call on top of the 3.5 ms of the call itself
    (``benchmarks/bench_eval.py``), and a second thread that the event loop waits for to hand
    back the interpreter. coordqa keeps its own accounting and prices once per model, so unless
    the user set litellm up to run something around calls (:func:`wrapper_needed`: their
    callbacks then run as usual), the provider code runs here on the event loop, and its errors
    are mapped to litellm's exception types as ``acompletion`` maps them.
    """
    if wrapper_needed(litellm):
        return await litellm.acompletion(**kwargs)
    pending = start_request(litellm, kwargs)
    try:
        return await pending if inspect.isawaitable(pending) else pending
    except Exception as exc:
        raise litellm.exception_type(
            model=kwargs["model"],
            custom_llm_provider=kwargs["model"].split("/", 1)[0],
            original_exception=exc,
            completion_kwargs=kwargs,
            extra_kwargs={},
        ) from exc


class LiteLLMProvider(Provider):
    """A model reached through litellm (see :meth:`complete`)."""

    transport = "litellm"

    def __init__(self, name: str, api_base: str | None, api_key: str | None) -> None:
        """Remember the model string, endpoint and explicit key; nothing is imported yet."""
        super().__init__(name, api_base)
        self.prefix = name.split("/", 1)[0]
        self._api_key = api_key
        self._key_to_send = api_key
        self._unpriced = False

    def connection_key(self) -> str:
        """Litellm provider plus endpoint: calls to one host share limits, two hosts do not."""
        return f"{self.prefix}@{stored_endpoint(self.api_base) or 'default'}"

    def check(self) -> None:
        """Raise ModelError for an unknown provider or a missing API key; ready litellm for calls.

        A missing key of a provider of :data:`KEY_VARIABLES` is said before litellm is imported
        (:meth:`_check_known_key`); litellm checks the provider's name and the others' keys.
        Then one request is built unsent (:meth:`_prepare`).
        """
        self._check_known_key()
        litellm = import_litellm()
        self._check_provider(litellm)
        self._check_key(litellm)
        self._prepare(litellm)

    def _check_key(self, litellm: ModuleType) -> None:
        """Raise ModelError for a key that is missing or empty, as litellm's checks see it.

        A keyless server of the user's own gets the placeholder key instead.
        """
        if self._api_key is not None:
            if not self._api_key.strip():
                raise ModelError(f"the API key given for model {self.name!r} is empty")
            return
        blank = blank_key_variables()
        with _hidden(blank):  # a variable set to "" satisfies litellm's check, not a server
            env = litellm.validate_environment(model=self.name, api_base=self.api_base)
        missing = [str(key) for key in env.get("missing_keys") or []]
        if not missing:
            return
        if self._key_optional():
            self._key_to_send = PLACEHOLDER_KEY
            return
        raise self._missing_key(missing, blank)

    def _key_optional(self) -> bool:
        """Whether the endpoint is a server of the user's own that may take no key."""
        return bool(self.api_base) and self.prefix in KEY_OPTIONAL_WITH_API_BASE

    def _check_known_key(self) -> None:
        """Raise the missing-key error without litellm for a provider of :data:`KEY_VARIABLES`."""
        variable = KEY_VARIABLES.get(self.prefix)
        if variable is None or self._api_key is not None or self._key_optional():
            return
        if not os.environ.get(variable, "").strip():
            raise self._missing_key([variable], blank_key_variables())

    def _missing_key(self, missing: Sequence[str], blank: Sequence[str]) -> ModelError:
        """The error of a key that is not set (or set but empty), naming the ways to give one."""
        empty = [key for key in missing if key in blank]
        state = f"is set but empty ({' and '.join(empty)})" if empty else "is not set"
        return ModelError(
            f"model {self.name} cannot be used: its API key {state}. Set the environment "
            f"variable {' or '.join(missing)} to your key, or name another variable that holds "
            "it (coordqa eval, eval-set, agentic run and agentic grid take --api-key-env NAME; "
            "a model of an eval-set spec file takes api_key_env: NAME, as eval-set refuses "
            "--api-key-env for those; a server of your own that needs no key: --api-base URL)."
        )

    def _prepare(self, litellm: ModuleType) -> None:
        """Build one request without sending it (its coroutine is closed unawaited).

        litellm imports dozens of modules the first time it builds a request (4 s on a busy
        machine): done here, that is not counted against the first call's timeout.

        Raises:
            ModelError: litellm cannot build a request for this model.
        """
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": [{"role": "user", "content": "."}],
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._key_to_send:
            kwargs["api_key"] = self._key_to_send
        try:
            pending = start_request(litellm, kwargs)
        except Exception as exc:
            raise ModelError(
                f"litellm cannot build a request for model {self.name}: {exc}"
            ) from exc
        if inspect.iscoroutine(pending):
            pending.close()

    def _check_provider(self, litellm: ModuleType) -> None:
        """Raise ModelError unless litellm knows the model's provider prefix."""
        known = sorted(str(getattr(p, "value", p)) for p in litellm.provider_list)
        if self.prefix not in known:
            raise ModelError(
                f"unknown litellm provider {self.prefix!r} in model {self.name!r}."
                f"{did_you_mean(self.prefix, known)} "
                f"litellm knows {len(known)} providers, e.g. openai, anthropic, gemini, ollama, "
                "hosted_vllm (full list: https://docs.litellm.ai/docs/providers)."
            )

    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """One call through litellm (:func:`send`), without its retries."""
        litellm = import_litellm()
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "timeout": timeout_s,
            "num_retries": 0,
            "max_retries": 0,
            "drop_params": True,
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._key_to_send:
            kwargs["api_key"] = self._key_to_send
        for name in SAMPLING_FIELDS:
            value = getattr(config, name)
            if value is not None:
                kwargs[name] = value
        kwargs.update(config.extra)
        response = await send(litellm, kwargs)
        text, finish_reason = read_reply(response)
        prompt_tokens, completion_tokens = _token_counts(response)
        cost = self._cost(litellm, response)
        return Completion(text, Usage(prompt_tokens, completion_tokens, cost, 1), finish_reason)

    def _cost(self, litellm: ModuleType, response: Any) -> float | None:
        """The cost in US dollars of one response; None when litellm has no price for the model.

        The only place a call is priced. A model litellm cannot price is remembered as unknown
        after the first miss, since each miss walks litellm's price fallbacks (milliseconds);
        its cost stays None (unknown), never 0.
        """
        if self._unpriced:
            return None
        try:
            cost = litellm.completion_cost(completion_response=response, model=self.name)
        except Exception:  # litellm raises several types for "not mapped"; all mean "unknown"
            self._unpriced = True
            return None
        return float(cost)

    def dropped_params(self, config: GenerateConfig) -> list[str]:
        """The OpenAI parameters of ``config`` that litellm drops for this model.

        Calls are sent with ``drop_params=True``, so a parameter the provider does not take
        (``seed`` on Anthropic, ``top_p`` on OpenAI's reasoning models) is left out of the
        request rather than failing it; litellm's list of the model's parameters says which.
        Settings that are not OpenAI parameters are passed on to the provider as they are.
        """
        litellm = import_litellm()
        model = self.name.split("/", 1)[1]
        supported = set(
            litellm.get_supported_openai_params(model=model, custom_llm_provider=self.prefix) or ()
        )
        openai_params = set(litellm.OPENAI_CHAT_COMPLETION_PARAMS)
        asked = [name for name in SAMPLING_FIELDS if getattr(config, name) is not None]
        asked += [name for name in config.extra if name in openai_params]
        return [name for name in asked if name not in supported]

    def should_retry(self, exc: Exception) -> RetryDecision:
        """Lost connections, then the endpoint's status (:func:`classify_status`), are read.

        A refused key, an unknown model or a rejected parameter (401, 403, 404, and 400/422
        other than a too-long or refused prompt) is ``fatal``: every other call would get it too.
        """
        if (lost := connection_decision(exc)) is not None:
            return lost
        decision = classify_status(
            exc, lambda: served_hint(self.api_base, self.prefix, self._key_to_send)
        )
        return decision or super().should_retry(exc)
