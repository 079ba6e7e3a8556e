"""The ToM question ladder: side calls that never change play, scored per order by the engine.

Expectations from Hanabi's rules: knowledge of a card comes only from reveals, so before any
reveal nobody knows anything (every ladder answer is "No"); after Alice reveals Bob's 1s, Bob
knows the rank of exactly the cards that are 1s, and hints are public, so Bob knows what Alice
was told.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_records import json_recorder

from coordqa.agentic.agents.ladder import ladder_questions
from coordqa.agentic.agents.testing import RoleScript
from coordqa.errors import ConfigError
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.llm import ScriptedModel


class PlaysOldest(ScriptedPlayer):
    """Hanabi: always plays its oldest card (never reveals)."""

    name = "plays-oldest"

    def choose(self, observation: Observation) -> str:
        return "Play my Card 0"


def play(script: RoleScript, partner: Any = None, **options: Any) -> tuple[Any, list[dict], Any]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac", "hanabi", model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    game = make_game("hanabi", seed=3)
    other = partner or PlaysOldest()
    trajectory = asyncio.run(play_episode(game, [agent, other], seed=3))
    return agent, records, trajectory


@pytest.mark.parametrize(("answer", "accuracy"), [("B", 1), ("A", 0)])
def test_without_reveals_nobody_knows_anything(answer: str, accuracy: int) -> None:
    # the agent plays its oldest card ("Action: A"), the partner too: no reveal is ever made
    script = RoleScript(action="Action: A", ladder=f"Answer: {answer}")
    agent, records, _ = play(script, tom_ladder=1, use_tom=False, use_verifier=False)
    stats = agent.stats()
    questions = [r for r in records if r.get("role") == "ladder"]
    assert questions and all(r["side_call"] and r["truth"] is False for r in questions)
    for order in ("introspection", "first_order", "second_order"):
        asked = stats[f"ladder_{order}_asked"]
        assert asked == stats["decisions"]
        assert stats[f"ladder_{order}_correct"] == accuracy * asked


def test_after_a_rank_reveal_the_partner_knows_exactly_its_ones() -> None:
    game = make_game("hanabi", seed=3)
    game.step({0: "Reveal Bob's rank 1 cards"})
    game.step({1: "Play my Card 0"})  # Bob plays; his new card 4 is unclued
    bob = game.state.player_hands()[1]
    for decision in (1, 3, 5, 7, 9):  # odd decisions ask about ranks
        index = decision % 5
        intro, first, second = ladder_questions(game.seat_view(0), 0, decision)
        assert "rank" in first.question
        assert first.truth == (bob[index].rank() == 0 and index != 4)
        assert intro.truth is False and second.truth is False  # nobody revealed Alice's cards


def test_the_ladder_does_not_change_play() -> None:
    plain = RoleScript()
    _, _, without = play(plain, partner=make_player("hanabi-convention", "hanabi"))
    asked = RoleScript()
    agent, records, with_ladder = play(
        asked, partner=make_player("hanabi-convention", "hanabi"), tom_ladder=2
    )
    assert [s.decisions for s in with_ladder.steps] == [s.decisions for s in without.steps]
    decisions = agent.stats()["decisions"]
    assert asked.calls["ladder"] == 3 * ((decisions + 1) // 2)
    assert plain.calls["ladder"] == 0
    # nothing the ladder was told reaches a later call
    later = [r for r in records if r.get("kind") == "exchange" and r["role"] != "ladder"]
    assert not any("Does Bob know" in m["content"] for r in later for m in r["messages"])


@pytest.mark.parametrize(("game", "every"), [("collab_capture", 1), ("hanabi", -1)])
def test_the_ladder_is_refused_where_it_cannot_be_asked(game: str, every: int) -> None:
    with pytest.raises(ConfigError, match="tom_ladder|hidden information"):
        make_player("cac", game, model=ScriptedModel(RoleScript()), tom_ladder=every)
