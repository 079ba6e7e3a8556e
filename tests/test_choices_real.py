"""The failure classes that real model replies showed (issue 11, issue 13), one table each.

Every expectation was decided from the reply and the option list, as a careful grader reads it,
before the reply was given to :func:`choose`; the reason is written next to it. Option lists are
the frozen v1 release's (looked up by question id) or shaped like the original release's (trailing
periods, more than 26 options, two options with the same text).
"""

from __future__ import annotations

import pytest

import coordqa
from coordqa.choices import METHODS, choose, format_options

_ROWS = {
    row["question_id"]: list(row["options"]) for row in coordqa.load_dataset("coordinationqa-v1")
}

YES_NO = _ROWS["overcooked-cramped_room-01-EC"]  # Yes, No
# Green, rank 3, White, Red, rank 2, Yellow, rank 4, Blue, rank 5 (Reveal Bob's ... cards)
HANABI_TOM = _ROWS["hanabi-05-ToM"]
# I should Discard my Card 4 / Keep my Card 2 / Keep my Card 3 / Discard my Card 1 /
# Play my Card 4 (index 4) / ...
HANABI_INFER = _ROWS["hanabi-01-ToM"]
# pick up onion from o0, pick up plate from p0, pick up onion from o1, wait, move away
OVERCOOKED_TOM = _ROWS["overcooked-cramped_room-01-ToM"]
# place soup on k3, wait, place soup for delivery in d0, move away
OVERCOOKED_JP = _ROWS["overcooked-cramped_room-01-JP"]
CAPTURE_JP = _ROWS["collab_capture-01-JP"]  # Wait, Move to Room 9, Move to Room 1, Move to Room 5
# Move to Room 5, Wait, Fix generator in Room 6, Move to Room 7
ESCAPE_JP = _ROWS["collab_escape-01-JP"]
CAPTURE_DOORS = ["Stay in Room 7", "Move to Room 8", "Move to Room 6", "Move to Room 3"]
AREAS = ["move to Forest area", "move to River area", "stay in Cave area", "wait"]
# The original release's Hanabi lists: trailing periods, and colour initials in some versions.
ORIGINAL_INITIALS = [
    "Play Card 0.",
    "Play Card 1.",
    "Discard Card 0.",
    "Reveal Bob's R color cards.",
    "Reveal Bob's W color cards.",
    "Reveal Bob's rank 1 cards.",
]
HANABI_RED_BLUE = [
    "Play my Card 0",
    "Reveal Bob's Red color cards",
    "Reveal Bob's Blue color cards",
]
# Past Z the original release labels options "[", "\\": 28 options, "wait." is "[".
ORIGINAL_28 = [
    *(f"pick up onion from {src}." for src in ("o0", "o1", "s0", "s1", "s2", "k1")),
    *(f"pick up plate from {src}." for src in ("p0", "s0", "s1", "s2", "k1")),
    *(f"place onion in {dst}." for dst in ("c0", "c1", "s0", "s1", "s2")),
    *(f"place plate in {dst}." for dst in ("s0", "s1", "s2")),
    "place onion on k1.",
    "place plate on k1.",
    "load soup on plate from c0.",
    "load soup on plate from c1.",
    "place soup for delivery in d0.",
    "place onion on k10.",
    "place plate on k10.",
    "wait.",
    "move away.",
]
# Two options with one text, as in the original release (C and E).
DUPLICATED = [
    "Play Card 0.",
    "Play Card 1.",
    "Reveal Bob's rank 1 cards.",
    "Reveal Bob's Red color cards.",
    "Reveal Bob's rank 1 cards.",
]

NO = ("no_answer", ())


def chosen(index: int) -> tuple[str, tuple[int, ...]]:
    return ("chosen", (index,))


def ambiguous(*indices: int) -> tuple[str, tuple[int, ...]]:
    return ("ambiguous", indices)


