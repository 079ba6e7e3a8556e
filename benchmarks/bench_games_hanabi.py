"""Hanabi: scripted-player scores and game-layer speed. Run by hand; prints numbers.

    python benchmarks/bench_games_hanabi.py            # 100 games per pairing
    python benchmarks/bench_games_hanabi.py --games 20 # quicker

Scores: mean ± standard error over seeds 0..N-1 for the convention bot in self-play, every rule
agent in self-play, and the convention bot with every rule agent (convention seated as Alice for
the first half of the seeds and as Bob for the second half). Speed: game-layer steps per second
under random legal play, describe() render time, snapshot/restore time, and the share of a
convention self-play episode spent in the game layer (everything but the players' decisions).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from player_timing import DecisionClock

from coordqa.games import make_game, make_player, play_episode
from coordqa.games.hanabi import Hanabi
from coordqa.games.hanabi.rules import AGENTS

CONVENTION = "hanabi-convention"


def episode(names: tuple[str, str], seed: int) -> tuple[float, float]:
    game = make_game("hanabi", seed=seed)
    players = [make_player(name, "hanabi") for name in names]
    trajectory = asyncio.run(play_episode(game, players, seed))
    return trajectory.score, trajectory.metrics["bombs"]


def pairing(first: str, second: str, games: int, alternate: bool) -> str:
    scores, bombs = [], []
    for seed in range(games):
        swap = alternate and seed >= games // 2
        score, bomb = episode((second, first) if swap else (first, second), seed)
        scores.append(score)
        bombs.append(bomb)
    error = statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else float("nan")
    zeros = sum(s == 0 for s in scores)
    return (
        f"{first:>22} x {second:<22} {statistics.mean(scores):5.2f} ± {error:4.2f}"
        f"   bombs {statistics.mean(bombs):4.2f}   zero-score games {zeros}"
    )


def random_play_speed(games: int) -> str:
    steps = 0
    started = time.perf_counter()
    for seed in range(games):
        game = make_game("hanabi", seed=seed)
        rng = random.Random(seed)
        while not game.is_terminal():
            player = game.players_to_act()[0]
            game.step({player: rng.choice(game.legal_actions(player))})
            steps += 1
    elapsed = time.perf_counter() - started
    return f"random legal play: {steps / elapsed:8.0f} steps/s ({steps} steps, {games} games)"


def mid_game() -> Hanabi:
    game = make_game("hanabi", seed=4788)
    players = [make_player(CONVENTION, "hanabi") for _ in range(2)]
    trajectory = asyncio.run(play_episode(game, players, 4788))
    moves = trajectory.final["moves"][:30]
    return Hanabi.from_snapshot({**trajectory.initial, "moves": moves, "last_actions": None})


def per_call(function: Callable[[], Any], repeats: int) -> float:
    started = time.perf_counter()
    for _ in range(repeats):
        function()
    return (time.perf_counter() - started) / repeats


def render_and_restore_speed() -> list[str]:
    game = mid_game()
    snapshot = game.snapshot()
    describe = per_call(lambda: game.describe(0), 2000)
    restore = per_call(lambda: Hanabi.from_snapshot(snapshot), 300)
    return [
        f"describe(): {describe * 1e6:8.1f} µs per call ({len(game.describe(0))} characters)",
        f"restore of a 30-move snapshot: {restore * 1e3:6.2f} ms",
    ]


def game_layer_share(games: int) -> str:
    clock = DecisionClock()
    started = time.perf_counter()
    for seed in range(games):
        game = make_game("hanabi", seed=seed)
        players = [make_player(CONVENTION, "hanabi") for _ in range(2)]
        clock.watch(players)
        asyncio.run(play_episode(game, players, seed))
    total = time.perf_counter() - started
    return (
        f"convention self-play: {total / games * 1e3:6.1f} ms per episode, game layer "
        f"{(total - clock.seconds) / total:5.1%} of it (players' choose/observe "
        f"{clock.seconds / total:5.1%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing")
    games = parser.parse_args().games
    print(f"== scores over seeds 0..{games - 1} (mean ± SE) ==")
    print(pairing(CONVENTION, CONVENTION, games, alternate=False))
    for agent in AGENTS:
        print(pairing(agent.name, agent.name, games, alternate=False))
    for agent in AGENTS:
        print(pairing(CONVENTION, agent.name, games, alternate=True))
    print("== speed ==")
    print(random_play_speed(max(games // 2, 10)))
    for line in render_and_restore_speed():
        print(line)
    print(game_layer_share(max(games // 5, 5)))


if __name__ == "__main__":
    main()
