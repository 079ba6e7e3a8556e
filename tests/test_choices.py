"""Adversarial replies, validation and the value type of coordqa.choices."""

from __future__ import annotations

import doctest
import json
import time

import pytest

import coordqa.choices
import coordqa.choices._markers
import coordqa.choices._options
from coordqa.choices import (
    FUZZY_THRESHOLD,
    METHODS,
    Choice,
    _layout,
    choose,
    format_options,
    is_correct,
    option_letter,
)
from coordqa.errors import ConfigError

NO_ANSWER_METHODS = ("none", "empty_reply")
"""The methods of a no_answer: a reply that names nothing, and an empty reply."""

# Option lists as the four games offer them (Overcooked includes an option that is a prefix of
# another; Hanabi has 9 options so that "I" is a valid letter).
OVERCOOKED = [
    "pick up onion from o0",  # A
    "pick up onion",  # B
    "place onion in c0",  # C
    "place onion in c1",  # D
    "wait",  # E
    "move away",  # F
]
HANABI = [
    "Play my Card 0",  # A
    "Play my Card 1",  # B
    "Discard my Card 0",  # C
    "Discard my Card 1",  # D
    "Reveal Bob's Red color cards",  # E
    "Reveal Bob's Blue color cards",  # F
    "Reveal Bob's rank 1 cards",  # G
    "Reveal Bob's rank 2 cards",  # H
    "Play my Card 4",  # I
]
CAPTURE = ["Stay in Room 1", "Move to Room 2", "Move to Room 6", "Press the button in Room 1"]
ESCAPE = ["Move to Room 2", "Move to Room 10", "Fix generator in Room 1", "Wait"]
EC_COUNT = ["4 or more", "3", "2", "1", "0"]
YES_NO = ["Yes", "No"]
TOM = [
    "I should Play Card 0",
    "I should Play Card 1",
    "I should Discard Card 0",
    "I should Discard Card 1",
]
# Options that contain letters and parentheses themselves.
TRICKY = ["Plan B", "Take route (A)", "wait (do nothing)"]
JP_19 = [f"Move to Room {n}" for n in range(1, 20)]
CORRIDOR = ["Move up", "Stay", "wait", "Move down"]
"""The list of the reported false credit ('wait' read from 'Bob has to wait')."""

NO = ("no_answer", ())


def chosen(index: int) -> tuple[str, tuple[int, ...]]:
    return ("chosen", (index,))


def ambiguous(*indices: int) -> tuple[str, tuple[int, ...]]:
    return ("ambiguous", indices)


