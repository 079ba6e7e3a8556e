"""CAC and the shared action machinery: verifier cap, fallbacks, reprompts, verdicts, records."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.agents import CACAgent, fallback_action, parse_verdict, prompts
from coordqa.agentic.agents.memory import offered_options
from coordqa.agentic.records import parse_record
from coordqa.choices import MAX_OPTIONS
from coordqa.errors import ConfigError, ModelCallFailed, UnknownNameError
from coordqa.games import (
    GAMES,
    Game,
    Observation,
    game_profile,
    make_game,
    make_player,
    play_episode,
)
from coordqa.llm import Message, ScriptedModel
from coordqa.records import CallResult, exchange_type

NOT_OKAY = "Playing an unknown card may lose a life.\nVerification: Not Okay"


def decide_once(agent: Any, game: Game, player: int = 0) -> str:
    agent.reset(game.seat_view(player), player, seed=0)
    observation = Observation.of(game, player)
    return str(asyncio.run(agent.act(observation)))


def hanabi_after_alice(seed: int = 5) -> Game:
    """A Hanabi game in which Alice has made her first move (a reveal): Bob is on turn."""
    game = make_game("hanabi", seed=seed)
    game.step({0: "Reveal Bob's rank 1 cards"})
    return game


def cac(script: RoleScript, game: str = "hanabi", **options: Any) -> tuple[CACAgent, list[dict]]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac", game, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    assert isinstance(agent, CACAgent)
    return agent, records


@pytest.mark.parametrize("retries", [0, 1, 2, 4])
def test_a_verifier_that_always_rejects_ends_at_the_cap(retries: int) -> None:
    script = RoleScript(verifier=NOT_OKAY)
    agent, records = cac(script, max_verifier_retries=retries)
    game = hanabi_after_alice()
    legal = game.legal_actions(1)
    action = decide_once(agent, game, player=1)
    assert script.calls["action"] == script.calls["verifier"] == retries + 1
    assert script.calls["tom"] == 1
    rejected = legal[: retries + 1]  # "Action: A" each time, A's action removed after a rejection
    assert action not in rejected
    assert action == fallback_action("hanabi", [a for a in legal if a not in rejected])
    stats = agent.stats()
    assert stats["verifier_rejections"] == retries + 1
    assert stats["fallbacks"] == 1 and stats["fallback_reasons"] == {"verifier_cap": 1}
    events = [r for r in records if r["kind"] == "events"]
    assert len(events) == 1 and len(events[0]["verifier_rejections"]) == retries + 1
    assert events[0]["fallback"]["reason"] == "verifier_cap"


def test_rejected_actions_are_not_offered_again() -> None:
    verdicts = iter(["Verification: Not Okay", "Verification: Not Okay", "Verification: Okay"])
    script = RoleScript(verifier=lambda messages: next(verdicts))
    agent, records = cac(script, use_tom=False)
    game = make_game("hanabi", seed=5)
    legal = game.legal_actions(0)
    action = decide_once(agent, game)
    assert action == legal[2]  # "Action: A" each time, with A's action removed after rejection
    offered = [r["options"] for r in records if r["role"] == "action"]
    assert [len(o) for o in offered] == [len(legal), len(legal) - 1, len(legal) - 2]
    assert legal[0] not in offered[1] and legal[1] not in offered[2]
    proposals = [r["proposed_action"] for r in records if r["role"] == "verifier"]
    assert proposals == legal[:3]
    assert [r["verdict"] for r in records if r["role"] == "verifier"] == [
        "not_okay",
        "not_okay",
        "okay",
    ]
    # the next action prompt says what was rejected and why
    assert (
        "Rejected as unsafe or against the rules: " + legal[0]
        in (records[2]["messages"][-1]["content"])
    )
    assert agent.stats()["fallbacks"] == 0


def test_a_model_that_never_answers_in_format_falls_back() -> None:
    script = RoleScript(action="I am not sure what to do.", reprompt="Still thinking.")
    agent, records = cac(script, game="collab_escape")
    game = make_game("collab_escape", seed=1)
    action = decide_once(agent, game)
    assert action == "Wait"
    assert script.calls["action"] == script.calls["reprompt"] == 1
    assert script.calls["verifier"] == 0  # a fallback is safe by construction
    stats = agent.stats()
    assert stats["reprompts"] == 1 and stats["fallback_reasons"] == {"unreadable": 1}
    reprompt = next(r for r in records if r["role"] == "reprompt")
    assert reprompt["messages"][-2] == {"role": "assistant", "content": "I am not sure what to do."}
    assert "Action: <one letter>" in reprompt["messages"][-1]["content"]
    events = next(r for r in records if r["kind"] == "events")
    assert events["fallback"]["action"] == "Wait" and events["action"] == "Wait"


@pytest.mark.parametrize("agent_name", ["llm", "cac", "hm"])
def test_an_empty_action_reply_is_reprompted_then_falls_back_never_an_error(
    agent_name: str,
) -> None:
    """An empty reply is the model's, read like an unreadable one: one re-ask, then the safe
    fallback, with no error. No empty assistant turn is sent (Anthropic refuses one): the
    reminder joins the last user turn, so turns still alternate."""
    script = RoleScript(action="", reprompt=" \n")
    records: list[dict[str, Any]] = []
    model = ScriptedModel(script)
    agent = make_player(agent_name, "collab_escape", model=model, recorder=json_recorder(records))
    game = make_game("collab_escape", seed=1)
    assert decide_once(agent, game) == "Wait"
    stats = agent.stats()
    assert stats["errors"] == 0 and stats["reprompts"] == 1
    assert stats["fallback_reasons"] == {"unreadable": 1}
    action = next(r for r in records if r["role"] == "action")
    reprompt = next(r for r in records if r["role"] == "reprompt")
    assert action["text"] == "" and action["choice"]["method"] == "empty_reply"
    roles = [m["role"] for m in reprompt["messages"]]
    assert roles == [m["role"] for m in action["messages"]] and roles[-1] == "user"
    asked = reprompt["messages"][-1]["content"]
    assert asked.startswith(action["messages"][-1]["content"]) and "(it was empty)" in asked
    events = next(r for r in records if r["kind"] == "events")
    assert (
        events["fallback"]["reason"] == "unreadable"
        and "it was empty" in events["fallback"]["detail"]
    )


def test_an_empty_action_reply_can_be_recovered_by_the_reprompt() -> None:
    script = RoleScript(action="", reprompt="Action: B")
    agent, _records = cac(script, game="collab_escape", use_verifier=False, use_tom=False)
    game = make_game("collab_escape", seed=1)
    assert decide_once(agent, game) == game.legal_actions(0)[1]
    assert agent.stats()["fallbacks"] == 0 and agent.stats()["errors"] == 0


def test_the_reprompt_can_recover() -> None:
    script = RoleScript(action="Action: B or C", reprompt="Action: B")
    agent, records = cac(script, game="collab_escape", use_verifier=False, use_tom=False)
    game = make_game("collab_escape", seed=1)
    assert decide_once(agent, game) == game.legal_actions(0)[1]
    reprompt = next(r for r in records if r["role"] == "reprompt")
    assert "several actions: B, C" in reprompt["messages"][-1]["content"]
    assert agent.stats()["fallbacks"] == 0


def test_a_failed_model_call_fails_the_decision_and_is_no_fallback() -> None:
    """Issue 23: a model error is not the model's result, so no move may stand in for it."""

    def broken(messages: Sequence[Message]) -> str:
        raise ConnectionError("provider down")

    records: list[dict[str, Any]] = []
    model = ScriptedModel(broken)
    agent = make_player(
        "llm",
        "overcooked",
        model=model,
        recorder=json_recorder(records),
    )
    game = make_game("overcooked", seed=0, horizon=10)
    with pytest.raises(ModelCallFailed, match="provider down") as failed:
        decide_once(agent, game)
    assert failed.value.role == "action" and failed.value.kind == "failed"
    stats = agent.stats()  # type: ignore[attr-defined]
    assert stats["fallbacks"] == 0 and stats["errors"] == 1
    assert records[0]["error"] and records[0]["text"] is None  # the failed call is recorded


