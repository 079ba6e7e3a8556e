"""HM self-reflection: asked exactly when the last plan changed nothing in the world.

Expectations from the rule: in Collab Capture a waiting pair never changes the score (nobody
catches the thief) and waiting is no effective action, so every plan after the first follows a
stalled one; an agent that moves every turn never stalls.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.llm import Message, ScriptedModel


class Waits(ScriptedPlayer):
    """Always waits."""

    name = "waits"

    def choose(self, observation: Observation) -> str:
        return "Wait"


def letter_of_wait(messages: Sequence[Message]) -> str:
    line = next(x for x in messages[-1].content.splitlines() if re.match(r"^[A-Z]\. Wait$", x))
    return f"Action: {line[0]}"


def play(script: RoleScript, **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "hm",
        "collab_capture",
        model=ScriptedModel(script),
        recorder=json_recorder(records),
        **options,
    )
    asyncio.run(play_episode(make_game("collab_capture", seed=2), [agent, Waits()], seed=2))
    return agent, records


def test_a_stalled_plan_is_reflected_on_before_the_next_plan() -> None:
    script = RoleScript(action=letter_of_wait)
    agent, records = play(script, self_reflection=True)
    plans = [r for r in records if r.get("role") == "plan"]
    assert len(plans) > 2
    assert agent.stats()["reflections"] == script.calls["reflection"] == len(plans) - 1
    shown = ["Reflection on my last plan:" in p["messages"][-1]["content"] for p in plans]
    assert shown == [False] + [True] * (len(plans) - 1)


def test_no_reflection_without_the_option() -> None:
    script = RoleScript(action=letter_of_wait)
    agent, _ = play(script)
    assert script.calls["reflection"] == 0 and agent.stats()["reflections"] == 0


def test_an_agent_that_moves_every_turn_never_reflects() -> None:
    script = RoleScript(action="Action: A")  # a move: Collab lists moves before Wait
    agent, _ = play(script, self_reflection=True)
    assert script.calls["plan"] > 2
    assert script.calls["reflection"] == 0