CASES = [
    # --- accepted letter formats
    ("Answer: C", OVERCOOKED, chosen(2)),
    ("Action: C", OVERCOOKED, chosen(2)),
    ("C.", OVERCOOKED, chosen(2)),
    ("(C)", OVERCOOKED, chosen(2)),
    ("C)", OVERCOOKED, chosen(2)),
    ("**C**", OVERCOOKED, chosen(2)),
    ("C", OVERCOOKED, chosen(2)),
    ("answer: c", OVERCOOKED, chosen(2)),
    ("ACTION: d", OVERCOOKED, chosen(3)),
    ("**Answer:** `E`", OVERCOOKED, chosen(4)),
    ("_Action_: *F*", OVERCOOKED, chosen(5)),
    ("Final Answer: [B]", OVERCOOKED, chosen(1)),
    ("The answer is C", OVERCOOKED, chosen(2)),
    ("The best action is (D).", OVERCOOKED, chosen(3)),
    ("Option C", OVERCOOKED, chosen(2)),
    ("I choose (B)", OVERCOOKED, chosen(1)),
    ("I'd go with option E", OVERCOOKED, chosen(4)),
    ("Answer:\n\n**E**", OVERCOOKED, chosen(4)),
    ("Answer:C", OVERCOOKED, chosen(2)),
    ("Answer: C, because c0 is empty", OVERCOOKED, chosen(2)),
    ("Answer: C - it fills the pot", OVERCOOKED, chosen(2)),
    ("Answer - C", OVERCOOKED, chosen(2)),
    ("Action:\n- place onion in c1", OVERCOOKED, chosen(3)),
    # --- a bare letter on the final (or first) line
    ("Let me think about the pots first.\nC", OVERCOOKED, chosen(2)),
    ("c0 needs onions and o0 is close.\n\n(A)", OVERCOOKED, chosen(0)),
    ("D\n\nExplanation: c1 is the pot that still needs an onion.", OVERCOOKED, chosen(3)),
    ("Bob is at o0.\nC. place onion in c0", OVERCOOKED, chosen(2)),
    # --- option text itself, exact and fuzzy
    ("place onion in c0", OVERCOOKED, chosen(2)),
    ("Place onion in C0.", OVERCOOKED, chosen(2)),
    ("`place onion in c1`", OVERCOOKED, chosen(3)),
    ("Place the onion into c0.", OVERCOOKED, chosen(2)),
    ("plce onion in c1", OVERCOOKED, chosen(3)),
    ("pickup onion from o0", OVERCOOKED, chosen(0)),
    ("Action: play card 1", HANABI, chosen(1)),
    ("Reveal Bob's rde color cards", HANABI, chosen(4)),
    ("Fix the generator in Room 1", ESCAPE, chosen(2)),
    ("press button in room 1", CAPTURE, chosen(3)),
    ("Action: I will play my card 1 now", HANABI, chosen(1)),
    ("Answer: Play Card 1", TOM, chosen(1)),
    ("Answer: Card 1", TOM, ambiguous(1, 3)),
    ("Action: room 10", ESCAPE, chosen(1)),
    ("Action: pick up plate", OVERCOOKED, NO),
    ("I'll move to room 6 to cut the thief off", CAPTURE, chosen(2)),
    ("Answer: 2", EC_COUNT, chosen(2)),
    ("Answer: Yes, Bob can reach room 7.", YES_NO, chosen(0)),
    ("Answer: 4 or more", EC_COUNT, chosen(0)),
    ("Answer: 3 (c0 has 0 onions, so 3 more)", EC_COUNT, chosen(1)),
    ("Answer: 2. Because c0 has 1 onion.", EC_COUNT, chosen(2)),
    ("Answer: 0 or 1", EC_COUNT, ambiguous(3, 4)),
    ("Action: place onion in c0; c1 is full and wait is pointless", OVERCOOKED, chosen(2)),
    # --- ids and digits matter: a different or absent option is never picked by similarity
    ("place onion in c2", OVERCOOKED, NO),
    ("Action: Reveal Bob's rank 3 cards", HANABI, NO),
    ("Reveal Bob's rank 1 card", HANABI, chosen(6)),
    ("Reveal Bob's Green color cards", HANABI, NO),
    ("Action: Discard my Card 4", HANABI, NO),
    ("Action: Move to Room 1", ESCAPE, NO),
    ("Move to Room 16", JP_19, chosen(15)),
    ("Reveal Bob's color cards", HANABI, ambiguous(4, 5)),
    # --- prefix options: the longer text wins when it is what the reply says
    ("Action: pick up onion from o0", OVERCOOKED, chosen(0)),
    ("Action: I will pick up onion from o0 now", OVERCOOKED, chosen(0)),
    ("pick up onion", OVERCOOKED, chosen(1)),
    ("Action: pick up onion", OVERCOOKED, chosen(1)),
    # --- letter and text together
    ("Answer: C. place onion in c0", OVERCOOKED, chosen(2)),
    ("Answer: C (place onion in c0)", OVERCOOKED, chosen(2)),
    ("Answer: B (No)", YES_NO, chosen(1)),
    ("Answer: B (Yes)", YES_NO, ambiguous(0, 1)),
    ("Answer: C. pick up onion from o0", OVERCOOKED, ambiguous(0, 2)),
    ("Answer: A. pick up onion", OVERCOOKED, ambiguous(0, 1)),
    # --- chain of thought with other letters and options before the answer
    ("(B) is bad, so Answer: D", OVERCOOKED, chosen(3)),
    ("Option A wastes time. B. is also bad. I considered E.\nAction: F", OVERCOOKED, chosen(5)),
    (
        "Explanation: wait is pointless, and c1 is full.\nAction: place onion in c0",
        OVERCOOKED,
        chosen(2),
    ),
    ("Answer: B\nHmm, actually the pot c1 needs it more.\nAnswer: D", OVERCOOKED, chosen(3)),
    ("Answer: D\nTo double-check: D fills c1.\nFinal answer: D", OVERCOOKED, chosen(3)),
    ("If I choose B, Bob is blocked. Therefore, the answer is C.", OVERCOOKED, chosen(2)),
    ("Moving to room 10 is blocked by the killer.\nAction: Move to Room 2", ESCAPE, chosen(0)),
    ("My last action: wait\nBob's action: move away\nAnswer: C", OVERCOOKED, chosen(2)),
    # the last marker that names something decides; one that names nothing is skipped
    ("Answer: C\nAction: (I need to think about Bob)", OVERCOOKED, chosen(2)),
    ("Answer: C\nAnswer: Z", OVERCOOKED, chosen(2)),
    ("The answer is B.\nI'll go with D.", OVERCOOKED, chosen(3)),
    # --- a choice with its contrast ("instead", "rather than", "not A but D"): the contrast names
    # what is rejected; an option's text elsewhere in a sentence that picks a letter never decides
    ("Answer: C instead.", OVERCOOKED, chosen(2)),
    ("I choose C instead.", OVERCOOKED, chosen(2)),
    ("If I choose A, Bob has to wait. I would choose D instead.", OVERCOOKED, chosen(3)),
    ("If I choose A, Bob has to wait.\nI would choose D instead.", OVERCOOKED, chosen(3)),
    ("I would choose D instead, because then Bob does not have to wait.", OVERCOOKED, chosen(3)),
    ("Answer: D rather than A", OVERCOOKED, chosen(3)),
    ("Final answer: (D) instead of A.", OVERCOOKED, chosen(3)),
    ("Answer: D, not A.", OVERCOOKED, chosen(3)),
    ("I choose B or D instead.", OVERCOOKED, ambiguous(1, 3)),
    ("Not A but D.", OVERCOOKED, chosen(3)),
    ("The answer is not A but D.", OVERCOOKED, chosen(3)),
    ("Action: not wait but move away", OVERCOOKED, chosen(5)),
    ("Not only wait but also move away.", OVERCOOKED, ambiguous(4, 5)),
    ("Hmm, c1 is full.\nD instead.", OVERCOOKED, chosen(3)),
    ("Answer: A\nOn second thought, Bob waits then. Answer: D instead.", OVERCOOKED, chosen(3)),
    ("If I choose A, Bob has to wait.", OVERCOOKED, NO),
    ("Bob will wait if I select A.", OVERCOOKED, NO),
    ("Should I choose D instead? Bob is at o0.", OVERCOOKED, NO),
    ("Shall we go with C?", OVERCOOKED, NO),
    ("Action: a rather good move is to wait", OVERCOOKED, chosen(4)),
    ("If I choose A, Bob has to wait. I would choose D instead.", CORRIDOR, chosen(3)),
    ("Answer: B instead.", CORRIDOR, chosen(1)),
    ("I choose B instead.", CORRIDOR, chosen(1)),
    # --- must not be fooled
    ("OK.", OVERCOOKED, NO),
    ("I.", OVERCOOKED, NO),  # out of range with 6 options
    ("OK. Then I. think. Answer: B", HANABI, chosen(1)),
    ("Then I. hesitated.", HANABI, NO),
    ("OK, so c0 is empty. E.g. the pot needs onions.", OVERCOOKED, NO),
    ("(B) is bad.", OVERCOOKED, NO),
    ("B is bad", OVERCOOKED, NO),
    ("A good move is to keep going.", OVERCOOKED, NO),
    ("Action: A good move is to wait.", OVERCOOKED, chosen(4)),
    ("I think so.", HANABI, NO),
    ("Answer: Z", OVERCOOKED, NO),
    ("Answer: E", CAPTURE, NO),
    ("Answer: B or C", OVERCOOKED, ambiguous(1, 2)),
    ("B and D", OVERCOOKED, ambiguous(1, 3)),
    ("Answer: either (A) or (C)", OVERCOOKED, ambiguous(0, 2)),
    ("Action: place onion in c0 or place onion in c1", OVERCOOKED, ambiguous(2, 3)),
    ("I don't know.", OVERCOOKED, NO),
    ("Explanation: both pots look full.\nAnswer: none of these", OVERCOOKED, NO),
    ("", OVERCOOKED, NO),
    (None, OVERCOOKED, NO),
    ("   \n\t\n  ", OVERCOOKED, NO),
    ("My last action: wait\nWhat should I do next?", OVERCOOKED, NO),
    # --- a reply that only repeats the question (state, question, the lettered list)
    (
        "c0 contains 2 out of 3 onions.\nWhat is the best next action?\nAvailable Actions:\n"
        + format_options(OVERCOOKED),
        OVERCOOKED,
        NO,
    ),
    ("Available Actions:\n" + format_options(ESCAPE) + "\n\nAction: B", ESCAPE, chosen(1)),
    # --- whitespace-only lines do not shift anything
    ("Explanation: c1 is closer.\n   \n\n\t\nAction: place onion in c1", OVERCOOKED, chosen(3)),
    ("\n\n  \nD\n  \n", OVERCOOKED, chosen(3)),
    # --- options containing letters and parentheses themselves
    ("Plan B", TRICKY, chosen(0)),
    ("B", TRICKY, chosen(1)),
    ("Answer: (A)", TRICKY, chosen(0)),
    ("Answer: Take route (A)", TRICKY, chosen(1)),
    ("Action: wait (do nothing)", TRICKY, chosen(2)),
    # --- many options: letters beyond D, and "I" as a letter only where it is one
    ("Answer: S", JP_19, chosen(18)),
    ("Answer: T", JP_19, NO),
    ("I", HANABI, chosen(8)),
    ("Action: I. Play my Card 4", HANABI, chosen(8)),
]


