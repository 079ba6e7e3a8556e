"""Hypothetical Minds: code-scored predictions, validation, refinement, subgoals, variants."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.agents import HMAgent
from coordqa.agentic.agents.features import behaviour_for
from coordqa.errors import ConfigError
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.games.base import StepResult
from coordqa.games.overcooked.tom import OvercookedBehaviour
from coordqa.llm import Message, ScriptedModel


class Waiter(ScriptedPlayer):
    """A Collab partner that always waits."""

    name = "waiter"

    def choose(self, observation: Observation) -> str:
        return "Wait"


def letter_of(messages: Sequence[Message], text: str) -> str:
    """The letter of option ``text`` in the last message's lettered list."""
    for line in messages[-1].content.splitlines():
        letter, _, option = line.partition(". ")
        if option == text and len(letter) == 1:
            return letter
    raise AssertionError(f"{text!r} is not an option")


def predict_wait_for(turns: int):  # type: ignore[no-untyped-def]
    """Predict 'Wait' for the first ``turns`` predict calls, then the first option (a move)."""
    seen = {"n": 0}

    def reply(messages: Sequence[Message]) -> str:
        seen["n"] += 1
        if seen["n"] <= turns:
            return f"Answer: {letter_of(messages, 'Wait')}"
        return "Answer: A"  # the first option: a move, never 'Wait' (listed last)

    return reply


