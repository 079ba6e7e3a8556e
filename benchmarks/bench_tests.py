"""What the test suite costs, per file: wall time, CPU time and subprocess starts.

Run by hand:  python benchmarks/bench_tests.py [FILE ...] [--baseline REF] [-m "not slow"]

The ``pytest_costs`` plugin records every test's wall time, CPU time (its own and its
waited-for children's) and subprocess starts. The machine is shared, so wall time is the CPU time
stretched by other jobs; the load average is printed with every file, and the CPU time is the
number to compare across sittings.

``--read FILE`` prints a saved record (``--save``) by file without running anything; with ``-m``
only the tests the marker expression selects (collected, not run): what the fast lane
``-m "not slow"`` costs, read from a record of the whole suite.

Without ``--baseline``: the files (every ``tests/test_*.py`` when none is named: a whole suite's
time, so run it rarely on a shared machine) run in one pytest process, listed by CPU time.

``--baseline REF`` checks out a git revision (a detached worktree in a temporary folder) and runs
each file there, in its own pytest process, right before the same file here, alternating, so both
sides are measured in one sitting under the same load, and prints the ratios. The baseline's tests
run against this checkout's installed coordqa, so compare revisions whose package code the old
tests still fit (a change of tests, not of the package).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class FileCost:
    """One test file's costs (the sum over its tests), or a whole pytest process's."""

    tests: int
    """Tests that ran (passed, failed or skipped in their call)."""
    wall_s: float
    """Setup, call and teardown of the tests; a process: spawn to exit (collection included)."""
    cpu_s: float
    """CPU time, the tests' own and of the processes they waited for."""
    subprocesses: int
    """Subprocess starts made by the tests (setup and teardown included)."""
    loadavg: float
    """The one-minute load average when the file finished."""


def run_files(
    tests_dir: Path, names: list[str], marker: str | None, save: Path | None = None
) -> dict[str, FileCost]:
    """Run test files in one pytest process; each file's costs, and the process's as ``"*"``.

    The files are named relative to ``tests_dir``; ``save`` keeps the plugin's record.
    """
    with tempfile.TemporaryDirectory() as scratch:
        costs = Path(scratch) / "costs.jsonl"
        env = {
            **os.environ,
            "COSTS_OUT": str(costs),
            "PYTHONPATH": os.pathsep.join(
                [str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH", "")]
            ),
        }
        command = [sys.executable, "-m", "pytest", "-q", "-p", "pytest_costs"]
        command += ["-p", "no:cacheprovider", *(["-m", marker] if marker else [])]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [*command, *(str(tests_dir / name) for name in names)],
            cwd=tests_dir.parent,
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 5):
            tail = "\n".join(done.stdout.splitlines()[-15:])
            print(f"  {', '.join(names)}: pytest exit {done.returncode}\n{tail}", file=sys.stderr)
        recorded = read_costs(costs)[0] if costs.exists() else {}
        if save is not None and costs.exists():
            save.write_text(costs.read_text())
    load = os.getloadavg()[0]
    per_file = by_file(recorded, load)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    everything = recorded.values()
    per_file["*"] = FileCost(
        tests=len(recorded),
        wall_s=wall,
        cpu_s=cpu,
        subprocesses=sum(t["subprocesses"] for t in everything),
        loadavg=load,
    )
    return per_file


def by_file(recorded: dict[str, dict[str, Any]], load: float) -> dict[str, FileCost]:
    """Each test file's costs: the sum over the tests the plugin recorded for it."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for node, test in recorded.items():
        grouped.setdefault(Path(node.split("::")[0]).name, []).append(test)
    return {
        name: FileCost(
            tests=len(tests),
            wall_s=sum(t["wall_s"] for t in tests),
            cpu_s=sum(t["cpu_s"] + t["children_cpu_s"] for t in tests),
            subprocesses=sum(t["subprocesses"] for t in tests),
            loadavg=load,
        )
        for name, tests in grouped.items()
    }


def read_costs(path: Path) -> tuple[dict[str, dict[str, Any]], float]:
    """The tests recorded in a ``pytest_costs`` file, and its last load average (NaN: none)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    loads = [r["loadavg"][0] for r in records if "loadavg" in r]
    return {r["test"]: r for r in records if "test" in r}, (loads[-1] if loads else math.nan)