ABBREVIATIONS = [
    (
        "Explanation: Bob holds a Y1 and the Yellow stack is empty.\n"
        "Answer: Reveal Bob's Y color cards.",
        HANABI_TOM,
        chosen(5),
        "Y is the initial of Yellow, the only colour on the list that starts with Y",
    ),
    ("Answer: Reveal Bob's B color cards", HANABI_TOM, chosen(7), "B: Blue, no other B colour"),
    ("Reveal Bob's W color cards.", HANABI_TOM, chosen(2), "W: White, one-line reply"),
    ("Answer: Reveal Bob's G cards", HANABI_TOM, chosen(0), "G: Green; 'color' left out"),
    (
        "Answer: Reveal Bob's R color cards",
        HANABI_TOM,
        chosen(3),
        "R: Red; the rank options have a number, so R cannot be one of them",
    ),
    (
        "Explanation: Bob has the Red 1.\nAnswer: Reveal Bob's Red color cards.",
        ORIGINAL_INITIALS,
        chosen(3),
        "the option abbreviates the colour (R), the reply spells it out",
    ),
    (
        "Answer: Reveal Bob's P color cards.",
        HANABI_TOM,
        NO,
        "no colour starts with P: the reply names no option",
    ),
    (
        "Answer: Reveal Bob's Y color cards",
        HANABI_RED_BLUE,
        NO,
        "this list has no Yellow: Y fits no option",
    ),
    ("Action: move to F area", AREAS, chosen(0), "F: Forest, the word that tells areas apart"),
    (
        "Action: move to F area",
        [*AREAS, "move to Field area"],
        ambiguous(0, 4),
        "F fits Forest and Field",
    ),
    (
        "Action: move to Fo area",
        [*AREAS, "move to Field area"],
        chosen(0),
        "Fo fits Forest only",
    ),
    (
        "Action: D my Card 0",
        ["Play my Card 0", "Discard my Card 0", "Play my Card 1"],
        chosen(1),
        "D: Discard, the verb that tells the two Card 0 options apart",
    ),
]

PARAPHRASES = [
    (
        "Explanation: The thief is in Room 2, next to Room 1.\nAction: I will move to Room 1.",
        CAPTURE_JP,
        chosen(2),
        "the speaker's own sentence around the option text",
    ),
    ("Alice moves to room 1", CAPTURE_JP, chosen(2), "third person and inflected verb"),
    (
        "Explanation: Bob guards Room 5.\nAction: Alice moves to room 1 to block the thief.",
        CAPTURE_JP,
        chosen(2),
        "the speaker names itself in the action line",
    ),
    ("Move towards the Forest area", AREAS, chosen(0), "'towards the' for 'to'"),
    (
        "Action: Alice moves to room 8 to close the door",
        CAPTURE_DOORS,
        chosen(1),
        "the issue's example: speaker as subject, inflected verb, a purpose after it",
    ),
    (
        "Explanation: Room 5 is where the thief will be cornered.\nI will move to Room 5.",
        CAPTURE_JP,
        chosen(3),
        "the final line is the option in the speaker's words",
    ),
    (
        "Explanation: Moving to room 9 leaves room 1 open.\nAction: Moving to room 1",
        CAPTURE_JP,
        chosen(2),
        "gerund in the action line; room 9 is only in the explanation",
    ),
    (
        "Action: I will not move to Room 9, I will wait.",
        CAPTURE_JP,
        chosen(0),
        "the reply rules out Room 9 and waits",
    ),
    (
        "Explanation: Bob revealed my fourth card as playable.\nAnswer: Playing my Card 4",
        HANABI_INFER,
        chosen(4),
        "'Playing my Card 4' is 'I should Play my Card 4' in other words",
    ),
    ("Action: move to room 3", CAPTURE_JP, NO, "no option is Room 3"),
    (
        "Explanation: Moving to Room 5 is risky, and waiting wastes time.",
        ESCAPE_JP,
        NO,
        "cut off after the explanation: options are discussed, none is chosen",
    ),
    ("Moving to room 5 is risky.", ESCAPE_JP, NO, "a remark about an option is not a choice"),
    ("Never wait.", ESCAPE_JP, NO, "rules an option out, chooses none"),
]

ANSWER_LINES = [
    (
        "Explanation: The generator in Room 6 is one step away and the killer is far.\n"
        "My next action: I will fix the generator in Room 6.",
        ESCAPE_JP,
        chosen(2),
        "'My next action:' is the speaker's answer line",
    ),
    (
        "My next action: I will move to Room 7.\nBob's next action: Bob will move to Room 5.",
        ESCAPE_JP,
        chosen(3),
        "the partner's line is not the speaker's answer",
    ),
    (
        "Explanation: the killer is in Room 7.\nBob's next action: move to room 5.",
        ESCAPE_JP,
        NO,
        "only the partner's action is stated",
    ),
    ("Next action: Move to Room 5", ESCAPE_JP, chosen(0), "'Next action:' starts an answer"),
    (
        "Based on the current state, the best action for me is to fix the generator in Room 6.",
        ESCAPE_JP,
        chosen(2),
        "Mixtral-style concluding sentence",
    ),
    (
        "The generator is close.\nBest action: fix generator in room 6",
        ESCAPE_JP,
        chosen(2),
        "'Best action:' starts an answer",
    ),
]

