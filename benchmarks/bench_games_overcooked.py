"""Overcooked game-layer speed: steps per second, describe() latency, game vs player time.

Run by hand: ``python benchmarks/bench_games_overcooked.py [--episodes N] [--horizon T]``.
For each layout and scripted pair it plays episodes with the same loop as ``play_episode``
(synchronously, so the split is exact) and reports timesteps per second, the share of the loop
spent in the game layer (players_to_act, legal_actions, step) against the players' choices, and
the mean time to render one description (every player asked also gets its description, as an
LLM agent would).
"""

from __future__ import annotations

import argparse
import statistics
import time

from coordqa.games import Observation, make_game, make_player
from coordqa.games.overcooked import LAYOUTS


def run(layout: str, player: str, episodes: int, horizon: int) -> dict[str, float]:
    game = make_game("overcooked", layout, horizon=horizon)
    game_time = player_time = describe_time = 0.0
    describes = steps = 0
    score = []
    for seed in range(episodes):
        game.reset(seed)
        players = [make_player(player, "overcooked") for _ in range(2)]
        for index, p in enumerate(players):
            p.reset(game.seat_view(index), index, seed + index)
        while not game.is_terminal():
            start = time.perf_counter()
            to_act = game.players_to_act()
            observations = {p: Observation.of(game, p) for p in to_act}
            game_time += time.perf_counter() - start
            start = time.perf_counter()
            for p in to_act:
                observations[p].description()
            describe_time += time.perf_counter() - start
            describes += len(to_act)
            start = time.perf_counter()
            moves = {p: players[p].choose(observations[p]) for p in to_act}  # type: ignore[attr-defined]
            player_time += time.perf_counter() - start
            start = time.perf_counter()
            game.step(moves)
            game_time += time.perf_counter() - start
            steps += 1
        score.append(game.score())
    total = game_time + player_time
    return {
        "score": statistics.mean(score),
        "steps_per_s": steps / game_time,
        "game_share": game_time / total,
        "describe_ms": 1000 * describe_time / max(describes, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--horizon", type=int, default=400)
    args = parser.parse_args()
    for layout in LAYOUTS:
        make_game("overcooked", layout).mlam()  # build or load the planner cache outside timing
    header = ("layout", "players", "score", "steps/s", "game %", "describe ms")
    print("{:26} {:13} {:>6} {:>9} {:>7} {:>12}".format(*header))
    for player in ("planner", "greedy_human"):
        for layout in LAYOUTS:
            r = run(layout, player, args.episodes, args.horizon)
            print(
                f"{layout:26} {player:13} {r['score']:6.1f} {r['steps_per_s']:9.0f} "
                f"{100 * r['game_share']:6.1f}% {r['describe_ms']:12.3f}"
            )


if __name__ == "__main__":
    main()
