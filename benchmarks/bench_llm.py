"""Benchmarks of the model gateway: import cost, offline overhead, HTTP throughput, cache hits.

Run by hand: ``python benchmarks/bench_llm.py [--requests N]``. Prints one line per measurement.
Everything is local: the HTTP numbers use coordqa.llm.testing.LocalOpenAIServer on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time

from coordqa.llm import CallPolicy, Message, Model, ResponseCache, get_model
from coordqa.llm.testing import LocalOpenAIServer

OFFLINE_SNIPPET = (
    "import asyncio, coordqa.llm as l;"
    "asyncio.run(l.get_model('random').generate([l.Message('user', 'Q\\nA. x\\nB. y')]))"
)


LITELLM_SNIPPET = "import coordqa.llm as l; l.get_model('openai/x').check()"


def seconds_to_run(code: str, repeats: int) -> float:
    """Best wall time of a fresh interpreter running ``code``."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        best = min(best, time.perf_counter() - started)
    return best


def questions(n: int) -> list[list[Message]]:
    return [[Message("user", f"Question {i}?\nA. yes\nB. no\nC. maybe")] for i in range(n)]


def throughput(model: Model, n: int) -> float:
    """Calls per second for ``n`` distinct questions, all submitted at once."""

    async def ask_all() -> None:
        replies = await asyncio.gather(*(model.generate(q) for q in questions(n)))
        failed = [r for r in replies if not r.ok]
        if failed:
            raise RuntimeError(f"{len(failed)} calls failed, e.g. {failed[0].error}")

    started = time.perf_counter()
    asyncio.run(ask_all())
    return n / (time.perf_counter() - started)


def report(label: str, value: float, unit: str, note: str = "") -> None:
    print(f"{label:<36}{value:9.3f} {unit}{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-dummy")

    timings = {
        "python startup": "pass",
        "import coordqa.llm + random call": OFFLINE_SNIPPET,
        "import litellm": "import litellm",
        "coordqa.llm + litellm model check": LITELLM_SNIPPET,
    }
    for label, code in timings.items():
        report(label, seconds_to_run(code, args.repeats), "s")

    report("random, gateway overhead", throughput(get_model("random"), 5000), "calls/s")

    with tempfile.TemporaryDirectory() as directory, LocalOpenAIServer() as server:
        for concurrency in (8, 32):
            model = get_model(
                "openai/bench",
                api_base=server.base_url,
                cache=None,
                policy=CallPolicy(concurrency=concurrency),
            )
            throughput(model, 5)  # warm up: import litellm, open the HTTP client
            rate = throughput(model, args.requests)
            report(f"local HTTP, concurrency {concurrency}", rate, "calls/s")
        cached = get_model("openai/bench", api_base=server.base_url, cache=ResponseCache(directory))
        throughput(cached, args.requests)
        sent = server.count
        rate = throughput(cached, args.requests)
        note = f" ({server.count - sent} requests sent on the re-run)"
        report("cache hits (SQLite WAL)", rate, "calls/s", note)


if __name__ == "__main__":
    main()
