"""Plan optimality: steps to the goal against the strong policy's, with the same partner.

Expectations from the rules: Collab Capture is deterministic and its planner solves it exactly, so
its own self-play is the optimum (ratio 1) and no other pair is faster, the planner with another
partner included; an Overcooked soup cooks for 20 timesteps after its third onion, so no first
delivery comes sooner.
"""

from __future__ import annotations

from coordqa.agentic import EpisodeSpec, run_match
from coordqa.agentic.optimality import optimality, steps_to_goal
from coordqa.agentic.report import build_report


def episode(
    game: str,
    agent: str,
    seed: int,
    layout: str = "default",
    partner: str | None = None,
    **options: object,
):
    spec = EpisodeSpec(
        game=game,
        layout=layout,
        seed=seed,
        agent=agent,
        partner=partner,
        game_options=dict(options),
    )
    return run_match(spec)


def test_the_capture_planner_is_its_own_optimum_and_no_greedy_pair_beats_it() -> None:
    for seed in range(4):
        planned = optimality(episode("collab_capture", "capture-planner", seed))
        assert planned["reached_goal"] == 1.0
        assert planned["steps_to_goal"] == planned["reference_steps"]
        assert planned["steps_over_reference"] == 1.0
        greedy = optimality(episode("collab_capture", "capture-greedy", seed))
        assert greedy["reference_steps"] == planned["reference_steps"]
        if greedy["reached_goal"]:
            assert greedy["steps_to_goal"] >= greedy["reference_steps"]
            assert greedy["steps_over_reference"] >= 1.0
        else:
            assert greedy["steps_to_goal"] is None and greedy["steps_over_reference"] is None


def test_cross_play_is_compared_with_the_planner_and_the_same_partner() -> None:
    optimum = optimality(episode("collab_capture", "capture-planner", 0))["reference_steps"]
    for seed in range(3):
        played = episode("collab_capture", "capture-greedy", seed, partner="capture-greedy")
        team = episode("collab_capture", "capture-planner", seed, partner="capture-greedy")
        reference = optimality(played)["reference_steps"]
        assert reference == steps_to_goal("collab_capture", team.trajectory, team.metrics)
        assert reference is None or reference >= optimum  # no team beats two planners


def test_overcooked_goal_is_the_first_delivery() -> None:
    played = episode("overcooked", "greedy_human", 0, layout="cramped_room", horizon=120)
    found = optimality(played)
    rewards = [step.reward for step in played.trajectory.steps]
    if found["reached_goal"]:
        first = found["steps_to_goal"]
        assert rewards[first - 1] > 0 and not any(rewards[: first - 1])
        assert first > 20
    else:
        assert not any(rewards)
    assert found["reference_steps"] is not None and found["reference_steps"] > 20


def test_hanabi_has_no_goal_steps() -> None:
    found = optimality(episode("hanabi", "hanabi-convention", 1))
    assert set(found.values()) == {None}


def test_the_report_has_a_plan_optimality_table() -> None:
    episodes = [
        episode("collab_capture", agent, s)
        for agent in ("capture-planner", "capture-greedy")
        for s in (0, 1)
    ]
    report = build_report(episodes)
    table = report.tables["plan_optimality"].set_index("label")
    # Capture is deterministic: the two seeds are one episode, said so instead of "± 0.00"
    assert table.loc["capture-planner", "steps / reference"] == "1.00 (1 distinct episode, n=2)"
    columns = {"steps_to_goal", "reference_steps", "steps_over_reference"}
    assert set(report.episodes.columns) >= columns
