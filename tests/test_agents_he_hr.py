"""HM's HE + HR variant: values from extrinsic and counterfactual reward (the paper's appendix).

Expectations from the appendix and its hyperparameter table: alpha 0.3, counterfactual reward
c = 3.0, V_thr = 3.0, top_k 5; the hypothesis in use is scored by the interaction's extrinsic
reward, every other kept hypothesis by two calls (its target before, a positive / neutral /
negative judgement after: +c / 0 / -c); Rescorla-Wagner V <- V + alpha (r - V).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic.agents import HMAgent, HMOptions
from coordqa.agentic.agents.counterfactual import EXTRINSIC_SCALE
from coordqa.agentic.agents.hypotheses import HypothesisBook
from coordqa.errors import ConfigError
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode
from coordqa.games.seat import SeatView
from coordqa.llm import ScriptedModel


class Waiter(ScriptedPlayer):
    """A Collab partner that always waits."""

    name = "waiter"

    def choose(self, observation: Observation) -> str:
        return "Wait"


def run(script: RoleScript, game: str = "collab_capture", partner: Any = None, **options: Any):  # type: ignore[no-untyped-def]
    records: list[dict[str, Any]] = []
    agent = make_player(
        "hm", game, model=ScriptedModel(script), recorder=json_recorder(records), **options
    )
    assert isinstance(agent, HMAgent)
    other = partner or Waiter()
    trajectory = asyncio.run(play_episode(make_game(game, seed=0), [agent, other], seed=0))
    return agent, records, trajectory


def calls_by_decision(records: list[dict[str, Any]], roles: tuple[str, ...]) -> dict[int, int]:
    calls: dict[int, int] = {}
    for r in records:
        if r["kind"] == "exchange" and r["role"] in roles:
            calls[r["decision"]] = calls.get(r["decision"], 0) + 1
    return calls


def updates(records: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    return [
        u
        for r in records
        if r["kind"] == "events"
        for u in r.get("values_updated", [])
        if u["source"] == source
    ]


def test_the_appendix_constants_are_the_variants_defaults() -> None:
    params = HMOptions(variant="he_hr").params()
    assert (params.alpha, params.c, params.threshold, params.top_k) == (0.3, 3.0, 3.0, 5)
    assert HMOptions().params().c == 1.0 and HMOptions().params().threshold == 0.7
    assert HMOptions(variant="he_hr", c=2.0, threshold=1.5).params().c == 2.0


def test_counterfactual_rewards_alone_never_reach_v_thr_equal_to_c() -> None:
    """3 (1 - 0.7^n) < 3 for every n: a hypothesis judged positive forever is never validated."""
    book = HypothesisBook(HMOptions(variant="he_hr").params())
    h = book.add("judged", decision=0)
    values = [book.reward(h.id, 3.0, decision=d) for d in range(1, 60)]
    assert values[:3] == pytest.approx([0.9, 1.53, 1.971])
    assert max(values) < 3.0 and book.validated() is None


def test_extrinsic_rewards_above_c_validate_the_hypothesis_in_use() -> None:
    """One scoring unit is worth 5 (> c): three in a row give 1.5, 2.55, 3.285 >= 3."""
    book = HypothesisBook(HMOptions(variant="he_hr").params())
    h = book.add("in use", decision=0)
    values = [book.reward(h.id, EXTRINSIC_SCALE, decision=d) for d in (1, 2, 3)]
    assert values == pytest.approx([1.5, 2.55, 3.285])
    assert book.validated() is h and book.first_validation == 3


@pytest.mark.parametrize("top_k", [2, 5])
def test_an_update_makes_two_calls_per_other_kept_hypothesis(top_k: int) -> None:
    """Generation, a target per other kept hypothesis (the top_k best), the plan, and a
    judgement per target of the last update: 2 + 2 top_k once top_k earlier hypotheses exist.
    The partner waits and nothing is scored, judgements say neutral: nothing is validated."""
    agent, records, _ = run(RoleScript(), variant="he_hr", top_k=top_k)
    roles = ("hypothesis", "target", "judgement", "plan")
    calls = calls_by_decision(records, roles)
    full = [d for d in calls if d >= top_k + 3]
    assert full, "the episode must be long enough to see full updates"
    assert {calls[d] for d in full} == {2 + 2 * top_k}
    assert not calls_by_decision(records, ("predict",))  # values come from reward
    assert agent.stats()["first_validation_decision"] is None


def test_judgements_move_values_by_plus_minus_c() -> None:
    for answer, reward in (("A", 3.0), ("B", 0.0), ("C", -3.0)):
        _, records, _ = run(RoleScript(judgement=f"Answer: {answer}"), variant="he_hr")
        judged = updates(records, "counterfactual")
        assert judged and {u["reward"] for u in judged} == {reward}
        first = judged[0]
        assert first["value_before"] == 0.0
        assert first["value_after"] == pytest.approx(0.3 * reward)


def test_a_validated_hypothesis_alone_plans_and_nothing_is_judged() -> None:
    """With V_thr 0.5 one positive judgement (0.3 x 3 = 0.9) validates; the next update is the
    plan alone (no generation, no targets, no judgements), conditioned on that hypothesis. In
    use, it is scored by extrinsic reward: the Waiter never lets the team score, so 0.9 -> 0.63."""
    script = RoleScript(judgement="Answer: A")
    agent, records, _ = run(script, variant="he_hr", threshold=0.5)
    validated = agent.stats()["first_validation_decision"]
    assert validated is not None
    judged = [u for u in updates(records, "counterfactual") if u["value_after"] >= 0.5]
    best = judged[0]["hypothesis"]
    calls = calls_by_decision(records, ("hypothesis", "target", "judgement", "plan"))
    after = min(d for d in calls if d > validated)
    assert calls[after] == 1
    plan = next(r for r in records if r.get("role") == "plan" and r["decision"] == after)
    assert plan["hypothesis_id"] == best
    scored = [u for u in updates(records, "extrinsic") if u["hypothesis"] == best]
    in_use = next(u for u in scored if u["value_before"] > 0)  # once judged, then in use
    assert (in_use["value_before"], in_use["value_after"]) == pytest.approx((0.9, 0.63))


def view(game: str, points: float) -> SeatView[None]:
    """A seat view with only what the extrinsic reward reads: the team's score."""
    return SeatView(
        seat=0,
        name=game,
        version="test",
        layout="default",
        turn_based=False,
        turn=0,
        working_memory="",
        actions=((), ()),
        history=((), ()),
        rules="",
        points=points,
        over=False,
        public=None,
    )


