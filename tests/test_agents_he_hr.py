"""HM's HE + HR variant: values from extrinsic and counterfactual reward (the paper's appendix).

Expectations from the appendix and its hyperparameter table: alpha 0.3, counterfactual reward
c = 3.0, V_thr = 3.0, top_k 5; the hypothesis in use is scored by the interaction's extrinsic
reward, every other kept hypothesis by two calls (its target before, a positive / neutral /
negative judgement after: +c / 0 / -c); Rescorla-Wagner V <- V + alpha (r - V). The hypothesis
"used online for goal selection" is the best-valued kept one (the paper's own code note: "The
highest value hypothesis could also be used"), the newest while none has a value, so the one in
use keeps collecting extrinsic reward over interactions; no hypothesis is generated while one is
validated (as in HM).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from agent_records import json_recorder
from agents_support import RoleScript

from coordqa.agentic import EpisodeSpec, run_match
from coordqa.agentic.agents import HMAgent, HMOptions
from coordqa.agentic.agents.counterfactual import EXTRINSIC_SCALE
from coordqa.agentic.agents.hypotheses import HypothesisBook
from coordqa.agentic.records import Decision
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


def test_the_hypothesis_in_use_is_the_best_valued_kept_one_the_newest_while_all_are_equal() -> None:
    book = HypothesisBook(HMOptions(variant="he_hr").params())
    h0, h1 = book.add("first", decision=1), book.add("second", decision=2)
    assert book.for_plan() is h1  # no values yet: the latest generated, as the paper says
    book.reward(h0.id, EXTRINSIC_SCALE, decision=3)  # h0 scored in its interaction: 1.5
    h2 = book.add("third", decision=3)
    assert book.for_plan() is h0
    assert book.others(h0) == [h2, h1]  # the newest, then the top-k earlier ones by value
    book.reward(h1.id, 3.0, decision=4)  # judged better: 0.9 < 1.5
    assert book.for_plan() is h0
    for decision in (5, 6, 7):  # better again and again: 1.53, 1.971, 2.28; h0 stays at 1.5
        book.reward(h1.id, 3.0, decision=decision)
    assert book.for_plan() is h1


def test_hm_itself_still_plans_on_the_newest_until_one_is_validated() -> None:
    """The HM paper: "With none validated, the latest generated hypothesis conditions the plan"."""
    book = HypothesisBook(HMOptions(variant="hm").params())
    h0 = book.add("first", decision=1)
    book.score(h0.id, correct=True, decision=2)  # 0.3 < 0.7
    h1 = book.add("second", decision=2)
    assert book.for_plan() is h1


def drive(agent: HMAgent, points: list[float]) -> list[tuple[int, list[float], bool]]:
    """ToM updates at the given team scores: (hypothesis in use, values, validated) after each."""
    agent.observed_log = [("Bob waited", None)]  # the partner has acted: generation may run
    seen = []
    for score in points:
        asyncio.run(agent._modular(view("overcooked", score), ["wait", "move away"]))
        in_use = agent._plan_hypothesis()
        assert in_use is not None
        values = [h.value for h in agent.book.hypotheses]
        seen.append((in_use.id, values, agent.book.validated() is in_use))
    return seen


def test_three_scoring_interactions_in_a_row_validate_the_hypothesis_in_use() -> None:
    """docs/agentic.md's route: one soup per interaction is worth 5 (> c = 3) to the hypothesis in
    use: 1.5, 2.55, 3.285 >= V_thr, while a new hypothesis (value 0, judged neutral) is generated at
    each update; once validated, none is generated and nothing is judged."""
    agent = make_player("hm", "overcooked", model=ScriptedModel(RoleScript()), variant="he_hr")
    assert isinstance(agent, HMAgent)
    seen = drive(agent, [0.0, 20.0, 40.0, 60.0])
    assert [in_use for in_use, _, _ in seen] == [0, 0, 0, 0]
    assert [values[0] for _, values, _ in seen] == pytest.approx([0.0, 1.5, 2.55, 3.285])
    assert [validated for _, _, validated in seen] == [False, False, False, True]
    assert len(agent.book.hypotheses) == 3  # generated at the first three updates only
    assert agent.stats()["first_validation_decision"] is not None


def test_a_hypothesis_judged_better_takes_over_and_validates_with_one_scoring_interaction() -> None:
    """Judged positive at every update (+3), another hypothesis passes the one in use, whose
    interactions score nothing (0 pulls it down); once in use, one soup takes it from above
    (3 - 0.3 x 5) / 0.7 = 2.14 to V_thr."""
    agent = make_player(
        "hm", "overcooked", model=ScriptedModel(RoleScript(judgement="Answer: A")), variant="he_hr"
    )
    assert isinstance(agent, HMAgent)
    enough = (3.0 - 0.3 * EXTRINSIC_SCALE) / 0.7
    seen = drive(agent, [0.0])
    while agent.book.get(seen[-1][0]).value <= enough:
        assert len(seen) < 15, "a judged hypothesis should climb towards c = 3 within 15 updates"
        seen += drive(agent, [0.0])
    in_use = [h for h, _, _ in seen]
    assert len(set(in_use)) > 1  # the one in use changed
    for h, values, validated in seen:
        assert values[h] == max(values) and not validated
    before = agent.book.get(in_use[-1]).value
    [(_, values, validated)] = drive(agent, [20.0])
    assert validated and values[in_use[-1]] == pytest.approx(before + 0.3 * (5.0 - before))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "layout", "partner", "options"),
    [
        ("hanabi", None, None, {}),
        ("overcooked", "cramped_room", "greedy_human", {"horizon": 400}),
    ],
)
def test_with_bot_a_hypothesis_validates_by_extrinsic_reward(
    game: str, layout: str | None, partner: str | None, options: dict[str, Any]
) -> None:
    """The issue's done-when: a value crosses V_thr on an extrinsic update, and some hypothesis
    is in use (extrinsic updates) over more than one interaction."""
    spec = EpisodeSpec(
        game=game,
        layout=layout or make_game(game).layout,
        seed=0,
        agent="hm",
        partner=partner,
        model="bot",
        agent_options={"variant": "he_hr"},
        game_options=options,
    )
    played = run_match(spec)
    extrinsic = [
        (record.seat, update)
        for record in played.exchanges
        if isinstance(record, Decision)
        for update in record.values_updated
        if update.source == "extrinsic"
    ]
    assert any(u.value_before < 3.0 <= u.value_after for _, u in extrinsic)
    in_use = Counter((seat, u.hypothesis) for seat, u in extrinsic)
    assert max(in_use.values()) > 1
