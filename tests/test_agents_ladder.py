"""The ToM question ladder: side calls that never change play, scored per order by the engine.

Expectations from Hanabi's rules: knowledge of a card comes from reveals and from counting the
cards one sees, so before any reveal nobody knows anything (every ladder answer is "No"); after
Alice reveals Bob's 1s, Bob knows the rank of exactly the cards that are 1s. Each 5 exists once,
so a player whose card is a 5 of one of two colours, and who sees the other colour's 5 in the
partner's hand, knows its colour; the partner, who cannot see its own unrevealed 5, cannot know
that it knows.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.errors import ConfigError
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.games.hanabi.tom import ladder_questions
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
        assert asked == 2 * stats["decisions"]  # colour and rank, every decision
        assert stats[f"ladder_{order}_correct"] == accuracy * asked


def test_after_a_rank_reveal_the_partner_knows_exactly_its_ones() -> None:
    game = make_game("hanabi", seed=3)
    game.step({0: "Reveal Bob's rank 1 cards"})
    game.step({1: "Play my Card 0"})  # Bob plays; his new card 4 is unclued
    bob = game.state.player_hands()[1]
    for ask in range(5):  # the k-th ladder asks about Card k
        questions = ladder_questions(game.seat_view(0), 0, ask)
        rank = [q for q in questions if "rank" in q.question]
        intro, first, second = rank
        assert f"Card {ask}" in first.question
        assert first.truth == (bob[ask].rank() == 0 and ask != 4)
        assert intro.truth is False and second.truth is False  # nobody revealed Alice's cards


SEED_24_REVEALS = [
    "Reveal Bob's Green color cards",  # Bob: W5 G2 W1 Y1 G4; his W5 is not touched
    "Reveal Alice's rank 5 cards",  # Alice: Y2 R1 Y4 B5 G3; touches her Card 3 only
    "Reveal Bob's Green color cards",
    "Reveal Alice's Yellow color cards",
    "Reveal Bob's Green color cards",
    "Reveal Alice's Red color cards",
    "Reveal Bob's Green color cards",
    "Reveal Alice's Green color cards",
]
"""Reveals after which Alice's Card 3 is a 5 that can only be White or Blue."""


def test_the_second_order_answer_can_differ_from_introspection() -> None:
    game = make_game("hanabi", seed=24)
    assert [(c.color(), c.rank()) for c in game.state.player_hands()[0]][3] == (4, 4)  # Blue 5
    assert [(c.color(), c.rank()) for c in game.state.player_hands()[1]][0] == (3, 4)  # White 5
    for number, action in enumerate(SEED_24_REVEALS):
        game.step({number % 2: action})
    asked = ladder_questions(game.seat_view(0), 0, ask=3)
    truth = {(q.order, kind_of(q.question)): q.truth for q in asked}
    assert "Do you know the colour of your Card 3?" in [q.question for q in asked]
    # Alice sees Bob's White 5, the only one: her Card 3 is Blue, and she knows it
    assert truth["introspection", "colour"] is True
    # Bob never had a reveal on his White 5: he cannot count it, so he cannot know she knows
    assert truth["second_order", "colour"] is False
    # the rank was revealed to Alice: she knows it, and Bob, who gave the reveal, knows she does
    assert truth["introspection", "rank"] is True and truth["second_order", "rank"] is True


def kind_of(question: str) -> str:
    """Which clue kind a ladder question asks about."""
    return "colour" if "colour" in question else "rank"


def test_every_card_and_both_clue_kinds_are_asked_over_an_episode() -> None:
    """``--tom-ladder 5``: asked at decisions 1, 6, 11, 16, 21, ...; the k-th ask is about
    Card k, colour and rank, so 21 decisions cover all five cards, each order both kinds."""
    script = RoleScript()
    agent, records, _ = play(
        script, partner=make_player("hanabi-convention", "hanabi"), tom_ladder=5
    )
    assert agent.stats()["decisions"] >= 21
    asked = {
        (r["order"], r["question"].split("Card ")[1][0], kind_of(r["question"]))
        for r in records
        if r.get("role") == "ladder"
    }
    assert asked == {
        (order, str(card), kind)
        for order in ("introspection", "first_order", "second_order")
        for card in range(5)
        for kind in ("colour", "rank")
    }


def test_the_ladder_does_not_change_play() -> None:
    plain = RoleScript()
    _, _, without = play(plain, partner=make_player("hanabi-convention", "hanabi"))
    asked = RoleScript()
    agent, records, with_ladder = play(
        asked, partner=make_player("hanabi-convention", "hanabi"), tom_ladder=2
    )
    assert [s.decisions for s in with_ladder.steps] == [s.decisions for s in without.steps]
    decisions = agent.stats()["decisions"]
    assert asked.calls["ladder"] == 6 * ((decisions + 1) // 2)
    assert plain.calls["ladder"] == 0
    # nothing the ladder was told reaches a later call
    later = [r for r in records if r.get("kind") == "exchange" and r["role"] != "ladder"]
    assert not any("Does Bob know" in m["content"] for r in later for m in r["messages"])


@pytest.mark.parametrize(("game", "every"), [("collab_capture", 1), ("hanabi", -1)])
def test_the_ladder_is_refused_where_it_cannot_be_asked(game: str, every: int) -> None:
    with pytest.raises(ConfigError, match="tom_ladder|hidden information"):
        make_player("cac", game, model=ScriptedModel(RoleScript()), tom_ladder=every)