HEDGED = [
    (
        "I am not sure about this one. I think it is B.",
        YES_NO,
        chosen(1),
        "a hedged answer still commits to one letter",
    ),
    (
        "Explanation: the thief could go either way.\nMy best guess is D.\nWhat happens next?",
        CAPTURE_JP,
        chosen(3),
        "'My best guess is D', then an idle question",
    ),
    (
        "I think it is A because Bob already guards Room 5.",
        CAPTURE_JP,
        chosen(0),
        "letter then a reason",
    ),
    ("I think it is a good idea to wait for Bob.\nThen we move.", CAPTURE_JP, NO, "no letter"),
    (
        "I think it is A. Move to Room 1",
        CAPTURE_JP,
        ambiguous(0, 2),
        "letter A (Wait) with the text of C",
    ),
    ("I think it is C or D.", CAPTURE_JP, ambiguous(2, 3), "two letters"),
    (
        "I think this would be D. move to Room 5; then wait for Bob.",
        CAPTURE_JP,
        chosen(3),
        "'I think this would be D.' with D's text and a plan after it",
    ),
    (
        "I think it is A.\nAnswer: B",
        YES_NO,
        chosen(1),
        "a later answer line overrides the hedge",
    ),
]

# The original release's yes/no questions spell their options out.
ESCAPE_EC = [
    "Yes, whatever the killer's random moves",
    "Only if the killer's random moves go our way",
    "No, the killer catches one of us first in every case",
]

CONCLUSIONS = [
    (
        "At first I thought the answer was no. But the gate is two rooms away and the killer is "
        "far. So yes, we can get out before it reaches us. Bob just has to keep moving.",
        ESCAPE_EC,
        chosen(0),
        "a concluding 'So yes,' names the option that says yes",
    ),
    (
        "The killer is next to the gate, so no.\nWe will have to try another way.",
        ESCAPE_EC,
        chosen(2),
        "', so no.' concludes: the option that says no",
    ),
    (
        "Bob holds the plate, so no onion is needed.\nAlice will wait.",
        YES_NO,
        NO,
        "'so no onion' is a determiner, not an answer",
    ),
    (
        "Alice is boxed in by me. So no, she cannot get to c0.\nAnswer: A",
        YES_NO,
        chosen(0),
        "the answer line after the conclusion decides (the last marker)",
    ),
    ("So no one can reach the gate in time.", ESCAPE_EC, NO, "'no one' is no answer"),
]

NAMED_BEFORE = [
    (
        "Explanation: the killer is far.\nTherefore, C is the best action.",
        ESCAPE_JP,
        chosen(2),
        "the letter comes before 'is the best action'",
    ),
    ("Option B is the correct answer.", YES_NO, chosen(1), "'Option B is the correct answer'"),
    (
        "Moving to Room 7 would be the best move.",
        ESCAPE_JP,
        chosen(3),
        "the action, in other words, is called the best move",
    ),
    ("Waiting is not the best action.", ESCAPE_JP, NO, "says what is not the best"),
    (
        "I think that fixing the generator in Room 6 is the best action here.",
        ESCAPE_JP,
        chosen(2),
        "a GPT-style sentence naming the best action",
    ),
]

DEBRIS = [
    (
        "Explanation: I hold a finished soup and d0 is next to me.\nAction: C',",
        OVERCOOKED_JP,
        chosen(2),
        "a quote and comma after the letter are debris",
    ),
    ('"Answer: A",', YES_NO, chosen(0), "quotes and a comma around the whole reply"),
    ("Action: place soup for delivery in d0</s>", OVERCOOKED_JP, chosen(2), "end token"),
    ("Answer: No<|eot_id|>", YES_NO, chosen(1), "Llama end-of-turn token"),
    (
        "'Explanation: Alice is boxed in by me.\nAnswer: No'",
        YES_NO,
        chosen(1),
        "quotes around a multi-line reply",
    ),
    ('"B"', OVERCOOKED_JP, chosen(1), "a quoted letter"),
    ("Answer: B</s>", OVERCOOKED_TOM, chosen(1), "</s> is not the letters b and s"),
]

