"""A local GGUF model run inside this process: ``--model llamacpp/<path-to.gguf>``.

llama-cpp-python (the optional extra ``pip install 'coordqa[llamacpp]'``) loads the file once per
process and answers chat requests without a server. The model sits behind the same gateway as
every other (:class:`~coordqa.llm.gateway.Model`): replies are cached, calls are limited, timed out
and accounted (tokens from llama.cpp's own count; cost 0.0, known: the model runs here).

One model answers one request at a time (a llama.cpp context is not shared between threads), so
the provider caps the connection's concurrency at 1 whatever ``--concurrency`` says: calls wait
for their turn in the limiter, outside their per-attempt timeout. A request whose caller gave up
(its timeout, Ctrl-C, SIGTERM) is aborted inside llama.cpp, so the model is free for the next and
the process can end: llama.cpp asks an abort callback between the steps of every evaluation,
the prompt's included (one prompt took 20 to 50 s on this project's busy cores, and a logits
processor is asked only between generated tokens). The callback returns the request's stop flag
and never raises: llama.cpp calls it through C, where an exception is printed and ignored.
The model's "endpoint" is its file: ``api_base`` is the file's ``file://`` URI, which keys the
response cache and the limiter, so two files never share either.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from coordqa.errors import ConfigError, MissingDependencyError, ModelError
from coordqa.llm.providers import BrokenReply, Completion, Provider
from coordqa.llm.types import SAMPLING_FIELDS, GenerateConfig, Message, RetryDecision, Usage

__all__ = [
    "CONTEXT_TOKENS",
    "DEFAULT_MAX_TOKENS",
    "PREFIX",
    "LlamaCppProvider",
    "llamacpp_provider",
]

PREFIX = "llamacpp/"
"""Model names that start with this name a GGUF file to run in this process."""

CONTEXT_TOKENS = 8192
"""Context window the model is loaded with (prompt plus reply; QA prompts are under 2,000)."""

DEFAULT_MAX_TOKENS = 256
"""Reply cap when ``--max-tokens`` is not given. llama-cpp-python's own default is none (the reply
runs on to the end of the context): a base model that never writes an end-of-turn token rambled
3,000-4,000 tokens per question, past every 120 s attempt, so an eval never finished. A QA answer
("Answer: B" with a short reason) fits well within 256; ``--max-tokens`` raises or lowers it."""

INSTALL = "pip install 'coordqa[llamacpp]' (llama-cpp-python; it compiles llama.cpp from source)"

_LOADED: dict[Path, _Resident] = {}
"""Models loaded in this process, by file: each is loaded once, however many runs use it."""
_LOADING = threading.Lock()


class _Stopped(Exception):
    """The caller of a generation gave up on it: its reply is not wanted."""


@dataclass
class _Resident:
    """A loaded model, the lock that lets one request at a time use it, and that request's stop."""

    llama: Any
    """The ``llama_cpp.Llama``."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held by the request using the model (providers of one file share it)."""
    stop: threading.Event | None = None
    """The stop flag of the request holding :attr:`lock`."""
    callback: Any = None
    """The ctypes abort callback given to llama.cpp, kept alive as long as the model."""

    def abandoned(self, _data: object) -> bool:
        """llama.cpp's abort callback: whether the running request's caller gave up."""
        stop = self.stop
        return stop is not None and stop.is_set()


def _load(path: Path) -> _Resident:
    """The model of ``path``, loaded on first use, with its abort callback set."""
    with _LOADING:
        if path not in _LOADED:
            import llama_cpp

            try:
                llama = llama_cpp.Llama(model_path=str(path), n_ctx=CONTEXT_TOKENS, verbose=False)
            except ValueError as exc:  # llama-cpp-python's word for a file it cannot load
                raise ModelError(f"llama.cpp cannot load {path} as a GGUF model: {exc}") from exc
            resident = _Resident(llama)
            resident.callback = llama_cpp.ggml_abort_callback(resident.abandoned)
            # Llama takes no abort callback: it is set on its context (llama.cpp's C API)
            llama_cpp.llama_set_abort_callback(llama._ctx.ctx, resident.callback, None)
            _LOADED[path] = resident
        return _LOADED[path]


