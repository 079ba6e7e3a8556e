"""Overcooked game-layer speed: steps per second, seat-view latency, game vs player time.

Run by hand: ``python benchmarks/bench_games_overcooked.py [--episodes N] [--horizon T]``.
For each layout and scripted pair it plays episodes with ``play_episode``, timing the players'
``choose`` and ``observe`` apart, and reports timesteps per second of the game layer (everything
else: players_to_act, the seat views every player is handed after each step, step), its share of
the loop, and the mean time to build one seat view (description, both seats' legal actions and
histories, and a copy of the state).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from player_timing import DecisionClock

from coordqa.games import make_game, make_player, play_episode
from coordqa.games.overcooked import LAYOUTS


def run(layout: str, player: str, episodes: int, horizon: int) -> dict[str, float]:
    clock = DecisionClock()
    total = view_time = 0.0
    steps = views = 0
    score = []
    for seed in range(episodes):
        game = make_game("overcooked", layout, horizon=horizon)
        players = [make_player(player, "overcooked") for _ in range(2)]
        clock.watch(players)
        started = time.perf_counter()
        trajectory = asyncio.run(play_episode(game, players, seed))
        total += time.perf_counter() - started
        steps += len(trajectory.steps)
        score.append(trajectory.score)
        game.reset(seed)  # views of a live state (at the end nobody has actions)
        started = time.perf_counter()
        for index in range(20):
            game.seat_view(index % 2)
        view_time += time.perf_counter() - started
        views += 20
    game_time = total - clock.seconds
    return {
        "score": statistics.mean(score),
        "steps_per_s": steps / game_time,
        "game_share": game_time / total,
        "view_ms": 1000 * view_time / views,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--horizon", type=int, default=400)
    args = parser.parse_args()
    for layout in LAYOUTS:
        make_game("overcooked", layout).mlam()  # build or load the planner cache outside timing
    header = ("layout", "players", "score", "steps/s", "game %", "view ms")
    print("{:26} {:13} {:>6} {:>9} {:>7} {:>12}".format(*header))
    for player in ("planner", "greedy_human"):
        for layout in LAYOUTS:
            r = run(layout, player, args.episodes, args.horizon)
            print(
                f"{layout:26} {player:13} {r['score']:6.1f} {r['steps_per_s']:9.0f} "
                f"{100 * r['game_share']:6.1f}% {r['view_ms']:12.3f}"
            )


if __name__ == "__main__":
    main()
