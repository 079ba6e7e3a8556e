"""Collab Capture and Collab Escape scenarios: curated list, solvers, rejections, fresh generation.

Hand-made states are checked against answers worked out by hand from the rules (the derivation
is in each test's comment), so the solvers are tested against something other than themselves.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from coordqa.games import make_game, make_player
from coordqa.games.base import Observation, ScriptedPlayer
from coordqa.games.collab_capture import CaptureState
from coordqa.games.collab_escape import EscapeState
from coordqa.scenarios import (
    BUILDERS,
    Scenario,
    ScenarioQuestions,
    ScenarioRejected,
    ValidationFailed,
    collab_capture_qa,
    collab_escape_qa,
    fresh_scenarios,
    validate_rows_against_solvers,
)
from coordqa.scenarios.build import build_rows
from coordqa.scenarios.collab_solve import INF, strict_best
from coordqa.scenarios.curate_collab import CURATED_COUNTS, curate
from coordqa.scenarios.generate import released_states

GAMES = ("collab_capture", "collab_escape")


def _curated(game: str) -> list[Scenario]:
    text = (
        resources.files("coordqa.scenarios")
        .joinpath("curated")
        .joinpath(f"{game}.json")
        .read_text()
    )
    return [Scenario.from_dict(item) for item in json.loads(text)]


def _scenario(game: str, state: Any, player: int, ec: str) -> Scenario:
    live = make_game(game)
    live.state = state  # type: ignore[attr-defined]
    return Scenario("hand-made", game, "default", player, live.snapshot(), kinds={"EC": ec})


def _build(game: str, state: Any, player: int, ec: str) -> ScenarioQuestions:
    scenario = _scenario(game, state, player, ec)
    builder = BUILDERS.get(game)
    return builder.questions(builder.restore(scenario), scenario)


def _capture_ec(state: CaptureState, player: int, kind: str) -> set[str]:
    return _answers(collab_capture_qa.ec_question(state, player, kind))


def _escape_ec(state: EscapeState, player: int, kind: str) -> set[str]:
    return _answers(collab_escape_qa.ec_question(state, player, kind))


def _answers(draft: Any) -> set[str]:
    return {draft.options[i] for i in draft.correct}


@pytest.mark.parametrize("game", GAMES)
def test_curated_scenarios_build_and_validate(game: str) -> None:
    scenarios = _curated(game)
    assert len(scenarios) == CURATED_COUNTS[game]
    assert [s.scenario_id for s in scenarios] == [
        f"{game}-{i:02d}" for i in range(1, len(scenarios) + 1)
    ]
    rows = list(build_rows(scenarios))
    assert validate_rows_against_solvers(rows) == 3 * len(scenarios)
    assert len({s.snapshot["state"].__repr__() for s in scenarios}) == len(scenarios)
    for row in rows:
        assert row["concept"] and row["rationale"]
        assert len(row["options"]) >= 2


@pytest.mark.parametrize("game", GAMES)
def test_fresh_generator_yields_valid_questions(game: str) -> None:
    fresh = list(fresh_scenarios(game, 2, 1000))
    assert len(fresh) == 2
    assert validate_rows_against_solvers(list(build_rows(fresh))) == 6


def test_capture_thief_next_and_distance_by_hand() -> None:
    # Thief in 3 (exits 2, 4), Alice 6, Bob 1, door 1-2 closed. Room 2 is 4 from Alice
    # (6-5-4-3-2) and 5 from Bob; Room 4 is 2 from Alice: the thief flees to Room 2.
    # Alice to Room 3: 6-5-4-3 = 3 moves.
    state = CaptureState(alice=6, bob=1, thief=3, closed=frozenset({(1, 2)}))
    assert _answers(_build("collab_capture", state, 0, "thief_next").ec) == {"Room 2"}
    assert _answers(_build("collab_capture", state, 0, "my_distance").ec) == {"3"}


def test_capture_press_exits_and_cut_off_by_hand() -> None:
    # Alice presses in Room 9: door 1-2 opens before the thief (Room 2) moves. Room 1 is 1 from
    # Bob (6); Room 3 is 3 from Bob, 4 from Alice: the thief goes to Room 3. With the door
    # closed its only exit is Room 3.
    state = CaptureState(alice=9, bob=6, thief=2, closed=frozenset({(1, 2)}))
    assert _capture_ec(state, 0, "press_effect") == {"Room 3"}
    assert _capture_ec(state, 1, "thief_exits") == {"Room 3"}
    # Both doors closed: Rooms 2 and 3 are cut off from Alice in Room 9.
    shut = CaptureState(alice=9, bob=5, thief=2, closed=frozenset({(1, 2), (3, 4)}))
    assert _capture_ec(shut, 0, "my_distance") == {"It cannot be reached through open doors"}


def test_capture_intent_and_best_action_by_hand() -> None:
    # Thief in Room 1 (exits 2 and 6), Alice at the button in Room 9, Bob in Room 5. Alice's
    # press closes door 1-2, so the thief's only exit is Room 6: if Bob steps into Room 6 the
    # thief must move into him (capture in 1). Without the press it flees to Room 2.
    state = CaptureState(alice=9, bob=5, thief=1, closed=frozenset())
    alice = _build("collab_capture", state, 0, "my_distance")
    assert _answers(alice.jp) == {"Press button in Room 9"}
    assert _answers(alice.tom) == {"Move to Room 6"}
    bob = _build("collab_capture", state, 1, "my_distance")
    assert _answers(bob.jp) == {"Move to Room 6"}
    assert _answers(bob.tom) == {"Press button in Room 9"}
    assert "closing the door 1-2" in alice.jp.concept


def test_capture_rejects_ties() -> None:
    # Thief in dead end 8, Bob in 5: Bob steps into 7 and the thief has nowhere but 7 (capture
    # in 1) whatever Alice does, so every action of Alice ties at 1 turn.
    state = CaptureState(alice=2, bob=5, thief=8, closed=frozenset())
    with pytest.raises(ScenarioRejected, match="JP: no action of Alice"):
        _build("collab_capture", state, 0, "my_distance")
    with pytest.raises(ScenarioRejected, match="ToM: no action of Alice"):
        _build("collab_capture", state, 1, "my_distance")
    with pytest.raises(ScenarioRejected, match="does not apply"):
        _build("collab_capture", state, 0, "press_effect")


def test_escape_fix_in_time_by_hand() -> None:
    # Generator 1 fixed, generator 6 one turn from fixed, Alice in 6, Bob in 7, killer in 8
    # chasing Bob. Alice's fix opens the gate in the agents' half of the turn; Bob is in Room 7,
    # so they escape before the killer moves: yes, in every case.
    state = EscapeState(alice=6, bob=7, killer=8, progress=(2, 1))
    built = _build("collab_escape", state, 0, "fix_in_time")
    assert _answers(built.ec) == {"Yes, whatever the killer's random moves"}
    assert _answers(built.jp) == {"Fix generator in Room 6"}
    assert _answers(built.tom) == {"Wait"}
    # Two fix turns needed with the killer next door in Room 7: it walks into Room 6 at once.
    doomed = EscapeState(alice=6, bob=2, killer=7, progress=(2, 0))
    assert _escape_ec(doomed, 0, "fix_in_time") == {
        "No, the killer catches one of us first in every case"
    }


def test_escape_partner_exit_and_distance_by_hand() -> None:
    # Killer in 3 is next to Bob (8) only: it will move to Room 8. Bob steps to 7 (one move) and
    # the killer lands in 8 behind him: safe in every case. Killer 6 to Alice in 1: 5 moves
    # (6-5-4-3-2-1, or via 7-8-9-10).
    state = EscapeState(alice=1, bob=8, killer=3)
    assert _escape_ec(state, 0, "partner_exit") == {"Yes, whatever the killer's random moves"}
    far = EscapeState(alice=1, bob=2, killer=6)
    assert _escape_ec(far, 0, "killer_distance") == {"5"}


def test_escape_intent_and_best_action_by_hand() -> None:
    # Alice in 8 chased by the killer from 3; Bob on generator 6 (1 of 2 done), generator 1
    # fixed. Bob's fix opens the gate this turn and Alice steps into Room 7: escape in 1 turn;
    # any other pair of actions needs more turns.
    state = EscapeState(alice=8, bob=6, killer=3, progress=(2, 1))
    alice = _build("collab_escape", state, 0, "killer_distance")
    assert _answers(alice.jp) == {"Move to Room 7"}
    assert _answers(alice.tom) == {"Fix generator in Room 6"}
    assert _answers(alice.ec) == {"1"}
    assert "the killer chases me" in alice.jp.concept


def test_escape_rejects_ties_and_disagreeing_routes() -> None:
    # At the start every action of Bob's leads to a sure escape in 9 turns at best.
    start = EscapeState(alice=1, bob=2, killer=6)
    with pytest.raises(ScenarioRejected, match="JP: no action of Bob"):
        _build("collab_escape", start, 1, "killer_distance")
    with pytest.raises(ScenarioRejected, match="does not apply"):
        _build("collab_escape", start, 1, "fix_in_time")


def test_strict_best_needs_a_unique_finite_minimum() -> None:
    assert strict_best([3.0, 2.0, 4.0]) == 1
    assert strict_best([2.0, 2.0, 4.0]) is None
    assert strict_best([INF, INF]) is None


def test_escape_partner_exit_depends_on_route_or_dice() -> None:
    # Killer in 2 next to Bob (1) only, so it will move to Room 1. Via 2-3-8-7 Bob slips past it
    # (it lands in Room 1 behind him); via 10-9-8-7 it follows him: the routes disagree.
    split = EscapeState(alice=10, bob=1, killer=2)
    with pytest.raises(ScenarioRejected, match="routes disagree"):
        collab_escape_qa.ec_question(split, 0, "partner_exit")
    # Killer in 7 chasing nobody: whether Bob's walk from Room 1 is safe depends on its dice.
    dice = EscapeState(alice=10, bob=1, killer=7)
    assert _escape_ec(dice, 0, "partner_exit") == {"Only if the killer's random moves go our way"}


@pytest.mark.parametrize("game", GAMES)
def test_candidates_are_deterministic_and_hide_the_seed(game: str) -> None:
    builder = BUILDERS.get(game)
    first = [c.to_dict() for c in builder.candidates(5)]
    assert first == [c.to_dict() for c in builder.candidates(5)]
    assert first and all(c["snapshot"]["seed"] == 0 and c["reached_by"]["seed"] == 5 for c in first)


@pytest.mark.parametrize(
    ("game", "planner"),
    [("collab_capture", "capture-planner"), ("collab_escape", "escape-planner")],
)
def test_curated_answers_agree_with_the_engine_planners(game: str, planner: str) -> None:
    # The solvers' sure-win answers must also be what the game's own planner players choose.
    builder = BUILDERS.get(game)
    for scenario in _curated(game):
        live = builder.restore(scenario)
        built = builder.questions(live, scenario)
        player = make_player(planner, game)
        assert isinstance(player, ScriptedPlayer)
        for who, draft in ((1 - scenario.player, built.tom), (scenario.player, built.jp)):
            chosen = player.choose(Observation.of(live, who))
            assert _answers(draft) == {chosen}, scenario.scenario_id


def test_validation_reports_a_question_type_the_builder_does_not_make() -> None:
    # A row with an unknown type is a problem to report, not a KeyError that hides the others.
    rows = [dict(row) for row in build_rows(_curated("collab_escape")[:1])]
    rows[0]["question_type"] = "XX"
    with pytest.raises(ValidationFailed, match="question type 'XX' is not one the builder makes"):
        validate_rows_against_solvers(rows)


@pytest.mark.parametrize("game", GAMES)
def test_curation_reproduces_the_committed_list(game: str) -> None:
    # The curation is deterministic: running it again must give the shipped file exactly.
    got = [s.to_dict() for s in curate(game, CURATED_COUNTS[game])]
    assert got == [s.to_dict() for s in _curated(game)]


def test_fresh_scenarios_are_no_released_state() -> None:
    # From this seed, Collab Capture's first candidates include states of the bundled releases
    # (small maps reach the same states from many seeds): a fresh split must skip them.
    fresh = list(fresh_scenarios("collab_capture", 2, 1_722_853_097))
    released = released_states("collab_capture")
    assert released and not {row["state_description"] for row in build_rows(fresh)} & released
