"""Speed of eval sets: 8 models x 594 calls against local servers, one process vs a local Ray.

Run by hand:  python benchmarks/bench_evalset.py [--models 8] [--latency 0.2] [--concurrency 32]
              [--servers 2] [--only local ray ray-packed]

The models (``openai/m0`` ... on the bundled release, 198 questions x 3 trials, cache off) are
spread round-robin over ``--servers`` local OpenAI-compatible servers, each in its own process
(as a real server would be, so its CPU is not counted against the client and it does not compete
for the client's GIL), each replying after ``--latency`` seconds. Every endpoint allows
``--concurrency`` calls in flight, shared by the models on it. The floor of a set is the slowest
endpoint's ``ceil(calls / concurrency) x latency``.

Each variant runs the whole set in a fresh child process (``--child``), so that memory and Ray's
start are counted per variant:

- ``local``: one process, every member a task of one event loop;
- ``ray``: a local Ray with 2 CPUs, one task per member reserving 1 CPU: 2 members at a time;
- ``ray-packed``: the same Ray, tasks reserving 0.25 CPU (the default): all 8 at once.

Printed per variant: the set's wall time (inside the child, after litellm is imported and Ray
started; Ray's workers still import it, inside the time) and the whole child's, the ratio of the
floor to the set's wall time, the peak and mean calls in flight at the servers (mean: calls x
latency / wall, Little's law), the peak resident memory of the child and all its descendants
(Ray's processes included, sampled every 0.2 s), and the load average.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

SERVER = (
    "import json, sys, time\n"
    "from coordqa.llm.testing import LocalOpenAIServer\n"
    "with LocalOpenAIServer(lambda body, index: 'Answer: B', latency_s=float(sys.argv[1])) as s:\n"
    "    print(s.base_url, flush=True)\n"
    "    for line in sys.stdin:\n"
    "        print(json.dumps({'count': s.count, 'peak': s.max_in_flight}), flush=True)\n"
)
"""A server process: prints its URL, then its request count and peak in flight per stdin line."""

VARIANTS = {"local": None, "ray": 1.0, "ray-packed": 0.25}
"""Each variant and the CPUs a Ray member task reserves (None: no Ray)."""


@contextmanager
def servers(count: int, latency: float) -> Iterator[list[subprocess.Popen[str]]]:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", SERVER, str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    try:
        yield processes
    finally:
        for process in processes:
            process.kill()
            process.wait(timeout=10)


def stats(process: subprocess.Popen[str]) -> dict[str, int]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("stats\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())


def child(args: argparse.Namespace) -> None:
    """Run one set and print its wall time as JSON (the parent measures everything else)."""
    from coordqa.evalset import evaluate_set, parse_spec

    urls = args.urls.split(",")
    spec = parse_spec(
        {
            "out": args.out,
            "models": [
                {"model": f"openai/m{i}", "api_base": urls[i % len(urls)], "api_key_env": "KEY"}
                for i in range(args.models)
            ],
            "trials": 3,
            "concurrency": args.concurrency,
            "cache": False,
            "backend": "local" if args.member_cpus is None else "ray",
            "member_cpus": args.member_cpus or 0.25,
        }
    )
    import litellm  # noqa: F401 (imported before the clock starts: seconds, paid once per process)

    if args.member_cpus is not None:
        import ray

        ray.init(num_cpus=2, include_dashboard=False, namespace="coordqa", log_to_driver=False)
    started = time.perf_counter()
    result = evaluate_set(spec)
    wall = time.perf_counter() - started
    if not result.ok:
        raise SystemExit(f"the set failed: {[m.message for m in result.failed]}")
    print(json.dumps({"wall": wall, "samples": sum(m.answered for m in result.manifest.members)}))


def tree_rss(process: psutil.Process) -> int:
    """Resident memory of a process and all its descendants, in bytes."""
    total = 0
    for each in [process, *process.children(recursive=True)]:
        try:
            total += each.memory_info().rss
        except psutil.Error:
            continue
    return total


def run_variant(
    name: str, member_cpus: float | None, urls: list[str], args: argparse.Namespace, root: Path
) -> dict[str, float]:
    command = [
        sys.executable,
        __file__,
        "--child",
        "--urls",
        ",".join(urls),
        "--out",
        str(root / name),
        "--models",
        str(args.models),
        "--concurrency",
        str(args.concurrency),
    ]
    if member_cpus is not None:
        command += ["--member-cpus", str(member_cpus)]
    env = {**os.environ, "KEY": "sk-bench"}
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    watched = psutil.Process(process.pid)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(watched))
        time.sleep(0.2)
    total = time.perf_counter() - started
    out = process.stdout.read() if process.stdout else ""
    if process.returncode != 0:
        raise SystemExit(f"{name}: the child failed (exit {process.returncode}): {out}")
    result = json.loads(out.strip().splitlines()[-1])
    return {"wall": result["wall"], "total": total, "samples": result["samples"], "rss": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--only", nargs="*", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--urls", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--member-cpus", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    calls = args.models * 198 * 3
    per_endpoint = [
        sum(1 for i in range(args.models) if i % args.servers == s) * 594
        for s in range(args.servers)
    ]
    floor = max(math.ceil(n / args.concurrency) for n in per_endpoint) * args.latency
    print(
        f"{args.models} models x 594 calls = {calls} calls on {args.servers} endpoints "
        f"(concurrency {args.concurrency} each, {args.latency * 1000:.0f} ms latency): "
        f"floor {floor:.1f} s; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
    )
    with servers(args.servers, args.latency) as processes, tempfile.TemporaryDirectory() as tmp:
        urls = [p.stdout.readline().strip() for p in processes if p.stdout is not None]
        for name in args.only:
            before = [stats(p)["count"] for p in processes]
            load = os.getloadavg()[0]
            result = run_variant(name, VARIANTS[name], urls, args, Path(tmp))
            after = [stats(p) for p in processes]
            sent = sum(a["count"] - b for a, b in zip(after, before, strict=True))
            peak = max(a["peak"] for a in after)
            print(
                f"{name}: set {result['wall']:.1f} s ({floor / result['wall']:.0%} of the floor's "
                f"speed), child {result['total']:.1f} s; {sent} calls ({result['samples']} "
                f"samples); in flight: mean {sent * args.latency / result['wall']:.1f}, peak "
                f"per endpoint so far {peak} (limit {args.concurrency}); peak memory "
                f"{result['rss'] / 2**20:.0f} MiB; load {load:.1f} -> {os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
