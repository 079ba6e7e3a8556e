"""Overcooked scenarios: the curated list validates, solvers give hand-computed answers on
hand-made states, ambiguous states are rejected, and fresh generation yields valid questions."""

from __future__ import annotations

import json
from collections import Counter
from itertools import islice
from typing import Any

import pytest

from coordqa.games.overcooked import LAYOUTS, Overcooked
from coordqa.scenarios import (
    BUILDERS,
    Scenario,
    ScenarioRejected,
    curated_scenarios,
    fresh_scenarios,
    overcooked_solvers as solve,
    validate_rows_against_solvers,
)
from coordqa.scenarios.build import build_rows, scenario_rows
from coordqa.scenarios.curate_overcooked import CURATED
from coordqa.scenarios.overcooked import ec_question


def _onion(pos: list[int]) -> dict[str, Any]:
    return {"name": "onion", "position": pos}


def _pot(pos: list[int], onions: int, tick: int = -1) -> dict[str, Any]:
    """A pot's soup as overcooked-ai stores it (``tick`` >= 0: cooking for that long)."""
    cooking = tick >= 0
    return {
        "name": "soup",
        "position": pos,
        "_ingredients": [_onion(pos) for _ in range(onions)],
        "cooking_tick": tick,
        "_cooking_tick": tick,
        "is_cooking": cooking and tick < 20,
        "is_ready": tick >= 20,
        "is_idle": not cooking,
        "cook_time": 20,
    }


def _held(item: str | None, pos: list[int]) -> dict[str, Any] | None:
    if item is None:
        return None
    return _pot(pos, 3, 20) if item == "soup" else {"name": item, "position": pos}