@pytest.mark.parametrize(("reply", "options", "expected"), CASES)
def test_adversarial_replies(reply: str | None, options: list[str], expected: tuple) -> None:
    choice = choose(reply, options)
    assert (choice.outcome, choice.candidates) == expected, choice
    assert choice.method in METHODS
    assert (choice.method in NO_ANSWER_METHODS) == (choice.outcome == "no_answer")


@pytest.mark.parametrize(("reply", "method"), [("", "empty_reply"), (" \n\t", "empty_reply")])
def test_an_empty_reply_is_no_answer_named_as_such(reply: str, method: str) -> None:
    assert choose(reply, OVERCOOKED) == Choice("no_answer", None, (), method)


def test_no_reply_at_all_is_no_answer_but_not_an_empty_reply() -> None:
    """None: the call failed, so the model said nothing that could be empty."""
    assert choose(None, OVERCOOKED) == Choice("no_answer", None, (), "none")


def test_table_is_large_and_covers_every_game() -> None:
    assert len(CASES) >= 60
    lists = {id(options) for _reply, options, _expected in CASES}
    assert {id(OVERCOOKED), id(HANABI), id(CAPTURE), id(ESCAPE)} <= lists
    assert {expected[0] for _reply, _options, expected in CASES} == {
        "chosen",
        "ambiguous",
        "no_answer",
    }


