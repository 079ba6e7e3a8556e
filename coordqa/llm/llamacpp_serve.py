"""llama-cpp-python's OpenAI-compatible server, prompting as coordqa's in-process GGUF models do.

``python -m coordqa.llm.llamacpp_serve ARGS`` is ``python -m llama_cpp.server ARGS`` with one
difference: when ``--chat_format`` names a format that drops system messages (``gemma``,
``mistral-instruct``... llama-cpp-python's handlers leave them out of the prompt without a word),
each system message opens the next user turn instead (:func:`coordqa.llm.chat_formats.fold_system`),
the rule of the ``llamacpp/`` provider. Served as ``gemma`` by llama-cpp-python's own server, a
QA question reached the model without its directive (the system message saying how to answer),
and an agent without its role. :class:`coordqa.llm.llamacpp.LlamaCppServer` starts this module.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from coordqa.llm.chat_formats import fold_system, keeps_system

__all__ = ["fold_dropped_system", "main"]

FORMAT_FLAG = "--chat_format"


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


def _chat_format(argv: Sequence[str]) -> str | None:
    """The value of ``--chat_format`` in ``argv`` (None: not given)."""
    for number, argument in enumerate(argv):
        if argument == FORMAT_FLAG and number + 1 < len(argv):
            return argv[number + 1]
        if argument.startswith(f"{FORMAT_FLAG}="):
            return argument.split("=", 1)[1]
    return None


def main() -> None:
    """Serve as ``python -m llama_cpp.server`` does, system messages kept (see the module)."""
    from llama_cpp.server.__main__ import main as serve

    from coordqa.llm.llamacpp_log import errors_only

    errors_only()  # the server's log holds llama.cpp's errors, not its every warning
    chat_format = _chat_format(sys.argv[1:])
    if chat_format is not None:
        fold_dropped_system(chat_format)
    serve()


if __name__ == "__main__":
    main()
