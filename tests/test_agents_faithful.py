"""What the models see and what is stored: the defects of issue 16, each checked on real episodes.

Expectations come from the rules the issue states (records equal their parse, partner actions in
the third person, no ToM before the partner acts, failures explained, each history line once,
the verifier shown action text, no game-specific words where they do not belong).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.agents import parse_verdict
from coordqa.agentic.agents.belief import MAX_BELIEF_CHARS
from coordqa.agentic.agents.memory import memory_text
from coordqa.agentic.agents.replies import labelled_lines, section, subgoals
from coordqa.choices import choose
from coordqa.directives import format_labels
from coordqa.games import Game, Observation, make_game, make_player, play_episode
from coordqa.games.base import PLAYER_NAMES
from coordqa.llm import ScriptedModel


def reparse(record: dict[str, Any]) -> dict[str, Any]:
    """The fields a record should hold, parsed again from its stored reply (by role)."""
    reply = record["text"]
    role = record["role"]
    if role in ("action", "reprompt", "predict", "partner_predict", "partner_belief", "ladder"):
        # an action is the acting seat's own: its name-labelled line answers, not the partner's
        speaker = PLAYER_NAMES[record["player"]] if role in ("action", "reprompt") else None
        choice = choose(reply or "", record["options"], speaker=speaker)
        return {"choice": choice.to_dict()}
    if role == "belief":
        labels = format_labels(record["messages"][0]["content"])
        return {"belief": (labelled_lines(reply, labels) or "")[:MAX_BELIEF_CHARS]}
    if role == "reflection":
        return {"reflection": section(reply, "reflection") or ""}
    if role == "verifier":
        return {"verdict": parse_verdict(reply) or "missing"}
    if role == "hypothesis":
        return {"hypothesis": section(reply, "hypothesis")}
    if role == "plan":
        return {"plan": section(reply, "plan"), "subgoals": []}
    if role in ("subgoals", "react"):
        return {"subgoals": subgoals(reply)}
    return {}


def episode_records(agent: str, game: str, script: RoleScript, **options: Any) -> list[dict]:
    records: list[dict[str, Any]] = []
    partner = {"collab_capture": "capture-greedy", "hanabi": "hanabi-convention"}[game]
    players = [
        make_player(
            agent, game, model=ScriptedModel(script), recorder=json_recorder(records), **options
        ),
        make_player(partner, game),
    ]
    asyncio.run(play_episode(make_game(game, seed=2), players, seed=2))
    return records


def test_every_stored_exchange_equals_what_was_parsed_from_its_reply() -> None:
    # a plan of three subgoals: the agent pops them one by one as it plays them
    goals = "Subgoals:\n1. Wait\n2. Wait\n3. Wait"
    script = RoleScript(plan="Plan: chase.", subgoals=goals)
    records = episode_records("hm", "collab_capture", script)
    records += episode_records("cac", "hanabi", RoleScript())
    records += episode_records(
        "cac", "hanabi", RoleScript(), tom_level=2, belief_state=True, tom_ladder=2
    )
    script = RoleScript(plan="Plan: chase.", subgoals=goals)
    records += episode_records("hm", "collab_capture", script, self_reflection=True)
    exchanges = [r for r in records if r["kind"] == "exchange"]
    listed = [r for r in exchanges if r["role"] == "subgoals"]
    assert listed and all(r["subgoals"] == ["Wait", "Wait", "Wait"] for r in listed)
    assert all(r["plan"] == "chase." for r in listed)
    roles = {r["role"] for r in exchanges}
    assert {"plan", "subgoals", "hypothesis", "predict", "action", "verifier"} <= roles
    assert {"partner_predict", "partner_belief", "belief", "ladder", "reflection"} <= roles
    for record in exchanges:
        expected = reparse(record)
        assert {key: record[key] for key in expected} == expected, record["role"]


_OFFERED = re.compile(r"^([A-Z])\. (.+)$", re.MULTILINE)


def _plan_for_both(messages: list[Any]) -> str:
    """A reply that gives both players a line: Bob the first offered option, Alice the last."""
    offered = [text for _, text in _OFFERED.findall(messages[-1].content)]
    return f"Bob: {offered[0]}\nAlice: {offered[-1]}"


def test_an_action_reply_for_both_players_is_read_for_the_acting_seat() -> None:
    records = episode_records("cac", "collab_capture", RoleScript(action=_plan_for_both))
    actions = [r for r in records if r["kind"] == "exchange" and r["role"] == "action"]
    several = [r for r in actions if len(r["options"]) > 1]
    assert several, "the episode offered no choice between actions"
    for record in several:  # the agent plays seat 0, Alice: her line, the last option, is chosen
        assert record["player"] == 0
        assert record["choice"]["index"] == len(record["options"]) - 1, record["text"]


def test_records_carry_the_agent_version() -> None:
    records = episode_records("cac", "hanabi", RoleScript())
    assert {r["agent_version"] for r in records} == {"cac-v7"}


def decide(agent: Any, game: Game, player: int) -> str:
    agent.reset(game.seat_view(player), player, seed=0)
    return str(asyncio.run(agent.act(Observation.of(game, player))))


def cac_records(game: Game, player: int, script: RoleScript, **options: Any) -> list[dict]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac", game.name, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    decide(agent, game, player)
    return [r for r in records if r["kind"] == "exchange"]


def test_the_partner_action_is_shown_in_the_third_person() -> None:
    game = make_game("hanabi", seed=5)
    game.step({0: "Reveal Bob's rank 1 cards"})
    game.step({1: "Play my Card 0"})  # Bob's words: his own card
    exchanges = cac_records(game, 0, RoleScript())
    tom = next(r for r in exchanges if r["role"] == "tom")
    assert "Bob's last action was: Play his Card 0." in tom["messages"][-1]["content"]
    for record in exchanges:
        for message in record["messages"]:
            assert not re.search(r"Bob's last action[^\n]*\bmy\b", message["content"], re.I)


def test_no_theory_of_mind_call_before_the_partner_has_acted() -> None:
    script = RoleScript()
    exchanges = cac_records(make_game("hanabi", seed=5), 0, script)
    assert script.calls["tom"] == 0 and "tom" not in {r["role"] for r in exchanges}
    assert script.calls["action"] == 1


@pytest.mark.parametrize(
    ("game_name", "moves"),
    [
        ("hanabi", [{0: "Reveal Bob's rank 1 cards"}, {1: "Play my Card 0"}]),
        ("collab_capture", [{0: "Wait", 1: "Wait"}]),
        ("collab_escape", [{0: "Wait", 1: "Wait"}]),
        ("overcooked", [{0: "pick up onion from o0", 1: "wait"}]),
    ],
)
def test_each_history_line_is_shown_once(game_name: str, moves: list[dict[int, str]]) -> None:
    game = make_game(game_name, seed=1)
    for step in moves:
        while not set(step) <= set(game.players_to_act()):
            game.step({p: "wait" for p in game.players_to_act()})
        game.step(step)
    text = memory_text(game.seat_view(0), 0).lower()
    assert len(re.findall(r"my (action history|recent actions)", text)) == 1
    assert len(re.findall(r"bob's last action", text)) == 1


def test_a_failed_action_is_explained_next_time_and_repeats_are_counted() -> None:
    # two first-option agents in one small kitchen both go for o0 and block each other
    records: list[dict[str, Any]] = []
    model = ScriptedModel(RoleScript())
    players = [make_player("llm", "overcooked", model=model, recorder=json_recorder(records))] + [
        make_player("llm", "overcooked", model=model)
    ]
    game = make_game("overcooked", "cramped_room", 3, horizon=30)
    trajectory = asyncio.run(play_episode(game, players, seed=3))
    failed = [step.failed[0] for step in trajectory.steps if 0 in step.failed]
    assert failed, "the set-up should make Alice's action fail"
    events = [r for r in records if r["kind"] == "events"]
    explained = [e["failed_actions"][0] for e in events if e.get("failed_actions")]
    assert [x["action"] for x in explained] == failed[: len(explained)] and explained
    reason = explained[0]["reason"]
    assert reason
    after = next(
        r
        for r in records
        if r["kind"] == "exchange" and r["decision"] == explained_decision(events)
    )
    expected = f"My last action, {explained[0]['action']!r}, could not be completed: {reason}."
    assert expected in after["messages"][-1]["content"]
    stats = players[0].stats()  # type: ignore[attr-defined]
    assert stats["failed_actions"] == len(failed)
    repeated = sum(bool(e.get("repeated")) for e in events)
    assert stats["repeated_decisions"] == repeated > 0


def explained_decision(events: list[dict[str, Any]]) -> int:
    """The decision whose events record first carries a failed action (it was told then)."""
    return int(next(e["decision"] for e in events if e.get("failed_actions")))


def test_the_verifier_sees_the_action_text_not_a_letter() -> None:
    exchanges = cac_records(make_game("collab_escape", seed=1), 0, RoleScript(), use_tom=False)
    action = next(r for r in exchanges if r["role"] == "action")
    verifier = next(r for r in exchanges if r["role"] == "verifier")
    question = verifier["messages"][-1]["content"]
    assert f"Proposed action: {action['options'][0]}" in question  # "Action: A" -> option A
    reason = question.split("Reason given:", 1)[1]
    assert "Action:" not in reason and "the first action is fine" in reason


def test_game_specific_words_stay_in_their_game() -> None:
    def prompts(game: Game, player: int) -> dict[str, str]:
        exchanges = cac_records(game, player, RoleScript(), use_tom=False)
        return {r["role"]: r["messages"][0]["content"] for r in exchanges}

    hanabi = make_game("hanabi", seed=5)
    hanabi.step({0: "Reveal Bob's rank 1 cards"})
    in_hanabi = prompts(hanabi, 1)
    in_overcooked = prompts(make_game("overcooked", seed=0, horizon=10), 0)
    assert "one life left" in in_hanabi["verifier"]
    assert "life" not in in_overcooked["verifier"] and "card" not in in_overcooked["verifier"]
    # Hanabi is played in turns: the partner does not act "at the same time"
    assert "at the same time" not in in_hanabi["action"]
    assert "on their next turn" in in_hanabi["action"]
    assert "at the same time" in in_overcooked["action"]