def test_missing_verdict_accepts_the_action_as_unverified() -> None:
    script = RoleScript(verifier="Looks fine to me.")
    agent, records = cac(script, use_tom=False)
    game = make_game("hanabi", seed=5)
    assert decide_once(agent, game) == game.legal_actions(0)[0]
    assert script.calls["verifier"] == 1
    assert agent.stats()["verifier_missing"] == 1
    assert next(r for r in records if r["role"] == "verifier")["verdict"] == "missing"


def test_the_papers_rule_rejects_a_missing_verdict_until_the_cap() -> None:
    """The authors' code accepts only a reply that says Okay: a verifier that never gives a
    verdict rejects every proposal, so with 2 re-asks there are 3 action and 3 verifier calls,
    then the safe fallback, exactly as with a verifier that always says Not Okay."""
    script = RoleScript(verifier="Looks fine to me.")
    agent, records = cac(script, missing_verdict="reject", max_verifier_retries=2)
    game = hanabi_after_alice()
    legal = game.legal_actions(1)
    action = decide_once(agent, game, player=1)
    assert script.calls["action"] == script.calls["verifier"] == 3
    assert action == fallback_action("hanabi", legal[3:])
    stats = agent.stats()
    assert stats["verifier_missing"] == stats["verifier_rejections"] == 3
    assert stats["fallback_reasons"] == {"verifier_cap": 1}
    events = next(r for r in records if r["kind"] == "events")
    assert all("no verdict" in r["reason"] for r in events["verifier_rejections"])


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Safe.\nVerification: Okay", "okay"),
        ("Unsafe.\nVerification: Not Okay", "not_okay"),
        ("**Verification:** not okay.", "not_okay"),
        ("verification: NOT OK", "not_okay"),
        ("Verification: Okay\nOn second thought...\nVerification: Not Okay", "not_okay"),
        ("Verification - Okay.", "okay"),
        ("This is Not Okay.", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_verdict(text: str | None, verdict: str | None) -> None:
    assert parse_verdict(text) == verdict


@pytest.mark.parametrize(
    ("options", "roles"),
    [
        ({"use_tom": False, "use_verifier": False}, {"action": 1}),
        ({"use_tom": False}, {"action": 1, "verifier": 1}),
        ({}, {"tom": 1, "action": 1, "verifier": 1}),
    ],
)
def test_ablation_switches(options: dict[str, Any], roles: dict[str, int]) -> None:
    script = RoleScript()
    agent, _ = cac(script, "hanabi", **options)
    decide_once(agent, hanabi_after_alice(), player=1)
    assert dict(script.calls) == roles
    assert agent.stats()["calls_by_role"] == roles


def test_tom_note_joins_the_working_memory() -> None:
    script = RoleScript(
        tom="Partner Action Explanation: Bob hinted my red card.\nClue Suggestion: reveal 1s."
    )
    agent, records = cac(script, use_verifier=False)
    decide_once(agent, hanabi_after_alice(), player=1)
    tom, action = records[0], records[1]
    assert tom["role"] == "tom" and "Clue Suggestion:" in tom["messages"][0]["content"]
    assert "Alice's last action was: Reveal Bob's rank 1 cards." in tom["messages"][-1]["content"]
    assert "Clue Suggestion: reveal 1s." in action["messages"][-1]["content"]


def test_every_exchange_is_recorded_with_its_fields() -> None:
    script = RoleScript()
    records: list[dict[str, Any]] = []
    model = ScriptedModel(script)
    players = [
        make_player("cac", "collab_capture", model=model, recorder=json_recorder(records)),
        make_player("capture-greedy", "collab_capture"),
    ]
    game = make_game("collab_capture")
    asyncio.run(play_episode(game, players, seed=0))
    exchanges = [r for r in records if r["kind"] == "exchange"]
    assert len(exchanges) == sum(script.calls.values())
    required = {
        "role",
        "decision",
        "turn",
        "messages",
        "text",
        "error",
        "usage",
        "latency_s",
        "cached",
        "attempts",
    }
    assert all(required <= set(r) for r in exchanges)
    # the same call shape as a QA call (flags such as truncated are written only when set), and
    # every record reads back as its type
    shape = set(CallResult(text="A").to_json())
    assert "truncated" not in shape and all(shape <= set(r) for r in exchanges)
    assert all(type(parse_record(r)) is exchange_type(r["role"]) for r in exchanges)
    assert {r["role"] for r in exchanges} == {"tom", "action", "verifier"}
    events = [r for r in records if r["kind"] == "events"]
    stats = players[0].stats()  # type: ignore[attr-defined]
    assert len(events) == stats["decisions"]
    assert [e["decision"] for e in events] == list(range(1, stats["decisions"] + 1))
    assert [e["turn"] for e in events] == list(range(stats["decisions"]))


def test_unknown_and_invalid_options() -> None:
    model = ScriptedModel(RoleScript())
    with pytest.raises(ConfigError, match="use_tom, use_verifier"):
        make_player("cac", "hanabi", model=model, use_tomm=True)
    with pytest.raises(ConfigError, match="max_verifier_retries"):
        make_player("cac", "hanabi", model=model, max_verifier_retries=-1)
    with pytest.raises(ConfigError, match="takes no options, got .use_tom."):
        make_player("llm", "hanabi", model=model, use_tom=True)


def test_fallback_actions_per_game() -> None:
    hanabi = ["Play my Card 0", "Reveal Bob's Red color cards", "Reveal Bob's rank 1 cards"]
    assert fallback_action("hanabi", hanabi) == "Reveal Bob's Red color cards"
    assert fallback_action("collab_capture", ["Move to Room 2", "Wait"]) == "Wait"
    # no legal action has a safe prefix: the first legal action
    assert fallback_action("hanabi", ["Play my Card 3", "Play my Card 0"]) == "Play my Card 3"
    with pytest.raises(UnknownNameError, match="unknown game 'unknown'"):
        fallback_action("unknown", ["x", "y"])


def test_more_actions_than_letters_keep_the_safe_one() -> None:
    legal = [f"place onion on k{i}" for i in range(30)] + ["wait", "move away"]
    offered = offered_options("overcooked", legal)
    assert len(offered) == MAX_OPTIONS and offered[-1] == "wait"
    assert offered[:-1] == legal[: MAX_OPTIONS - 1]


@pytest.mark.parametrize("game", ["hanabi", "overcooked", "collab_capture", "collab_escape"])
def test_the_action_call_is_asked_with_the_games_own_jp_wording(game: str) -> None:
    """The action directive is the game's JP directive, unedited (it states the game's timing);
    the paper's answer-only one takes the clause of the game's own ``turn_based``."""
    cls = GAMES.get(game)
    asked = prompts.action_directive(game, cls.turn_based, answer_only=False)
    assert asked == game_profile(game).qa_directives["JP"]
    answer_only = prompts.action_directive(game, cls.turn_based, answer_only=True)
    clause = "on their next turn" if game == "hanabi" else "at the same time"
    assert f"likely to do {clause}." in asked and f"likely to do {clause}." in answer_only
