"""THE rule that turns a stored reply into a sample outcome.

``coordqa eval``, ``coordqa score``, the run reader (:mod:`coordqa.store`) and the leaderboard's
re-scoring all call :func:`reply_outcome` / :func:`score_call`, so a reply counts the same
wherever it is scored. How the outcomes count in accuracy is :mod:`coordqa.analysis`'s rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from coordqa.choices import Choice, choose, is_correct, question_before_options
from coordqa.llm.types import Message
from coordqa.records import CallResult, Question, Sample, Status

__all__ = [
    "READ_HEAD",
    "READ_TAIL",
    "ReplyOutcome",
    "asked_question",
    "original_span",
    "read_window",
    "reply_outcome",
    "score_call",
]

READ_HEAD = 1_000
"""Characters read from the start of a long reply (where a direct answer stands)."""
READ_TAIL = 1_000
"""Characters read from the end of a long reply (where a reasoned answer concludes)."""

_STATUS_OF_OUTCOME: dict[str, Status] = {
    "chosen": "answered",
    "ambiguous": "ambiguous",
    "no_answer": "no_answer",
}


class ReplyOutcome(NamedTuple):
    """How one reply to one question went."""

    status: Status
    """``answered``, ``ambiguous``, ``no_answer``, or ``error`` when there was no reply."""
    correct: bool
    """Answered with a correct option."""
    choice: Choice | None
    """How the reply was read (None for an error)."""


def read_window(text: str) -> str:
    """The part of a reply that is read: all of it, or its first and last 1,000 characters.

    Reading costs time in proportion to the text (a few microseconds per character), so a
    reply longer than :data:`READ_HEAD` + :data:`READ_TAIL` characters is read as its start and
    its end joined by a line break: an answer given first or concluded last is kept, and no
    reply costs more than about 2,000 characters of reading. (Real replies to CoordinationQA are
    a few hundred characters long.)

    >>> read_window("short") == "short"
    True
    >>> len(read_window("x" * 5_000))
    2001
    """
    if len(text) <= READ_HEAD + READ_TAIL:
        return text
    return text[:READ_HEAD] + "\n" + text[-READ_TAIL:]


def original_span(text: str, span: tuple[int, int] | None) -> tuple[int, int] | None:
    """``span`` of :func:`read_window` of ``text`` as positions in ``text`` itself.

    >>> text = "A" + "x" * 3_000 + "B"
    >>> original_span(text, (0, 1)), original_span(text, (READ_HEAD + 1 + READ_TAIL - 1, 2_001))
    ((0, 1), (3001, 3002))
    """
    if span is None or len(text) <= READ_HEAD + READ_TAIL:
        return span
    shift = len(text) - READ_TAIL - (READ_HEAD + 1)

    def moved(position: int) -> int:
        return position if position <= READ_HEAD else position + shift

    return moved(span[0]), moved(span[1])


def reply_outcome(
    text: str | None, options: Sequence[str], correct: Sequence[int], question: str | None = None
) -> ReplyOutcome:
    """Status, correctness and choice of a reply (``text`` None: the call failed).

    The reply is read through :func:`read_window`, with ``question`` (the question sentence
    asked) so that the reader tells a question the model invents from a restatement of this one
    (:func:`coordqa.choices.choose`). A question without an answer key (``correct`` empty, tag
    ``no-answer-key``) is read like any other, and its reply is never correct.
    """
    if text is None:
        return ReplyOutcome("error", False, None)
    choice = choose(read_window(text), list(options), question=question)
    status = _STATUS_OF_OUTCOME[choice.outcome]
    right = status == "answered" and bool(correct) and is_correct(choice, list(correct))
    return ReplyOutcome(status, right, choice)


def asked_question(messages: Sequence[Message]) -> str | None:
    """The question sentence a stored question's messages asked (its last user message).

    The last user message ends with the question sentence and its lettered options
    (:func:`coordqa.prompts.question_text`), so stored runs are read with the question they
    asked. None when it does not end so.
    """
    users = [m.content for m in messages if m.role == "user"]
    return question_before_options(users[-1]) if users else None


def score_call(question: Question, trial: int, call: CallResult) -> Sample:
    """The sample of ``question`` in ``trial`` from its (latest) call."""
    asked = asked_question(question.messages)
    outcome = reply_outcome(call.text, question.options, question.correct, asked)
    return Sample(
        question_id=question.question_id,
        scenario_id=question.scenario_id,
        game=question.game,
        question_type=question.question_type,
        trial=trial,
        status=outcome.status,
        correct=outcome.correct,
        choice=outcome.choice,
        n_options=len(question.options),
        n_correct=len(question.correct),
        error=call.error,
        finish_reason=call.finish_reason,
    )
