"""k-level ToM (CAC ``tom_level``): calls per level, predictions scored against the partner.

Expectations come from the partners' fixed rules: a partner that always takes its first legal
action (Collab) or always plays its oldest card (Hanabi) does exactly what a prediction naming
that move says, and nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.agents import CACAgent
from coordqa.choices import option_letter
from coordqa.errors import ConfigError
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.games.hanabi.tom import HanabiBehaviour
from coordqa.llm import Message, ScriptedModel


class FirstLegal(ScriptedPlayer):
    """Always the first legal action."""

    name = "first-legal"

    def choose(self, observation: Observation) -> str:
        return observation.legal_actions[0]


class PlaysOldest(ScriptedPlayer):
    """Hanabi: always plays its oldest card."""

    name = "plays-oldest"

    def choose(self, observation: Observation) -> str:
        return "Play my Card 0"


def play(
    game_name: str, partner: Any, script: RoleScript, seed: int = 2, **options: Any
) -> tuple[CACAgent, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac", game_name, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    assert isinstance(agent, CACAgent)
    asyncio.run(play_episode(make_game(game_name, seed=seed), [agent, partner], seed=seed))
    return agent, records


def scored(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for r in records if r["kind"] == "events" for e in r.get("predictions_scored", [])]


@pytest.mark.parametrize(("answer", "accuracy"), [("A", 1.0), ("B", 0.0)])
def test_level1_is_scored_against_the_partners_actual_action(answer: str, accuracy: float) -> None:
    # Collab: both move each turn; the partner takes option A of its own legal actions
    script = RoleScript(partner_predict=f"Explanation: guess.\nAnswer: {answer}")
    agent, records = play("collab_capture", FirstLegal(), script, tom_level=1)
    stats = agent.stats()
    assert stats["predictions_scored"] > 0
    assert stats["prediction_accuracy"] == accuracy
    assert script.calls["partner_belief"] == 0
    # one prediction per partner action seen, plus at most the one left pending at the end
    assert stats["predictions_scored"] <= script.calls["partner_predict"]
    assert script.calls["partner_predict"] <= stats["predictions_scored"] + 1
    assert all(entry["level"] == 1 for entry in scored(records))


def test_hanabi_level1_prediction_of_a_partner_that_plays_its_oldest_card() -> None:
    game = make_game("hanabi", seed=3)
    options = HanabiBehaviour().options(game, 0)
    letter = option_letter(options.index("Bob: Play his Card 0"))
    script = RoleScript(partner_predict=f"Answer: {letter}")
    agent, records = play("hanabi", PlaysOldest(), script, seed=3, tom_level=1)
    stats = agent.stats()
    assert stats["predictions_scored"] >= 1
    assert stats["predictions_correct"] == stats["predictions_scored"]
    assert {e["observed"] for e in scored(records)} == {"Bob: Play his Card 0"}


def test_level2_asks_the_partners_belief_first_and_checks_it_against_my_action() -> None:
    seen: list[str] = []

    def predict(messages: Sequence[Message]) -> str:
        seen.append(messages[-1].content)
        return "Answer: A"

    script = RoleScript(partner_predict=predict, partner_belief="Answer: B", action="Action: B")
    agent, records = play("collab_capture", FirstLegal(), script, tom_level=2)
    stats = agent.stats()
    made = script.calls["partner_predict"]
    assert made > 0 and script.calls["partner_belief"] == made
    # the belief (option B of my offered actions) is shown to the prediction call
    assert all("Your partner believes you will do this next:" in text for text in seen)
    # the action call answers B as well: every belief about me was met
    assert stats["expectations_scored"] > 0
    assert stats["expectations_met"] == stats["expectations_scored"]
    assert stats["prediction_accuracy"] == 1.0
    assert all(entry["level"] == 2 for entry in scored(records))
    roles = [r["role"] for r in records if r["kind"] == "exchange"]
    first = roles.index("partner_belief")
    assert roles[first + 1] == "partner_predict"


def test_level2_beliefs_the_agent_does_not_follow_are_counted_unmet() -> None:
    script = RoleScript(partner_belief="Answer: B", action="Action: A")
    agent, _ = play("collab_capture", FirstLegal(), script, tom_level=2)
    stats = agent.stats()
    assert stats["expectations_scored"] > 0 and stats["expectations_met"] == 0


def test_level0_makes_no_prediction_calls() -> None:
    script = RoleScript()
    agent, _ = play("collab_capture", FirstLegal(), script)
    assert script.calls["partner_predict"] == script.calls["partner_belief"] == 0
    assert agent.stats()["predictions_scored"] == 0


def test_calls_per_decision_grow_with_the_level() -> None:
    per_decision = []
    for level in (0, 1, 2):
        agent, _ = play("collab_capture", FirstLegal(), RoleScript(), tom_level=level)
        per_decision.append(agent.stats()["calls_per_decision"])
    assert per_decision[0] < per_decision[1] < per_decision[2]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tom_level": 3}, "tom_level must be 0, 1 or 2"),
        ({"tom_level": True}, "option tom_level of 'cac' takes integer, got True"),
        ({"tom_level": 1, "use_tom": False}, "needs the ToM step"),
    ],
)
def test_bad_levels_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_player("cac", "hanabi", model=ScriptedModel(RoleScript()), **options)
