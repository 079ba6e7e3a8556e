"""The checks that a question's text says what its key assumes, each on a constructed case.

Every check must pass on a text that says the right thing and fail on one that does not; the
cases are built by hand (texts and rows) or by changing one thing in a real state.
"""

from __future__ import annotations

from typing import Any

import pytest

from coordqa.games.base import Observation
from coordqa.games.hanabi import Hanabi
from coordqa.games.hanabi.convention_player import ConventionPlayer
from coordqa.games.hanabi.engine import COLORS
from coordqa.games.overcooked import Overcooked
from coordqa.prompts import DIRECTIVES, SEVERAL_CORRECT, directive_for
from coordqa.scenarios import Scenario, curated_scenarios
from coordqa.scenarios.build import scenario_rows
from coordqa.scenarios.consistency import (
    CHECKS,
    consistency_problems,
    directive_problems,
    interrupted_problems,
    knowledge_problems,
    name_problems,
    parse_card_list,
    tie_problems,
)
from coordqa.scenarios.hanabi_solvers import off_convention_moves


def card(name: str) -> tuple[int, int]:
    color, rank = name.split(" ")
    return COLORS.index(color), int(rank) - 1


def row(**fields: Any) -> dict[str, Any]:
    base = {
        "question_id": "x-JP",
        "game": "hanabi",
        "question_type": "JP",
        "source": "test",
        "game_description": "",
        "state_description": "",
        "question": "What is the best next action?",
        "options": ["a", "b", "c"],
        "correct": [0],
    }
    return {**base, **fields}


# ------------------------------------------------------------------------------- directive


def test_a_turn_based_game_needs_the_next_turn_directive() -> None:
    hanabi = row()
    assert directive_problems(hanabi, directive_for(hanabi)) == []
    assert "on their next turn" in directive_for(hanabi)
    problems = directive_problems(hanabi, DIRECTIVES["JP"])
    assert len(problems) == 1 and "turn-based" in problems[0]


def test_a_simultaneous_game_needs_the_same_time_directive() -> None:
    escape = row(game="collab_escape")
    assert "at the same time" in directive_for(escape)
    assert directive_problems(escape, directive_for(escape)) == []
    wrong = directive_for(escape).replace("at the same time", "on their next turn")
    assert "simultaneous" in directive_problems(escape, wrong)[0]


def test_several_correct_options_need_the_directive_that_says_any_one_counts() -> None:
    two = row(question_type="EC", correct=[0, 2])
    assert (
        SEVERAL_CORRECT in directive_for(two) and directive_problems(two, directive_for(two)) == []
    )
    assert "any one of them" in directive_problems(two, DIRECTIVES["EC"])[0]
    assert directive_problems(row(question_type="EC"), DIRECTIVES["EC"]) == []


def test_releases_before_v12_keep_the_directives_they_were_asked_with() -> None:
    old = row(source="coordqa-v1.1")
    assert directive_for(old) == DIRECTIVES["JP"]


# ------------------------------------------------------------------------------- names


def test_a_registered_player_name_in_a_text_is_an_undefined_name() -> None:
    named = row(question="Bob plans with me (the capture-planner policy). What will Bob do?")
    assert name_problems(named) == [
        "names: the text names the player 'capture-planner', which it never defines"
    ]
    assert name_problems(row(question="Bob plans the fastest capture with me.")) == []
    assert name_problems(row(options=["hanabi-convention", "b"]))


# ------------------------------------------------------------------------------- knowledge


def test_card_lists_parse_to_exactly_the_cards_they_allow() -> None:
    assert parse_card_list("[White] [1]") == {card("White 1")}
    assert parse_card_list("[Red, Blue] [1, 2] except Blue 2") == {
        card("Red 1"),
        card("Red 2"),
        card("Blue 1"),
    }
    with pytest.raises(ValueError, match="excepts"):
        parse_card_list("[Red] [1] except Blue 1")