RUNAWAYS = [
    (
        "Answer: A</s>\nQuestion: Is Bob holding an onion?\nAnswer: B",
        YES_NO,
        chosen(0),
        "after </s> the model answers a question it invented",
    ),
    (
        "Action: B [/INST] What is the best next action? Action: D",
        OVERCOOKED_JP,
        chosen(1),
        "[/INST] starts a new turn",
    ),
    (
        "Answer: C\n<|im_start|>user\nWhat is the best next action?<|im_end|>\n"
        "<|im_start|>assistant\nAnswer: A",
        OVERCOOKED_TOM,
        chosen(2),
        "a new ChatML turn after the answer",
    ),
    (
        "Answer: Yes<end_of_turn>\n<start_of_turn>user\nCan Alice reach d0?<end_of_turn>\n"
        "<start_of_turn>model\nAnswer: No",
        YES_NO,
        chosen(0),
        "Gemma turn tokens after the answer",
    ),
    (
        "Answer: B\n\nWhat is the best action for Alice?\nA. pick up onion from o0\nB. wait\n"
        "C. move away\nAnswer: A",
        OVERCOOKED_TOM,
        chosen(1),
        "an invented question with re-lettered options follows the answer",
    ),
    (
        "What is Bob's next action?\nA. Move to Room 3\nB. Move to Room 2\nAnswer: A",
        ESCAPE_JP,
        NO,
        "the reply answers a question and option list it invented",
    ),
    (
        "Answer: Yes\n\nAvailable Answers:\nA. 1\nB. 2\nC. 3\nAnswer: C",
        YES_NO,
        chosen(0),
        "an invented 'Available Answers:' list after the answer",
    ),
    (
        "I think the answer is B. Bob is standing next to the counter.\n\n"
        "Question 2: How many onions are in the pot?\nAnswer: 3",
        OVERCOOKED_JP,
        chosen(1),
        "the answer comes before an invented second question",
    ),
    ("[INST] What is the best next action? [/INST]", OVERCOOKED_JP, NO, "only an echoed turn"),
    (
        "[/INST] [INST] <<SYS>>\nYou are playing a cooperative game.\n\nAnswer: (B) wait",
        OVERCOOKED_JP,
        NO,
        "the reply opens a new user turn: its 'Answer:' belongs to another exchange",
    ),
    (
        "<|im_start|>user\nWhich pot is closer?\nAnswer: C",
        OVERCOOKED_JP,
        NO,
        "the reply opens as the user, not as the assistant",
    ),
    ("<|im_start|>assistant\nAnswer: D", OVERCOOKED_JP, chosen(3), "a leading role header"),
    (
        "Let me think about it.</s>Answer: B",
        OVERCOOKED_JP,
        NO,
        "what follows </s> answers something else; nothing before it answers",
    ),
    (
        "Answer: A\nQuestion: What will Bob do?\nAnswer: wait",
        OVERCOOKED_TOM,
        chosen(0),
        "a 'Question:' line after the answer starts an invented exchange",
    ),
    (
        "Answer: No\nCan Bob reach d0? Answer: Yes",
        YES_NO,
        chosen(1),
        "an invented question and its answer on one line after the answer",
    ),
    (
        "Answer: B. Is the pot full? Answer: A",
        YES_NO,
        chosen(1),
        "the invented question starts on the answer's own line",
    ),
    (
        "Can Alice reach c0? Answer: No",
        YES_NO,
        chosen(1),
        "the model restates this question and answers it: nothing came before",
    ),
    (
        "<Inventory>: c0 contains 2 out of 3 onions.\n\nHow many plates must be put into the "
        "cookers before they are full? (Plates that Bob holds count.)\nA.",
        ["2", "0", "1"],
        NO,
        "a lone letter under an invented question, whose question mark remarks in brackets follow",
    ),
    (
        "How many more onions are needed? (Choose the closest.)\nAnswer: B",
        ["2", "0", "1"],
        chosen(1),
        "this question restated, remarks in brackets included, then answered",
    ),
]

