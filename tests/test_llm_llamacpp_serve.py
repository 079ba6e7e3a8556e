"""The served llama.cpp path prompts as the in-process one: the format given, system messages kept.

No model is loaded: the chat handlers of the installed llama-cpp-python render prompts against a
stand-in (:func:`coordqa.llm.chat_formats.keeps_system`). The served model itself is
``tests/test_real_model.py``'s.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from coordqa.llm.chat_formats import keeps_system
from coordqa.llm.llamacpp import GEMMA_FORMAT, LlamaCppServer
from coordqa.llm.llamacpp_serve import _chat_format, fold_dropped_system

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="needs llama-cpp-python"
)


@pytest.fixture
def registry() -> Iterator[object]:
    """llama-cpp-python's handler registry, as it was before the test."""
    from llama_cpp import llama_chat_format

    handlers = llama_chat_format.LlamaChatCompletionHandlerRegistry()
    before = dict(handlers._chat_handlers)
    yield handlers
    handlers._chat_handlers.clear()
    handlers._chat_handlers.update(before)


def test_gemma_served_keeps_the_system_message_llama_cpp_would_drop(registry: object) -> None:
    """llama-cpp-python's gemma handler leaves system messages out: a QA question's directive
    (how to answer) never reached the model."""
    from llama_cpp import llama_chat_format

    assert not keeps_system(llama_chat_format.get_chat_completion_handler(GEMMA_FORMAT))
    assert fold_dropped_system(GEMMA_FORMAT)
    assert keeps_system(llama_chat_format.get_chat_completion_handler(GEMMA_FORMAT))


def test_a_format_that_keeps_system_messages_is_left_as_it_is(registry: object) -> None:
    from llama_cpp import llama_chat_format

    chatml = llama_chat_format.get_chat_completion_handler("chatml")
    assert not fold_dropped_system("chatml")
    assert llama_chat_format.get_chat_completion_handler("chatml") is chatml


def test_the_server_is_started_in_the_format_it_is_given(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    command = LlamaCppServer(model, chat_format=GEMMA_FORMAT).command()
    assert command[1:3] == ["-m", "coordqa.llm.llamacpp_serve"]
    assert _chat_format(command[3:]) == GEMMA_FORMAT
    assert _chat_format(["--model", "m", "--chat_format=chatml"]) == "chatml"
    assert _chat_format(["--model", "m"]) is None