@pytest.mark.parametrize(
    ("game", "points", "value"),
    [
        ("hanabi", 1.0, 1.5),  # one card: 5 x 1 -> 0.3 x 5
        ("hanabi", 2.0, 3.0),  # two cards in one interaction: 10 -> 3.0, validated
        ("overcooked", 20.0, 1.5),  # one soup (20 points, one scoring unit)
        ("collab_capture", 1.0, 1.5),  # the win
        ("overcooked", 0.0, 0.0),
    ],
)
def test_the_hypothesis_in_use_is_scored_by_the_units_scored_in_its_interaction(
    game: str, points: float, value: float
) -> None:
    agent = make_player("hm", game, model=ScriptedModel(RoleScript()), variant="he_hr")
    assert isinstance(agent, HMAgent) and agent.rewards is not None
    in_use = agent.book.add("my partner follows my lead", decision=1)
    asyncio.run(agent.rewards.begin(view(game, 10.0), [], "", in_use, []))
    asyncio.run(agent.rewards.score(view(game, 10.0 + points), ""))
    assert in_use.value == pytest.approx(value)
    assert (agent.book.validated() is in_use) == (value >= 3.0)


def test_extrinsic_scale_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="extrinsic_scale"):
        HMOptions(variant="he_hr", extrinsic_scale=0.0)


def test_the_viewer_charts_he_hr_values(tmp_path: Any) -> None:
    pytest.importorskip("fastapi")
    from coordqa.agentic import GridConfig, run_grid
    from coordqa.viewer.agentic import AgenticView

    grid = {
        "agents": ["hm"],
        "models": ["scripted"],
        "agent_options": {"hm": {"variant": "he_hr"}},
        "games": [{"game": "collab_capture", "seeds": [0]}],
    }
    run_grid(GridConfig.model_validate(grid), tmp_path / "run")
    chart = AgenticView(tmp_path / "run").episode(0).hypothesis_chart
    assert chart is not None and "hypothesis 0" in str(chart)