ECHOES = [
    (
        "Available Actions:\n" + format_options(ESCAPE_JP),
        ESCAPE_JP,
        NO,
        "the option list repeated; its last line is not a choice",
    ),
    (format_options(ESCAPE_JP), ESCAPE_JP, NO, "the option list without its header"),
    ("C. Fix generator in Room 6\nD. Move to Room 7", ESCAPE_JP, NO, "two lines of the list"),
    (
        "- Move to Room 5\n- Wait\n- Fix generator in Room 6",
        ESCAPE_JP,
        NO,
        "option texts as bullets: a list, not a choice",
    ),
    (
        "Explanation: the killer is near Room 7.\nE. Move to Room 5",
        ESCAPE_JP,
        NO,
        "E is not on the list: an invented option line",
    ),
    (
        "Available Actions:\n" + format_options(ESCAPE_JP) + "\n\nAction: C",
        ESCAPE_JP,
        chosen(2),
        "the list is echoed, then answered",
    ),
    (
        "Action: C\n\nWhat is the best next action?\n" + format_options(ESCAPE_JP) + "\nAction: A",
        ESCAPE_JP,
        chosen(2),
        "after answering, the model asks the question again and answers it again",
    ),
    (
        "Let's evaluate each option:\nA. Move to Room 5 - this walks toward the killer.\n"
        "B. Wait - wastes a turn.\nC. Fix generator in Room 6 - progress, and the killer is far.\n"
        "D. Move to Room 7 - no benefit.\n\nAction: C",
        ESCAPE_JP,
        chosen(2),
        "a commentary on each option, then the answer",
    ),
    (
        "A. Move to Room 5: risky.\nB. Wait: wastes a turn.\nC. Fix generator in Room 6: "
        "progress.\nTherefore, the best action is C.",
        ESCAPE_JP,
        chosen(2),
        "commentary list, then a concluding sentence",
    ),
    (
        "Explanation: the generator is next to me.\nC. Fix generator in Room 6",
        ESCAPE_JP,
        chosen(2),
        "one lettered line after the explanation is the answer",
    ),
    ("A\nB\nC\nD", ESCAPE_JP, NO, "a column of letters is the list, not a choice"),
    (
        "The killer is far away.\nWhat is the best action for me?\nC. Fix generator in Room 6",
        ESCAPE_JP,
        chosen(2),
        "the model asks itself the question and answers with one line of the list",
    ),
    (
        "Action: A. Move to Room 5\nB. Wait\nC. Fix generator in Room 6\nD. Move to Room 7",
        ESCAPE_JP,
        NO,
        "the list recited from its first line on, after 'Action:': no choice",
    ),
    (
        "Answer: B. Wait\nC. Fix generator in Room 6\nD. Move to Room 7\n\nAnswer: D",
        ESCAPE_JP,
        chosen(3),
        "the list recited after a marker from B on, then answered",
    ),
    ("Answer: A) Yes B) No", YES_NO, NO, "the list recited on the answer line"),
    (
        "I am Bob. I am in Room 9.\nB. Room 4\nC. It moves to Room 3",
        ["Room 3", "Room 9", "It stays in Room 4"],
        NO,
        "the speaker's position, then a garbled list: 'in Room 9' answers nothing",
    ),
    ("I am in Room 9.", CAPTURE_JP, NO, "a statement of position is no move"),
    (
        "A. Move to Room 5 B. Wait C. Fix generator in Room 6 D. Move to Room 7",
        ESCAPE_JP,
        NO,
        "the whole list on one line",
    ),
    ("Answer: (A) Yes (C) No", YES_NO, NO, "a re-lettered list on the answer line"),
    ("A\n\nA\n\nA", ESCAPE_JP, chosen(0), "one letter repeated is no list: A"),
    (
        "C. Fix generator in Room 6\nC. Fix generator in Room 6",
        ESCAPE_JP,
        chosen(2),
        "one line of the list, repeated",
    ),
    (
        "D. Move to Room 7\n\nThe killer moves to a random adjacent room each turn. A generator "
        "takes two consecutive turns to fix.",
        ESCAPE_JP,
        chosen(3),
        "one line of the list first, then an echo of the rules: the first line answers",
    ),
    (
        "C. Move to Room 5\n\nThe killer moves to a random adjacent room each turn.",
        ESCAPE_JP,
        ambiguous(0, 2),
        "first line: letter C with the text of A",
    ),
    (
        "Answer: A. I am not holding an onion yet.\nB. Wait\nC. Fix generator in Room 6\n"
        "D. Move to Room 7",
        ESCAPE_JP,
        NO,
        "the answer line is the first line of a list A-D (its text garbled): no choice",
    ),
    (
        "Answer: C. move away, but wait\nThe answer is C. Wait (one timestep).",
        ESCAPE_JP,
        ambiguous(1, 2),
        "letter C with 'Wait' (option B) before the explanation",
    ),
    (
        "Action: B. Wait\nD. Move to Room 7",
        ESCAPE_JP,
        chosen(1),
        "an answer, then one line of the list: not a recitation (D does not follow B)",
    ),
]

