"""Neural partners, measured by hand: speed of SAD/OBL decisions, quality of BC/HP partners.

    python benchmarks/bench_partners.py hanabi [--games 5]
    python benchmarks/bench_partners.py overcooked [--seeds 20] [--layouts cramped_room ...]

``hanabi`` times the SAD and OBL networks on CPU (one thread): the bare network step, and whole
games (encoding plus both players' networks on every turn), with random weights in the
published shapes (the real files have the same cost). ``overcooked`` plays BC self-play, HP
self-play and BC with HP from both seats on our Overcooked game, 400 timesteps per episode, with
the checkpoints in the user data folder (``coordqa partners train-bc --all``), and prints them
next to the published scores (Carroll et al. 2019) with each model's training time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

PUBLISHED = {
    "cramped_room": {"bc+bc": 109.5, "hp+hp": 115.0, "bc+hp": 103.5, "hp+bc": 110.0},
    "asymmetric_advantages": {"bc+bc": 136.0, "hp+hp": 140.5, "bc+hp": 136.5, "hp+bc": 137.5},
    "coordination_ring": {"bc+bc": 67.0, "hp+hp": 67.0, "bc+hp": 59.0, "hp+bc": 70.0},
    "forced_coordination": {"bc+bc": 25.5, "hp+hp": 30.0, "bc+hp": 20.5, "hp+bc": 31.0},
    "counter_circuit_o_1order": {"bc+bc": 48.0, "hp+hp": 47.5, "bc+hp": 38.0, "hp+bc": 44.0},
}
"""400-step scores from facts/partners.md; "bc+hp" has BC as player 0 (agent index 0)."""


def bench_hanabi(games: int) -> None:
    import torch

    from coordqa.agentic.partners.hanabi_encoder import OBL_PUBLIC_SIZE, SAD_SIZE
    from coordqa.agentic.partners.hanabi_nets import load_hanabi_net, published_shapes
    from coordqa.agentic.partners.hanabi_players import HanabiNetPlayer
    from coordqa.games import make_game, play_episode

    torch.set_num_threads(1)
    folder = Path(tempfile.mkdtemp())
    nets = {}
    for kind in ("sad", "obl"):
        path = folder / f"{kind}.pthw"
        torch.save({k: torch.randn(s) * 0.05 for k, s in published_shapes(kind).items()}, path)
        nets[kind] = load_hanabi_net(path)
    print(f"torch {torch.__version__}, 1 thread")
    for kind, net in nets.items():
        inputs = (
            (torch.zeros(1, SAD_SIZE),)
            if kind == "sad"
            else (torch.zeros(1, 658), torch.zeros(1, OBL_PUBLIC_SIZE))
        )
        hidden = (torch.zeros(2, 1, 512), torch.zeros(2, 1, 512))
        with torch.no_grad():
            for _ in range(20):
                net.module(inputs, hidden)
            count, started = 0, time.perf_counter()
            while time.perf_counter() - started < 3.0:
                _, hidden = net.module(inputs, hidden)
                count += 1
        rate = count / (time.perf_counter() - started)
        print(f"{kind.upper()} network step: {rate:,.0f} steps/s ({1000 / rate:.2f} ms)")
    for pair in (("sad", "sad"), ("obl", "obl"), ("sad", "obl")):
        decisions, seconds, scores = 0, 0.0, []
        for seed in range(games):
            players = [HanabiNetPlayer(nets[k], k) for k in pair]
            started = time.perf_counter()
            trajectory = asyncio.run(play_episode(make_game("hanabi", seed=seed), players, seed))
            seconds += time.perf_counter() - started
            decisions += len(trajectory.steps)
            scores.append(trajectory.score)
        print(
            f"{pair[0].upper()}+{pair[1].upper()} whole games: {decisions / seconds:,.0f} "
            f"decisions/s ({seconds / decisions * 1000:.1f} ms per turn incl. both networks "
            f"and encoding; {games} games, random weights, mean score {statistics.mean(scores)})"
        )


def bench_overcooked(seeds: int, layouts: list[str]) -> None:
    from coordqa.agentic.partners.bc import BCCheckpoint, find_checkpoint
    from coordqa.agentic.partners.bc_player import BCPlayer
    from coordqa.games import make_game, play_episode

    for layout in layouts:
        checkpoints = {}
        for kind in ("bc", "hp"):
            path = find_checkpoint(f"{kind}-{layout}")
            if path is None:
                raise SystemExit(f"train first: coordqa partners train-bc --all ({kind}-{layout})")
            checkpoints[kind] = BCCheckpoint.load(path)
            meta = checkpoints[kind].meta
            print(
                f"{meta['name']}: {meta['samples']} samples, {meta['epochs']} epochs (best "
                f"{meta['best_epoch']}), val. acc. {meta['val_accuracy']:.3f}, featurise "
                f"{meta['featurise_seconds']:.0f} s + train {meta['train_seconds']:.0f} s"
            )
        for pair in ("bc+bc", "hp+hp", "bc+hp", "hp+bc"):
            kinds = pair.split("+")
            scores = []
            started = time.perf_counter()
            for seed in range(seeds):
                game = make_game("overcooked", layout=layout, seed=seed, horizon=400)
                players = [BCPlayer(checkpoints[k]) for k in kinds]
                trajectory = asyncio.run(play_episode(game, players, seed))
                scores.append(trajectory.score)
            mean = statistics.mean(scores)
            se = statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else float("nan")
            published = PUBLISHED[layout][pair]
            print(
                f"  {layout:26s} {pair}: {mean:6.1f} ± {se:4.1f} (published {published:6.1f}, "
                f"{100 * (mean - published) / published:+.0f}%) "
                f"[{time.perf_counter() - started:.0f} s]"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["hanabi", "overcooked"])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--layouts", nargs="*", default=list(PUBLISHED))
    args = parser.parse_args()
    if args.what == "hanabi":
        bench_hanabi(args.games)
    else:
        bench_overcooked(args.seeds, args.layouts)


if __name__ == "__main__":
    main()
