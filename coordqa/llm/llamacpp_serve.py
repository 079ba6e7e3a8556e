"""llama-cpp-python's OpenAI-compatible server, prompting as coordqa's in-process GGUF models do.

``python -m coordqa.llm.llamacpp_serve ARGS`` is ``python -m llama_cpp.server ARGS`` with one
difference: when ``--chat_format`` names a format that drops system messages (``gemma``,
``mistral-instruct``... llama-cpp-python's handlers leave them out of the prompt without a word),
each system message opens the next user turn instead (:func:`coordqa.llm.chat_formats.fold_system`),
the rule of the ``llamacpp/`` provider. Served as ``gemma`` by llama-cpp-python's own server, a
QA question reached the model without its directive (the system message saying how to answer),
and an agent without its role. :class:`coordqa.llm.llamacpp.LlamaCppServer` starts this module.

A second: a model given without ``--model_alias`` is served under its file's name
(:func:`default_alias`), said on stderr as the server starts. llama-cpp-python serves it under
the path it was given, so clients had to ask for ``openai//root/.../model.gguf``.

A third: a model given without ``--n_ctx`` is served with the context of the ``llamacpp/``
route (:data:`coordqa.llm.llamacpp_provider.CONTEXT_TOKENS`, :func:`with_context`), not
llama-cpp-python's 2,048 tokens, which refused QA questions of more than about 2,000 tokens.

A fourth: SIGTERM (or Ctrl-C) stops the server within :data:`EXIT_AFTER_S` seconds
(:func:`bounded_shutdown`). uvicorn waits for the requests in flight, with no bound by default,
and the server keeps generating a reply its client gave up on: it was still alive after SIGTERM
until that reply ran to the end of the context.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from types import FrameType
from typing import Any

from coordqa.llm.chat_formats import fold_system, keeps_system
from coordqa.llm.llamacpp_provider import CONTEXT_TOKENS

__all__ = [
    "EXIT_AFTER_S",
    "SHUTDOWN_GRACE_S",
    "bounded_shutdown",
    "default_alias",
    "fold_dropped_system",
    "main",
    "with_alias",
    "with_context",
]

FORMAT_FLAG = "--chat_format"
MODEL_FLAG = "--model"
ALIAS_FLAG = "--model_alias"
CONTEXT_FLAG = "--n_ctx"

SHUTDOWN_GRACE_S = 1
"""How long a stopped server lets the requests in flight finish (uvicorn's
``timeout_graceful_shutdown``) before it cancels them and exits."""

EXIT_AFTER_S = SHUTDOWN_GRACE_S + 0.5
"""When, after Ctrl-C or SIGTERM, the process ends whatever is still running."""

STARTUP_FAILURE = 3
"""uvicorn's exit status for a server that did not start (its port taken)."""


def fold_dropped_system(chat_format: str) -> bool:
    """Make llama-cpp-python's handler ``chat_format`` fold system messages, if it drops them.

    Replaces the handler in llama-cpp-python's registry (of this process) by one that folds the
    messages first; returns whether it did (a format that keeps system messages is left alone).
    """
    from llama_cpp import llama_chat_format

    registry = llama_chat_format.LlamaChatCompletionHandlerRegistry()
    handler = registry.get_chat_completion_handler_by_name(chat_format)
    if keeps_system(handler):
        return False

    def folded(*, messages: Sequence[Any], **kwargs: Any) -> Any:
        prompt: Any = fold_system(messages)  # the plain role/content messages the handler takes
        return handler(messages=prompt, **kwargs)

    registry.register_chat_completion_handler(chat_format, folded, overwrite=True)
    return True


def _flag_value(argv: Sequence[str], flag: str) -> str | None:
    """The value of ``flag`` in ``argv`` (``--flag VALUE`` or ``--flag=VALUE``; None: not given)."""
    for number, argument in enumerate(argv):
        if argument == flag and number + 1 < len(argv):
            return argv[number + 1]
        if argument.startswith(f"{flag}="):
            return argument.split("=", 1)[1]
    return None


def _chat_format(argv: Sequence[str]) -> str | None:
    """The value of ``--chat_format`` in ``argv`` (None: not given)."""
    return _flag_value(argv, FORMAT_FLAG)


def default_alias(model_path: str) -> str:
    """The name a model file is served under: ``gemma-3-270m`` for ``/models/gemma-3-270m.gguf``.

    Its file's name without ``.gguf``: what a client types after ``openai/``, and no path of the
    server's machine.
    """
    name = PurePath(model_path).name
    return name.removesuffix(".gguf") or name


def with_alias(argv: Sequence[str]) -> tuple[list[str], str | None]:
    """``argv`` with ``--model_alias`` added when it names a ``--model`` and no alias; the alias.

    The alias is None when ``argv`` gives no ``--model`` (a ``--config_file`` names its models
    and their aliases itself).
    """
    given = _flag_value(argv, ALIAS_FLAG)
    if given is not None:
        return list(argv), given
    model = _flag_value(argv, MODEL_FLAG)
    if model is None:
        return list(argv), None
    alias = default_alias(model)
    return [*argv, ALIAS_FLAG, alias], alias


