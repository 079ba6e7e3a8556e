"""Directives, message layouts and prompt hashes."""

from __future__ import annotations

from typing import Any

import pytest

from coordqa.choices import choose
from coordqa.dataset import load_rows
from coordqa.directives import SIMULTANEOUS_CLAUSE, TURN_BASED_CLAUSE
from coordqa.errors import ConfigError, DatasetError
from coordqa.llm.types import Message
from coordqa.prompts import (
    ACKNOWLEDGEMENT,
    DIRECTIVES,
    PROMPT_LAYOUTS,
    SEVERAL_CORRECT,
    build_messages,
    directive_for,
    prompt_hash,
    question_text,
)


def example(qid: str) -> dict[str, Any]:
    return next(row for row in load_rows("example") if row["question_id"] == qid)


def test_directives_ask_for_explanation_then_one_letter() -> None:
    for kind, directive in DIRECTIVES.items():
        label = "Action" if kind == "JP" else "Answer"
        assert "Explanation: <" in directive
        assert f"\n{label}: <one letter>" in directive
        assert directive.index("Explanation:") < directive.index(f"{label}:")
        assert "exactly one" in directive
    assert "Action:" not in DIRECTIVES["EC"] and "Answer:" not in DIRECTIVES["JP"]


def test_system_layout() -> None:
    row = example("example-overcooked-01-EC")
    messages = build_messages(row)
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0].content == directive_for(row) == f"{DIRECTIVES['EC']}\n{SEVERAL_CORRECT}"
    assert messages[1].content == row["game_description"]
    assert messages[2].content == ACKNOWLEDGEMENT == "Got it!"
    assert messages[3].content == (
        f"{row['state_description']}\n\n{row['question']}\n\nAvailable Answers:\n"
        "A. 4 or more\nB. 3\nC. 2\nD. 1\nE. 0"
    )


def test_no_system_layout() -> None:
    row = example("example-hanabi-01-JP")
    messages = build_messages(row, layout="no_system")
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert messages[0].content == f"{row['game_description']}\n\n{directive_for(row)}"
    assert messages[1].content == ACKNOWLEDGEMENT
    assert messages[2] == build_messages(row, layout="system")[-1]
    assert "\n\nAvailable Actions:\nA. Play my Card 0\n" in messages[2].content
    assert messages[2].content.endswith("R. Reveal Bob's rank 5 cards")


def test_every_example_question_renders_and_its_letter_is_read_back() -> None:
    for row in load_rows("example"):
        for layout in PROMPT_LAYOUTS:
            messages = build_messages(row, layout=layout)
            assert all(isinstance(m, Message) and m.content.strip() for m in messages)
        letter = chr(ord("A") + row["correct"][0])
        label = "Action" if row["question_type"] == "JP" else "Answer"
        choice = choose(f"Explanation: because.\n{label}: {letter}", row["options"])
        assert choice.index == row["correct"][0]


def test_missing_description_and_state_are_skipped_not_sent_empty() -> None:
    row = {
        **example("example-collab_capture-01-ToM"),
        "game_description": "",
        "state_description": "",
    }
    system = build_messages(row)
    assert [m.role for m in system] == ["system", "user"]
    assert system[1].content.startswith(row["question"])
    no_system = build_messages(row, layout="no_system")
    assert no_system[0].content == directive_for(row)


def test_directives_by_release_and_game() -> None:
    """v1.2 on: JP times the partner by the game's turn order, and any one of several right
    options counts; the releases before keep the directives they were published with."""
    v11 = {r["question_id"]: r for r in load_rows("coordinationqa-v1.1")}
    v12 = {r["question_id"]: r for r in load_rows("coordinationqa-v1.2")}
    assert all(directive_for(row) == DIRECTIVES[row["question_type"]] for row in v11.values())
    for row in v12.values():
        text = directive_for(row)
        assert text.endswith(SEVERAL_CORRECT) and text.count(SEVERAL_CORRECT) == 1
        if row["question_type"] == "JP":
            turn_based = row["game"] == "hanabi"
            clauses = (TURN_BASED_CLAUSE, SIMULTANEOUS_CLAUSE)
            right, wrong = clauses if turn_based else clauses[::-1]
            assert right in text and wrong not in text
        else:
            assert text == f"{DIRECTIVES[row['question_type']]}\n{SEVERAL_CORRECT}"


def test_errors() -> None:
    row = example("example-hanabi-01-EC")
    with pytest.raises(ConfigError, match="prompt layout 'chat' is not one of system, no_system"):
        build_messages(row, layout="chat")  # type: ignore[arg-type]
    with pytest.raises(DatasetError, match="question_type 'XX' has no directive"):
        question_text({**row, "question_type": "XX"})


def test_prompt_hash() -> None:
    row = example("example-overcooked-01-JP")
    messages = build_messages(row)
    assert prompt_hash(messages) == prompt_hash(list(messages))
    assert len(prompt_hash(messages)) == 64
    assert prompt_hash(messages) != prompt_hash(build_messages(row, layout="no_system"))
    swapped = [*messages[:-1], Message("user", messages[-1].content + " ")]
    assert prompt_hash(swapped) != prompt_hash(messages)
    role_changed = [Message("user", messages[0].content), *messages[1:]]
    assert prompt_hash(role_changed) != prompt_hash(messages)
