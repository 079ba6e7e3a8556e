"""How a local GGUF model is prompted: its chat format (``--model-arg chat_format=NAME``).

A chat model answers when it is prompted with the turn markers it was trained on. llama-cpp-python
renders messages with the GGUF's own chat template (``tokenizer.chat_template``) and, for a file
that has none, falls back to ``llama-2`` without a word: gemma-3-270m, which has none, was
prompted with ``[INST] <<SYS>>`` tags, echoed them and never answered (issue 37). So the format
is chosen here, once per request: the one given, else the file's own template, else none (the
model is refused, naming the option and llama-cpp-python's format names, nearest first).

Some of llama-cpp-python's formats have no system turn and drop system messages silently
(``gemma``, ``mistral-instruct``, ``vicuna``...): the QA directive and the agents' rules would
never reach the model. Whether a format keeps them is asked of the format itself
(:func:`keeps_system`: it renders a probe, nothing is generated); where it does not, each system
message opens the next user turn (:func:`fold_system`), as Gemma's and Mistral's own templates
put it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coordqa.errors import ConfigError
from coordqa.registry import did_you_mean, suggest

__all__ = ["ARG", "FILE_TEMPLATE", "chosen_format", "fold_system", "format_names", "keeps_system"]

ARG = "chat_format"
"""The ``--model-arg`` that names the format; consumed by the provider, never sent as a setting."""

FILE_TEMPLATE = "chat_template.default"
"""llama-cpp-python's name for the GGUF's own template (``tokenizer.chat_template``)."""

TEMPLATE_KEY = "tokenizer.chat_template"
"""The GGUF metadata key of the file's template."""


def format_names(llama: Any) -> list[str]:
    """The formats ``llama`` can be prompted in: llama-cpp-python's and the file's templates."""
    from llama_cpp import llama_chat_format

    registry = llama_chat_format.LlamaChatCompletionHandlerRegistry()
    built_in = getattr(registry, "_chat_handlers", {})  # its only list of names
    return sorted({*built_in, *getattr(llama, "_chat_handlers", {})})


def chosen_format(
    given: object, own: str | None, names: Sequence[str], model: str, architecture: str = ""
) -> str:
    """The format a request is prompted in: ``given``, else the file's ``own``.

    Args:
        given: the ``chat_format`` model argument (None: not given).
        own: the format llama-cpp-python chose for the file's template (None: it has none).
        names: the formats this model can be prompted in (:func:`format_names`).
        model: how messages name the model (its file name).
        architecture: the file's ``general.architecture`` (``gemma3``), to suggest a format.

    Raises:
        ConfigError: no format given for a file without a template, or one not in ``names``.
    """
    listed = ", ".join(names)
    if given is None:
        if own is not None:
            return own
        close = suggest(architecture, list(names), limit=2) if architecture else []
        hint = f" (nearest to its architecture {architecture}: {', '.join(close)})" if close else ""
        raise ConfigError(
            f"{model} carries no chat template, so how to prompt it is unknown (llama-cpp-python "
            f"would use llama-2's): give its format with --model-arg {ARG}=NAME{hint}, NAME one "
            f"of {listed}"
        )
    if isinstance(given, str) and given in names:
        return given
    refused = (
        f"--model-arg {ARG}={given} is not a chat format llama-cpp-python knows for {model} "
        f"({listed})"
    )
    hint = did_you_mean(str(given), names)
    raise ConfigError(f"{refused}.{hint}" if hint else refused)


class _Rendered(Exception):
    """Carries the prompt a chat handler rendered, before anything is evaluated."""


class _Probe:
    """Stands in for a Llama: the handler's first use of it, tokenizing the prompt, ends it."""

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        raise _Rendered(text.decode("utf-8", errors="replace"))

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


SYSTEM_PROBE = "coordqa-system-probe"
"""A system message whose text is looked for in a rendered probe prompt."""


def keeps_system(handler: Any) -> bool:
    """Whether the chat ``handler`` puts a system message's text into its prompt.

    The prompt is rendered against a stand-in model that stops at tokenizing it; a handler that
    needs more of a model than that (function-calling ones) is taken to keep it.
    """
    messages = [
        {"role": "system", "content": SYSTEM_PROBE},
        {"role": "user", "content": "hello"},
    ]
    try:
        handler(llama=_Probe(), messages=messages)
    except _Rendered as rendered:
        return SYSTEM_PROBE in str(rendered)
    except Exception:  # noqa: BLE001 (any other failure: the handler needs a real model)
        return True
    return True


def fold_system(messages: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    r"""``messages`` with each system message opening the next user turn (a blank line after).

    >>> fold_system([{"role": "system", "content": "Rules."}, {"role": "user", "content": "Q?"}])
    [{'role': 'user', 'content': 'Rules.\n\nQ?'}]
    >>> fold_system([{"role": "user", "content": "Q?"}, {"role": "system", "content": "Late."}])
    [{'role': 'user', 'content': 'Q?'}, {'role': 'user', 'content': 'Late.'}]
    """
    folded: list[dict[str, str]] = []
    waiting: list[str] = []
    for message in messages:
        if message["role"] == "system":
            waiting.append(message["content"])
        elif message["role"] == "user" and waiting:
            folded.append({"role": "user", "content": "\n\n".join([*waiting, message["content"]])})
            waiting = []
        else:
            folded.append(dict(message))
    if waiting:
        folded.append({"role": "user", "content": "\n\n".join(waiting)})
    return folded