class LlamaCppProvider(Provider):
    """A GGUF file answered by llama-cpp-python in this process."""

    max_concurrency = 1

    def __init__(self, name: str, api_base: str | None, api_key: str | None) -> None:
        """Name the file (``llamacpp/<path>``); nothing is loaded until :meth:`check`.

        Raises:
            ConfigError: no path after the prefix, or an ``--api-base`` (nothing is served).
        """
        given = name.removeprefix(PREFIX)
        if not given:
            raise ConfigError(
                f"model {name!r} names no file: write --model llamacpp/PATH-TO-MODEL.gguf"
            )
        if api_base is not None:
            raise ConfigError(
                f"--api-base {api_base}: a llamacpp/ model runs inside coordqa, no server is "
                "called; leave --api-base out (or serve the file and use openai/NAME with it)"
            )
        self.path = Path(given).expanduser().resolve()
        super().__init__(name, self.path.as_uri())

    def check(self) -> None:
        """Raise unless llama-cpp-python is installed and the file loads (it is loaded now)."""
        if importlib.util.find_spec("llama_cpp") is None:
            raise MissingDependencyError(f"model {self.name} needs llama-cpp-python: {INSTALL}")
        if not self.path.is_file():
            raise ModelError(
                f"model {self.name}: no file at {self.path}; give the path of a .gguf file"
            )
        _load(self.path)

    def with_defaults(self, config: GenerateConfig) -> GenerateConfig:
        """``config`` with :data:`DEFAULT_MAX_TOKENS` when it caps nothing (in the cache key)."""
        if config.max_tokens is not None or "max_tokens" in config.extra:
            return config
        return replace(config, max_tokens=DEFAULT_MAX_TOKENS)

    async def complete(
        self, messages: Sequence[Message], config: GenerateConfig, *, trial: int, timeout_s: float
    ) -> Completion:
        """Generate in a worker thread; a cancelled call aborts its evaluation in llama.cpp."""
        stop = threading.Event()
        try:
            return await asyncio.to_thread(self._generate, messages, config, stop)
        finally:
            stop.set()  # after a timeout, Ctrl-C or SIGTERM llama.cpp aborts at its next step

    def _generate(
        self, messages: Sequence[Message], config: GenerateConfig, stop: threading.Event
    ) -> Completion:
        settings: dict[str, Any] = {
            name: getattr(config, name)
            for name in SAMPLING_FIELDS
            if getattr(config, name) is not None
        }
        settings.update(config.extra)
        resident = _load(self.path)
        with resident.lock:
            if stop.is_set():
                raise _Stopped
            resident.stop = stop
            try:
                response = resident.llama.create_chat_completion(
                    messages=[{"role": m.role, "content": m.content} for m in messages],
                    **settings,
                )
            except RuntimeError:  # "llama_decode returned 2": aborted by resident.abandoned
                if stop.is_set():
                    raise _Stopped from None
                raise
            finally:
                resident.stop = None
        if stop.is_set():
            raise _Stopped  # finished as its caller gave up: no one waits for it
        choice = (response.get("choices") or [{}])[0]
        text = (choice.get("message") or {}).get("content")
        if not isinstance(text, str) or not text.strip():
            raise BrokenReply(f"llama.cpp returned no text ({text!r})")
        usage = response.get("usage") or {}
        return Completion(
            text,
            Usage(
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
                cost=0.0,
                calls=1,
            ),
        )

    def should_retry(self, exc: Exception) -> RetryDecision:
        """A setting llama.cpp does not take fails every call; a prompt too long fails this one."""
        if isinstance(exc, TypeError) and "unexpected keyword argument" in str(exc):
            setting = str(exc).rpartition("argument")[2].strip(" '")
            return RetryDecision(
                "fatal", f"llama-cpp-python takes no setting {setting} (remove that --model-arg)"
            )
        if isinstance(exc, ValueError) and "context window" in str(exc):
            return RetryDecision("no", f"the prompt does not fit {CONTEXT_TOKENS} tokens")
        return super().should_retry(exc)


def llamacpp_provider(name: str, api_base: str | None, api_key: str | None) -> Provider:
    """The ``llamacpp/<path>`` models (registered in :mod:`coordqa.llm.registry`)."""
    return LlamaCppProvider(name, api_base, api_key)
