"""The explicit belief state (``belief_state``): one update per decision, shown, stored, checked.

Truths come from the engines' own state (rooms, held objects, the Hanabi engine's hint
knowledge), read by the test when the belief is asked for.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.agents.belief import MAX_BELIEF_CHARS
from coordqa.games import Game, make_game, make_player, play_episode
from coordqa.games.hanabi.engine import COLORS, RANKS
from coordqa.games.hanabi.knowledge import hand_knowledge
from coordqa.llm import Message, ScriptedModel

PARTNERS = {
    "collab_capture": "capture-greedy",
    "collab_escape": "escape-greedy",
    "hanabi": "hanabi-convention",
    "overcooked": "greedy_human",
}


def play(
    agent_name: str, game: Game, script: RoleScript, seed: int = 2, **options: Any
) -> tuple[Any, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        agent_name,
        game.name,
        model=ScriptedModel(script),
        recorder=json_recorder(records),
        **options,
    )
    partner = make_player(PARTNERS[game.name], game.name)
    asyncio.run(play_episode(game, [agent, partner], seed=seed))
    return agent, records


def rooms_belief(game: Game, other: str, wrong: bool = False) -> Any:
    def reply(messages: Sequence[Message]) -> str:
        state: Any = game.state
        bob, rival = (99, 99) if wrong else (state.bob, getattr(state, other))
        return f"Bob's room: {bob}\nThe {other}'s room: {rival}\nNotes: keep going."

    return reply


@pytest.mark.parametrize("agent", ["cac", "hm"])
@pytest.mark.parametrize(
    ("game_name", "other"), [("collab_capture", "thief"), ("collab_escape", "killer")]
)
def test_a_true_belief_scores_one_and_a_false_one_zero(
    agent: str, game_name: str, other: str
) -> None:
    for wrong, accuracy in ((False, 1.0), (True, 0.0)):
        game = make_game(game_name, seed=2)
        script = RoleScript(belief=rooms_belief(game, other, wrong))
        player, records = play(agent, game, script, belief_state=True)
        stats = player.stats()
        updates = script.calls["belief"]
        assert updates == stats["belief_updates"] == stats["decisions"] - stats["forced"] > 0
        assert stats["belief_facts"] == 2 * updates
        assert stats["belief_accuracy"] == accuracy


def test_the_belief_is_shown_to_later_calls_and_stored_per_update() -> None:
    game = make_game("collab_capture", seed=2)
    texts = iter(f"Bob's room: {n}\nThe thief's room: 0\nNotes: update {n}." for n in range(99))
    script = RoleScript(belief=lambda messages: next(texts))
    _, records = play("cac", game, script, belief_state=True)
    exchanges = [r for r in records if r["kind"] == "exchange"]
    beliefs = [r for r in exchanges if r["role"] == "belief"]
    assert [r["belief"] for r in beliefs][:2] == [
        "Bob's room: 0\nThe thief's room: 0\nNotes: update 0.",
        "Bob's room: 1\nThe thief's room: 0\nNotes: update 1.",
    ]
    assert all(len(r["belief_checks"]) == 2 for r in beliefs)
    # each action call after an update shows that update's text; the first belief call shows none
    assert "My belief state:" not in beliefs[0]["messages"][-1]["content"]
    assert "Notes: update 0." in beliefs[1]["messages"][-1]["content"]
    latest = None
    for record in exchanges:
        if record["role"] == "belief":
            latest = record["belief"]
        elif record["role"] == "action":
            assert f"My belief state:\n{latest}" in record["messages"][-1]["content"]


def test_without_the_option_no_belief_call_is_made() -> None:
    script = RoleScript()
    agent, _ = play("cac", make_game("collab_capture", seed=2), script)
    assert script.calls["belief"] == 0 and agent.stats()["belief_accuracy"] is None


def _knowledge_lines(game: Any) -> tuple[str, int]:
    """The truthful Hanabi belief for Alice (seat 0), and how many of Bob's cards are unclued."""
    _, bobs = hand_knowledge(game.state, 0)
    lines, blank = [], 0
    for index, card in enumerate(bobs):
        # known: the engine leaves one plausible value
        colour = COLORS[card.colors[0]] if len(card.colors) == 1 else "?"
        rank = str(RANKS[card.ranks[0]]) if len(card.ranks) == 1 else "?"
        lines.append(f"Bob knows of his Card {index}: {colour} {rank}")
        blank += colour == "?" and rank == "?"
    return "\n".join(lines), blank


