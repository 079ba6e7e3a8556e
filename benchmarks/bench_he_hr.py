"""Does HE + HR validate a hypothesis by extrinsic reward? (issue 37, review finding 1g)

Run by hand: ``python benchmarks/bench_he_hr.py [--out DIR] [--hanabi-seeds 5]
[--overcooked-seeds 3]``.

Plays HM's ``he_hr`` variant with the offline ``bot`` model (the game's strong policy answers every
call; its HE + HR judgements always say "better", its targets name the policy's move) through the
real runner, in Hanabi self-play (both seats are agents) and in Overcooked cramped_room with
``greedy_human`` in seat 1 (400 timesteps), then counts from the stored ``values_updated``
records of every decision:

- extrinsic updates per (episode, seat, hypothesis): how many interactions the same hypothesis was
  in use for (1 everywhere means no hypothesis ever collects reward over two interactions);
- validations by extrinsic reward: an update of source ``extrinsic`` that takes a value from below
  V_thr to V_thr or above, with the decision and game turn it happened at, and how many
  extrinsic updates that hypothesis had had by then (1: one interaction worth V_thr / alpha);
- seats in which some hypothesis was validated (``first_validation_decision`` in the seat's
  statistics), and the scores (the agent must still play the policy's moves: ``bot``'s score).

Prints a Markdown table per game (stdout) and progress (stderr).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from coordqa.agentic import load_agentic_run, parse_grid, run_grid
from coordqa.agentic.agents import HMOptions
from coordqa.agentic.episodes import AgenticEpisode

THRESHOLD = HMOptions(variant="he_hr").params().threshold
"""V_thr of HE + HR (the appendix's 3.0)."""


def grid(game: str, seeds: int) -> dict[str, Any]:
    """HM he_hr with ``bot``: Hanabi self-play, or Overcooked cramped_room with greedy_human."""
    entry: dict[str, Any] = {"game": game, "seeds": list(range(seeds))}
    seat: dict[str, Any] = {}  # self-play seats the agent in both seats
    partners = ["self"]
    if game == "overcooked":
        entry.update(layouts=["cramped_room"], horizon=400)
        partners = ["greedy_human"]
        seat = {"positions": 0}
    return {
        "name": f"bench-he-hr-{game}",
        "agents": ["hm"],
        "models": ["bot"],
        "agent_options": {"hm": {"variant": "he_hr"}},
        "partners": partners,
        **seat,
        "games": [entry],
    }


def updates(episode: AgenticEpisode) -> list[dict[str, Any]]:
    """Every value update of the episode, with its seat and decision."""
    found = []
    for record in episode.exchanges:
        data = record.model_dump()
        if data.get("kind") != "events":
            continue
        for update in data.get("values_updated") or []:
            found.append({**update, "seat": data.get("seat"), "decision": data["decision"]})
    return found


def summary(episodes: list[AgenticEpisode]) -> dict[str, Any]:
    """The counts the module docstring lists."""
    per_hypothesis: Counter[tuple[str, Any, int]] = Counter()
    validations = []
    seats = validated_seats = generated = 0
    first: list[Any] = []
    sources: Counter[str] = Counter()
    for episode in episodes:
        for seat in episode.spec.agent_seats:
            seats += 1
            stats = episode.agent_stats.get(seat, {})
            validated_seats += stats.get("first_validation_decision") is not None
            generated += stats.get("hypotheses_generated", 0)
            first.append(stats.get("first_validation_decision"))
        for update in updates(episode):
            sources[update["source"]] += 1
            if update["source"] != "extrinsic":
                continue
            key = (episode.key, update["seat"], update["hypothesis"])
            per_hypothesis[key] += 1
            if update["value_before"] < THRESHOLD <= update["value_after"]:
                seat, decision, turn = update["seat"], update["decision"], update["turn"]
                validations.append((episode.spec.seed, seat, decision, turn, per_hypothesis[key]))
    spread = Counter(per_hypothesis.values())
    return {
        "episodes": len(episodes),
        "scores by seed": [e.score for e in sorted(episodes, key=lambda e: e.spec.seed)],
        "hypotheses generated": generated,
        "hypotheses in use (extrinsic updates)": len(per_hypothesis),
        "extrinsic updates per hypothesis": dict(sorted(spread.items())),
        "most extrinsic updates on one hypothesis": max(per_hypothesis.values(), default=0),
        "updates by source": dict(sources),
        "validations by extrinsic reward": len(validations),
        "(seed, seat, decision, turn, its extrinsic updates so far) of each": validations,
        "seats with a validated hypothesis": f"{validated_seats} of {seats}",
        "first validation decision per seat": first,
    }


def main() -> None:
    """Play both grids, print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="run folder (default: a temp dir)")
    parser.add_argument("--hanabi-seeds", type=int, default=5)
    parser.add_argument("--overcooked-seeds", type=int, default=3)
    options = parser.parse_args()
    out = options.out or Path(tempfile.mkdtemp(prefix="bench-he-hr-"))
    for game, seeds in (("hanabi", options.hanabi_seeds), ("overcooked", options.overcooked_seeds)):
        started = time.perf_counter()
        result = run_grid(parse_grid(grid(game, seeds)), out / game)
        if result.failures or not result.complete:
            raise SystemExit(f"{game}: {len(result.failures)} episode(s) failed")
        seconds = time.perf_counter() - started
        print(f"{game}: {result.total} episodes in {seconds:.0f} s ({out / game})", file=sys.stderr)
        counts = summary(load_agentic_run(result.run_dir))
        print(f"\n### {game}\n\n| measure | value |\n|---|---|")
        for name, value in counts.items():
            print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
