"""Replies that label lines with the players' names ("Alice: ...", "Bob's next action: ...").

A line labelled with the partner's name is the partner's part of a plan, never the speaker's
answer. When the reader is told who speaks (``choose(..., speaker="Alice")``) only the speaker's
labelled lines answer; when it is not, lines labelled by two names that name different options
are ambiguous. Expectations were labelled by hand from these rules before the code ran.
"""

from __future__ import annotations

import pytest
from test_choices import NO, ambiguous, chosen

from coordqa.choices import METHODS, choose
from coordqa.choices._options import PLAYER_NAMES
from coordqa.errors import ConfigError
from coordqa.games.base import PLAYER_NAMES as GAME_PLAYER_NAMES

ROOMS = ["Move to Room 5", "Wait", "Move to Room 2"]  # A, B, C
COLOURS = ["Reveal Bob's Yellow color cards", "Reveal Bob's Red color cards", "Play my Card 0"]

# reply, options, speaker (None: not known), (outcome, candidates), method (None: not checked)
CASES = [
    # --- the speaker is not known: two names for different options are ambiguous ---
    ("Alice: Move to Room 5\nBob: Wait", ROOMS, None, ambiguous(0, 1), "names_conflict"),
    (
        "Alice's next action: Move to Room 5\nBob's next action: Wait",
        ROOMS,
        None,
        ambiguous(0, 1),
        "names_conflict",
    ),
    (
        "**Alice's action:** Move to Room 5\n**Bob's action:** Wait\n",
        ROOMS,
        None,
        ambiguous(0, 1),
        "names_conflict",
    ),
    (
        "We should split up to cover both doors.\nAlice: Move to Room 5.\nBob: Move to Room 2.",
        ROOMS,
        None,
        ambiguous(0, 2),
        "names_conflict",
    ),
    # both names name the same option: whoever speaks, that is its answer
    ("Alice: Wait\nBob: Wait", ROOMS, None, chosen(1), "names_agree"),
    (
        "Alice's next action: wait.\nBob's next action: wait as well.",
        ROOMS,
        None,
        chosen(1),
        "names_agree",
    ),
    # the partner-only line is no answer (as before)
    ("Bob's next action: Wait", ROOMS, None, NO, "none"),
    # an explicit answer marker is the reply's own answer, whoever the names are
    (
        "Alice: Move to Room 5\nBob: Wait\nAnswer: A",
        ROOMS,
        None,
        chosen(0),
        "marker_letter",
    ),
    # --- the speaker is known: only its own labelled lines answer ---
    ("Alice: Move to Room 5\nBob: Wait", ROOMS, "Alice", chosen(0), "speaker_line"),
    ("Alice: Move to Room 5\nBob: Wait", ROOMS, "Bob", chosen(1), "speaker_line"),
    (
        "Alice's next action: Move to Room 5\nBob's next action: Wait",
        ROOMS,
        "Alice",
        chosen(0),
        "speaker_line",
    ),
    # the partner-only line: no answer, in either form
    ("Bob's next action: Wait", ROOMS, "Alice", NO, "none"),
    ("Bob: Wait", ROOMS, "Alice", NO, "none"),
    # the speaker-labelled line alone
    ("Alice's next action: Wait", ROOMS, "Alice", chosen(1), "speaker_line"),
    ("Alice's next action is to move to Room 2.", ROOMS, "Alice", chosen(2), "speaker_line"),
    ("ALICE: move to room 2", ROOMS, "alice", chosen(2), "speaker_line"),
    ("**Alice's next action:**\nMove to Room 2", ROOMS, "Alice", chosen(2), "speaker_line"),
    (
        "I need to cover Room 5 while Bob keeps watch.\n"
        "Alice's next action: I will move to Room 5.\n"
        "Bob's next action: he should wait.",
        ROOMS,
        "Alice",
        chosen(0),
        "speaker_line",
    ),
    # both names name the same option
    ("Alice: Wait\nBob: Wait", ROOMS, "Bob", chosen(1), "speaker_line"),
    # the speaker's lines disagree (a dialogue script): ambiguous
    (
        "Alice: Move to Room 5\nBob: Wait\nAlice: Move to Room 2",
        ROOMS,
        "Alice",
        ambiguous(0, 2),
        "speaker_line",
    ),
    # the speaker's line and an answer marker: agreeing is one answer, disagreeing is two
    (
        "Alice's next action: Move to Room 5\nBob's next action: Wait\nAnswer: A",
        ROOMS,
        "Alice",
        chosen(0),
        "speaker_line",
    ),
    ("Alice's next action: Move to Room 5\nAnswer: C", ROOMS, "Alice", ambiguous(0, 2), None),
    # the speaker's label names nothing: the rest of the reply is read as usual
    ("Alice: hmm, let me think.\nAnswer: B", ROOMS, "Alice", chosen(1), "marker_letter"),
    # a known speaker changes nothing in a reply without name labels
    ("Answer: B", ROOMS, "Alice", chosen(1), "marker_letter"),
    ("Move to Room 2", ROOMS, "Bob", chosen(2), "option_text_exact"),
    # an option that mentions a player is no label
    ("Reveal Bob's Red color cards", COLOURS, "Alice", chosen(1), "option_text_exact"),
    ("Answer: Reveal Bob's Y color cards", COLOURS, "Bob", chosen(0), "marker_abbreviation"),
]


@pytest.mark.parametrize(("reply", "options", "speaker", "expected", "method"), CASES)
def test_name_labelled_lines(
    reply: str,
    options: list[str],
    speaker: str | None,
    expected: tuple[str, tuple[int, ...]],
    method: str | None,
) -> None:
    choice = choose(reply, options, speaker=speaker)
    assert (choice.outcome, choice.candidates) == expected, choice
    if method is not None:
        assert choice.method == method, choice


def test_new_methods_are_listed() -> None:
    assert {"speaker_line", "names_agree", "names_conflict"} <= set(METHODS)


@pytest.mark.parametrize("speaker", ["", "  ", "Alice Smith", "Player 1", "Alice:"])
def test_speaker_must_be_one_name(speaker: str) -> None:
    with pytest.raises(ConfigError, match="speaker"):
        choose("Answer: A", ROOMS, speaker=speaker)


def test_player_names_match_the_games() -> None:
    assert tuple(name.lower() for name in GAME_PLAYER_NAMES) == PLAYER_NAMES
