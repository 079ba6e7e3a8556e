"""HM's baselines (ReAct, Reflexion, PlanReAct), reflection after every plan, and the
LLM-Coordination paper's Overcooked ablation without the partner's inventory and location.

Expectations from the papers' text: "prompts and architectures are shared across baselines ...
the only difference between PlanReAct and Hypothetical Minds is that high-level planning is
mediated by the Theory of Mind module" (Hypothetical Minds); ReAct reasons and then acts
(here: lists subgoals, run by the shared subgoal actor) and reasons again when its actions are
done; Reflexion adds a verbal reflection on the last attempt, kept for later ones; the cooking
agent reflects after every plan; LLM-Coordination 4.1.2 removes the partner's inventory and
location from the agent's working memory.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.errors import ConfigError
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.llm import ScriptedModel

TWO_WAITS = "Thought: nothing to do yet.\nSubgoals:\n1. Wait\n2. Wait"
"""A ReAct reply whose two subgoals are legal in Collab Capture."""


class Waiter(ScriptedPlayer):
    """A Collab partner that always waits."""

    name = "waiter"

    def choose(self, observation: Observation) -> str:
        return "Wait"


def run(agent: str, script: RoleScript, **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    player = make_player(
        agent,
        "collab_capture",
        model=ScriptedModel(script),
        recorder=json_recorder(records),
        **options,
    )
    asyncio.run(play_episode(make_game("collab_capture", seed=0), [player, Waiter()], seed=0))
    return player, records


def decisions_of(records: list[dict[str, Any]], role: str) -> list[int]:
    return [r["decision"] for r in records if r["kind"] == "exchange" and r["role"] == role]


def roles(records: list[dict[str, Any]]) -> set[str]:
    return {r["role"] for r in records if r["kind"] == "exchange"}


def test_planreact_plans_where_hm_plans_without_the_tom_module() -> None:
    _, hm = run("hm", RoleScript())
    agent, planreact = run("planreact", RoleScript())
    assert decisions_of(planreact, "plan") == decisions_of(hm, "plan")
    assert roles(planreact) <= {"plan", "subgoals", "action", "reprompt"}
    assert {"hypothesis", "predict"} <= roles(hm)
    prompt = next(r for r in planreact if r.get("role") == "plan")["messages"][-1]["content"]
    assert "strategy" not in prompt.split("Available actions now")[0].lower()
    assert agent.stats()["hypotheses_generated"] == 0


def test_react_reasons_again_when_its_subgoals_are_done() -> None:
    agent, records = run("react", RoleScript(react=TWO_WAITS))
    calls = decisions_of(records, "react")
    decisions = agent.stats()["decisions"]
    assert calls == list(range(1, decisions + 1, 2))  # two subgoals per thought
    assert "action" not in roles(records)  # every subgoal was legal: no action call
    assert agent.stats()["subgoal_actions"] == decisions


def test_reflexion_reflects_before_each_new_thought_and_keeps_its_reflections() -> None:
    reflections = iter(f"Reflection: lesson {n}." for n in range(1, 100))
    script = RoleScript(react=TWO_WAITS, reflection=lambda messages: next(reflections))
    agent, records = run("reflexion", script)
    thoughts = decisions_of(records, "react")
    assert decisions_of(records, "reflection") == thoughts[1:]
    third = [r for r in records if r.get("role") == "react"][2]["messages"][-1]["content"]
    assert "lesson 1." in third and "lesson 2." in third  # both kept in memory
    assert agent.stats()["reflections"] == len(thoughts) - 1


def test_reflect_every_plan_reflects_on_every_plan_not_only_stalled_ones() -> None:
    _, every = run("hm", RoleScript(), reflect_every_plan=True)
    plans = decisions_of(every, "plan")
    assert decisions_of(every, "reflection") == plans[1:]
    prompt = next(r for r in every if r.get("role") == "reflection")["messages"][-1]["content"]
    assert "State when I made the plan:" in prompt and "Reward during the plan:" in prompt
    _, plain = run("hm", RoleScript())
    assert "reflection" not in roles(plain)


def test_no_partner_info_leaves_the_partners_inventory_and_location_out() -> None:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac",
        "overcooked",
        model=ScriptedModel(RoleScript()),
        recorder=json_recorder(records),
        partner_info=False,
    )
    game = make_game("overcooked", "cramped_room", seed=0, horizon=6)
    asyncio.run(play_episode(game, [agent, make_player("greedy_human", "overcooked")], seed=0))
    prompts = [r["messages"][-1]["content"] for r in records if r.get("role") == "action"]
    assert prompts
    for prompt in prompts:
        assert "<My Location Information>" in prompt and "I am holding" in prompt
        assert "Bob's Location Information" not in prompt and "Bob is holding" not in prompt


def test_no_partner_info_is_refused_where_the_game_cannot_leave_it_out() -> None:
    with pytest.raises(ConfigError, match="without_partner_info"):
        make_player("cac", "hanabi", model=ScriptedModel(RoleScript()), partner_info=False)


def test_the_baselines_play_in_grids_and_reports(tmp_path: Any) -> None:
    from coordqa.agentic.grid import parse_grid
    from coordqa.agentic.report import agentic_report
    from coordqa.agentic.runner import run_grid

    grid = {
        "agents": ["react", "reflexion", "planreact"],
        "models": ["scripted"],
        "games": [{"game": "collab_capture", "seeds": [0]}],
    }
    result = run_grid(parse_grid(grid), tmp_path / "run")
    assert result.complete, result.failures
    rows = agentic_report([tmp_path / "run"]).tables["per_decision"]
    assert set(rows["label"]) == {"react[scripted]", "reflexion[scripted]", "planreact[scripted]"}