def _state(
    layout: str,
    players: list[tuple[tuple[int, int], tuple[int, int], str | None]],
    objects: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> Overcooked:
    """A hand-made state: each player's (position, orientation, held object name)."""
    snapshot = Overcooked(layout).snapshot()
    snapshot["state"]["players"] = [
        {
            "position": list(pos),
            "orientation": list(facing),
            "held_object": _held(item, list(pos)),
        }
        for pos, facing, item in players
    ]
    snapshot["state"]["objects"] = list(objects)
    game = Overcooked.from_snapshot(snapshot)
    assert isinstance(game, Overcooked)
    return game


def _answers(draft: Any) -> list[str]:
    return [draft.options[i] for i in draft.correct]


NORTH, SOUTH, WEST = (0, -1), (0, 1), (-1, 0)


# ------------------------------------------------------------------------- curated list


def test_curated_composition() -> None:
    scenarios = [s for s in curated_scenarios() if s.game == "overcooked"]
    assert len(scenarios) == 25
    per_layout = Counter(s.layout for s in scenarios)
    assert set(per_layout) == set(LAYOUTS)
    assert min(per_layout.values()) >= 4
    assert {s.player for s in scenarios} == {0, 1}
    for scenario in scenarios:
        assert scenario.scenario_id.startswith(f"overcooked-{scenario.layout}-")
    assert len({s.scenario_id for s in scenarios}) == 25
    stored = json.loads(CURATED.read_text())
    assert [item["scenario_id"] for item in stored] == [s.scenario_id for s in scenarios]


def test_curated_scenarios_build_and_validate() -> None:
    scenarios = [s for s in curated_scenarios() if s.game == "overcooked"]
    rows = list(build_rows(scenarios))
    assert validate_rows_against_solvers(rows) == 75
    kinds = Counter(row["question_type"] for row in rows)
    assert kinds == {"EC": 25, "ToM": 25, "JP": 25}
    ec_kinds = {tag for row in rows if row["question_type"] == "EC" for tag in row["tags"]}
    assert {"kind:onions_to_fetch", "kind:onions_total", "kind:onion_cooked_in"} <= ec_kinds
    lookups = {f"kind:{kind}" for kind in BUILDERS.get("overcooked").lookup_kinds}
    assert not ec_kinds & lookups  # v1.2: every lookup gave way to an inference
    for row in rows:
        if row["question_type"] == "JP":
            game = Overcooked.from_snapshot(json.loads(row["snapshot"])["snapshot"])
            player = json.loads(row["snapshot"])["player"]
            assert sorted(row["options"]) == sorted(game.legal_actions(player))


def test_validation_catches_a_changed_answer_key() -> None:
    scenario = next(s for s in curated_scenarios() if s.game == "overcooked")
    rows = scenario_rows(scenario)
    jp = rows[2]
    jp["correct"] = [(jp["correct"][0] + 1) % len(jp["options"])]
    with pytest.raises(Exception, match="answer key"):
        validate_rows_against_solvers(rows)


# ------------------------------------------------------------------------- EC solvers


def test_onions_needed_hand_made() -> None:
    game = _state("cramped_room", [((1, 1), NORTH, None), ((3, 1), NORTH, None)], [_pot([2, 0], 2)])
    draft = solve.onions_needed(game, 0, "c0")
    assert _answers(draft) == ["1"]
    cooking = _state(
        "cramped_room", [((1, 1), NORTH, None), ((3, 1), NORTH, None)], [_pot([2, 0], 3, 4)]
    )
    assert _answers(solve.onions_needed(cooking, 0, "c0")) == ["0"]


def test_soup_timer_hand_made() -> None:
    players = [((1, 1), NORTH, None), ((3, 1), NORTH, None)]
    cooking = _state("cramped_room", players, [_pot([2, 0], 3, 13)])
    draft = solve.soup_timer(cooking, 0, "c0")
    assert _answers(draft) == ["7"]  # cook time 20, 13 ticks done
    assert len(set(draft.options)) == len(draft.options) == 5
    ready = _state("cramped_room", players, [_pot([2, 0], 3, 20)])
    assert _answers(solve.soup_timer(ready, 0, "c0")) == [solve.ALREADY_COOKED]
    idle = _state("cramped_room", players, [_pot([2, 0], 1)])
    assert _answers(solve.soup_timer(idle, 0, "c0")) == [solve.NOT_COOKING]


def test_closer_cooker_hand_made() -> None:
    # Asymmetric Advantages start: Bob at (1, 3) walks 2 steps to stand by c1 (4, 3), 3 to c0.
    game = Overcooked("asymmetric_advantages")
    draft = ec_question(game, 0, "closer_cooker")
    assert _answers(draft) == ["c1"]
    # Bob at (2, 2): one step to (3, 2) next to c0, two steps to (3, 3) next to c1.
    level = _state("asymmetric_advantages", [((6, 2), NORTH, None), ((2, 2), NORTH, None)])
    assert _answers(solve.closer_cooker(level, 0)) == ["c0"]


def test_closer_cooker_neither_and_rejections() -> None:
    # Forced Coordination start: Bob (left half) reaches no cooker.
    game = Overcooked("forced_coordination")
    assert _answers(solve.closer_cooker(game, 0)) == ["neither cooker is reachable for Bob"]
    with pytest.raises(ScenarioRejected, match="cooker"):
        solve.closer_cooker(Overcooked("cramped_room"), 0)
    # Coordination Ring: Bob at (3, 1) stands next to both c0 (3, 0) and c1 (4, 1).
    ring = _state("coordination_ring", [((1, 3), NORTH, None), ((3, 1), NORTH, None)])
    assert _answers(solve.closer_cooker(ring, 0)) == [solve.EQUALLY_CLOSE]
    # Swapped: Alice on (3, 1), the only cell next to either cooker: Bob's way is blocked.
    swapped = _state("coordination_ring", [((3, 1), NORTH, None), ((1, 1), NORTH, None)])
    with pytest.raises(ScenarioRejected, match="blocked by me"):
        solve.closer_cooker(swapped, 0)


def test_reachable_hand_made() -> None:
    game = Overcooked("forced_coordination")
    assert _answers(solve.reachable(game, 0, 0, "o0")) == ["No"]  # Alice is on the right half
    assert _answers(solve.reachable(game, 0, 1, "o0")) == ["Yes"]
    assert _answers(solve.reachable(game, 1, 1, "d0")) == ["No"]
    # Cramped Room: Bob at (2, 1) under c0; Alice at (1, 1) reaches c0? c0's only stand cell is
    # (2, 1), so with Bob standing there the answer is No.
    blocked = _state("cramped_room", [((1, 1), NORTH, None), ((2, 1), NORTH, None)])
    draft = solve.reachable(blocked, 0, 0, "c0")
    assert _answers(draft) == ["No"]
    assert "other chef" in draft.rationale
    assert "With Bob standing where he is now" in draft.question


def test_onions_total_adds_up_every_cooker() -> None:
    # Asymmetric Advantages: c0 (4, 2) holds 1 onion, c1 (4, 3) cooks: 2 + 0 onions.
    players = [((6, 2), NORTH, None), ((2, 2), NORTH, None)]
    game = _state("asymmetric_advantages", players, [_pot([4, 2], 1), _pot([4, 3], 3, 5)])
    assert _answers(solve.onions_total(game, 0)) == ["2"]
    with pytest.raises(ScenarioRejected, match="one cooker"):
        solve.onions_total(Overcooked("cramped_room"), 0)


def _closest(options: tuple[str, ...], reading: int) -> str:
    return min(options, key=lambda o: abs(int(o) - reading))


def test_onion_cooked_in_counts_the_walk_and_the_cooking() -> None:
    # Cramped Room, c0 at (2, 0) holds 2 onions. Read from the rules: Alice at (2, 1) faces it
    # with an onion, puts it in (1 timestep), then 20 of cooking: about 21. The engine's exact
    # count may differ by a step (whether the placing step counts as cooking); the options are
    # spaced so the reading picks the key either way.
    pot = [_pot([2, 0], 2)]
    facing = _state("cramped_room", [((2, 1), NORTH, "onion"), ((3, 2), NORTH, None)], pot)
    draft = solve.onion_cooked_in(facing, 0, "c0")
    (answer,) = _answers(draft)
    assert abs(int(answer) - 21) <= 1 and _closest(draft.options, 21) == answer
    assert all(abs(int(o) - int(answer)) >= solve.TIMING_GAP for o in draft.options if o != answer)
    # From (1, 1) ("c0 is 1 unit away"): a step, perhaps a turn to face c0, the interaction and
    # 20 of cooking: 22 or 23 by the reading, two more than when already facing it.
    aside = _state("cramped_room", [((1, 1), NORTH, "onion"), ((3, 2), NORTH, None)], pot)
    (later,) = _answers(solve.onion_cooked_in(aside, 0, "c0"))
    assert int(later) - int(answer) in (1, 2)
    # Bob stands on (2, 1), the only cell next to c0: the timing would depend on him.
    blocked = _state("cramped_room", [((1, 1), NORTH, "onion"), ((2, 1), NORTH, None)], pot)
    with pytest.raises(ScenarioRejected, match="not free"):
        solve.onion_cooked_in(blocked, 0, "c0")


def test_plate_filled_in_waits_for_the_longer_of_walk_and_cooking() -> None:
    # Alice faces c0 with a plate; the soup has cooked 13 of 20 timesteps: ready after 7, on
    # the plate a step later: about 8 by the reading.
    players = [((2, 1), NORTH, "dish"), ((3, 2), NORTH, None)]
    game = _state("cramped_room", players, [_pot([2, 0], 3, 13)])
    draft = solve.plate_filled_in(game, 0, "c0")
    (answer,) = _answers(draft)
    assert abs(int(answer) - 8) <= 1 and _closest(draft.options, 8) == answer
    assert len(draft.options) >= 3
    with pytest.raises(ScenarioRejected, match="no plate"):
        solve.plate_filled_in(_state("cramped_room", players, [_pot([2, 0], 1)]), 0, "c0")


# ------------------------------------------------------------------------- ToM


def test_partner_intent_states_the_model_and_shows_only_described_objects() -> None:
    game = _state(
        "cramped_room", [((1, 2), NORTH, None), ((2, 1), NORTH, "onion")], [_pot([2, 0], 1)]
    )
    draft = solve.partner_intent(game, 0)
    assert draft.question.startswith("Assume Bob follows this rule and does not plan around me")
    assert draft.question.endswith("What action does Bob intend to take next?")
    text = game.describe(0)
    for task in game.legal_tasks(1):
        if task.text in draft.options and task.target:
            assert task.target in text


def test_partner_intent_rejects_a_soup_we_would_both_go_for() -> None:
    # Asymmetric Advantages: c0 (4, 2) is cooked, c1 (4, 3) cooks. Alice (5, 2) and Bob (3, 2)
    # both hold a plate and stand next to c0: by the rule both go for the soup in c0.
    game = _state(
        "asymmetric_advantages",
        [((5, 2), WEST, "dish"), ((3, 2), (1, 0), "dish")],
        [_pot([4, 2], 3, 20), _pot([4, 3], 3, 5)],
    )
    with pytest.raises(ScenarioRejected, match="my own rule also goes for"):
        solve.partner_intent(game, 0)


def test_partner_intent_hand_made() -> None:
    # Bob holds an onion facing c0, which holds 1 onion: he places it.
    game = _state(
        "cramped_room", [((1, 2), NORTH, None), ((2, 1), NORTH, "onion")], [_pot([2, 0], 1)]
    )
    draft = solve.partner_intent(game, 0)
    assert set(draft.options) <= set(game.legal_actions(1))
    assert _answers(draft) == ["place onion in c0"]
    # Alice holds a plate, c0 is cooked: she loads the soup (asked from Bob's view).
    plated = _state(
        "cramped_room", [((2, 1), NORTH, "dish"), ((3, 2), NORTH, None)], [_pot([2, 0], 3, 20)]
    )
    assert _answers(solve.partner_intent(plated, 1)) == ["load soup on plate from c0"]


def test_onions_to_fetch_counts_what_is_held_and_on_counters() -> None:
    # c0 is empty (3 needed); Alice holds an onion and k3 (4, 2) holds one: 3 - 1 - 1 = 1.
    game = _state(
        "cramped_room",
        [((1, 2), NORTH, "onion"), ((2, 2), NORTH, None)],
        [{"name": "onion", "position": [4, 2]}],
    )
    draft = solve.onions_to_fetch(game, 1)
    assert _answers(draft) == ["1"]
    assert draft.options == ("0", "1", "2", "3")
    cooking = _state(
        "cramped_room", [((1, 2), NORTH, "onion"), ((2, 2), NORTH, None)], [_pot([2, 0], 3, 4)]
    )
    assert _answers(solve.onions_to_fetch(cooking, 0)) == ["0"]


def test_an_onion_on_a_counter_is_a_source_not_on_its_way() -> None:
    # c0 holds 2 onions and needs 1; k3 (4, 2) holds an onion; nobody holds one. Bob at (3, 2)
    # reaches c0, so the counter's onion is his nearest source (0 steps; o1 is 1), not an onion
    # already on its way (the v1.1 rule counted it so, and found nothing needed).
    game = _state(
        "cramped_room",
        [((1, 2), NORTH, None), ((3, 2), NORTH, None)],
        [_pot([2, 0], 2), {"name": "onion", "position": [4, 2]}],
    )
    assert _answers(solve.partner_intent(game, 0)) == ["pick up onion from k3"]


def test_partner_intent_ties_are_all_correct() -> None:
    # Bob, empty-handed at (2, 1), c0 needs onions: o0 and o1 are both one step away.
    game = _state("cramped_room", [((2, 2), NORTH, None), ((2, 1), NORTH, None)])
    assert _answers(solve.partner_intent(game, 0)) == [
        "pick up onion from o0",
        "pick up onion from o1",
    ]


def test_partner_intent_rejects_ambiguous_states() -> None:
    # Two cookers on Asymmetric Advantages: c0 cooking (no plate anywhere), c1 empty: Bob,
    # empty-handed, could fetch a plate or an onion.
    both = _state(
        "asymmetric_advantages",
        [((6, 2), NORTH, None), ((2, 2), NORTH, None)],
        [_pot([4, 2], 3, 5)],
    )
    with pytest.raises(ScenarioRejected, match="no single next item"):
        solve.partner_intent(both, 0)
    # Cramped Room: Bob holds an onion but c0 is cooking: no cooker takes it.
    full = _state(
        "cramped_room", [((1, 2), NORTH, None), ((2, 1), NORTH, "onion")], [_pot([2, 0], 3, 3)]
    )
    with pytest.raises(ScenarioRejected, match="no cooker that takes an onion"):
        solve.partner_intent(full, 0)
    # Bob holds a soup; Alice stands on d0's only stand cell (3, 2): his target is blocked.
    blocked = _state("cramped_room", [((3, 2), NORTH, None), ((2, 2), NORTH, "soup")])
    with pytest.raises(ScenarioRejected, match="blocked"):
        solve.partner_intent(blocked, 0)


# ------------------------------------------------------------------------- JP


def test_best_action_hand_made() -> None:
    # Alice holds the third onion facing c0 (2 onions); Bob is idle by o1. Placing it starts
    # the soup at once; any other action delays both deliveries.
    game = _state(
        "cramped_room", [((2, 1), NORTH, "onion"), ((3, 1), NORTH, None)], [_pot([2, 0], 2)]
    )
    draft = solve.best_action(game, 0)
    assert draft.options == tuple(game.legal_actions(0))
    assert _answers(draft) == ["place onion in c0"]
    assert "place onion in c0" in draft.rationale


def test_best_action_passes_over_the_shared_counter() -> None:
    # Forced Coordination: Bob (left half, no cooker) holds the third onion at (1, 1), next to
    # s0 (2, 1); Alice at (3, 1) stands between s0 and c0 (3, 0), which holds 2 onions. Passing
    # over s0 lets her take it and fill c0 at once; s1 is a step further for both.
    game = _state(
        "forced_coordination",
        [((3, 1), NORTH, None), ((1, 1), NORTH, "onion")],
        [_pot([3, 0], 2)],
    )
    draft = solve.best_action(game, 1)
    assert _answers(draft) == ["place onion on s0"]
    assert "place onion on s1" in draft.options


def test_best_action_rejects_a_tie() -> None:
    # Forced Coordination start from Alice's side: she can only wait or move away and nothing
    # reaches her within a step, so neither choice beats the other.
    game = Overcooked("forced_coordination")
    with pytest.raises(ScenarioRejected, match="no clear best action"):
        solve.best_action(game, 0)


def test_questions_reject_a_state_with_an_action_in_progress() -> None:
    game = Overcooked("cramped_room")
    game.step({0: "pick up onion from o0", 1: "pick up onion from o1"})
    scenario = Scenario(
        "x", "overcooked", "cramped_room", 0, game.snapshot(), {"EC": "closer_cooker"}
    )
    builder = BUILDERS.get("overcooked")
    with pytest.raises(ScenarioRejected, match="in progress"):
        builder.questions(builder.restore(scenario), scenario)


def test_unknown_ec_kind_is_rejected_with_the_allowed_kinds() -> None:
    with pytest.raises(ScenarioRejected, match="onions_needed:<cooker>"):
        ec_question(Overcooked("cramped_room"), 0, "how_many_plates")


# ------------------------------------------------------------------------- generation


def test_candidates_are_deterministic() -> None:
    builder = BUILDERS.get("overcooked")
    first = [c.to_dict() for c in islice(builder.candidates(3), 12)]
    again = [c.to_dict() for c in islice(builder.candidates(3), 12)]
    assert first == again
    assert [c["layout"] for c in first] == ["cramped_room"] * 10 + ["asymmetric_advantages"] * 2
    assert all(c["snapshot"]["tasks"] == [None, None] for c in first)
    assert len({json.dumps(c["snapshot"]) for c in first}) == 12
    other = [c.to_dict() for c in islice(builder.candidates(4), 12)]
    assert other != first


def test_fresh_scenarios_validate() -> None:
    fresh = list(fresh_scenarios("overcooked", 2, 1000))
    assert len(fresh) == 2
    rows = list(build_rows(fresh))
    assert validate_rows_against_solvers(rows) == 6
