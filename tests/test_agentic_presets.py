"""Presets (coordqa / paper), grid options, per-model endpoints and the registered grids."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.grid import parse_grid, parse_grid as parse
from coordqa.agentic.grid_registry import get_grid, grid_document, missing_tasks, registered_grids
from coordqa.agentic.runner import run_grid
from coordqa.errors import ConfigError, UnknownNameError
from coordqa.games import Observation, make_game, make_player
from coordqa.games.hanabi.conventions import PAPER_CONVENTIONS
from coordqa.llm import ScriptedModel
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.store import open_run

ALL_GAMES = [
    {"game": "overcooked", "layouts": ["cramped_room"], "seeds": [0]},
    {"game": "hanabi", "seeds": [1]},
    {"game": "collab_capture", "seeds": [0]},
    {"game": "collab_escape", "seeds": [0]},
]


def by_game(grid: dict[str, Any]) -> dict[str, Any]:
    return {spec.game: spec for spec in parse_grid(grid).episodes()}


def test_paper_preset_sets_the_papers_calls_and_sampling_per_game() -> None:
    specs = by_game({"agents": ["cac"], "models": ["m"], "preset": "paper", "games": ALL_GAMES})
    # the LLM-Coordination code: Hanabi CAC with ToM and an uncapped verifier that accepts only
    # a reply saying Okay (top_p 1.0); Overcooked and Collab Capture one action call; Collab
    # Escape ToM without the verifier
    assert specs["hanabi"].agent_options == {
        "use_tom": True,
        "use_verifier": True,
        "max_verifier_retries": None,
        "missing_verdict": "reject",
    }
    assert specs["hanabi"].generate == {"temperature": 0.6, "top_p": 1.0}
    assert specs["overcooked"].agent_options == {"use_tom": False, "use_verifier": False}
    assert specs["collab_capture"].agent_options == {"use_tom": False, "use_verifier": False}
    assert specs["collab_escape"].agent_options == {"use_tom": True, "use_verifier": False}
    for game in ("overcooked", "collab_capture", "collab_escape"):
        assert specs[game].generate == {"temperature": 0.6, "top_p": 0.9}
    assert {spec.preset for spec in specs.values()} == {"paper"}


def test_the_coordqa_preset_is_the_default_and_sets_nothing() -> None:
    specs = by_game({"agents": ["cac"], "models": ["m"], "games": ALL_GAMES})
    assert all(
        s.preset == "coordqa" and not s.agent_options and not s.generate for s in specs.values()
    )
    with pytest.raises(ConfigError, match="presets: coordqa, paper, hm-paper"):
        parse_grid({"agents": ["cac"], "preset": "papr", "games": ALL_GAMES})


@pytest.mark.parametrize(
    ("model", "temperature"),
    [
        ("openai/gpt-4-turbo", 0.1),  # the paper: GPT-4 at 0.1
        ("openai/gpt-4o", 0.1),
        ("openai/gpt-3.5-turbo", 0.2),  # GPT-3.5 and Llama-3 at 0.2
        ("hosted_vllm/meta-llama/Meta-Llama-3-70B-Instruct", 0.2),
        ("anthropic/claude-3-5-sonnet-20240620", 0.2),  # no family of the paper: 0.2
    ],
)
def test_hm_paper_preset_samples_as_the_paper_did_for_each_model(
    model: str, temperature: float
) -> None:
    grid = {"agents": ["hm", "react"], "models": [model], "preset": "hm-paper", "games": ALL_GAMES}
    specs = parse_grid(grid).episodes()
    assert {spec.preset for spec in specs} == {"hm-paper"}
    assert all(spec.generate == {"temperature": temperature, "top_p": 1.0} for spec in specs)
    # sampling, and the cooking agent's self-reflection (D.6) for HM in Overcooked
    reflecting = {(spec.game, spec.agent) for spec in specs if spec.agent_options}
    assert reflecting == {("overcooked", "hm")}
    assert all(
        spec.agent_options == {"self_reflection": True} for spec in specs if spec.agent_options
    )
    override = parse_grid({**grid, "generate": {"temperature": 0.7}}).episodes()
    assert {spec.generate["temperature"] for spec in override} == {0.7}


def test_user_options_override_the_preset_and_game_entries_override_the_grid() -> None:
    games = [dict(ALL_GAMES[1], agent_options={"cac": {"max_verifier_retries": 3}}), ALL_GAMES[3]]
    specs = by_game(
        {
            "agents": ["cac"],
            "models": ["m"],
            "preset": "paper",
            "games": games,
            "agent_options": {"cac": {"use_tom": False, "max_verifier_retries": 1}},
            "generate": {"temperature": 0.2, "max_tokens": 64, "seed": 5},
        }
    )
    assert specs["hanabi"].agent_options == {
        "use_tom": False,
        "use_verifier": True,
        "max_verifier_retries": 3,
        "missing_verdict": "reject",
    }
    assert specs["collab_escape"].agent_options == {
        "use_tom": False,
        "use_verifier": False,
        "max_verifier_retries": 1,
    }
    assert specs["hanabi"].generate == {
        "temperature": 0.2,
        "top_p": 1.0,
        "max_tokens": 64,
        "seed": 5,
    }


def test_episodes_is_a_number_of_seeds_and_excludes_seeds() -> None:
    specs = parse_grid(
        {"agents": ["capture-planner"], "games": [{"game": "collab_capture", "episodes": 3}]}
    ).episodes()
    assert [s.seed for s in specs] == [0, 1, 2]
    with pytest.raises(ConfigError, match="seeds or episodes, not both"):
        parse_grid({"agents": ["cac"], "games": [{"game": "hanabi", "seeds": [1], "episodes": 2}]})


def prompts_of(game_name: str, preset: str, player: int = 0, **game_options: Any) -> list[dict]:
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac",
        game_name,
        model=ScriptedModel(RoleScript()),
        recorder=json_recorder(records),
        preset=preset,
        use_tom=False,
        use_verifier=False,
    )
    game = make_game(game_name, seed=1, **game_options)
    if game_name == "hanabi":
        game.step({0: "Reveal Bob's rank 1 cards"})
        player = 1
    if game_name == "collab_capture":
        game.step({0: "Wait", 1: "Wait"})
    agent.reset(game.seat_view(player), player, seed=0)
    asyncio.run(agent.act(Observation.of(game, player)))
    return [r for r in records if r["kind"] == "exchange"]


def test_paper_overcooked_prompt_asks_for_the_action_alone_with_the_layout() -> None:
    (paper,) = prompts_of("overcooked", "paper", horizon=10)
    (ours,) = prompts_of("overcooked", "coordqa", horizon=10)
    assert "Do not explain" in paper["messages"][0]["content"]
    assert "Explanation:" not in paper["messages"][0]["content"]
    assert "Explanation:" in ours["messages"][0]["content"]
    # the layout of cramped_room: one room, every object in reach of both chefs
    assert "Layout (cramped_room): one open kitchen" in paper["messages"][1]["content"]
    assert "Layout (" not in ours["messages"][1]["content"]


def test_forced_coordination_layout_description_splits_the_kitchen() -> None:
    from coordqa.games.overcooked.paper import layout_description

    text = layout_description(make_game("overcooked", "forced_coordination").seat_view(0))
    # Bob's side has the onions and plates, Alice's the cookers and delivery: they must pass
    assert "split into two parts" in text
    alice, bob = text.split("Alice's part has ")[1].split("Bob's part has ")
    assert "cookers c0, c1" in alice and "delivery locations d0" in alice
    assert "onion dispensers o0, o1" in bob and "plate dispensers p0" in bob
    assert "Both parts reach shared counters s0, s1, s2" in text


def test_paper_hanabi_conventions_have_no_chop_and_play_with_fear() -> None:
    (paper,) = prompts_of("hanabi", "paper")
    (ours,) = prompts_of("hanabi", "coordqa")
    rules = paper["messages"][1]["content"]
    assert PAPER_CONVENTIONS in rules and "chop" not in rules.lower()
    assert "2 or 3 lives left you may play" in rules
    assert "chop" in ours["messages"][1]["content"].lower()


def test_paper_collab_capture_call_is_stateless() -> None:
    (paper,) = prompts_of("collab_capture", "paper")
    (ours,) = prompts_of("collab_capture", "coordqa")
    state = paper["messages"][-1]["content"].lower()
    assert "recent actions" not in state and "bob's last action" not in state
    assert "the thief is in room" in state
    assert "bob's last action" in ours["messages"][-1]["content"].lower()


def test_uncapped_verifier_re_asks_until_every_action_is_rejected() -> None:
    script = RoleScript(verifier="Unsafe.\nVerification: Not Okay")
    records: list[dict[str, Any]] = []
    agent = make_player(
        "cac",
        "collab_escape",
        model=ScriptedModel(script),
        recorder=json_recorder(records),
        use_tom=False,
        max_verifier_retries=None,
    )
    game = make_game("collab_escape", seed=1)
    legal = game.legal_actions(0)
    agent.reset(game.seat_view(0), 0, seed=0)
    action = asyncio.run(agent.act(Observation.of(game, 0)))
    assert script.calls["action"] == script.calls["verifier"] == len(legal)
    events = next(r for r in records if r["kind"] == "events")
    assert events["fallback"]["note"] == "every legal action was to be avoided"
    assert action == "Wait"


def test_each_model_calls_its_own_endpoint(openai_key: str, tmp_path: Path) -> None:
    with (
        LocalOpenAIServer(responder=RoleScript().responder) as first,
        LocalOpenAIServer(responder=RoleScript().responder) as second,
    ):
        grid = parse_grid(
            {
                "agents": ["llm"],
                "models": [
                    {"name": "openai/one", "api_base": first.base_url},
                    "openai/two",
                ],
                "api_base": second.base_url,
                "partners": ["capture-greedy"],
                "games": [{"game": "collab_capture", "seeds": [0]}],
                "runtime": {"max_attempts": 1},
            }
        )
        assert grid.api_base_for("openai/one") == first.base_url
        assert grid.api_base_for("openai/two") == second.base_url
        result = run_grid(grid, tmp_path / "run")
        calls = {
            e.spec.model: sum(x.kind == "exchange" for x in e.exchanges) for e in result.played
        }
        assert result.complete and first.count == calls["openai/one"] > 0
        assert second.count == calls["openai/two"] > 0


# --- registered grids -------------------------------------------------------------------------


def test_registered_grids_are_versioned_and_fingerprinted() -> None:
    grids = registered_grids()
    assert {"paper", "smoke"} <= set(grids)
    paper = get_grid("paper")
    assert paper.version == 1 and paper.config.preset == "paper"
    assert len(paper.fingerprint) == 64
    tasks = paper.tasks()
    overcooked = [t for t in tasks if t.game == "overcooked"]
    # the proxy human of Table 4 is the HP (test-split) model, played from both seats
    assert {t.partner for t in overcooked} - {None} == {
        f"hp-{layout}" for layout in make_game("overcooked").layouts
    }
    assert {t.position for t in overcooked if t.partner} == {0, 1}
    hanabi = [t for t in tasks if t.game == "hanabi"]
    assert {t.partner for t in hanabi} == {None, "obl1", "obl4"}
    assert {t.seed for t in hanabi if t.partner} == {45, 114, 4788}
    assert all(t.preset == "paper" for t in tasks)


def test_a_grid_expands_to_episodes_that_cover_its_tasks() -> None:
    paper = get_grid("paper")
    specs = paper.episodes("cac", "openai/gpt-4o")
    assert {s.agent for s in specs} == {"cac"} and {s.model for s in specs} == {"openai/gpt-4o"}
    assert missing_tasks(paper, specs) == []
    partial = [s for s in specs if s.game != "hanabi"]
    assert {t.game for t in missing_tasks(paper, partial)} == {"hanabi"}
    # another agent covers the same tasks: the tasks do not depend on who plays them
    assert missing_tasks(paper, paper.episodes("hm", "scripted")) == []


def test_changing_a_grid_changes_its_fingerprint() -> None:
    paper = get_grid("paper")
    data = paper.config.model_dump(mode="json")
    data["games"][1]["seeds"] = [1, 2, 3]
    assert parse_grid(data).fingerprint() != paper.fingerprint
    data = paper.config.model_dump(mode="json")
    data.update(agents=["llm"], models=["x"], generate={"temperature": 0.0})
    assert parse_grid(data).fingerprint() == paper.fingerprint  # not part of the tasks


def test_grids_resolve_by_name_or_path_and_unknown_names_get_help(tmp_path: Path) -> None:
    assert parse(grid_document("smoke")) == get_grid("smoke").config
    assert parse(grid_document(get_grid("smoke").path)) == get_grid("smoke").config
    with pytest.raises(UnknownNameError, match="Did you mean 'paper'"):
        grid_document("papr")


def test_a_run_of_a_registered_grid_names_it_in_its_manifest(tmp_path: Path) -> None:
    smoke = get_grid("smoke")
    data = smoke.config.model_dump(mode="json")
    data.update(agents=["llm"], models=["scripted"], partners=["capture-greedy"])
    data["games"] = [g for g in data["games"] if g["game"] == "collab_capture"]
    # fewer games: another grid, so the run names another fingerprint
    edited = parse_grid(data)
    run_grid(edited, tmp_path / "edited")
    grid = open_run(tmp_path / "edited").manifest.config["grid"]
    assert grid["name"] == "smoke" and grid["version"] == 1
    assert grid["fingerprint"] == edited.fingerprint() != smoke.fingerprint