def test_a_printed_list_that_differs_from_the_solvers_is_found() -> None:
    text = "Card 0 could be: [Red] [1, 2] except Red 2 (touched)\nCard 1 could be: [Blue] [5]"
    partner_text = "\nBob believes his Card 0 could be: [Green] [3]"
    own = [[card("Red 1")], [card("Blue 5")]]
    partner = [[card("Green 3")]]
    assert knowledge_problems(text + partner_text, own, partner) == []
    counted = [[card("Red 1")], [card("Blue 5"), card("Blue 4")]]
    problems = knowledge_problems(text + partner_text, counted, partner)
    assert len(problems) == 1 and "my Card 1" in problems[0]


def _first_curated(game: str) -> Scenario:
    return next(s for s in curated_scenarios() if s.game == game)


def test_the_curated_hanabi_state_passes_and_a_doctored_list_fails() -> None:
    scenario = _first_curated("hanabi")
    game = Hanabi.from_snapshot(scenario.snapshot)
    jp = next(r for r in scenario_rows(scenario) if r["question_type"] == "JP")
    assert consistency_problems(jp, game, scenario) == []
    lines = jp["state_description"].splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Card 0 could be: "))
    lines[at] = "Card 0 could be: [Red, Yellow, Green, White, Blue] [1, 2, 3, 4, 5]"
    doctored = {**jp, "state_description": "\n".join(lines)}
    found = consistency_problems(doctored, game, scenario)
    assert found and all("knowledge: my Card 0" in p for p in found)


# ------------------------------------------------------------------------------- history


def test_a_move_the_conventions_would_not_make_breaks_the_stated_partner_model() -> None:
    game = Hanabi(seed=0)
    bot = ConventionPlayer()
    bot.reset(game.seat_view(0), 0, 0)
    chosen = bot.convention_move(Observation.of(game, 0))
    other = next(action for action in game.legal_actions(0) if action != chosen)
    assert off_convention_moves({**game.snapshot(), "moves": [chosen]}) == []
    found = off_convention_moves({**game.snapshot(), "moves": [other]})
    assert found == [f"move 1 by Alice: {other!r} (the conventions pick {chosen!r})"]


def test_an_interrupted_overcooked_action_must_be_named() -> None:
    scenario = next(
        s
        for s in curated_scenarios()
        if s.game == "overcooked" and (s.snapshot.get("interrupted") or [None, None])[s.player]
    )
    game = Overcooked.from_snapshot(scenario.snapshot)
    assert isinstance(game, Overcooked)
    ec = scenario_rows(scenario)[0]
    assert "I was on my way to " in ec["state_description"]
    assert interrupted_problems(ec, game, scenario.player) == []
    cut = ec["state_description"].split(" I was on my way to ")[0]
    silent = {**ec, "state_description": cut}
    assert "does not say" in interrupted_problems(silent, game, scenario.player)[0]


# ------------------------------------------------------------------------------- ties

KITCHEN = (
    "<Inventory>: I am holding nothing. Bob is holding nothing.\n"
    "<My Location Information>: o0 is 3 units away. k1 is 2 units away. c0 is 1 unit away.\n"
    "<Bob's Location Information>: o0 is 1 unit away. k1 is 1 unit away. c0 is {c0}.\n"
    "<Environment Details>: c0 contains 1 out of 3 onions. c0 is off. soup in c0 is not "
    "cooking. k1 contains onion.\n"
    "<My Action History>: none yet."
)
FETCH = ["pick up onion from o0", "pick up onion from k1", "wait"]


def tom(c0: str, correct: list[int]) -> dict[str, Any]:
    return row(
        game="overcooked",
        question_type="ToM",
        state_description=KITCHEN.format(c0=c0),
        options=FETCH,
        correct=correct,
    )


def test_a_counter_as_near_as_the_dispenser_must_be_keyed_too() -> None:
    assert tie_problems(tom("2 units away", [0, 1])) == []
    problems = tie_problems(tom("2 units away", [0]))
    assert problems == [
        "ties: under the stated rule the nearest targets are ['k1', 'o0'] (1 steps), but the key "
        "names ['o0']"
    ]


def test_a_chef_who_reaches_no_cooker_takes_nothing_back_from_a_counter() -> None:
    assert tie_problems(tom("inaccessible", [0])) == []
    assert tie_problems(tom("inaccessible", [0, 1]))


def test_every_class_has_a_check() -> None:
    assert set(CHECKS) == {"directive", "knowledge", "history", "ties", "names"}