def first_reveal(messages: Sequence[Message]) -> str:
    """The action call's answer: the first lettered reveal (so the partner gets clued)."""
    lines = messages[-1].content.splitlines()
    reveal = next((line for line in lines if re.match(r"^[A-Z]\. Reveal", line)), "A.")
    return f"Action: {reveal[0]}"


def test_hanabi_belief_of_what_the_partner_knows_is_checked_card_by_card() -> None:
    game = make_game("hanabi", seed=4)
    script = RoleScript(belief=lambda messages: _knowledge_lines(game)[0])
    agent, _ = play("cac", game, script, seed=4, belief_state=True, use_tom=False)
    assert agent.stats()["belief_accuracy"] == 1.0

    game = make_game("hanabi", seed=4)
    blanks: list[int] = []

    def knows_nothing(messages: Sequence[Message]) -> str:
        blanks.append(_knowledge_lines(game)[1])
        return "\n".join(f"Bob knows of his Card {i}: ? ?" for i in range(5))

    script = RoleScript(belief=knows_nothing, action=first_reveal)
    agent, _ = play("cac", game, script, seed=4, belief_state=True, use_tom=False)
    stats = agent.stats()
    assert stats["belief_facts"] == 5 * len(blanks)
    assert stats["belief_correct"] == sum(blanks)
    assert sum(blanks) < stats["belief_facts"]  # the partner was clued: not every card is blank


def test_overcooked_belief_of_the_partners_held_object() -> None:
    game = make_game("overcooked", "cramped_room", seed=1, horizon=12)

    def holds(messages: Sequence[Message]) -> str:
        held = game.state.players[1].held_object
        return f"Bob holds: {'nothing' if held is None else held.name}"

    agent, _ = play("cac", game, RoleScript(belief=holds), seed=1, belief_state=True)
    assert agent.stats()["belief_accuracy"] == 1.0
    game = make_game("overcooked", "cramped_room", seed=1, horizon=12)
    agent, _ = play(
        "cac", game, RoleScript(belief="Bob holds: a trumpet"), seed=1, belief_state=True
    )
    assert agent.stats()["belief_accuracy"] == 0.0


def test_a_long_belief_is_cut_to_its_bound() -> None:
    game = make_game("collab_capture", seed=2)
    long = "x" * MAX_BELIEF_CHARS  # each labelled line is cut to a section's bound first
    reply = f"Bob's room: {long}\nThe thief's room: {long}\nNotes: {long}"
    _, records = play("cac", game, RoleScript(belief=reply), belief_state=True)
    beliefs = [r["belief"] for r in records if r.get("role") == "belief"]
    assert beliefs and all(len(text) == MAX_BELIEF_CHARS for text in beliefs)


def test_overcooked_target_is_checked_only_while_the_partner_runs_an_action() -> None:
    game = make_game("overcooked", "cramped_room", seed=1, horizon=30)

    def truthful(messages: Sequence[Message]) -> str:
        held = game.state.players[1].held_object
        task = game.current_task(1)
        target = "none" if task is None or task.target is None else task.target
        holding = "nothing" if held is None else held.name
        return f"Bob holds: {holding}\nBob's target: {target}"

    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac",
        "overcooked",
        model=ScriptedModel(RoleScript(belief=truthful)),
        recorder=json_recorder(records),
        belief_state=True,
    )
    partner = make_player("planner", "overcooked")  # runs medium-level actions with targets
    asyncio.run(play_episode(game, [agent, partner], seed=1))
    stats = agent.stats()
    assert stats["belief_accuracy"] == 1.0
    assert stats["belief_updates"] < stats["belief_facts"] <= 2 * stats["belief_updates"]
    # against a partner that moves by primitives, only the held object is ever checked
    game = make_game("overcooked", "cramped_room", seed=1, horizon=30)
    agent, _ = play("cac", game, RoleScript(belief=truthful), seed=1, belief_state=True)
    assert agent.stats()["belief_facts"] == agent.stats()["belief_updates"]