SEVERAL_ANSWERS = [
    ("Answer: B\nAnswer: C\nAnswer: A", OVERCOOKED_TOM, ambiguous(0, 1, 2), "a list of answers"),
    (
        "Explanation: Alice is next to o0.\nAnswer: A\nExplanation: Alice could also take a "
        "plate.\nAnswer: B",
        OVERCOOKED_TOM,
        ambiguous(0, 1),
        "two explanation/answer pairs that disagree, no revision",
    ),
    (
        "Answer: A\nWait, Alice already holds an onion, so she will take a plate.\nAnswer: B",
        OVERCOOKED_TOM,
        chosen(1),
        "a correction: 'Wait,' revises the first answer",
    ),
    ("Answer: A\nFinal Answer: B", OVERCOOKED_TOM, chosen(1), "the final answer overrides"),
    (
        "Answer: D\nExplanation: waiting keeps the path clear.\nAnswer: D",
        OVERCOOKED_TOM,
        chosen(3),
        "the same answer twice",
    ),
]

MANY_AND_DUPLICATE_OPTIONS = [
    ("Action: move away.", ORIGINAL_28, chosen(27), "option 28 (label '\\') by its text"),
    ("Action: [. wait.", ORIGINAL_28, chosen(26), "option 27 by its text after its label"),
    (
        "Available Actions:\n" + format_options(ORIGINAL_28),
        ORIGINAL_28,
        NO,
        "the 28-line list echoed, ending with '\\. move away.'",
    ),
    ("Answer: Z", ORIGINAL_28, chosen(25), "Z is still a letter: option 26"),
    (
        "Answer: Reveal Bob's rank 1 cards.",
        DUPLICATED,
        ambiguous(2, 4),
        "C and E share this text",
    ),
    ("Answer: C", DUPLICATED, chosen(2), "the letter decides"),
    ("Answer: E. Reveal Bob's rank 1 cards.", DUPLICATED, chosen(4), "letter plus its own text"),
    ("Reveal Bob's rank 1 cards", DUPLICATED, ambiguous(2, 4), "shared text, one-line reply"),
    (
        "Answer: D. Reveal Bob's rank 1 cards.",
        DUPLICATED,
        ambiguous(2, 3, 4),
        "letter D (Red) with the text of C/E",
    ),
]

OFF_LIST_LETTERS = [
    ("Answer: (A)(B)(C)", YES_NO, ambiguous(0, 1), "issue 13: three letters, two options"),
    ("Answer: (A)(B)", YES_NO, ambiguous(0, 1), "two options named"),
    ("Answer: (A)(C)", YES_NO, ambiguous(0), "A plus a letter that is not on the list"),
    ("Answer: A or C", YES_NO, ambiguous(0), "A or an option that does not exist"),
    ("Answer: C", YES_NO, NO, "only a letter that is not on the list"),
    ("Answer: E. Move to Room 5", ESCAPE_JP, ambiguous(0), "letter E (off the list) and A's text"),
]

TABLES = {
    "abbreviations": ABBREVIATIONS,
    "paraphrases": PARAPHRASES,
    "answer_lines": ANSWER_LINES,
    "hedged": HEDGED,
    "conclusions": CONCLUSIONS,
    "named_before": NAMED_BEFORE,
    "debris": DEBRIS,
    "runaways": RUNAWAYS,
    "echoes": ECHOES,
    "several_answers": SEVERAL_ANSWERS,
    "many_and_duplicate_options": MANY_AND_DUPLICATE_OPTIONS,
    "off_list_letters": OFF_LIST_LETTERS,
}
CASES = [
    pytest.param(reply, options, expected, id=f"{table}-{number}")
    for table, rows in TABLES.items()
    for number, (reply, options, expected, _reason) in enumerate(rows)
]


@pytest.mark.parametrize(("reply", "options", "expected"), CASES)
def test_failure_classes(reply: str, options: list[str], expected: tuple) -> None:
    choice = choose(reply, options)
    assert (choice.outcome, choice.candidates) == expected, choice
    assert choice.method in METHODS
    assert (choice.method in ("none", "empty_reply")) == (choice.outcome == "no_answer")


def test_every_table_has_a_reason_per_reply_and_every_outcome() -> None:
    for rows in TABLES.values():
        assert len(rows) >= 5
        assert all(reason.strip() for *_, reason in rows)
    outcomes = {expected[0] for rows in TABLES.values() for _, _, expected, _ in rows}
    assert outcomes == {"chosen", "ambiguous", "no_answer"}
