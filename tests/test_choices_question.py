"""choose(..., question=): a question the model invents is told from the question asked.

Labels decided first, by how a grader reads each reply against the question that was asked.
"""

from __future__ import annotations

from coordqa.choices import choose, question_before_options
from coordqa.dataset import load_rows
from coordqa.prompts import build_messages
from coordqa.scoring import asked_question, reply_outcome

YES_NO = ["Yes", "No"]
ASKED = "Is my Card 2 certainly playable now?"


def test_an_answer_to_an_invented_question_answers_nothing() -> None:
    reply = "I am not sure about the rules.\nDo you know anything about this game?\nAnswer: Yes."
    assert choose(reply, YES_NO).outcome == "chosen"  # without the question it cannot tell
    assert choose(reply, YES_NO, question=ASKED).outcome == "no_answer"


def test_a_one_word_answer_to_an_invented_question_answers_nothing() -> None:
    reply = "Let me think.\nWould you like to play this game again?\nYes."
    assert choose(reply, YES_NO, question=ASKED).outcome == "no_answer"


def test_an_answer_before_the_invented_question_still_counts() -> None:
    reply = "Answer: No\nDo you want to play again tomorrow?\nYes."
    choice = choose(reply, YES_NO, question=ASKED)
    assert (choice.outcome, choice.index) == ("chosen", 1)


def test_a_restated_question_is_answered() -> None:
    options = ["wait", "move away", "pick up onion from o0"]
    reply = "So how would you describe the best next move for me?\nAnswer: C"
    choice = choose(reply, options, question="What is the best next action for me?")
    assert (choice.outcome, choice.index) == ("chosen", 2)
    restated = "Is my Card 2 certainly playable right now?\nAnswer: No"
    assert choose(restated, YES_NO, question=ASKED).index == 1


def test_a_question_inside_reasoning_does_not_end_the_reading() -> None:
    reply = (
        "Can Bob reach the cooker c0?\nHe is 3 units away, nothing blocks him, so yes.\nAnswer: A"
    )
    options = ["pick up onion from o0", "wait"]
    choice = choose(reply, options, question="What is the best next action for me?")
    assert (choice.outcome, choice.index) == ("chosen", 0)


def test_a_question_too_short_to_tell_keeps_the_old_reading() -> None:
    reply = "What do you think?\nAnswer: Yes"
    assert choose(reply, YES_NO, question=ASKED) == choose(reply, YES_NO)


def test_scoring_reads_replies_with_the_question_of_the_messages() -> None:
    row = next(r for r in load_rows() if r["question_type"] == "EC" and r["options"] == YES_NO)
    messages = build_messages(row)
    assert asked_question(messages) == row["question"]
    assert question_before_options(messages[-1].content) == row["question"]
    reply = "Do you know anything about this game?\nAnswer: Yes"
    assert reply_outcome(reply, row["options"], row["correct"]).status == "answered"
    assert reply_outcome(reply, row["options"], row["correct"], row["question"]).status == (
        "no_answer"
    )
