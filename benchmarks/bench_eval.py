"""Speed of QA evaluation: throughput, an identical cached rerun, giving up on a dead server.

Run by hand:  python benchmarks/bench_eval.py [--only throughput rerun dead offline]

- ``throughput``: 198 synthetic questions x 3 trials against a local OpenAI-compatible server
  with a fixed latency (200 ms), at concurrency 1 and 32, cache off. The ideal wall time at
  concurrency c is calls x latency / c; the script prints how close each run comes to it, and
  the client's CPU time per call (coordqa + litellm; the server runs in its own process, as a
  real server would, so its CPU is not counted and it does not compete for our GIL). The
  highest concurrency is run again through the OpenAI SDK (litellm's path before coordqa chose
  its own HTTP handler, see :mod:`coordqa.llm.litellm_provider`), for the ratio in one run.
- ``rerun``: the full bundled dataset (594 calls of an ``openai/...`` model) is run once to fill
  the response cache, then ``coordqa eval`` is run again as a user would: the identical command
  (the same run directory: nothing left to ask) and the same command into a new directory (every
  reply from the cache). Prints the wall and CPU time of each (on a loaded machine the wall
  time is the CPU time stretched by the other jobs) and whether litellm was imported.
- ``dead``: ``coordqa eval`` of the full bundled dataset against a port where nothing listens,
  with the default options: the time until it gives up, and its exit status.
- ``offline``: the ``random`` model, no HTTP, no litellm: the evaluation loop, the gateway,
  answer matching and the fsynced run store alone, per call.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coordqa.dataset import GAMES, save_dataset
from coordqa.evaluation import EvalConfig, EvalProgress, evaluate
from coordqa.llm import CallPolicy, get_model
from coordqa.llm.litellm_provider import FAST_OPENAI_HANDLER
from coordqa.local_servers import free_port, stop_process

SCENARIOS = 66
SECTIONS = ("throughput", "rerun", "dead", "offline")
PROBE = (
    "import atexit, sys; atexit.register(lambda: print('litellm imported:', "
    "'litellm' in sys.modules, file=sys.stderr)); from coordqa.cli import main; main()"
)
SERVER = (
    "import sys, time; from coordqa.llm.testing import LocalOpenAIServer\n"
    "with LocalOpenAIServer(lambda body, index: 'Answer: B', latency_s=float(sys.argv[1])) as s:\n"
    "    print(s.base_url, flush=True); time.sleep(3600)\n"
)


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


@contextmanager
def server_process(latency_s: float) -> Iterator[str]:
    """A LocalOpenAIServer in its own process; yields its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(latency_s)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        stop_process(process, grace_s=30.0)


def timed_eval(config: EvalConfig) -> tuple[float, float, float, int]:
    """(wall s, sending s, client CPU s while sending, calls sent) of one evaluation.

    Sending excludes dataset loading, the model check (litellm's import) and the final scoring.
    """
    snapshots: list[tuple[EvalProgress, float]] = []
    started = time.perf_counter()
    result = evaluate(config, progress=lambda p: snapshots.append((p, time.process_time())))
    wall = time.perf_counter() - started
    calls = result.calls.sent
    if result.analysis.errors or calls != result.analysis.stored_samples:
        raise SystemExit(f"benchmark run incomplete: {result.analysis.to_json()}")
    (first, cpu_start), (last, cpu_end) = snapshots[0], snapshots[-1]
    return wall, last.elapsed_s - first.elapsed_s, cpu_end - cpu_start, calls