def selected(marker: str) -> set[str]:
    """The node ids of the tests ``-m marker`` selects in this checkout (collected, not run)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marker]
        + ["-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return {line for line in done.stdout.splitlines() if "::" in line}


def baseline_tests(ref: str, into: Path) -> Path:
    """A detached worktree of ``ref`` in ``into``; returns its ``tests`` folder."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(into), ref],
        check=True,
        capture_output=True,
    )
    return into / "tests"


def _line(label: str, cost: FileCost) -> str:
    return (
        f"  {label:<40}{cost.tests:>6}{cost.wall_s:>9.1f}{cost.cpu_s:>9.1f}"
        f"{cost.subprocesses:>7}{cost.loadavg:>7.1f}"
    )


def _total(label: str, costs: list[FileCost]) -> str:
    wall, cpu = sum(c.wall_s for c in costs), sum(c.cpu_s for c in costs)
    procs, tests = sum(c.subprocesses for c in costs), sum(c.tests for c in costs)
    return f"{label}: {tests} tests, wall {wall:.0f} s, CPU {cpu:.0f} s, {procs} subprocesses"


def survey(names: list[str], marker: str | None, save: Path | None) -> None:
    """All files in one pytest process, listed by CPU time, most first."""
    costs = run_files(ROOT / "tests", names, marker, save)
    whole = costs.pop("*")
    print_by_cpu(costs)
    print(_total("the pytest process (collection included)", [whole]))


def print_by_cpu(costs: dict[str, FileCost]) -> None:
    """One line per file, the most CPU first, and the total."""
    for name, cost in sorted(costs.items(), key=lambda item: -item[1].cpu_s):
        print(_line(name, cost))
    print(_total("the tests", list(costs.values())))


def compare(ref: str, names: list[str], marker: str | None) -> None:
    """Each file in its own process, the baseline's right before this checkout's."""
    both: dict[str, list[FileCost]] = {"baseline": [], "now": []}
    with tempfile.TemporaryDirectory() as scratch:
        base_dir = baseline_tests(ref, Path(scratch) / "base")
        try:
            for name in names:
                print(name)
                sides = [("baseline", base_dir), ("now", ROOT / "tests")]
                for label, tests_dir in sides:
                    if (tests_dir / name).exists():
                        cost = run_files(tests_dir, [name], marker)["*"]
                        both[label].append(cost)
                        print(_line(label, cost), flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_dir.parent)],
                check=False,
            )
    for label, costs in both.items():
        print(_total(label, costs))
    wall = sum(c.wall_s for c in both["now"]) / sum(c.wall_s for c in both["baseline"])
    cpu = sum(c.cpu_s for c in both["now"]) / sum(c.cpu_s for c in both["baseline"])
    print(f"now / baseline: CPU {cpu:.2f}, wall {wall:.2f} (pytest processes, collection included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="test files, e.g. tests/test_cli_eval.py")
    parser.add_argument("--baseline", metavar="REF", help="a git revision to compare with")
    parser.add_argument("-m", dest="marker", help='a pytest marker expression, e.g. "not slow"')
    parser.add_argument("--save", type=Path, help="write every test's costs here (JSON lines)")
    parser.add_argument(
        "--read",
        type=Path,
        help="print the files of a saved --save file, no run (-m: the tests it selects)",
    )
    args = parser.parse_args()
    names = [Path(f).name for f in args.files] or sorted(
        p.name for p in (ROOT / "tests").glob("test_*.py")
    )
    print(f"{'':42}{'tests':>6}{'wall s':>9}{'CPU s':>9}{'procs':>7}{'load':>7}")
    if args.read:
        recorded, load = read_costs(args.read)
        if args.marker:
            chosen = selected(args.marker)
            recorded = {node: test for node, test in recorded.items() if node in chosen}
        print_by_cpu(by_file(recorded, load))
    elif args.baseline:
        compare(args.baseline, names, args.marker)
    else:
        survey(names, args.marker, args.save)


if __name__ == "__main__":
    main()
