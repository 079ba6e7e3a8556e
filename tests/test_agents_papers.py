"""The papers' modules and baselines as the papers wrote them (issue 37; review section 2).

Each expectation is written from the paper's sentence before the code was run:

- ReAct (Hypothetical Minds, E.1): "The agent is prompted to think about the other agents'
  strategies ... Three example responses are shown as few-shot prompts."
- Reflexion (E.2): outcomes are "the reward during the plan, and salient state information pre
  and post plan".
- PlanReAct (E.3) and HM (eq. 3-4): the planner "first generates a high-level plan ... then feeds
  this plan to a subgoal module": z = LLM(M, h*), then g = LLM(O, M, z), two calls; the subgoal
  module gives "usually 3-6" subgoals.
- HM (D.3 step 3): the hypothesis is generated "given the entire interaction history".
- HE + HR is "w/o Mind Prompting" (section 5: "removing ToM-specific prompting").
- The cooking agent (D.6) reflects when its action plan did not change the world.
- CAC's verifier (LLM-Coordination C.3) is given an action and checks rule following and safety,
  two criteria.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.presets import agent_options
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.llm import ScriptedModel

GAMES = ("hanabi", "overcooked", "collab_capture", "collab_escape")


class Waiter(ScriptedPlayer):
    """A Collab partner that always waits."""

    name = "waiter"

    def choose(self, observation: Observation) -> str:
        return "Wait"


def play(agent: str, game: str, script: RoleScript, partner: Any = None, **options: Any):  # type: ignore[no-untyped-def]
    """One episode of ``agent`` (seat 0) with ``script``; its stored records as JSON objects."""
    records: list[dict[str, Any]] = []
    player = make_player(
        agent, game, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    other = partner or {
        "hanabi": make_player("hanabi-convention", "hanabi"),
        "overcooked": make_player("greedy_human", "overcooked"),
    }.get(game, Waiter())
    kwargs = {"horizon": 12} if game == "overcooked" else {}
    board = make_game(game, seed=0, **kwargs)
    asyncio.run(play_episode(board, [player, other], seed=0))
    return player, records


def exchanges(records: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    return [r for r in records if r["kind"] == "exchange" and r["role"] == role]


def text_of(record: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in record["messages"])


@pytest.mark.parametrize("game", GAMES)
def test_react_thinks_about_the_partners_strategy_with_three_example_responses(game: str) -> None:
    _, records = play("react", game, RoleScript())
    call = exchanges(records, "react")[0]
    system = call["messages"][0]["content"]
    assert re.search(r"partner'?s? strateg", system, re.IGNORECASE)
    examples = re.findall(r"Example response \d:\n(.*?)(?=\n\nExample response|\n\nReply in)",
                          system, re.DOTALL)  # fmt: skip
    assert len(examples) == 3
    for example in examples:
        assert example.startswith("Thought: ") and "\nSubgoals:\n1. " in example
        assert re.search(r"partner|Bob|Alice", example)  # each reasons about the partner
    assert len(set(examples)) == 3


def test_reflexion_is_told_the_state_before_and_after_the_plan_and_the_reward() -> None:
    two_waits = "Thought: wait and see.\nSubgoals:\n1. Wait\n2. Wait"
    _, records = play("reflexion", "collab_capture", RoleScript(react=two_waits))
    thoughts, reflections = exchanges(records, "react"), exchanges(records, "reflection")
    assert reflections and reflections[0]["decision"] == thoughts[1]["decision"]
    planned = thoughts[0]["messages"][-1]["content"]  # the memory when the plan was made
    prompt = reflections[0]["messages"][-1]["content"]
    before = prompt.split("State when I made the plan:\n", 1)[1].split("\n\n", 1)[0]
    assert before and planned.startswith(before)  # that state, as the planner saw it
    assert "State now:" in prompt
    assert re.search(r"Reward during the plan: -?\d", prompt)


@pytest.mark.parametrize("agent", ["hm", "planreact"])
def test_the_planner_and_the_subgoal_module_are_two_calls(agent: str) -> None:
    plan = "Plan: keep waiting for Bob to move first."
    goals = "Subgoals:\n1. Wait\n2. Wait\n3. Wait"
    player, records = play(agent, "collab_capture", RoleScript(plan=plan, subgoals=goals))
    plans, subgoal_calls = exchanges(records, "plan"), exchanges(records, "subgoals")
    assert plans and [r["decision"] for r in plans] == [r["decision"] for r in subgoal_calls]
    for plan_call, subgoal_call in zip(plans, subgoal_calls, strict=True):
        assert "Subgoals" not in plan_call["messages"][0]["content"]  # the planner: z only
        assert plan_call["plan"] == "keep waiting for Bob to move first."
        asked = subgoal_call["messages"]
        assert "keep waiting for Bob to move first." in asked[-1]["content"]  # g = LLM(O, M, z)
        assert re.search(r"3 to 6", asked[0]["content"])
        assert subgoal_call["subgoals"] == ["Wait", "Wait", "Wait"]
    assert player.stats()["subgoal_actions"] > 0


def test_the_hypothesis_sees_the_entire_interaction_history() -> None:
    """The partner waits every turn: the k-th hypothesis call lists every behaviour so far."""
    _, records = play("hm", "collab_capture", RoleScript())
    calls = exchanges(records, "hypothesis")
    assert len(calls) > 9  # more than the 8 behaviours the memory used to show
    for k, call in enumerate(calls, start=1):
        listed = call["messages"][-1]["content"].split("Observed behaviour of Bob")[1]
        assert len(re.findall(r"^- ", listed.split("\n\n")[0], re.MULTILINE)) == k
    _, windowed = play("hm", "collab_capture", RoleScript(), history_window=3)
    last = exchanges(windowed, "hypothesis")[-1]["messages"][-1]["content"]
    listed = last.split("Observed behaviour of Bob")[1].split("\n\n")[0]
    assert len(re.findall(r"^- ", listed, re.MULTILINE)) == 3
    assert "latest 3" in listed


def test_he_hr_is_without_mind_prompting() -> None:
    _, hm = play("hm", "collab_capture", RoleScript())
    assert "Theory of Mind" in text_of(exchanges(hm, "hypothesis")[0])  # HM itself: ToM
    _, he_hr = play("hm", "collab_capture", RoleScript(), variant="he_hr")
    seen = {r["role"] for r in he_hr if r["kind"] == "exchange"}
    assert {"hypothesis", "plan", "subgoals", "target", "judgement"} <= seen
    for record in he_hr:
        if record["kind"] == "exchange" and record["role"] not in ("action", "reprompt"):
            text = text_of(record)
            for phrase in ("Theory of Mind", "partner's strategy", "observed strategy",
                           "hypothesis about your partner", "about the partner"):  # fmt: skip
                assert phrase not in text, (record["role"], phrase)


def test_hm_paper_reflects_in_overcooked_as_the_cooking_agent_does() -> None:
    assert agent_options("hm-paper", "overcooked", "hm") == {"self_reflection": True}
    assert agent_options("hm-paper", "overcooked", "planreact") == {"self_reflection": True}
    assert agent_options("hm-paper", "hanabi", "hm") == {}


def test_the_verifier_checks_rule_following_and_safety_of_the_action_alone() -> None:
    verdicts = iter(["Verification: Not Okay"] + ["Verification: Okay"] * 500)
    script = RoleScript(verifier=lambda messages: next(verdicts))
    _, records = play("cac", "hanabi", script)
    calls = exchanges(records, "verifier")
    assert len(calls) > 2
    directive = calls[0]["messages"][0]["content"]
    assert "1. Rule following" in directive and "2. Safety" in directive
    assert "3." not in directive and "waste" not in directive
    assert calls[1]["decision"] == calls[0]["decision"]  # re-asked and verified again
    actions = exchanges(records, "action")
    assert any("Theory of Mind notes" in a["messages"][-1]["content"] for a in actions)
    for call in calls:  # the state, the legal actions and the proposal: no notes, no rejections
        asked = call["messages"][-1]["content"]
        assert "Rejected as unsafe" not in asked and "Theory of Mind notes" not in asked
        assert "Proposed action: " in asked