def with_context(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    """``argv`` with ``--n_ctx`` :data:`CONTEXT_TOKENS` (``llamacpp/``'s) added, if none is given.

    A context given is kept: ``--n_ctx``, or ``N_CTX`` in ``environ`` (read by
    llama-cpp-python's settings, in any case); so is an ``argv`` without ``--model`` (a
    ``--config_file`` sets each model's own).
    """
    given = _flag_value(argv, CONTEXT_FLAG) is not None
    if given or _flag_value(argv, MODEL_FLAG) is None:
        return list(argv)
    if any(name.lower() == CONTEXT_FLAG.removeprefix("--") for name in environ):
        return list(argv)
    return [*argv, CONTEXT_FLAG, str(CONTEXT_TOKENS)]


def bounded_shutdown() -> None:
    """Make llama-cpp-python's server stop within :data:`SHUTDOWN_GRACE_S` and a moment.

    Its ``main`` calls ``uvicorn.run`` itself; this runs that call's server with
    ``timeout_graceful_shutdown`` (uvicorn then cancels the requests still running), and ends
    the process :data:`EXIT_AFTER_S` after the stop, status 128 + the signal. A reply being
    generated is not stopped by the cancel: llama-cpp-python generates in a worker thread that
    the event loop's teardown waits for, so a Ctrl-C left the server generating, alive and
    printing uvicorn's CancelledError tracebacks (walkthrough 26); a request cancelled by the
    stop is not logged as an error.
    """
    import llama_cpp.server.__main__ as server_main
    import uvicorn

    class _Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if not self.should_exit:
                ending = threading.Timer(EXIT_AFTER_S, _end_now, (128 + sig, ABANDONED))
                ending.daemon = True
                ending.start()
            super().handle_exit(sig, frame)

    class _Uvicorn:
        @staticmethod
        def run(app: Any, **settings: Any) -> None:
            config = uvicorn.Config(app, timeout_graceful_shutdown=SHUTDOWN_GRACE_S, **settings)
            logging.getLogger("uvicorn.error").addFilter(_as_a_stop)
            server = _Server(config)
            try:
                server.run()
            except KeyboardInterrupt:  # uvicorn raises the Ctrl-C it caught once it stopped
                _end_now(128 + signal.SIGINT)  # not waiting for a generation it cancelled
            if not server.started:  # the port taken, as uvicorn.run says it
                sys.exit(STARTUP_FAILURE)

    server_main.uvicorn = _Uvicorn  # type: ignore[attr-defined,assignment]


def _as_a_stop(record: logging.LogRecord) -> bool:
    """Whether to log ``record``, said as a stop and not as an error.

    Not uvicorn's traceback of a request the stop cancelled, and its cancel line as information
    (walkthrough 27: ``ERROR: Cancel 1 running task(s), timeout graceful shutdown exceeded`` on
    every stop that abandons a generation).
    """
    import asyncio

    if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
        return False
    if record.getMessage().startswith("Cancel ") and "graceful shutdown" in record.getMessage():
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg, record.args = "Stopping: a reply still being generated is abandoned", ()
    return True


ABANDONED = "coordqa: stopped; a reply still being generated was abandoned"
"""Said when the process ends :data:`EXIT_AFTER_S` after a stop, a generation still running."""


def _end_now(status: int, said: str = "") -> None:
    """End the process at once with ``status`` (no teardown: it would wait for a generation).

    Python's teardown also called llama.cpp's log callback after freeing it: a Ctrl-C of an
    idle server printed ``Exception ignored on calling ctypes callback function`` and a
    ``TypeError`` (walkthrough 26).
    """
    if said:
        print(said, file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(status)


def main() -> None:
    """Serve as ``python -m llama_cpp.server`` does, system messages kept (see the module)."""
    from llama_cpp.server.__main__ import main as serve

    from coordqa.llm.llamacpp_log import errors_only

    errors_only()  # the server's log holds llama.cpp's errors, not its every warning
    chat_format = _chat_format(sys.argv[1:])
    if chat_format is not None:
        fold_dropped_system(chat_format)
    argv = with_context(sys.argv[1:])
    if len(argv) > len(sys.argv) - 1:
        print(
            f"coordqa: serving a context of {CONTEXT_TOKENS} tokens, as llamacpp/ loads the "
            f"model ({CONTEXT_FLAG} sets another)",
            file=sys.stderr,
            flush=True,
        )
    argv, alias = with_alias(argv)
    sys.argv[1:] = argv
    bounded_shutdown()
    if alias is not None:
        print(
            f"coordqa: serving the model as {alias!r}: clients ask for openai/{alias} "
            f"({ALIAS_FLAG} names it otherwise)",
            file=sys.stderr,
            flush=True,
        )
    serve()


if __name__ == "__main__":
    main()
