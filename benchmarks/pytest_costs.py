"""A pytest plugin that records what each test costs: wall time, CPU time, subprocess starts.

Used by ``bench_tests.py``; load it by hand with ``-p pytest_costs`` and ``benchmarks`` on
``PYTHONPATH``, and ``COSTS_OUT=costs.jsonl``: one JSON line per test, written as each test ends
(a run cut short keeps what it measured), then one line with the load average.

The machine the suite runs on is shared, so wall time is the CPU time stretched by everyone
else's jobs: the CPU time (this process and the children it waited for) is the number that
compares across sittings, the wall time the one a developer waits for. Subprocess starts are
counted with the ``subprocess.Popen`` audit event, so every start is seen, whichever helper made
it. Processes a test does not wait for (Ray's workers, servers it kills) are counted as starts
but their CPU time is not.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_current: dict[str, Any] | None = None


def _cpu_seconds() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "subprocess.Popen" and _current is not None:
        _current["subprocesses"] += 1


sys.addaudithook(_audit)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Measure setup, call and teardown of one test together."""
    global _current
    _current = {"subprocesses": 0}
    own, children = _cpu_seconds()
    started = time.perf_counter()
    yield
    own_after, children_after = _cpu_seconds()
    _current.update(
        wall_s=time.perf_counter() - started,
        cpu_s=own_after - own,
        children_cpu_s=children_after - children,
    )
    _write({"test": item.nodeid, **_current})
    _current = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Close the record with the load average."""
    _write({"loadavg": os.getloadavg()})


def _write(record: dict[str, Any]) -> None:
    out = os.environ.get("COSTS_OUT")
    if out:
        with Path(out).open("a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")
