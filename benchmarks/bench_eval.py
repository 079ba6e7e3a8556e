"""Speed of QA evaluation: end to end, throughput, a cached rerun, giving up on a dead server.

Run by hand:  python benchmarks/bench_eval.py [--only e2e throughput rerun dead offline]

- ``e2e``: what a user waits for. Whole ``coordqa eval`` processes (the bundled dataset, 594
  calls, concurrency 32, cache off) and whole processes of a bare aiohttp client
  (``bare_client.py``: the same request bodies, nothing else) against one local
  OpenAI-compatible server with a fixed latency (200 ms), alternated, ``--repeats`` times each.
  This coordqa runs once per ``--transports`` (``direct``, the default for such a model, and
  ``litellm``). For each: the wall time from spawn to exit, split at the first request and the
  last reply as the server saw them, and the peak RSS. Prints medians and the ratios of coordqa
  to the client and to the floor, ceil(calls / concurrency) x latency (the least time any client
  needs), and the sending phase's rate as a share of the floor's. ``--before PYTHON`` times an
  earlier coordqa too (an interpreter where it is installed), alternated with this one, for
  before and after in one run. inspect_ai is not compared here (not installed in this project).
- ``throughput``: 198 synthetic questions x 3 trials against a local OpenAI-compatible server
  with a fixed latency (200 ms), at concurrency 1 and 32, cache off. The ideal wall time at
  concurrency c is calls x latency / c; the script prints how close each run comes to it, and
  the client's CPU time per call (coordqa and its HTTP client; the server runs in its own
  process, as a real server would, so its CPU is not counted and it does not compete for our
  GIL). The highest concurrency is run again through litellm, on its own HTTP handler and on the
  OpenAI SDK (see :mod:`coordqa.llm.litellm_provider`), for the ratios in one run.
- ``rerun``: the full bundled dataset (594 calls of an ``openai/...`` model) is run once to fill
  the response cache, then ``coordqa eval`` is run again as a user would: the identical command
  (the same run directory: nothing left to ask) and the same command into a new directory (every
  reply from the cache). Prints the wall and CPU time of each (on a loaded machine the wall
  time is the CPU time stretched by the other jobs), the peak RSS and whether litellm was
  imported.
- ``dead``: ``coordqa eval`` of the full bundled dataset against a port where nothing listens,
  with the default options: the time until it gives up, and its exit status.
- ``offline``: the ``random`` model, no HTTP, no litellm: the evaluation loop, the gateway,
  answer matching and the fsynced run store alone, per call.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from coordqa.dataset import load_rows, save_dataset
from coordqa.evaluation import EvalConfig, EvalProgress, evaluate
from coordqa.games import GAME_NAMES
from coordqa.llm import PAPER_SAMPLING, CallPolicy, get_model
from coordqa.llm.litellm_provider import FAST_OPENAI_HANDLER
from coordqa.local_servers import free_port, stop_process
from coordqa.prompts import build_messages

SCENARIOS = 66
SECTIONS = ("e2e", "throughput", "rerun", "dead", "offline")
PROBE = (
    "import atexit, runpy, sys\n"
    "def report():\n"
    "    with open('/proc/self/status') as proc:\n"
    "        peak = next(line.split()[1] for line in proc if line.startswith('VmHWM'))\n"
    "    print('litellm imported:', 'litellm' in sys.modules, file=sys.stderr)\n"
    "    print('peak RSS kB:', peak, file=sys.stderr, flush=True)\n"
    "atexit.register(report)\n"
    "sys.argv = sys.argv[1:]\n"
    "if sys.argv[0] == 'coordqa':\n"
    "    from coordqa.cli import main\n"
    "    main()\n"
    "else:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
)
"""Runs ``coordqa ARGS`` or ``SCRIPT.py ARGS`` as it runs alone, and says on stderr (from an
exit handler: both a normal exit and coordqa's fast one run them) whether litellm was imported
and the peak RSS. (The parent's ru_maxrss of a child counts the parent's own memory, copied at
fork.)"""
SERVER = (
    "import json, sys; from coordqa.llm.testing import LocalOpenAIServer\n"
    "with LocalOpenAIServer(lambda body, index: 'Answer: B', latency_s=float(sys.argv[1])) as s:\n"
    "    print(s.base_url, flush=True)\n"
    "    told = 0\n"
    "    for _ in sys.stdin:  # each line asks for the (arrived, answered) times not yet told\n"
    "        times = s.times\n"
    "        print(json.dumps(times[told:]), flush=True)\n"
    "        told = len(times)\n"
)
BARE_CLIENT = Path(__file__).with_name("bare_client.py")


def synthetic_rows(scenarios: int) -> list[dict]:
    """``scenarios`` x (EC, ToM, JP) valid questions with 4 options; B is always right."""
    rows = []
    for number in range(scenarios):
        game = GAME_NAMES[number % len(GAME_NAMES)]
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


class Server:
    """A LocalOpenAIServer in its own process, as a real server would be (its CPU and GIL are
    not the client's), which tells when it received and answered each request."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        """Wrap a started server process (see :func:`server_process`)."""
        assert process.stdout is not None and process.stdin is not None
        self.process = process
        self.base_url = process.stdout.readline().strip()

    def times(self) -> list[tuple[float, float]]:
        """(arrived, answered) wall-clock times of the requests answered since the last ask."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("times\n")
        self.process.stdin.flush()
        return [tuple(pair) for pair in json.loads(self.process.stdout.readline())]


@contextmanager
def server_process(latency_s: float) -> Iterator[Server]:
    """A LocalOpenAIServer in its own process."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(latency_s)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield Server(process)
    finally:
        stop_process(process, grace_s=30.0)


@dataclass(frozen=True)
class CliRun:
    """One command (``coordqa ...`` or ``SCRIPT.py ...``) run through :data:`PROBE`."""

    started: float
    """Wall clock (``time.time()``) when the process was spawned."""
    exited: float
    """Wall clock when it was reaped."""
    cpu: float
    """User plus system CPU seconds."""
    status: int
    """Exit status."""
    stderr: str
    """What it printed on stderr."""
    peak_rss_mb: float
    """Peak resident memory (VmHWM)."""

    @property
    def wall(self) -> float:
        """Spawn to exit."""
        return self.exited - self.started


def cli(args: Sequence[str], env: dict[str, str], python: str = sys.executable) -> CliRun:
    """Run ``coordqa ARGS`` (``args[0] == "coordqa"``) or ``SCRIPT.py ARGS`` in a fresh
    interpreter (``python``), to its end.

    ``-P``: the current directory is not put on ``sys.path``, so that each interpreter imports
    its own installed coordqa, not the checkout the benchmark is started from.
    """
    started = time.time()
    process = subprocess.Popen(
        [python, "-P", "-c", PROBE, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    exited = time.time()
    peak = re.search(r"^peak RSS kB: (\d+)$", stderr, re.MULTILINE)
    return CliRun(
        started=started,
        exited=exited,
        cpu=usage.ru_utime + usage.ru_stime,
        status=os.waitstatus_to_exitcode(status),
        stderr=stderr,
        peak_rss_mb=int(peak.group(1)) / 1024 if peak else math.nan,
    )


@dataclass(frozen=True)
class ProcessRun:
    """One whole client process against the server: its run, and when the server saw it send."""

    run: CliRun
    """The process."""
    first_request: float
    """When the server received the first request."""
    last_reply: float
    """When the server sent the last reply."""
    calls: int
    """Requests the server answered."""

    @property
    def wall(self) -> float:
        """Spawn to exit."""
        return self.run.wall

    @property
    def before(self) -> float:
        """Spawn to the first request."""
        return self.first_request - self.run.started

    @property
    def sending(self) -> float:
        """First request to last reply."""
        return self.last_reply - self.first_request

    @property
    def after(self) -> float:
        """Last reply to exit."""
        return self.run.exited - self.last_reply

    @property
    def peak_rss_mb(self) -> float:
        """Peak resident memory."""
        return self.run.peak_rss_mb

    @property
    def cpu(self) -> float:
        """CPU seconds of the whole process (what a loaded machine stretches least)."""
        return self.run.cpu


def timed_process(
    args: Sequence[str], server: Server, env: dict[str, str], python: str = sys.executable
) -> ProcessRun:
    """Run ``args`` (see :func:`cli`) to its end; raise if it fails or sends nothing."""
    run = cli(args, env, python)
    if run.status != 0:
        raise SystemExit(f"{args[0]} exited {run.status}:\n{run.stderr[-2000:]}")
    times = server.times()
    if not times:
        raise SystemExit(f"{args[0]} sent no request")
    return ProcessRun(
        run=run,
        first_request=min(arrived for arrived, _ in times),
        last_reply=max(answered for _, answered in times),
        calls=len(times),
    )


def request_bodies(trials: int) -> list[dict]:
    """The chat request bodies ``coordqa eval --model openai/bench`` sends for the bundled
    dataset: every question x trial, with the paper's sampling."""
    bodies = []
    for row in load_rows():
        messages = [
            {"role": m.role, "content": m.content} for m in build_messages(row, layout="system")
        ]
        body = {
            "model": "bench",
            "messages": messages,
            "temperature": PAPER_SAMPLING.temperature,
            "top_p": PAPER_SAMPLING.top_p,
        }
        bodies += [body] * trials
    return bodies


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def describe(label: str, runs: Sequence[ProcessRun]) -> str:
    """Medians of the runs' phases (each phase's own median: they need not add up)."""

    def mid(phase: str) -> float:
        return median([getattr(run, phase) for run in runs])

    return (
        f"  {label:<12} wall {mid('wall'):5.2f} s (min {min(r.wall for r in runs):5.2f}): "
        f"before the first request {mid('before'):4.2f}, sending {mid('sending'):4.2f}, after "
        f"the last reply {mid('after'):4.2f}; CPU {mid('cpu'):4.2f} s; peak RSS "
        f"{mid('peak_rss_mb'):4.0f} MB"
    )


Version = tuple[str, list[str]]
"""An interpreter whose coordqa is timed, and the options it is given (``--transport ...``)."""


def end_to_end(
    root: Path,
    versions: dict[str, Version],
    latency: float,
    trials: int,
    concurrency: int,
    repeats: int,
) -> None:
    """The e2e section; ``versions``: label -> interpreter and options of each coordqa timed."""
    bodies = request_bodies(trials)
    requests = root / "e2e-requests.json"
    requests.write_text(json.dumps(bodies))
    calls = len(bodies)
    floor = math.ceil(calls / concurrency) * latency
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench"}
    print(
        f"e2e: {calls} calls (bundled dataset x {trials} trials), concurrency {concurrency}, "
        f"latency {latency:g} s; floor ceil({calls}/{concurrency}) x {latency:g} = {floor:.2f} s"
    )
    client: list[ProcessRun] = []
    ours: dict[str, list[ProcessRun]] = {label: [] for label in versions}
    with server_process(latency) as server:
        eval_args = [
            "eval", "--model", "openai/bench", "--api-base", server.base_url, "--trials",
            str(trials), "--concurrency", str(concurrency), "--no-cache",
        ]  # fmt: skip
        bare = [str(BARE_CLIENT), server.base_url, str(requests), str(concurrency)]
        for number in range(repeats):
            client.append(timed_process([*bare, str(root / f"bare-{number}.jsonl")], server, env))
            for label, (python, options) in versions.items():
                out = ["--out", str(root / f"e2e-{label}-{number}")]
                ours[label].append(
                    timed_process(["coordqa", *eval_args, *options, *out], server, env, python)
                )
    for run in (*client, *(run for runs in ours.values() for run in runs)):
        if run.calls != calls:
            raise SystemExit(f"a run sent {run.calls} requests, expected {calls}")
    bare_wall = median([r.wall for r in client])
    print(describe("bare client", client))
    print(
        f"  bare client / floor: {bare_wall / floor:.2f}x, sending at "
        f"{100 * floor / median([r.sending for r in client]):.0f}% of the floor's rate"
    )
    for label, runs in ours.items():
        wall, sending = median([r.wall for r in runs]), median([r.sending for r in runs])
        pairs = [mine.wall / theirs.wall for mine, theirs in zip(runs, client, strict=True)]
        print(describe(label, runs))
        print(
            f"    / bare client: {wall / bare_wall:.2f}x (pairwise median {median(pairs):.2f}x; "
            f"target <= 1.6x); / floor: {wall / floor:.2f}x; sending at "
            f"{100 * floor / sending:.0f}% of the floor's rate (target >= 85%)"
        )


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
    paths = {"direct": ("direct", "true"), "litellm HTTP": ("litellm", "true")}
    paths["OpenAI SDK"] = ("litellm", "false")
    with server_process(latency) as server:
        url = server.base_url
        get_model("openai/bench", api_base=url, transport="litellm").check()  # not timed
        runs = [(c, "direct") for c in concurrencies]
        runs += [(max(concurrencies), "litellm HTTP"), (max(concurrencies), "OpenAI SDK")]
        for concurrency, path in runs:
            transport, handler = paths[path]
            os.environ[FAST_OPENAI_HANDLER] = handler  # litellm reads it at every call
            config = EvalConfig(
                model="openai/bench",
                api_base=url,
                dataset=dataset,
                trials=trials,
                cache=False,
                out=root / f"run-c{concurrency}-{transport}-{handler}",
                policy=CallPolicy(concurrency=concurrency, timeout_s=60.0),
                transport=transport,
            )
            wall, sending, cpu, calls = timed_eval(config)
            if path == "direct":
                walls[concurrency] = wall
            ideal = calls * latency / concurrency
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


def imported(stderr: str) -> str:
    return "litellm imported" if "litellm imported: True" in stderr else "litellm not imported"


def rerun(root: Path, versions: dict[str, Version], repeats: int) -> None:
    """The rerun section, each version's runs alternated with the others'.

    Each version fills a response cache and a run directory of its own with a first run: run
    directories and cache tables have changed format between versions, and an earlier coordqa
    refuses a run written by a later one.
    """
    with server_process(0.0) as server:
        base = ["coordqa", "eval", "--model", "openai/bench", "--api-base", server.base_url]
        base += ["--concurrency", "32"]
        envs: dict[str, dict[str, str]] = {}
        for label, (python, options) in versions.items():
            cache = str(root / f"rerun-cache-{label}")
            envs[label] = {**os.environ, "COORDQA_CACHE_DIR": cache, "OPENAI_API_KEY": "sk-b"}
            first = cli(
                [*base, *options, "--out", str(root / f"rerun-a-{label}")], envs[label], python
            )
            if first.status:
                raise SystemExit(f"the first run of {label} failed: {first.stderr}")
            print(
                f"rerun: first run of the bundled dataset (594 calls), {label}: {first.wall:.2f} "
                f"s, peak RSS {first.peak_rss_mb:.0f} MB"
            )
        runs: dict[tuple[str, str], list[CliRun]] = {}
        for number in range(repeats):
            for case in ("identical command", "new run directory"):
                for label, (python, options) in versions.items():
                    same = case == "identical command"
                    target = f"rerun-a-{label}" if same else f"rerun-new-{label}-{number}"
                    run = cli([*base, *options, "--out", str(root / target)], envs[label], python)
                    if run.status:
                        raise SystemExit(f"the rerun failed: {run.stderr}")
                    runs.setdefault((case, label), []).append(run)
        for (case, label), done in runs.items():
            print(
                f"  {case:<18} {label:<8}: best {min(r.wall for r in done):.2f} s, median "
                f"{median([r.wall for r in done]):.2f} s of {repeats} (CPU best "
                f"{min(r.cpu for r in done):.2f} s, peak RSS "
                f"{median([r.peak_rss_mb for r in done]):.0f} MB); {imported(done[-1].stderr)}"
            )


def dead(root: Path) -> None:
    port = free_port()
    env = {**os.environ, "COORDQA_CACHE_DIR": str(root / "dead-cache"), "OPENAI_API_KEY": "sk-d"}
    args = [
        "coordqa",
        "eval",
        "--model",
        "openai/dead",
        "--api-base",
        f"http://127.0.0.1:{port}/v1",
    ]
    run = cli([*args, "--no-cache", "--out", str(root / "dead")], env)
    last = next((line for line in run.stderr.splitlines() if line.startswith("error:")), "")
    print(
        f"dead server (594 calls, default options): gave up after {run.wall:.1f} s (CPU "
        f"{run.cpu:.1f} s, {imported(run.stderr)}), exit {run.status}"
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
    parser.add_argument("--repeats", type=int, default=5, help="runs timed per case")
    parser.add_argument(
        "--before",
        metavar="PYTHON",
        help="an interpreter whose coordqa is an earlier version: e2e and rerun time it too, "
        "alternated with this one",
    )
    parser.add_argument(
        "--transports",
        nargs="+",
        choices=["direct", "litellm"],
        default=["direct", "litellm"],
        help="this coordqa's transports timed in e2e and rerun (each alternated with the rest)",
    )
    args = parser.parse_args()
    versions: dict[str, Version] = {"before": (args.before, [])} if args.before else {}
    for transport in args.transports:
        versions[transport] = (sys.executable, ["--transport", transport])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["COORDQA_CACHE_DIR"] = str(root / "cache")
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        if "e2e" in args.only:
            concurrency = max(args.concurrency)
            end_to_end(root, versions, args.latency, args.trials, concurrency, args.repeats)
        if "throughput" in args.only:
            throughput(root, args.latency, args.trials, args.concurrency)
        if "rerun" in args.only:
            rerun(root, versions, args.repeats)
        if "dead" in args.only:
            dead(root)
        if "offline" in args.only:
            offline(root, args.trials)
        print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