def run_hm(script: RoleScript, partner: Any, game: str = "collab_capture", **options: Any):  # type: ignore[no-untyped-def]
    records: list[dict[str, Any]] = []
    agent = make_player(
        "hm", game, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    assert isinstance(agent, HMAgent)
    trajectory = asyncio.run(play_episode(make_game(game), [agent, partner], seed=0))
    return agent, records, trajectory


def hypothesis_decisions(records: list[dict[str, Any]]) -> list[int]:
    return [r["decision"] for r in records if r["role"] == "hypothesis"]


def test_right_predictions_validate_a_hypothesis_and_stop_generation() -> None:
    script = RoleScript(predict=predict_wait_for(10_000))
    agent, records, trajectory = run_hm(script, Waiter())
    assert len(trajectory.steps) >= 6
    # decision 1 generates nothing: Bob has not acted yet. Values by hand (alpha 0.3, c 1): h0 is
    # right 4 times: 0.3, 0.51, 0.657, 0.7599 -> validated after decision 5's observation;
    # decisions 2-5 generate one hypothesis each, none after.
    assert hypothesis_decisions(records) == [2, 3, 4, 5]
    stats = agent.stats()
    assert stats["hypotheses_generated"] == 4
    assert stats["first_validation_decision"] == 5 and stats["first_validation_turn"] == 5
    assert stats["prediction_accuracy"] == 1.0
    assert stats["predictions_scored"] == len(trajectory.steps) - 1  # none before a hypothesis
    h0 = [
        e
        for r in records
        if r["kind"] == "events"
        for e in r.get("predictions_scored", [])
        if e["hypothesis"] == 0
    ]
    assert [round(e["value_after"], 4) for e in h0[:4]] == [0.3, 0.51, 0.657, 0.7599]
    # with a validated hypothesis only it predicts: one predict call per update
    later = [r for r in records if r["role"] == "predict" and r["decision"] >= 6]
    assert later and all(r["hypothesis_id"] == 0 for r in later)
    # predictors before validation: the newest plus the best others (top_k 5)
    assert [
        r["hypothesis_id"] for r in records if r["role"] == "predict" and r["decision"] == 4
    ] == [2, 0, 1]


def test_a_wrong_prediction_invalidates_and_generation_resumes() -> None:
    # decisions 2-5 predict 'Wait' with 1, 2, 3, 4 predictors (10 calls); decision 6's single
    # prediction (the validated h0) is right too; then every prediction is wrong, h0 falls below
    # the threshold after decision 7's observation and generation resumes at decision 8.
    script = RoleScript(predict=predict_wait_for(11))
    agent, records, _ = run_hm(script, Waiter())
    assert hypothesis_decisions(records)[:5] == [2, 3, 4, 5, 8]
    h0 = [
        e
        for r in records
        if r["kind"] == "events"
        for e in r.get("predictions_scored", [])
        if e["hypothesis"] == 0
    ]
    # 0.7599 -> right: 0.83193 -> wrong: 0.83193 + 0.3 * (-1 - 0.83193) = 0.282351 (invalid)
    assert [round(e["value_after"], 6) for e in h0[4:6]] == [0.83193, 0.282351]
    assert agent.stats()["first_validation_decision"] == 5


def tom_calls_by_decision(records: list[dict[str, Any]]) -> dict[int, int]:
    """Calls of the ToM module (generation, predictions, plan) at each decision."""
    calls: dict[int, int] = {}
    for r in records:
        if r["kind"] == "exchange" and r["role"] in ("hypothesis", "predict", "plan"):
            calls[r["decision"]] = calls.get(r["decision"], 0) + 1
    return calls


@pytest.mark.parametrize("top_k", [5, 2, 0])
def test_an_update_without_a_validated_hypothesis_makes_3_plus_top_k_calls(top_k: int) -> None:
    """The paper: 3 + top_k calls per ToM update with no validated hypothesis (generation, the
    top_k best earlier hypotheses and the newest predict, the plan). Every prediction here is
    wrong (the first option is a move; the partner waits), so nothing is ever validated."""
    script = RoleScript(predict="Answer: A")
    agent, records, trajectory = run_hm(script, Waiter(), top_k=top_k)
    calls = tom_calls_by_decision(records)
    full = [d for d in calls if d >= top_k + 2]  # from then on top_k earlier hypotheses exist
    assert len(full) >= 3, "the episode must be long enough to see full updates"
    assert {calls[d] for d in full} == {3 + top_k}
    assert agent.stats()["first_validation_decision"] is None


def test_an_update_with_a_validated_hypothesis_makes_2_calls() -> None:
    """The paper: 2 calls per update while a hypothesis is validated (its prediction, the plan)."""
    script = RoleScript(predict=predict_wait_for(10_000))
    agent, records, _ = run_hm(script, Waiter())
    validated = agent.stats()["first_validation_decision"]
    calls = tom_calls_by_decision(records)
    later = [d for d in calls if d > validated]
    assert validated == 5 and len(later) >= 2
    assert {calls[d] for d in later} == {2}


def test_refinement_shows_positive_hypotheses_only_in_full_hm() -> None:
    script = RoleScript(predict=predict_wait_for(10_000))
    _, records, _ = run_hm(script, Waiter(), threshold=1.0)
    shown = [r["refining"] for r in records if r["role"] == "hypothesis"]
    assert shown[0] == [] and shown[1] == [0] and len(shown[5]) == 5
    script = RoleScript(predict=predict_wait_for(10_000))
    _, records, _ = run_hm(script, Waiter(), threshold=1.0, variant="mmp_eval")
    assert all(r["refining"] == [] for r in records if r["role"] == "hypothesis")
    prompt = next(r for r in records if r["role"] == "hypothesis" and r["decision"] == 2)
    assert "Earlier hypotheses" not in prompt["messages"][-1]["content"]


def test_modular_prompting_without_evaluation() -> None:
    script = RoleScript(predict=predict_wait_for(10_000))
    agent, records, trajectory = run_hm(script, Waiter(), variant="mmp")
    turns = len(trajectory.steps)
    # every decision plans; all but the first (Bob has not acted yet) generate and predict
    assert script.calls["hypothesis"] == script.calls["predict"] == turns - 1
    assert script.calls["plan"] == turns
    assert all(
        e["value_after"] is None
        for r in records
        if r["kind"] == "events"
        for e in r.get("predictions_scored", [])
    )
    stats = agent.stats()
    assert stats["prediction_accuracy"] == 1.0 and stats["first_validation_decision"] is None


def test_vanilla_mind_prompting_is_one_call_per_update() -> None:
    script = RoleScript(
        vanilla=lambda m: (
            f"Hypothesis: waits.\nPlan: go.\nSubgoals:\n1. Wait\nAnswer: {letter_of(m, 'Wait')}"
        )
    )
    agent, records, trajectory = run_hm(script, Waiter(), variant="vmp")
    turns = len(trajectory.steps)
    # decision 1: Bob has not acted, so no ToM call, an action call instead; then one call each
    assert dict(script.calls) == {"action": 1, "vanilla": turns - 1}
    assert [r["role"] for r in records if r["kind"] == "exchange"][:2] == ["action", "vanilla"]
    stats = agent.stats()
    assert stats["prediction_accuracy"] == 1.0 and stats["subgoal_actions"] == turns - 1


def test_subgoals_run_while_legal_then_an_action_call() -> None:
    script = RoleScript(subgoals="Subgoals:\n1. Wait\n2. Fly to the moon")
    agent, records, trajectory = run_hm(script, Waiter())
    # the partner acts every turn, so every decision re-plans and takes subgoal 1 ('Wait')
    assert agent.stats()["subgoal_actions"] == len(trajectory.steps)
    assert script.calls["action"] == 0
    assert all(step.decisions[0] == "Wait" for step in trajectory.steps)


def test_illegal_subgoal_drops_the_plan() -> None:
    script = RoleScript(subgoals="Subgoals:\n1. Fly to the moon\n2. Wait")
    agent, records, trajectory = run_hm(script, Waiter())
    assert agent.stats()["subgoal_actions"] == 0
    assert script.calls["action"] == len(trajectory.steps)
    notes = [n for r in records if r["kind"] == "events" for n in r.get("notes", [])]
    assert any("Fly to the moon" in n for n in notes)


def test_hanabi_predictions_score_move_type_and_target() -> None:
    space = behaviour_for("hanabi")
    view = make_game("hanabi", seed=5).seat_view(0)
    options = space.options(view, 0)
    assert len(options) == 20 and options[0] == "Bob: Discard his Card 0"
    assert "Bob: Reveal Alice's rank 1 cards" in options
    result = StepResult(executed={}, reward=0.0, completed={1: "Play my Card 2"})
    assert space.observed(view, 0, result) == ["Bob: Play his Card 2"]
    assert "Bob: Play his Card 2" in options


def test_overcooked_behaviour_reads_the_partner_history() -> None:
    game = make_game("overcooked", seed=0, horizon=60)
    space = OvercookedBehaviour()
    space.reset(game.seat_view(0), 0)
    assert len(space.options(game.seat_view(0), 0)) == 9
    seen: list[str] = []
    greedy = make_player("greedy_human", "overcooked")
    greedy.reset(game.seat_view(1), 1, 0)
    while not game.is_terminal() and not seen:
        moves = {
            p: "wait" if p == 0 else asyncio.run(greedy.act(Observation.of(game, 1)))
            for p in game.players_to_act()
        }
        result = game.step(moves)
        seen += space.observed(game.seat_view(0), 0, result)
    assert seen and seen[0] in space.options(game.seat_view(0), 0)
    assert space.observed(game.seat_view(0), 0, StepResult(executed={}, reward=0.0)) == []


def test_hm_plays_overcooked_and_scores_predictions() -> None:
    script = RoleScript()
    records: list[dict[str, Any]] = []
    agent = make_player(
        "hm", "overcooked", model=ScriptedModel(script), recorder=json_recorder(records)
    )
    game = make_game("overcooked", seed=0, horizon=80)
    partner = make_player("greedy_human", "overcooked")
    asyncio.run(play_episode(game, [agent, partner], seed=0))
    stats = agent.stats()  # type: ignore[attr-defined]
    assert stats["predictions_scored"] >= 1
    # a ToM update happens at the first decision and after each partner object action only
    updates = script.calls["hypothesis"]
    assert 1 <= updates <= game.metrics()["timesteps"]
    assert updates < stats["decisions"]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"variant": "bogus"}, "vmp"),
        ({"alpha": 2.0}, "alpha"),
        ({"top_k": -1}, "top_k"),
        ({"beta": 1}, "has no option .beta.; its options: .*variant, alpha, c, threshold, top_k"),
    ],
)
def test_invalid_options(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        make_player("hm", "hanabi", model=ScriptedModel(RoleScript()), **options)


def test_a_subgoal_in_the_third_person_names_the_move() -> None:
    from coordqa.agentic.agents.replies import subgoal_action

    legal = ["Move to Room 1", "Move to Room 2", "Press button in Room 9", "Wait"]
    # "Alice moves to room 1" says that Alice (the planner) goes to Room 1: that is the move
    assert subgoal_action("Alice moves to room 1", legal) == "Move to Room 1"
    assert subgoal_action("move to room 2", legal) == "Move to Room 2"
    assert subgoal_action("press the button in Room 9", legal) == "Press button in Room 9"
    # a letter names nothing in an unlettered list, and a room that is not offered is no move
    assert subgoal_action("B", legal) is None
    assert subgoal_action("Alice moves to room 7", legal) is None


def test_a_plan_written_in_the_third_person_is_followed() -> None:
    def goals(messages: Sequence[Message]) -> str:
        offered = messages[-1].content.split("Available actions now:\n")[1].split("\n\n")[0]
        room = next(line for line in offered.splitlines() if "Move to Room" in line).split()[-1]
        return f"Subgoals:\n1. Alice moves to room {room}"

    script = RoleScript(plan="Plan: chase the thief.", subgoals=goals)
    agent, records, trajectory = run_hm(script, Waiter())
    # every decision re-plans (as in the test above) and plays its plan's move: the plan is
    # never dropped, and no action call is needed
    notes = [n for r in records if r["kind"] == "events" for n in r.get("notes", [])]
    assert not any("plan dropped" in n for n in notes)
    assert script.calls["action"] == 0
    assert agent.stats()["subgoal_actions"] == len(trajectory.steps)
    assert all(step.decisions[0].startswith("Move to Room") for step in trajectory.steps)
