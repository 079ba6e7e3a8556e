"""Speed-up of an agentic grid with concurrent episodes, local asyncio and Ray backends.

The model is a real litellm ``openai/...`` model pointed at the local OpenAI-compatible test server
(``coordqa.llm.testing.LocalOpenAIServer``) with a simulated latency of 0.5 s per reply; the
server answers like the offline ``scripted`` model. The grid: the LLM-only agent with the
``capture-greedy`` partner on Collab Capture, 8 seeds (3 decisions, so 3 model calls, per
episode). Each configuration plays the grid twice, each time into a fresh run directory: the first
run warms up (litellm's import and first call, Ray's worker processes and their imports); the
time is the second ``run_grid`` wall time. A Ray task reserves one CPU, so a Ray instance with
2 CPUs plays 2 episodes at once; with 8 logical CPUs (episodes mostly wait for the model) 8.

Run by hand: ``python benchmarks/bench_agentic.py [--episodes 8] [--latency 0.5] [--no-ray]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from coordqa.agentic.grid import parse_grid
from coordqa.agentic.runner import run_grid
from coordqa.llm import Message
from coordqa.llm.offline import default_policy
from coordqa.llm.testing import LocalOpenAIServer


def scripted_reply(body: dict[str, Any], index: int) -> str:
    """Answer a chat request as the offline ``scripted`` model would."""
    messages = [Message(m["role"], m["content"]) for m in body["messages"]]
    return default_policy(messages)


def grid_data(base_url: str, episodes: int, parallel: int, backend: str) -> dict[str, Any]:
    """The benchmark grid with ``parallel`` episodes in flight."""
    return {
        "name": "bench",
        "agents": ["llm"],
        "models": ["openai/bench"],
        "api_base": base_url,
        "partners": ["capture-greedy"],
        "games": [{"game": "collab_capture", "seeds": list(range(episodes))}],
        "runtime": {
            "backend": backend,
            "parallel_episodes": parallel,
            "concurrency": 8,
        },
    }


def timed_grid(data: dict[str, Any], root: Path, label: str) -> float:
    """Play the grid into a fresh directory once to warm up (imports, Ray workers), then again
    into another fresh directory; return the wall time of the second run in seconds."""
    run_grid(parse_grid(data), root / f"{label}-warm-up")
    started = time.perf_counter()
    result = run_grid(parse_grid(data), root / label)
    elapsed = time.perf_counter() - started
    if not result.complete:
        raise SystemExit(f"{label}: {len(result.failures)} episode(s) failed: {result.failures}")
    return elapsed


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "bench-key")
    rows: list[tuple[str, float]] = []
    with (
        LocalOpenAIServer(scripted_reply, latency_s=args.latency) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        root = Path(tmp)
        for parallel in (1, 2, 4, 8):
            data = grid_data(server.base_url, args.episodes, parallel, "local")
            rows.append(
                (f"local, {parallel} episode(s) at once", timed_grid(data, root, f"l{parallel}"))
            )
        calls = server.count
        if not args.no_ray:
            import ray

            for cpus in (2, 8):
                ray.init(num_cpus=cpus, include_dashboard=False, namespace="coordqa")
                try:
                    data = grid_data(server.base_url, args.episodes, 8, "ray")
                    label = f"ray, {cpus} logical CPUs, 8 at once"
                    rows.append((label, timed_grid(data, root, f"r{cpus}")))
                finally:
                    ray.shutdown()
        max_in_flight = server.max_in_flight
    base = rows[0][1]
    print(
        f"{args.episodes} episodes, {args.latency} s per model reply, {calls // 8} calls per grid"
    )
    print(f"{'configuration':34} {'wall s':>8} {'speed-up':>9}")
    for label, seconds in rows:
        print(f"{label:34} {seconds:8.2f} {base / seconds:8.2f}x")
    print(f"most requests in flight at the server: {max_in_flight}")


if __name__ == "__main__":
    main()
