"""Collab Capture and Collab Escape: scripted-player results and game-layer speed. Run by hand.

    python benchmarks/bench_games_collab.py              # 100 episodes per pairing
    python benchmarks/bench_games_collab.py --episodes 20

Prints, for each game:
- win rate (capture / escape) ± SE and turns when won, for the planning, greedy and mixed pairs
  over seeds 0..N-1 (the paper's greedy baseline: capture 0.50 in 6.00 turns, escape 0.00);
- the planner's one-off solve time (first decision of a process) and steps per second of whole
  episodes with each scripted pair, after that solve;
- describe() render time;
- the game layer's share of episode time with players that answer instantly: the time spent in
  the game's own methods (legal_actions, describe for both players, step) divided by the wall
  time of play_episode with players that return their first legal action at once.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from coordqa.analysis.stats import MeanSE
from coordqa.games import Observation, ScriptedPlayer, make_game, make_player, play_episode

PAIRS = {
    "collab_capture": ("capture-planner", "capture-greedy"),
    "collab_escape": ("escape-planner", "escape-greedy"),
}


class Instant(ScriptedPlayer):
    """Answers at once with its first legal action (a stand-in for an instant model)."""

    name = "instant"

    def choose(self, observation: Observation) -> str:
        return observation.legal_actions[0]


def results(game: str, pair: tuple[str, str], episodes: int) -> tuple[str, float]:
    started = time.perf_counter()
    trajectories = [
        asyncio.run(
            play_episode(make_game(game), [make_player(n, game) for n in pair], seed, list(pair))
        )
        for seed in range(episodes)
    ]
    elapsed = time.perf_counter() - started
    steps = sum(len(t.steps) for t in trajectories)
    wins = MeanSE.of([t.score for t in trajectories])
    turns = MeanSE.of([t.metrics["turns"] for t in trajectories if t.score > 0])
    line = (
        f"  {pair[0]:>16} x {pair[1]:<16} win {wins}   turns when won {turns}   "
        f"{steps / elapsed:9.0f} steps/s"
    )
    return line, steps / elapsed


def solve_time(game: str, planner: str) -> float:
    from coordqa.games.rooms import _solution

    _solution.cache_clear()
    state = make_game(game)
    player = make_player(planner, game)
    started = time.perf_counter()
    asyncio.run(player.act(Observation.of(state, 0)))
    return time.perf_counter() - started


def describe_time(game: str, calls: int = 2000) -> float:
    state = make_game(game)
    started = time.perf_counter()
    for index in range(calls):
        state.describe(index % 2)
    return (time.perf_counter() - started) / calls


def game_layer_share(game: str, episodes: int) -> tuple[float, float, float]:
    """(share, game-layer seconds per step, episode seconds per step) with instant players."""
    episode_time = game_time = 0.0
    steps = 0
    for seed in range(episodes):
        started = time.perf_counter()
        trajectory = asyncio.run(play_episode(make_game(game), [Instant(), Instant()], seed))
        episode_time += time.perf_counter() - started
        state = make_game(game, seed=seed)
        started = time.perf_counter()
        for step in trajectory.steps:
            for player in (0, 1):
                state.legal_actions(player)
                state.describe(player)
            state.step(step.decisions)
        game_time += time.perf_counter() - started
        steps += len(trajectory.steps)
    return game_time / episode_time, game_time / steps, episode_time / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100)
    args = parser.parse_args()
    for game, (planner, greedy) in PAIRS.items():
        print(f"{game}: planner first decision (solve) {solve_time(game, planner):.2f} s")
        for pair in ((planner, planner), (greedy, greedy), (planner, greedy)):
            print(results(game, pair, args.episodes)[0])
        print(f"  describe(): {describe_time(game) * 1e6:.1f} µs per call")
        share, per_step, per_episode_step = game_layer_share(game, args.episodes)
        print(
            f"  instant players: game layer {per_step * 1e6:.1f} µs/step of "
            f"{per_episode_step * 1e6:.1f} µs/step in play_episode -> share {share:.1%}"
        )
        print(f"  share next to a 1 s model reply per turn: {per_step / (per_step + 1.0):.4%}")


if __name__ == "__main__":
    main()
