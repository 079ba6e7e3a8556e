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
