"""Speed of eval sets: 8 models x 594 calls against local servers, one process vs a local Ray.

Run by hand:  python benchmarks/bench_evalset.py [--models 8] [--latency 0.2] [--concurrency 32]
              [--servers 2] [--only local local-litellm ray ray-packed] [--before PYTHON]
              [--repeats 1]

The models (``openai/m0`` ... on the bundled release, 198 questions x 3 trials, cache off) are
spread round-robin over ``--servers`` local OpenAI-compatible servers, each in its own process
(as a real server would be, so its CPU is not counted against the client and it does not compete
for the client's GIL), each replying after ``--latency`` seconds. Every endpoint allows
``--concurrency`` calls in flight, shared by the models on it. The floor of a set is the slowest
endpoint's ``ceil(calls / concurrency) x latency``.

Each variant runs the whole set in a fresh child process (``--child``), so that memory and Ray's
start are counted per variant:

- ``local``: one process, every member a task of one event loop (the direct transport, the
  default for these models);
- ``local-litellm``: the same through litellm (``transport: litellm``);
- ``before``: ``local`` in ``--before PYTHON``, an interpreter where an earlier coordqa is
  installed (litellm was its only transport);
- ``ray``: a local Ray with 2 CPUs, one task per member reserving 1 CPU: 2 members at a time;
- ``ray-packed``: the same Ray, tasks reserving 0.25 CPU (the default): all 8 at once.

The variants run in turn, ``--repeats`` times (alternated). Printed per run: the set's wall
time (inside the child, after Ray started and, where litellm is the transport, after litellm is
imported; Ray's workers import what they need inside the time) and the whole child's (spawn to
exit: what a user waits for), the ratios of the floor to the set's time and of the child's to
the floor, the peak and mean calls in flight at the servers (mean: calls x latency / wall,
Little's law), the peak resident memory of the child and all its descendants (Ray's processes
included, sampled every 0.2 s), and the load average.
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

VARIANTS: dict[str, tuple[float | None, str | None]] = {
    "before": (None, None),
    "local": (None, "direct"),
    "local-litellm": (None, "litellm"),
    "ray": (1.0, "direct"),
    "ray-packed": (0.25, "direct"),
}
"""Each variant: the CPUs a Ray member task reserves (None: no Ray), and the transport (None:
the spec says none, for an earlier coordqa that has no such setting)."""


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
    data = {
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
    if args.transport is not None:
        data["transport"] = args.transport
    spec = parse_spec(data)
    if args.transport in (None, "litellm"):  # imported before the clock starts: seconds
        from coordqa.llm.litellm_provider import import_litellm

        import_litellm()

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
    name: str, urls: list[str], args: argparse.Namespace, root: Path
) -> dict[str, float]:
    member_cpus, transport = VARIANTS[name]
    python = args.before if name == "before" else sys.executable
    command = [
        python,
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
    if transport is not None:
        command += ["--transport", transport]
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
    parser.add_argument(
        "--only", nargs="*", choices=list(VARIANTS), default=["local", "local-litellm"]
    )
    parser.add_argument("--before", metavar="PYTHON", help="the interpreter of 'before'")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each variant, in turn")
    parser.add_argument("--transport", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--urls", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--member-cpus", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    variants = list(args.only) + (["before"] if args.before and "before" not in args.only else [])
    if "before" in variants and not args.before:
        raise SystemExit("the variant 'before' needs --before PYTHON")
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
        for number, name in [(n, v) for n in range(args.repeats) for v in variants]:
            before = [stats(p)["count"] for p in processes]
            load = os.getloadavg()[0]
            result = run_variant(name, urls, args, Path(tmp) / str(number))
            after = [stats(p) for p in processes]
            sent = sum(a["count"] - b for a, b in zip(after, before, strict=True))
            peak = max(a["peak"] for a in after)
            print(
                f"{name}: set {result['wall']:.1f} s ({floor / result['wall']:.0%} of the floor's "
                f"speed), child {result['total']:.1f} s ({result['total'] / floor:.2f}x the "
                f"floor); {sent} calls ({result['samples']} "
                f"samples); in flight: mean {sent * args.latency / result['wall']:.1f}, peak "
                f"per endpoint so far {peak} (limit {args.concurrency}); peak memory "
                f"{result['rss'] / 2**20:.0f} MiB; load {load:.1f} -> {os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
