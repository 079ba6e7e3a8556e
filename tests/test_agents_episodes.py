"""Every agent plays complete episodes of all four games: offline models and over HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.games import make_game, make_player, play_episode, replay
from coordqa.games.base import PLAYERS, Player
from coordqa.llm import CallPolicy, Model, ScriptedModel, get_model
from coordqa.llm.testing import LocalOpenAIServer

GAMES: dict[str, dict[str, Any]] = {
    "hanabi": {},
    "overcooked": {"horizon": 40},
    "collab_capture": {},
    "collab_escape": {},
}
AGENTS = ("llm", "cac", "hm")


def play(game: str, players: list[Player], seed: int = 3) -> Any:
    built = make_game(game, None, seed, **GAMES[game])
    return asyncio.run(play_episode(built, players, seed))


def test_agents_are_registered_for_every_game() -> None:
    for agent in AGENTS:
        spec = PLAYERS.get(agent)
        # every registered game, plugins included: the agents read only the seat view
        assert spec.kind == "llm" and all(spec.plays(game) for game in GAMES)
        assert spec.plays("a-plugin-game")


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("agent", AGENTS)
def test_self_play_with_the_scripted_model(agent: str, game: str) -> None:
    records: list[dict[str, Any]] = []
    model = get_model("scripted")
    players = [
        make_player(agent, game, model=model, recorder=json_recorder(records)),
        make_player(agent, game, model=model),
    ]
    trajectory = play(game, players)
    replay(trajectory)  # the episode is a valid, complete game
    stats = players[0].stats()  # type: ignore[attr-defined]
    asked = sum(1 for step in trajectory.steps if 0 in step.decisions)
    assert stats["decisions"] == asked > 0
    assert stats["fallbacks"] == 0  # the scripted model always answers in format
    exchanges = [r for r in records if r["kind"] == "exchange"]
    assert len(exchanges) == stats["llm_calls"]
    json.dumps(records)  # every record is JSON-able


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("agent", AGENTS)
def test_against_a_partner_with_a_role_script(agent: str, game: str) -> None:
    script = RoleScript(
        action="Explanation: second option.\nAction: B",
        plan="Plan: wait and see.",
        subgoals="Subgoals:\n1. wait\n2. Wait",
    )
    partner = {
        "hanabi": "hanabi-convention",
        "overcooked": "greedy_human",
        "collab_capture": "capture-greedy",
        "collab_escape": "escape-greedy",
    }[game]
    records: list[dict[str, Any]] = []
    agent_player = make_player(
        agent, game, model=ScriptedModel(script), recorder=json_recorder(records)
    )
    trajectory = play(game, [make_player(partner, game), agent_player])
    replay(trajectory)
    stats = agent_player.stats()  # type: ignore[attr-defined]
    assert stats["decisions"] > 0 and stats["fallbacks"] == 0
    assert sum(script.calls.values()) == stats["llm_calls"]
    if agent == "cac":
        assert script.calls["verifier"] == script.calls["action"] > 0
        # one ToM call per decision with a choice, except while the partner has not acted yet
        notes = [n for r in records if r["kind"] == "events" for n in r.get("notes", [])]
        skipped = sum(n.startswith("ToM skipped") for n in notes)
        assert script.calls["tom"] + skipped == stats["decisions"] - stats["forced"]
        assert script.calls["tom"] > 0
    if agent == "hm":
        assert stats["hypotheses_generated"] >= 1 and script.calls["predict"] >= 1


def fast_model(server: LocalOpenAIServer) -> Model:
    policy = CallPolicy(
        timeout_s=5.0, max_attempts=3, max_total_s=20.0, backoff_initial_s=0.0, backoff_max_s=0.0
    )
    return get_model("openai/agent-test", api_base=server.base_url, cache=None, policy=policy)


@pytest.mark.parametrize(
    ("game", "pair"),
    [
        ("hanabi", ("cac", "hm")),
        ("collab_escape", ("llm", "cac")),
        ("collab_capture", ("hm", "llm")),
        ("overcooked", ("hm", "cac")),
    ],
)
def test_agents_through_a_local_openai_server(
    openai_key: str, game: str, pair: tuple[str, str]
) -> None:
    script = RoleScript()
    with LocalOpenAIServer(responder=script.responder) as server:
        model = fast_model(server)
        records: list[dict[str, Any]] = []
        players = [make_player(a, game, model=model, recorder=json_recorder(records)) for a in pair]
        # Overcooked on separate halves: the first-option policy of the script would deadlock
        # two chefs in one room before HM ever sees its partner complete an object action
        options = {"horizon": 30} if game == "overcooked" else {}
        layout = "asymmetric_advantages" if game == "overcooked" else None
        built = make_game(game, layout, 3, **options)
        trajectory = asyncio.run(play_episode(built, players, 3))
        assert server.count == sum(script.calls.values())
    replay(trajectory)
    calls = [r for r in records if r["kind"] == "exchange"]
    assert len(calls) == server.count > 0
    # token counts come from the server (whitespace words) through litellm's usage
    assert all(r["usage"]["prompt_tokens"] > 0 and r["error"] is None for r in calls)
    for player in players:
        stats = player.stats()  # type: ignore[attr-defined]
        assert stats["prompt_tokens"] > 0 and stats["fallbacks"] == 0
    expected = {"llm": {"action"}, "cac": {"tom", "action", "verifier"}}
    expected["hm"] = {"hypothesis", "predict", "plan", "subgoals", "action"}
    assert {r["role"] for r in calls} == expected[pair[0]] | expected[pair[1]]
