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

Each request is prompted in the file's chat format (:mod:`coordqa.llm.chat_formats`): the
``--model-arg chat_format=NAME`` given, else the GGUF's own template; a file without one is
refused until a format is given. The format is settled before the cache key is made
(:meth:`LlamaCppProvider.with_defaults`), so a reply made in one format is never served for
another. Replies keep llama.cpp's finish reason (``length``: cut at the token cap), and an empty
reply is the model's answer, as on every other path (:class:`~coordqa.llm.providers.Completion`).
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
from coordqa.llm.chat_formats import (
    ARG as CHAT_FORMAT,
    TEMPLATE_KEY,
    chosen_format,
    fold_system,
    format_names,
    keeps_system,
)
from coordqa.llm.openai_api import CONTEXT_ADVICE, CONTEXT_EXCEEDED
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
    own_format: str | None = None
    """The format llama-cpp-python chose for the file's own template (None: it has none)."""
    formats: list[str] = field(default_factory=list)
    """Every format the model can be prompted in (llama-cpp-python's and the file's)."""
    _keeps_system: dict[str, bool] = field(default_factory=dict)

    def abandoned(self, _data: object) -> bool:
        """llama.cpp's abort callback: whether the running request's caller gave up."""
        stop = self.stop
        return stop is not None and stop.is_set()

    def keeps_system(self, chat_format: str) -> bool:
        """Whether ``chat_format`` puts system messages into its prompt (asked once)."""
        if chat_format not in self._keeps_system:
            from llama_cpp import llama_chat_format

            handler = self.llama._chat_handlers.get(
                chat_format
            ) or llama_chat_format.get_chat_completion_handler(chat_format)
            self._keeps_system[chat_format] = keeps_system(handler)
        return self._keeps_system[chat_format]


def _load(path: Path) -> _Resident:
    """The model of ``path``, loaded on first use, with its abort callback set."""
    with _LOADING:
        if path not in _LOADED:
            import llama_cpp

            from coordqa.llm.llamacpp_log import errors_only, quiet_while

            errors_only()
            try:
                llama = llama_cpp.Llama(model_path=str(path), n_ctx=CONTEXT_TOKENS, verbose=False)
            except ValueError as exc:  # llama-cpp-python's word for a file it cannot load
                raise ModelError(f"llama.cpp cannot load {path} as a GGUF model: {exc}") from exc
            own = llama.chat_format if TEMPLATE_KEY in llama.metadata else None
            resident = _Resident(llama, own_format=own, formats=format_names(llama))
            resident.callback = llama_cpp.ggml_abort_callback(resident.abandoned)
            # Llama takes no abort callback: it is set on its context (llama.cpp's C API)
            llama_cpp.llama_set_abort_callback(llama._ctx.ctx, resident.callback, None)
            quiet_while(lambda: resident.abandoned(None))
            _LOADED[path] = resident
        return _LOADED[path]


class LlamaCppProvider(Provider):
    """A GGUF file answered by llama-cpp-python in this process."""

    max_concurrency = 1
    runs_in_process = True
    cached_as = (  # api_base, in the cache key, is the file's URI: its path (walkthrough 19 #204)
        "asked before of the GGUF file at this path, with the same prompt, chat format and "
        "settings (the cache knows the file by its path, not its content). If the file there "
        "has changed since (another checkpoint or quantisation), run again with --no-cache and "
        "another --out."
    )

    def __init__(self, name: str, api_base: str | None, api_key: str | None) -> None:
        """Name the file (``llamacpp/<path>``); nothing is loaded until :meth:`check`.

        Raises:
            ConfigError: no path after the prefix.
        """
        given = name.removeprefix(PREFIX)
        if not given:
            raise ConfigError(
                f"model {name!r} names no file: write --model llamacpp/PATH-TO-MODEL.gguf"
            )
        self.given = given
        self.path = Path(given).expanduser().resolve()
        super().__init__(name, self.path.as_uri())

    def check(self) -> None:
        """Raise unless llama-cpp-python is installed and the file loads (it is loaded now)."""
        if importlib.util.find_spec("llama_cpp") is None:
            raise MissingDependencyError(f"model {self.name} needs llama-cpp-python: {INSTALL}")
        if not self.path.is_file():
            rooted = Path("/", self.given)
            hint = (
                f". Did you mean '{PREFIX}{rooted}'? (an absolute path after {PREFIX} keeps its "
                f"own slash: two slashes)"
                if self.given[:1] not in ("/", "~") and rooted.is_file()
                else ""
            )
            raise ModelError(
                f"model {self.name}: no file at {self.path}; give the path of a .gguf file{hint}"
            )
        _load(self.path)

    def with_defaults(self, config: GenerateConfig) -> GenerateConfig:
        """``config`` with its chat format and reply cap settled: both are in the cache key.

        The format is the one given, else the file's own (the file is loaded to know it); the
        cap, :data:`DEFAULT_MAX_TOKENS` when the config caps nothing.

        Raises:
            ConfigError: the file has no chat template and no ``chat_format`` is given, or the
                one given is not a chat format llama-cpp-python knows (the message lists them).
            MissingDependencyError, ModelError: as :meth:`check`.
        """
        extra = {**config.extra, CHAT_FORMAT: self._format(config.extra.get(CHAT_FORMAT))}
        capped = config.max_tokens is not None or "max_tokens" in config.extra
        max_tokens = config.max_tokens if capped else DEFAULT_MAX_TOKENS
        return replace(config, max_tokens=max_tokens, extra=extra)

    def _format(self, given: object) -> str:
        """The chat format a request is prompted in (:func:`chosen_format`)."""
        self.check()
        resident = _load(self.path)
        architecture = str(resident.llama.metadata.get("general.architecture", ""))
        return chosen_format(
            given, resident.own_format, resident.formats, self.path.name, architecture
        )

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
        chat_format = self._format(settings.pop(CHAT_FORMAT, None))
        resident = _load(self.path)
        prompt = [{"role": m.role, "content": m.content} for m in messages]
        if not resident.keeps_system(chat_format):
            prompt = fold_system(prompt)  # the format would drop the directive without a word
        with resident.lock:
            if stop.is_set():
                raise _Stopped
            resident.stop = stop
            resident.llama.chat_format = chat_format  # read by create_chat_completion
            try:
                response = resident.llama.create_chat_completion(messages=prompt, **settings)
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
        if not isinstance(text, str):
            raise BrokenReply(f"llama.cpp returned no message content ({text!r})")
        usage = response.get("usage") or {}
        return Completion(  # empty text is the model's answer: it ended its turn at once
            text,
            Usage(
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
                cost=0.0,
                calls=1,
            ),
            choice.get("finish_reason"),
        )

    def should_retry(self, exc: Exception) -> RetryDecision:
        """A setting llama.cpp does not take fails every call; a prompt too long fails this one."""
        if isinstance(exc, TypeError) and "unexpected keyword argument" in str(exc):
            setting = str(exc).rpartition("argument")[2].strip(" '")
            return RetryDecision(
                "fatal", f"llama-cpp-python takes no setting {setting} (remove that --model-arg)"
            )
        if isinstance(exc, ValueError) and "context window" in str(exc):
            return RetryDecision(
                "no", f"{CONTEXT_EXCEEDED} ({CONTEXT_TOKENS} tokens), on any try: {CONTEXT_ADVICE}"
            )
        return super().should_retry(exc)


def llamacpp_provider(name: str, api_base: str | None, api_key: str | None) -> Provider:
    """The ``llamacpp/<path>`` models (registered in :mod:`coordqa.llm.registry`)."""
    return LlamaCppProvider(name, api_base, api_key)
