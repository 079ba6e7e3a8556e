"""Speed of a full QA evaluation: 198 questions x 3 trials against a local server.

Run by hand:  python benchmarks/bench_eval.py [--latency 0.2] [--trials 3]

The local OpenAI-compatible server answers every request after a fixed latency (200 ms by
default), so the ideal wall time at concurrency c is calls x latency / c. The script evaluates
the same synthetic dataset at concurrency 1 and 32 (cache off, fresh run directories), prints
both wall times, the speed-up, how close concurrency 32 comes to the ideal, and coordqa's own
overhead per call:

- over HTTP at concurrency 1: (sending time - calls x latency) / calls (litellm, HTTP, gateway,
  store), where sending time excludes dataset loading, litellm's import and final scoring;
- offline (the ``random`` model, no HTTP, no litellm): sending time / calls: the evaluation loop,
  the gateway, answer matching and the fsynced run store alone.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from coordqa.dataset import GAMES, save_dataset
from coordqa.evaluation import EvalConfig, EvalProgress, evaluate
from coordqa.llm import CallPolicy
from coordqa.llm.testing import LocalOpenAIServer

SCENARIOS = 66


def synthetic_rows(scenarios: int) -> list[dict]:
    """``scenarios`` x (EC, ToM, JP) valid questions with 4 options; B is always right."""
    rows = []
    for number in range(scenarios):
        game = GAMES[number % len(GAMES)]
        for qtype in ("EC", "ToM", "JP"):
            rows.append(
                {
                    "question_id": f"bench-{number:03d}-{qtype}",
                    "scenario_id": f"bench-{number:03d}",
                    "game": game,
                    "layout": "bench",
                    "question_type": qtype,
                    "game_description": f"A benchmark stand-in for {game}. " * 20,
                    "state_description": f"State {number}: nothing happens. " * 10,
                    "question": f"Question {number} of type {qtype}: which option?",
                    "options": ["wait", "pick up onion", "move to room 2", "discard card 1"],
                    "correct": [1],
                    "rationale": "synthetic",
                    "concept": "benchmark",
                    "tags": ["benchmark"],
                    "source": "benchmarks/bench_eval.py",
                    "version": "0",
                    "snapshot": "",
                }
            )
    return rows


def timed_eval(config: EvalConfig) -> tuple[float, float, int]:
    """(wall seconds, seconds spent sending, calls): sending excludes dataset loading,
    the model check, litellm's import and the final scoring."""
    snapshots: list[EvalProgress] = []
    started = time.perf_counter()
    result = evaluate(config, progress=snapshots.append)
    wall = time.perf_counter() - started
    calls = result.calls.sent
    if result.analysis.errors or calls != result.analysis.stored_samples:
        raise SystemExit(f"benchmark run incomplete: {result.analysis.to_json()}")
    return wall, snapshots[-1].elapsed_s, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="server latency (s)")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["COORDQA_CACHE_DIR"] = str(root / "cache")  # unused (cache off), but private
        dataset = str(save_dataset(synthetic_rows(SCENARIOS), root / "data"))
        questions = SCENARIOS * 3
        print(f"{questions} questions x {args.trials} trials, latency {args.latency * 1000:.0f} ms")

        walls: dict[int, float] = {}
        with LocalOpenAIServer(lambda body, index: "Answer: B", latency_s=args.latency) as server:
            for concurrency in args.concurrency:
                config = EvalConfig(
                    model="openai/bench",
                    api_base=server.base_url,
                    dataset=dataset,
                    trials=args.trials,
                    cache=False,
                    out=root / f"run-c{concurrency}",
                    policy=CallPolicy(concurrency=concurrency, timeout_s=60.0),
                )
                wall, sending, calls = timed_eval(config)
                walls[concurrency] = wall
                ideal = calls * args.latency / concurrency
                print(
                    f"concurrency {concurrency:>3}: {calls} calls, wall {wall:7.2f} s, sending "
                    f"{sending:7.2f} s ({calls / sending:6.1f} calls/s); ideal {ideal:6.2f} s -> "
                    f"{100 * ideal / wall:5.1f}% of the limit in wall time, "
                    f"{100 * ideal / sending:5.1f}% while sending; server saw at most "
                    f"{server.max_in_flight} in flight"
                )
                if concurrency == 1:
                    overhead = (sending - calls * args.latency) / calls
                    print(
                        f"  overhead per call over HTTP (litellm + gateway + store): "
                        f"{overhead * 1000:.1f} ms"
                    )
        low, high = min(walls), max(walls)
        if low != high:
            print(f"speed-up {low} -> {high}: {walls[low] / walls[high]:.1f}x")

        offline = EvalConfig(
            model="random",
            dataset=dataset,
            trials=args.trials,
            cache=False,
            out=root / "run-offline",
            policy=CallPolicy(concurrency=1),
        )
        wall, sending, calls = timed_eval(offline)
        print(
            f"offline 'random' model, concurrency 1: {calls} calls, wall {wall:.2f} s, sending "
            f"{sending:.2f} s -> {sending / calls * 1000:.2f} ms per call (loop + gateway + "
            "choices + fsynced store)"
        )


if __name__ == "__main__":
    main()