@pytest.mark.parametrize(
    ("reply", "method"),
    [
        ("place onion in c0", "option_text_exact"),
        ("Answer: C", "marker_letter"),
        ("Action: place onion in c0 now", "marker_text"),
        ("Action: place the onion into c0", "marker_fuzzy"),
        ("Hmm.\nC", "final_line_letter"),
        ("Hmm.\nplace onion in c0!", "final_line_text"),
        ("Hmm.\nplace the onion into c0", "final_line_fuzzy"),
        ("C\nbecause c0 is empty", "first_line_letter"),
        ("no idea", "none"),
    ],
)
def test_method_records_which_rule_decided(reply: str, method: str) -> None:
    choice = choose(reply, OVERCOOKED)
    assert choice.method == method
    assert (choice.score is not None) == method.endswith("_fuzzy")


COLOURS = ["Reveal Bob's Yellow color cards", "Reveal Bob's Red color cards", "wait"]
ROOMS = ["Wait", "Move to Room 9", "Move to Room 1"]
# reply, options, the method, and the text that decided (reply[span]), chosen by reading the reply.
SPANS = [
    ("  place onion in c0\n", OVERCOOKED, "option_text_exact", "place onion in c0"),
    ("Hmm.\n**Answer:** C", OVERCOOKED, "marker_letter", "Answer:** C"),
    ("Action: place onion in c0 now", OVERCOOKED, "marker_text", "Action: place onion in c0 now"),
    (
        "Action: place the onion into c0",
        OVERCOOKED,
        "marker_fuzzy",
        "Action: place the onion into c0",
    ),
    (
        "Answer: Reveal Bob's Y cards",
        COLOURS,
        "marker_abbreviation",
        "Answer: Reveal Bob's Y cards",
    ),
    (
        "Action: Alice moves to room 1.",
        ROOMS,
        "marker_paraphrase",
        "Action: Alice moves to room 1.",
    ),
    ("Answer: B\nAnswer: C\n", OVERCOOKED, "marker_conflict", "Answer: B\nAnswer: C"),
    ("Final answer:\n\n(C)", OVERCOOKED, "marker_letter", "Final answer:\n\n(C)"),
    ("Hmm.\nC", OVERCOOKED, "final_line_letter", "C"),
    ("Hmm.\n'place onion in c0!',", OVERCOOKED, "final_line_text", "place onion in c0!"),
    ("Hmm.\nplace the onion into c0", OVERCOOKED, "final_line_fuzzy", "place the onion into c0"),
    (
        "Hmm.\nReveal Bob's R color cards",
        COLOURS,
        "final_line_abbreviation",
        "Reveal Bob's R color cards",
    ),
    ("Hmm.\nMoving towards room 9", ROOMS, "final_line_paraphrase", "Moving towards room 9"),
    ("C\nbecause c0 is empty", OVERCOOKED, "first_line_letter", "C"),
    ("Answer: C</s>\nAnswer: D", OVERCOOKED, "marker_letter", "Answer: C"),
    ("Plan:\nAlice: Wait.\nBob: wait", ROOMS, "names_agree", "Alice: Wait.\nBob: wait"),
    (
        "Plan:\nAlice: Wait\n**Bob's action:** Move to Room 9\n",
        ROOMS,
        "names_conflict",
        "Alice: Wait\n**Bob's action:** Move to Room 9",
    ),
]
# The same, for a reply whose speaker the caller names.
SPEAKER_SPANS = [
    (
        "Plan:\nAlice: Wait\nBob: Move to Room 9\n",
        ROOMS,
        "Bob",
        "speaker_line",
        "Bob: Move to Room 9",
    ),
]


