"""THE rule that turns a stored reply into a sample outcome.

``coordqa eval``, ``coordqa score``, the run reader (:mod:`coordqa.store`) and the leaderboard's
re-scoring all call :func:`reply_outcome` / :func:`score_call`, so a reply counts the same
wherever it is scored. How the outcomes count in accuracy is :mod:`coordqa.analysis`'s rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from coordqa.choices import Choice, choose, is_correct
from coordqa.records import CallResult, Question, Sample, Status

__all__ = ["Outcome", "reply_outcome", "score_call"]

_STATUS_OF_OUTCOME: dict[str, Status] = {
    "chosen": "answered",
    "ambiguous": "ambiguous",
    "no_answer": "no_answer",
}


class Outcome(NamedTuple):
    """How one reply to one question went."""

    status: Status
    """``answered``, ``ambiguous``, ``no_answer``, or ``error`` when there was no reply."""
    correct: bool
    """Answered with a correct option."""
    choice: Choice | None
    """How the reply was read (None for an error)."""


def reply_outcome(text: str | None, options: Sequence[str], correct: Sequence[int]) -> Outcome:
    """Status, correctness and choice of a reply (``text`` None: the call failed).

    A question without an answer key (``correct`` empty, tag ``no-answer-key``) is read like any
    other, and its reply is never correct.
    """
    if text is None:
        return Outcome("error", False, None)
    choice = choose(text, list(options))
    status = _STATUS_OF_OUTCOME[choice.outcome]
    right = status == "answered" and bool(correct) and is_correct(choice, list(correct))
    return Outcome(status, right, choice)


def score_call(question: Question, trial: int, call: CallResult) -> Sample:
    """The sample of ``question`` in ``trial`` from its (latest) call."""
    outcome = reply_outcome(call.text, question.options, question.correct)
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