def throughput(root: Path, latency: float, trials: int, concurrencies: list[int]) -> None:
    dataset = str(save_dataset(synthetic_rows(SCENARIOS), root / "data"))
    print(f"throughput: {SCENARIOS * 3} questions x {trials} trials, latency {latency:g} s")
    walls: dict[int, float] = {}
    with server_process(latency) as url:
        get_model("openai/bench", api_base=url).check()  # litellm's import is not timed
        runs = [(c, "true") for c in concurrencies] + [(max(concurrencies), "false")]
        for concurrency, handler in runs:
            os.environ[FAST_OPENAI_HANDLER] = handler  # litellm reads it at every call
            config = EvalConfig(
                model="openai/bench",
                api_base=url,
                dataset=dataset,
                trials=trials,
                cache=False,
                out=root / f"run-c{concurrency}-{handler}",
                policy=CallPolicy(concurrency=concurrency, timeout_s=60.0),
            )
            wall, sending, cpu, calls = timed_eval(config)
            if handler == "true":
                walls[concurrency] = wall
            ideal = calls * latency / concurrency
            path = "litellm HTTP" if handler == "true" else "OpenAI SDK"
            print(
                f"  concurrency {concurrency:>3} ({path}): {calls} calls, wall {wall:6.2f} s, "
                f"sending {sending:6.2f} s; ideal {ideal:6.2f} s -> {100 * ideal / wall:5.1f}% of "
                f"the limit in wall time, {100 * ideal / sending:5.1f}% while sending; client "
                f"CPU {1000 * cpu / calls:.1f} ms per call"
            )
        os.environ[FAST_OPENAI_HANDLER] = "true"
    low, high = min(walls), max(walls)
    if low != high:
        print(f"  speed-up {low} -> {high}: {walls[low] / walls[high]:.1f}x")


def cli(args: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(wall s, CPU s, exit status, stderr) of one ``coordqa`` command in a fresh interpreter."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode, done.stderr


def imported(stderr: str) -> str:
    return "litellm imported" if "litellm imported: True" in stderr else "litellm not imported"


def rerun(root: Path, repeats: int) -> None:
    env = {**os.environ, "COORDQA_CACHE_DIR": str(root / "rerun-cache"), "OPENAI_API_KEY": "sk-b"}
    with server_process(0.0) as url:
        base = ["eval", "--model", "openai/bench", "--api-base", url, "--concurrency", "32"]
        wall, _, status, stderr = cli([*base, "--out", str(root / "rerun-a")], env)
        if status:
            raise SystemExit(f"the first run failed: {stderr}")
        print(f"rerun: first run of the bundled dataset (594 calls) {wall:.2f} s")
        for label, out in (("identical command", "rerun-a"), ("new run directory", None)):
            times, cpus = [], []
            for number in range(repeats):
                target = out or f"rerun-new-{number}"
                wall, cpu, status, stderr = cli([*base, "--out", str(root / target)], env)
                if status:
                    raise SystemExit(f"the rerun failed: {stderr}")
                times.append(wall)
                cpus.append(cpu)
            print(
                f"  {label:<18} ({'nothing to ask' if out else 'all from the cache'}): best "
                f"{min(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s of "
                f"{repeats} (CPU best {min(cpus):.2f} s); {imported(stderr)}"
            )


def dead(root: Path) -> None:
    port = free_port()
    env = {**os.environ, "COORDQA_CACHE_DIR": str(root / "dead-cache"), "OPENAI_API_KEY": "sk-d"}
    args = ["eval", "--model", "openai/dead", "--api-base", f"http://127.0.0.1:{port}/v1"]
    wall, cpu, status, stderr = cli([*args, "--no-cache", "--out", str(root / "dead")], env)
    last = next((line for line in stderr.splitlines() if line.startswith("error:")), "")
    print(
        f"dead server (594 calls, default options): gave up after {wall:.1f} s (CPU {cpu:.1f} s, "
        f"most of it importing litellm), exit {status}"
    )
    print(f"  {last[:200]}")


def offline(root: Path, trials: int) -> None:
    dataset = str(save_dataset(synthetic_rows(SCENARIOS), root / "offline-data"))
    config = EvalConfig(
        model="random",
        dataset=dataset,
        trials=trials,
        cache=False,
        out=root / "run-offline",
        policy=CallPolicy(concurrency=1),
    )
    wall, sending, cpu, calls = timed_eval(config)
    print(
        f"offline 'random' model, concurrency 1: {calls} calls, wall {wall:.2f} s, sending "
        f"{sending:.2f} s -> {sending / calls * 1000:.2f} ms per call (loop + gateway + "
        "choices + fsynced store)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--latency", type=float, default=0.2, help="server latency (s)")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--repeats", type=int, default=3, help="reruns timed per case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["COORDQA_CACHE_DIR"] = str(root / "cache")
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        if "throughput" in args.only:
            throughput(root, args.latency, args.trials, args.concurrency)
        if "rerun" in args.only:
            rerun(root, args.repeats)
        if "dead" in args.only:
            dead(root)
        if "offline" in args.only:
            offline(root, args.trials)
        print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