@pytest.mark.parametrize(("reply", "options", "method", "text"), SPANS)
def test_span_is_the_text_that_decided(
    reply: str, options: list[str], method: str, text: str
) -> None:
    choice = choose(reply, options)
    assert choice.method == method, choice
    assert choice.span is not None
    start, end = choice.span
    assert reply[start:end] == text


@pytest.mark.parametrize(("reply", "options", "speaker", "method", "text"), SPEAKER_SPANS)
def test_span_is_the_speakers_text(
    reply: str, options: list[str], speaker: str, method: str, text: str
) -> None:
    choice = choose(reply, options, speaker=speaker)
    assert choice.method == method, choice
    assert choice.span is not None
    start, end = choice.span
    assert reply[start:end] == text


def test_span_table_covers_every_method() -> None:
    covered = {method for _, _, method, _ in SPANS} | {row[3] for row in SPEAKER_SPANS}
    assert covered == set(METHODS) - set(NO_ANSWER_METHODS)
    assert choose("no idea", OVERCOOKED).span is None


def test_choice_dict_without_span_reads_back() -> None:
    stored = {"outcome": "chosen", "index": 2, "candidates": [2], "method": "marker_letter"}
    choice = Choice.from_dict({**stored, "score": None})
    assert choice == Choice("chosen", 2, (2,), "marker_letter") and choice.span is None
    with_span = Choice.from_dict({**stored, "score": None, "span": [0, 9]})
    assert with_span.span == (0, 9)
    assert Choice.from_dict(with_span.to_dict()).span == (0, 9)


