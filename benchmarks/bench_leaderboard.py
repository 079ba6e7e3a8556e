"""Leaderboard speed: re-scoring one full submission, and a bounded load test on 127.0.0.1.

Run by hand:  python benchmarks/bench_leaderboard.py [--submissions 40] [--views 300]
              [--concurrency 8] [--postgres] [--no-screenshots]

1. Re-scoring: a synthetic 198-question x 3-trial bundle (66 scenarios, as CoordinationQA v1)
   with a mix of reply styles, parsed and verified (digest, keys, ``coordqa.choices`` on every
   reply, accuracy tables) in-process; median of 5.
2. Load: ``coordqa leaderboard serve`` in a subprocess on 127.0.0.1 (SQLite file, or a
   throwaway PostgreSQL with --postgres); ``--submissions`` distinct full bundles POSTed with
   ``--concurrency`` clients, then ``--views`` GETs of ``/`` and of ``/api/entries``. Every
   loop is bounded by its count.
3. Screenshots of ``/`` and of one submission page in headless Debian chromium, saved into
   ``benchmarks/artifacts/``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from coordqa.leaderboard.catalog import Catalog, register_dataset
from coordqa.leaderboard.db import open_database
from coordqa.leaderboard.intake import parse_bundle
from coordqa.leaderboard.testing import (
    LiveServer,
    PostgresCluster,
    launch_chromium,
    synthetic_bundle,
    synthetic_rows,
)
from coordqa.leaderboard.tokens import create_token
from coordqa.leaderboard.verify import verify_qa

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
STYLES = (
    "Answer: {letter}",
    "Let me think. My partner is heading to the pot, so I fetch an onion.\nAnswer: {letter}",
    "{text}",
    "I choose ({letter}) because it keeps both players busy.",
    "Not sure between the options.",
)


def mixed_answer(row: dict[str, Any], trial: int, skill: int = 0) -> str:
    """Reply styles in turn; wrong on trial 2, and on more questions the lower ``skill`` (0-9)."""
    spread = zlib.crc32(f"{row['question_id']}/{trial}".encode())
    wrong = trial == 2 or spread % 10 >= skill + (3 if row["question_type"] == "EC" else 0)
    index = (row["correct"][0] + int(wrong)) % len(row["options"])
    style = STYLES[(spread // 10) % len(STYLES)]
    return style.format(letter=chr(ord("A") + index), text=row["options"][index])


def bench_rescore(rows: list[dict[str, Any]], workdir: Path, repeats: int = 5) -> None:
    bundle = synthetic_bundle(rows, answer=lambda row, trial: mixed_answer(row, trial, 7))
    body = json.dumps(bundle).encode()
    db = open_database(f"sqlite:///{workdir / 'rescore.sqlite3'}")
    path = workdir / "rescore.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    register_dataset(db, path, "bench")
    catalog = Catalog(db)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        parsed, _ = parse_bundle(body)
        verified = verify_qa(parsed, catalog)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
    db.dispose()
    overall = verified.metrics["overall"]
    print(
        f"re-score one full submission ({len(rows)} questions x 3 trials = "
        f"{len(bundle['replies'])} replies, {len(body) / 1024:.0f} KiB): median "
        f"{statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f} ms); "
        f"overall accuracy {overall['accuracy']:.3f}, {overall['ambiguous']} ambiguous, "
        f"{overall['no_answer']} no answer"
    )


def _rate(label: str, count: int, seconds: float, statuses: list[int]) -> None:
    bad = sum(s >= 300 for s in statuses)
    print(f"{label}: {count} requests in {seconds:.2f} s = {count / seconds:.1f}/s ({bad} failed)")


def bench_load(
    url: str, rows: list[dict[str, Any]], args: argparse.Namespace, workdir: Path
) -> None:
    db = open_database(url)
    path = workdir / "bench.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    register_dataset(db, path, "bench")
    token = create_token(db, "bench")
    db.dispose()
    bodies = [
        json.dumps(
            synthetic_bundle(
                rows,
                answer=lambda row, trial, skill=i % 10: mixed_answer(row, trial, skill),
                display_name=f"model {i:03d}",
            )
        )
        for i in range(args.submissions)
    ]
    headers = {"Authorization": f"Bearer {token}"}
    server = LiveServer(url, log=workdir / "server.log", options=["--rate-limit", "0"])
    with server, httpx.Client(timeout=120) as client:

        def post(body: str) -> int:
            return client.post(
                f"{server.url}/api/submissions", content=body, headers=headers
            ).status_code

        def get(path: str) -> int:
            return client.get(server.url + path).status_code

        with ThreadPoolExecutor(args.concurrency) as pool:
            start = time.perf_counter()
            statuses = list(pool.map(post, bodies))
            _rate(
                f"submissions (concurrency {args.concurrency})",
                len(bodies),
                time.perf_counter() - start,
                statuses,
            )
            for page in ("/", "/api/entries"):
                start = time.perf_counter()
                statuses = list(pool.map(get, [page] * args.views))
                _rate(
                    f"GET {page} with {args.submissions} entries",
                    args.views,
                    time.perf_counter() - start,
                    statuses,
                )
            start = time.perf_counter()
            statuses = list(pool.map(get, ["/submissions/1"] * args.views))
            _rate("GET /submissions/1", args.views, time.perf_counter() - start, statuses)
        if args.screenshots:
            screenshots(server.url, workdir)


def screenshots(url: str, workdir: Path) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        context = launch_chromium(pw, workdir / "profile")
        try:
            page = context.new_page()
            for name, path in (
                ("leaderboard-ranking.png", "/"),
                ("leaderboard-submission.png", "/submissions/1"),
            ):
                page.goto(url + path)
                page.screenshot(path=str(ARTIFACTS / name), full_page=True)
                print(f"screenshot: {ARTIFACTS / name}")
        finally:
            context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40)
    parser.add_argument("--views", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--postgres", action="store_true", help="use a throwaway PostgreSQL")
    parser.add_argument("--no-screenshots", dest="screenshots", action="store_false")
    args = parser.parse_args()
    rows = synthetic_rows(scenarios=66)
    with tempfile.TemporaryDirectory(prefix="coordqa-bench-lb-") as tmp:
        workdir = Path(tmp)
        bench_rescore(rows, workdir)
        if args.postgres:
            with PostgresCluster() as cluster:
                print("database: PostgreSQL (throwaway cluster on 127.0.0.1)")
                bench_load(cluster.new_database(), rows, args, workdir)
        else:
            print("database: SQLite file")
            bench_load(f"sqlite:///{workdir / 'lb.sqlite3'}", rows, args, workdir)


if __name__ == "__main__":
    main()
