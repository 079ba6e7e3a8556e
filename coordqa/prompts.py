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
from coordqa.directives import DIRECTIVES
from coordqa.errors import ConfigError, DatasetError
from coordqa.games.base import game_profile
from coordqa.jsonvalues import content_hash
from coordqa.llm.types import Message

__all__ = [
    "ACKNOWLEDGEMENT",
    "DIRECTIVES",
    "EARLIER_SOURCES",
    "MARKERS",
    "PROMPT_LAYOUTS",
    "SEVERAL_CORRECT",
    "PromptLayout",
    "build_messages",
    "directive_for",
    "layout_named",
    "prompt_hash",
    "question_text",
]

PromptLayout = Literal["system", "no_system"]
"""``system``: the directive is the system message; ``no_system``: for models without a system
role, the directive follows the game description in the first user message."""

PROMPT_LAYOUTS: tuple[str, ...] = get_args(PromptLayout)


def layout_named(name: str) -> str:
    """The layout ``name`` names: ``--prompt-layout no-system`` and a spec's ``no_system`` alike.

    >>> layout_named("no-system")
    'no_system'
    """
    return name.replace("-", "_")


ACKNOWLEDGEMENT = "Got it!"
"""The assistant turn that closes the game-description exchange, as in the paper."""

SEVERAL_CORRECT = (
    "If several of the options are equally correct, any one of them is a right answer; still "
    "give exactly one letter."
)
"""Said after every directive from CoordinationQA v1.2 on: some questions have several correct
options (equally near targets, several useless cards) and the scorer credits any one of them.
QA only: agents' action calls reuse the profile's wording without it."""

EARLIER_SOURCES = frozenset({"coordqa-v1", "coordqa-v1.1"})
"""The ``source`` of the rows of releases published before v1.2. Their questions keep the
directives they were published with (:data:`DIRECTIVES` for every game, no
:data:`SEVERAL_CORRECT`), so results on them stay comparable with earlier runs."""

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


def directive_for(row: Mapping[str, Any]) -> str:
    """The directive that asks ``row``'s question: its game's wording for its question type.

    Each game's profile holds its wording (``GameProfile.qa_directives``, by default
    :data:`DIRECTIVES`), so a game can word a question type its own way (Hanabi's JP directive
    times the partner's move "on their next turn"); :data:`SEVERAL_CORRECT` follows it. Rows of
    the releases published before v1.2 (:data:`EARLIER_SOURCES`) keep the directive they were
    asked with: :data:`DIRECTIVES` alone.

    Raises:
        DatasetError: a question type without a directive.
        UnknownNameError: a game that is not registered.
    """
    kind = _question_type(row)
    if row.get("source") in EARLIER_SOURCES:
        return DIRECTIVES[kind]
    return f"{game_profile(row['game']).qa_directives[kind]}\n{SEVERAL_CORRECT}"


def question_text(row: Mapping[str, Any]) -> str:
    """The final user message: state, question sentence, marker line and lettered options."""
    options = format_options(list(row["options"]))
    parts = [row["state_description"].strip(), row["question"].strip()]
    parts.append(f"{MARKERS[_question_type(row)]}\n{options}")
    return "\n\n".join(part for part in parts if part)


def build_messages(row: Mapping[str, Any], *, layout: PromptLayout = "system") -> list[Message]:
    """The chat messages that ask ``row``'s question.

    ``system`` layout: system = the directive (:func:`directive_for`); user = the game
    description; assistant = :data:`ACKNOWLEDGEMENT`; user = :func:`question_text`.
    ``no_system`` layout: user = the game description then the directive; assistant = the
    acknowledgement; user = the question.
    A row without a game description skips the description exchange (``system``) or shows the
    directive alone (``no_system``), rather than send an empty message.

    Raises:
        ConfigError: an unknown layout.
        DatasetError: a question type without a directive.
    """
    if layout not in PROMPT_LAYOUTS:
        from coordqa.registry import not_one_of

        raise ConfigError(not_one_of("prompt layout", layout, PROMPT_LAYOUTS))
    directive = directive_for(row)
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