@pytest.mark.parametrize("span", [(5, 2), (-1, 3), (0, 1, 2)])
def test_bad_span_is_rejected(span: tuple) -> None:
    with pytest.raises(ConfigError, match="span"):
        Choice("chosen", 0, (0,), "marker_letter", None, span)


def test_no_answer_has_no_span() -> None:
    with pytest.raises(ConfigError, match="span"):
        Choice("no_answer", None, (), "none", None, (0, 1))


def test_fuzzy_score_and_threshold() -> None:
    loose = choose("Place the onion into c0.", OVERCOOKED)
    assert loose.chosen and loose.score == pytest.approx(85.0)
    assert FUZZY_THRESHOLD <= loose.score
    strict = choose("Place the onion into c0.", OVERCOOKED, fuzzy_threshold=90)
    assert strict.outcome == "no_answer"


@pytest.mark.parametrize("threshold", [0, -1, 100.5])
def test_threshold_outside_range_is_rejected(threshold: float) -> None:
    with pytest.raises(ConfigError, match="fuzzy_threshold"):
        choose("C", OVERCOOKED, fuzzy_threshold=threshold)


# --- the original scorer's pitfalls (facts/coordinationqa.md), one test each


def test_original_pitfall_first_capital_letter_with_period_anywhere() -> None:
    reply = "OK. (B) is bad and I. would not do it.\nAnswer: D"
    assert choose(reply, HANABI).index == 3


def test_original_pitfall_bare_answer_line_was_rejected() -> None:
    assert choose("Answer: B", OVERCOOKED).index == 1


def test_original_pitfall_whitespace_only_option_lines() -> None:
    with pytest.raises(ConfigError, match="option 1"):
        choose("A", ["wait", "   ", "move away"])
    assert choose("move away", ["wait", "move away"]).index == 1


def test_original_pitfall_failures_became_a_fixed_wrong_letter() -> None:
    choice = choose("I cannot decide.", OVERCOOKED)
    assert choice == Choice("no_answer", None, (), "none")
    assert not is_correct(choice, [0])


