"""Directives and chat message layouts for CoordinationQA questions.

The layouts follow the LLM-Coordination paper, so results are comparable with it; the directive
texts are coordqa's own. Each directive asks for a short explanation followed by one final line,
``Answer: <letter>`` (EC, ToM) or ``Action: <letter>`` (JP), which :mod:`coordqa.choices` reads
first. Every message a model sees is a pure function of the dataset row and the layout, and
:func:`prompt_hash` identifies it in the run store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from coordqa.choices import format_options
from coordqa.errors import ConfigError, DatasetError
from coordqa.jsonvalues import content_hash
from coordqa.llm.types import Message

__all__ = [
    "ACKNOWLEDGEMENT",
    "DIRECTIVES",
    "MARKERS",
    "PROMPT_LAYOUTS",
    "PromptLayout",
    "build_messages",
    "prompt_hash",
    "question_text",
]

PromptLayout = Literal["system", "no_system"]
"""``system``: the directive is the system message; ``no_system``: for models without a system
role, the directive follows the game description in the first user message."""

PROMPT_LAYOUTS: tuple[str, ...] = get_args(PromptLayout)

ACKNOWLEDGEMENT = "Got it!"
"""The assistant turn that closes the game-description exchange, as in the paper."""

_REPLY_FORMAT = """\
Reply in exactly this format:
Explanation: <your reasoning, in a few sentences>
{label}: <one letter>
The {label_lower} must be the letter of exactly one of the available {kind}, for example A."""

DIRECTIVES: Mapping[str, str] = {
    "EC": (
        "You are playing a cooperative game with a partner. You will be given the rules, then "
        "the current state of a game in progress and a question about that state, with "
        "lettered answers. Work out what the state implies, using the rules, the positions and "
        "the quantities it describes.\n"
        + _REPLY_FORMAT.format(label="Answer", label_lower="answer", kind="answers")
    ),
    "ToM": (
        "You are playing a cooperative game with a partner. You will be given the rules, then "
        "the current state of a game in progress and a question about your partner, with "
        "lettered answers. Reason about what your partner can see and knows, what they are "
        "trying to do, and what they would do next or need to be told.\n"
        + _REPLY_FORMAT.format(label="Answer", label_lower="answer", kind="answers")
    ),
    "JP": (
        "You are playing a cooperative game with a partner. You will be given the rules, then "
        "the current state of a game in progress and the actions you can take now, lettered. "
        "Choose the action that does the most for the shared goal, taking into account what "
        "your partner is likely to do at the same time.\n"
        + _REPLY_FORMAT.format(label="Action", label_lower="action", kind="actions")
    ),
}
"""Per question type: what the model is asked to do and how to format its reply."""

MARKERS: Mapping[str, str] = {
    "EC": "Available Answers:",
    "ToM": "Available Answers:",
    "JP": "Available Actions:",
}
"""The line that introduces the lettered options."""


def _question_type(row: Mapping[str, Any]) -> str:
    kind = row["question_type"]
    if kind not in DIRECTIVES:
        raise DatasetError(
            f"question {row.get('question_id')!r}: question_type {kind!r} has no directive; "
            f"allowed: {', '.join(DIRECTIVES)}"
        )
    return str(kind)


def question_text(row: Mapping[str, Any]) -> str:
    """The final user message: state, question sentence, marker line and lettered options."""
    options = format_options(list(row["options"]))
    parts = [row["state_description"].strip(), row["question"].strip()]
    parts.append(f"{MARKERS[_question_type(row)]}\n{options}")
    return "\n\n".join(part for part in parts if part)


def build_messages(row: Mapping[str, Any], *, layout: PromptLayout = "system") -> list[Message]:
    """The chat messages that ask ``row``'s question.

    ``system`` layout: system = the directive; user = the game description; assistant =
    :data:`ACKNOWLEDGEMENT`; user = :func:`question_text`. ``no_system`` layout: user = the
    game description then the directive; assistant = the acknowledgement; user = the question.
    A row without a game description skips the description exchange (``system``) or shows the
    directive alone (``no_system``), rather than send an empty message.

    Raises:
        ConfigError: an unknown layout.
        DatasetError: a question type without a directive.
    """
    if layout not in PROMPT_LAYOUTS:
        raise ConfigError(f"prompt layout {layout!r} is not one of {', '.join(PROMPT_LAYOUTS)}")
    directive = DIRECTIVES[_question_type(row)]
    description = row["game_description"].strip()
    question = Message("user", question_text(row))
    if layout == "no_system":
        opening = f"{description}\n\n{directive}" if description else directive
        return [Message("user", opening), Message("assistant", ACKNOWLEDGEMENT), question]
    exchange = (
        [Message("user", description), Message("assistant", ACKNOWLEDGEMENT)] if description else []
    )
    return [Message("system", directive), *exchange, question]


def prompt_hash(messages: Sequence[Message]) -> str:
    """SHA-256 of the messages' canonical JSON (role and content, in order)."""
    return content_hash([{"role": m.role, "content": m.content} for m in messages])
