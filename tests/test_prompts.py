"""Directives, message layouts and prompt hashes."""

from __future__ import annotations

from typing import Any

import pytest

from coordqa.choices import choose
from coordqa.dataset import load_rows
from coordqa.errors import ConfigError, DatasetError
from coordqa.llm.types import Message
from coordqa.prompts import (
    ACKNOWLEDGEMENT,
    DIRECTIVES,
    PROMPT_LAYOUTS,
    build_messages,
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
    assert messages[0].content == DIRECTIVES["EC"]
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
    assert messages[0].content == f"{row['game_description']}\n\n{DIRECTIVES['JP']}"
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
    assert no_system[0].content == DIRECTIVES["ToM"]


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