# --- option validation


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "at least one option"),
        (["wait", ""], "option 1"),
        (["wait", "!!!"], "non-blank"),
        (["wait", "B"], "letter answer"),
        (["Option C", "wait"], "letter answer"),
        (["(a)", "wait"], "letter answer"),
        (["wait", "move\naway"], "several lines"),
        (["wait", 3], "non-blank string"),
    ],
)
def test_invalid_options_raise(options: list, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        choose("A", options)
    with pytest.raises(ConfigError, match=message):
        format_options(options)


# --- letters, the lettered list, the value type


def test_option_letter() -> None:
    # Past Z the original release continues with the next ASCII characters.
    assert [option_letter(i) for i in (0, 1, 25, 26, 27, 31)] == ["A", "B", "Z", "[", "\\", "`"]
    for bad in (-1, 32):
        with pytest.raises(ConfigError, match="no label"):
            option_letter(bad)


def test_format_options_round_trips_through_choose() -> None:
    text = format_options(HANABI)
    assert text.splitlines()[4] == "E. Reveal Bob's Red color cards"
    assert len(text.splitlines()) == len(HANABI)
    for line in text.splitlines():
        assert choose(line, HANABI).index == ord(line[0]) - ord("A")


@pytest.mark.parametrize(
    "choice",
    [
        Choice("chosen", 2, (2,), "marker_letter"),
        Choice("ambiguous", None, (1, 3), "final_line_letter"),
        Choice("chosen", 0, (0,), "option_text_exact"),
        Choice("chosen", 1, (1,), "marker_fuzzy", 88.0),
        Choice("no_answer", None, (), "none"),
    ],
)
def test_choice_json_round_trip(choice: Choice) -> None:
    assert Choice.from_dict(json.loads(json.dumps(choice.to_dict()))) == choice


@pytest.mark.parametrize(
    ("outcome", "index", "candidates", "method"),
    [
        ("chosen", None, (1,), "marker_letter"),
        ("chosen", 2, (1,), "marker_letter"),
        ("chosen", 1, (1, 2), "marker_letter"),
        ("ambiguous", None, (), "marker_letter"),
        ("ambiguous", 1, (1, 2), "marker_letter"),
        ("no_answer", None, (0,), "none"),
        ("maybe", None, (), "none"),
        ("chosen", 1, (1,), "guessed"),
    ],
)
def test_inconsistent_choice_is_rejected(
    outcome: str, index: int | None, candidates: tuple[int, ...], method: str
) -> None:
    with pytest.raises(ConfigError, match="inconsistent Choice"):
        Choice(outcome, index, candidates, method)  # type: ignore[arg-type]


def test_from_dict_rejects_missing_keys() -> None:
    with pytest.raises(ConfigError, match="keys"):
        Choice.from_dict({"outcome": "chosen", "index": 1})


def test_is_correct() -> None:
    assert is_correct(choose("Answer: D", OVERCOOKED), [3])
    assert is_correct(choose("Answer: D", OVERCOOKED), [1, 3])
    assert not is_correct(choose("Answer: C", OVERCOOKED), [3])
    assert not is_correct(choose("Answer: C or D", OVERCOOKED), [2, 3])
    assert not is_correct(choose("", OVERCOOKED), [3])
    with pytest.raises(ConfigError, match="at least one"):
        is_correct(choose("Answer: D", OVERCOOKED), [])


@pytest.mark.parametrize(
    "module", [coordqa.choices, coordqa.choices._options, _layout, coordqa.choices._markers]
)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)
    assert result.attempted >= 1
    assert result.failed == 0


@pytest.mark.parametrize(
    "reply",
    [
        "I think the action is the best action, " * 3000,
        "x" * 200_000,
        "Answer: A\n" * 10_000,
        "I choose " * 10_000,
    ],
    ids=["markers-on-one-line", "one-long-word", "many-answer-lines", "many-keywords"],
)
def test_long_replies_are_read_in_linear_time(reply: str) -> None:
    # A guard against quadratic or worse regexes (a 117 KB line once took minutes), not a speed
    # claim: the bound is two orders of magnitude above the measured time.
    start = time.perf_counter()
    choose(reply, ESCAPE)
    assert time.perf_counter() - start < 10


def test_every_method_says_whether_option_text_decided() -> None:
    from coordqa.choices import METHODS, TEXT_METHODS

    # a new method must be classified here: readers of unlettered lists (HM's subgoals) accept
    # only text readings, so a text method left out silently drops a plan
    letters = {"marker_letter", "final_line_letter", "first_line_letter"}
    # conflicts and players' labelled lines: the reading may have been a letter or text
    either = {"marker_conflict", "speaker_line", "names_agree", "names_conflict"}
    not_text = letters | either | {"empty_reply", "none"}
    assert TEXT_METHODS | not_text == set(METHODS) and not TEXT_METHODS & not_text
    assert choose("Alice moves to room 1", ["Move to Room 1", "Wait"]).matched_text
    assert choose("move to rom 1", ["Move to Room 1", "Wait"]).matched_text
    assert not choose("Answer: A", ["Move to Room 1", "Wait"]).matched_text


@pytest.mark.parametrize(
    ("reply", "index"), [("The answer must be A.", 0), ("My answer must be D", 3)]
)
def test_the_answer_must_be_a_letter_is_an_answer(reply: str, index: int) -> None:
    """Walkthrough 28 (#186): gemma-3's "The answer must be A." read as no answer, though
    "The answer is A." reads A; a right answer so phrased scored wrong."""
    from coordqa import choose

    options = ["Move left toward the onion", "Stay in place", "Pick up the dish", "Serve the soup"]
    chosen = choose(reply, options)
    assert (chosen.outcome, chosen.index) == ("chosen", index)
