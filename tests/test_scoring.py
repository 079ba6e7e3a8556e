"""The scorer reads replies as the grader would (issue 13's leaderboard attack among them)."""

from __future__ import annotations

import pytest

from coordqa.scoring import reply_outcome

YES_NO = ["Yes", "No"]


@pytest.mark.parametrize(
    ("reply", "status", "correct"),
    [
        # Issue 13: three letters on a two-option question name A, B and a letter off the list.
        ("Answer: (A)(B)(C)", "ambiguous", False),
        ("Answer: (A)(B)", "ambiguous", False),
        ("(A)(B)(C)", "ambiguous", False),
        # A plus a letter that is not among the options: not a clear A.
        ("Answer: (A)(C)", "ambiguous", False),
        ("Answer: (C)", "no_answer", False),
        ("Answer: (A)", "answered", True),
        ("Answer: (B)", "answered", False),
    ],
)
def test_letter_runs_are_scored_as_the_grader_reads_them(
    reply: str, status: str, correct: bool
) -> None:
    outcome = reply_outcome(reply, YES_NO, [0])
    assert (outcome.status, outcome.correct) == (status, correct)


def test_failed_call_is_an_error_not_a_reading() -> None:
    outcome = reply_outcome(None, YES_NO, [0])
    assert (outcome.status, outcome.correct, outcome.choice) == ("error", False, None)


def test_a_long_reply_is_read_by_its_start_and_end_only() -> None:
    import doctest

    from coordqa import scoring
    from coordqa.scoring import READ_HEAD, READ_TAIL

    assert doctest.testmod(scoring).failed == 0
    filler = "I weigh the options carefully. " * 400  # 12,400 characters
    assert reply_outcome(filler + "Answer: A", YES_NO, [0]).status == "answered"
    assert reply_outcome("Answer: B\n" + filler, YES_NO, [0]).correct is False
    # an answer only in the middle of a long reply is not read: the middle is cut
    middle = filler + "\nAnswer: A\n" + filler
    assert len(middle) > 2 * (READ_HEAD + READ_TAIL)
    assert reply_outcome(middle, YES_NO, [0]).status == "no_answer"
