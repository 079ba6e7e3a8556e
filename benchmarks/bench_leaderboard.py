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
3. A hostile manifest: a one-reply bundle claiming 100,000 trials, refused in-process (CPU time
   and peak memory of the refusal).
4. Storage: the database bytes one submission close to the 20 MB body limit takes (SQLite).
5. Screenshots of ``/`` and of one submission page in headless Debian chromium, saved into
   ``benchmarks/artifacts/``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import tracemalloc
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from coordqa.leaderboard.catalog import Catalog, register_dataset
from coordqa.leaderboard.db import Database, open_database
from coordqa.leaderboard.intake import accept, parse_bundle
from coordqa.leaderboard.testing import (
    LiveServer,
    PostgresCluster,
    launch_chromium,
    seal,
    synthetic_bundle,
    synthetic_rows,
)
from coordqa.leaderboard.tokens import create_token
from coordqa.leaderboard.verify import VerificationError, verify_qa

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


def _registered(rows: list[dict[str, Any]], url: str, workdir: Path) -> Database:
    db = open_database(url)
    path = workdir / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    register_dataset(db, path, "bench")
    return db


def bench_rescore(rows: list[dict[str, Any]], workdir: Path, repeats: int = 5) -> None:
    bundle = synthetic_bundle(rows, answer=lambda row, trial: mixed_answer(row, trial, 7))
    body = json.dumps(bundle).encode()
    db = _registered(rows, f"sqlite:///{workdir / 'rescore.sqlite3'}", workdir)
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


def bench_hostile(rows: list[dict[str, Any]], workdir: Path, trials: int = 100_000) -> None:
    """Refusing a small bundle whose manifest claims ``trials`` trials: CPU time, peak memory."""
    db = _registered(rows, f"sqlite:///{workdir / 'hostile.sqlite3'}", workdir)
    catalog = Catalog(db)
    bundle = synthetic_bundle(rows[:1], trials=1)
    bundle["manifest"] = synthetic_bundle(rows, trials=1)["manifest"]
    bundle["dataset_fingerprint"] = bundle["manifest"]["dataset"]["fingerprint"]
    bundle["manifest"]["config"]["trials"] = trials
    body = json.dumps(seal(bundle)).encode()
    tracemalloc.start()
    start = time.process_time()
    try:
        accept(db, catalog, body, None)
        outcome = "accepted (!)"
    except VerificationError as exc:
        outcome = f"refused with {exc.status}"
    cpu = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    db.dispose()
    print(
        f"hostile manifest (trials={trials}, {len(body) / 1024:.1f} KiB body): {outcome} in "
        f"{cpu * 1000:.1f} ms of CPU, peak {peak / 1024:.0f} KiB allocated"
    )


def bench_storage(rows: list[dict[str, Any]], workdir: Path, body_mb: float = 19.0) -> None:
    """Database bytes one maximum-size submission takes (long replies, close to 20 MB)."""
    trials = 3
    filler = "x" * int(body_mb * 1e6 / (len(rows) * trials))

    def long_answer(row: dict[str, Any], trial: int) -> str:
        return f"{filler}\nAnswer: {chr(ord('A') + row['correct'][0])}"

    path = workdir / "storage.sqlite3"
    db = _registered(rows, f"sqlite:///{path}", workdir)

    def size() -> int:
        with db.engine.begin() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return path.stat().st_size

    before = size()
    body = json.dumps(synthetic_bundle(rows, trials=trials, answer=long_answer)).encode()
    accept(db, Catalog(db), body, None)
    grown = size() - before
    db.dispose()
    print(
        f"storage of one {len(body) / 1e6:.1f} MB submission: the database grew by "
        f"{grown / 1e6:.1f} MB ({grown / len(body):.2f} x the body)"
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
                run=str(i),
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
        bench_hostile(rows, workdir)
        bench_storage(rows, workdir)
        if args.postgres:
            with PostgresCluster() as cluster:
                print("database: PostgreSQL (throwaway cluster on 127.0.0.1)")
                bench_load(cluster.new_database(), rows, args, workdir)
        else:
            print("database: SQLite file")
            bench_load(f"sqlite:///{workdir / 'lb.sqlite3'}", rows, args, workdir)


if __name__ == "__main__":
    main()
