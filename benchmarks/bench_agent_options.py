"""Cost and measured accuracies of the agents' options (issue 17), with the offline model.

Run by hand: ``python benchmarks/bench_agent_options.py [--episodes N] [--horizon T]``. Each
option combination of CAC and HM plays each game as seat 0 against the game's scripted bot with
the offline ``scripted`` model (it answers every lettered question with its first option, and its
verifier always accepts), and the agentic report's own tables give, per combination and game:

- calls and tokens per decision (tokens as the offline model counts them: whitespace words);
- partner-prediction accuracy (k-level ToM, HM), level-2 belief met, belief-state accuracy,
  ToM ladder accuracy per order, HM self-reflections per episode;
- steps to the goal over the planner's (Collab, Overcooked), from the plan-optimality table.

A model that always answers "A" measures the machinery, not a model: its belief text carries no
fact lines (all wrong), its predictions are the first behaviour listed. Everything runs offline.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import pandas as pd

from coordqa.agentic import AgenticEpisode, EpisodeSpec, run_match
from coordqa.agentic.report import build_report
from coordqa.analysis import markdown_table

PARTNERS = {
    "hanabi": "hanabi-convention",
    "overcooked": "greedy_human",
    "collab_capture": "capture-greedy",
    "collab_escape": "escape-greedy",
}
LAYOUTS = {"overcooked": "cramped_room"}

COMBINATIONS: list[tuple[str, dict[str, Any]]] = [
    ("cac", {}),
    ("cac", {"tom_level": 1}),
    ("cac", {"tom_level": 2}),
    ("cac", {"belief_state": True}),
    ("cac", {"tom_level": 2, "belief_state": True}),
    ("cac", {"tom_ladder": 1}),
    ("cac", {"partner_info": False}),
    ("hm", {}),
    ("hm", {"belief_state": True}),
    ("hm", {"self_reflection": True}),
    ("hm", {"belief_state": True, "self_reflection": True}),
    ("hm", {"tom_ladder": 1}),
    ("hm", {"reflect_every_plan": True}),
    ("hm", {"variant": "he_hr"}),
    ("hm", {"top_k": 0}),
    ("planreact", {}),
    ("react", {}),
    ("reflexion", {}),
]
"""(agent, options) played in every game the options allow (the ladder: Hanabi only; without
the partner's information: Overcooked only)."""

ONLY_IN = {"tom_ladder": "hanabi", "partner_info": "overcooked"}
"""Options that only one game takes."""

SHOWN = [
    "label",
    "game",
    "calls/dec",
    "tokens/dec",
    "pred acc",
    "L2 belief met",
    "belief acc",
    "reflections/ep",
    "ladder intro",
    "ladder 1st",
    "ladder 2nd",
]


def specs(episodes: int, horizon: int) -> list[EpisodeSpec]:
    """Every (combination, game, seed) to play."""
    out = []
    for agent, options in COMBINATIONS:
        for game, partner in PARTNERS.items():
            if any(ONLY_IN.get(name, game) != game for name in options):
                continue
            extra = {"horizon": horizon} if game == "overcooked" else {}
            for seed in range(episodes):
                out.append(
                    EpisodeSpec(
                        game=game,
                        layout=LAYOUTS.get(game, "default"),
                        seed=seed,
                        agent=agent,
                        partner=partner,
                        model="scripted",
                        agent_options=options,
                        game_options=extra,
                    )
                )
    return out


def compact(played: list[AgenticEpisode]) -> pd.DataFrame:
    """Calls / tokens per decision (pooled over episodes), one row per combination, per game."""
    rows = []
    for episode in played:
        stats = episode.agent_stats[0]
        options = episode.spec.agent_options
        rows.append(
            {
                "agent": episode.spec.agent,
                "options": ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "defaults",
                "game": episode.spec.game,
                "calls": stats["llm_calls"],
                "tokens": stats["prompt_tokens"] + stats["completion_tokens"],
                "decisions": stats["decisions"],
            }
        )
    pooled = pd.DataFrame(rows).groupby(["agent", "options", "game"], sort=False).sum()
    cells = [
        f"{row.calls / row.decisions:.2f} / {row.tokens / row.decisions:,.0f}"
        for row in pooled.itertuples()
    ]
    table = pd.Series(cells, index=pooled.index).unstack("game", fill_value="")
    return table.reset_index().rename_axis(columns=None)


def main() -> None:
    """Play every combination and print the per-decision and plan-optimality tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--horizon", type=int, default=100)
    args = parser.parse_args()
    started = time.perf_counter()
    played = [run_match(spec) for spec in specs(args.episodes, args.horizon)]
    report = build_report(played)
    report.episodes["agent_options_json"] = [
        spec.agent_options for spec in (e.spec for e in played)
    ]
    costs = report.tables["per_decision"]
    print(markdown_table(compact(played)))
    print()
    print(markdown_table(costs[[c for c in SHOWN if c in costs]]))
    print()
    print(markdown_table(report.tables["plan_optimality"]))
    print(f"\n{len(played)} episodes in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
