"""Leaderboard speed: re-scoring one full submission, and a bounded load test on 127.0.0.1.

Run by hand:  python benchmarks/bench_leaderboard.py [--submissions 40] [--views 300]
              [--concurrency 8] [--postgres] [--no-screenshots] [--worst] [--before-after [REV]]

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
6. Worst bundles (``--worst``): against a live server, each attack of issue 26 and the largest
   bundle each limit still lets through, one at a time: the answer, its wall time, the server
   process's CPU seconds and its peak resident memory while answering (VmHWM, reset before each
   request through /proc/PID/clear_refs); then half-open connections (how many the server holds,
   and after its header deadline).
7. Before and after (``--before-after [REV]``): issue 26's weak points measured in one run on
   the code of REV (default: the last commit before issue 26's fixes) and on this tree, each
   in its own process with its own test support and its own ``coordqa leaderboard serve`` on a
   SQLite file: CPU seconds and peak memory of the server for a body of empty replies, for a
   1,000-trial bundle, for a 10-trial one and for long adversarial replies; the database grown;
   CPU seconds and bytes of each page view of the largest entry stored.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import tomllib

from coordqa.leaderboard.catalog import BoardCatalog, register_dataset
from coordqa.leaderboard.db import Database, open_database
from coordqa.leaderboard.intake import accept, parse_bundle
from coordqa.leaderboard.tokens import create_token
from coordqa.leaderboard.verify import VerificationError, verify_qa

# The leaderboard's test support (synthetic bundles, a live server, PostgreSQL) lives in tests/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from leaderboard_side import EMPTY_REPLIES_MB, cpu_s, peak_mb, reset_peak  # noqa: E402
from leaderboard_support import (  # noqa: E402
    LiveServer,
    PostgresCluster,
    launch_chromium,
    seal,
    synthetic_bundle,
    synthetic_rows,
)

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
    catalog = BoardCatalog(db)
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
    catalog = BoardCatalog(db)
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
    """Database bytes one maximum-size submission takes (long replies, close to 20 MB).

    Two trials, so the replies stay within the reading budget (each is read as 2,001 of its
    characters: 396 x 2,001 = 792,396 of at most 1,000,000).
    """
    trials = 2
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
    accept(db, BoardCatalog(db), body, None)
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


def _worst_bodies(rows: list[dict[str, Any]], big: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """Each attack of issue 26 and the largest bundle each limit lets through, as bodies."""

    def bundle(**changes: Any) -> dict[str, Any]:
        return synthetic_bundle(rows, **changes)

    def body(data: dict[str, Any]) -> bytes:
        return json.dumps(seal(data)).encode()

    empty_replies = bundle()
    empty_replies["replies"] = [{}] * 9_999
    many_lists = bundle(run="lists")
    many_lists["manifest"]["config"]["note"] = [[] for _ in range(490_000)]
    many_strings = bundle(run="strings")
    many_strings["manifest"]["config"]["note"] = ["ab"] * 990_000
    keys = bundle(reported={"overall": 0.5, "by_type": {}})
    keys["reported"]["by_type"] = {f"t{i}": 0.5 for i in range(150_000)}
    hostile = bundle(trials=1)
    hostile["manifest"]["config"]["trials"] = 10**6
    adversarial = "A\n" * 240  # the slowest reading found, 480 characters
    most_reading = bundle(
        trials=10,
        answer=lambda row, trial: adversarial + f"Answer: {chr(65 + row['correct'][0])}",
        run="reading",
    )
    most_replies = synthetic_bundle(
        big,
        trials=10,
        answer=lambda row, trial: f"Answer: {chr(65 + row['correct'][0])}" + " x" * 30,
        run="replies",
    )
    too_long = bundle(answer=lambda row, trial: "A\n" * 1_500 + "Answer: A", run="long")
    cases = [
        ("8 MB of empty replies ([{}, {}, ...])", b'{"replies": [' + b"{}, " * 2_700_000 + b"{}]}"),
        ("9,999 empty replies (schema errors counted)", body(empty_replies)),
        ("490,000 empty lists in the manifest (parsed, then refused)", body(many_lists)),
        ("990,000 short strings in the manifest (parsed, then refused)", body(many_strings)),
        ("150,000 reported keys", body(keys)),
        ("a manifest claiming 10^6 trials", body(hostile)),
        ("11 trials (the cap is 10)", body(bundle(trials=11, run="eleven"))),
        ("594 replies of 3,000 characters (over the reading budget)", body(too_long)),
        ("198 x 10 adversarial replies (990,000 characters to read, accepted)", body(most_reading)),
        ("1,000 questions x 10 trials (the most replies, accepted)", body(most_replies)),
        (
            "the last one again under another name (409)",
            body({**most_replies, "model": {"display_name": "renamed", "provider": "synthetic"}}),
        ),
        ("nesting 100,000 deep", b"[" * 100_000 + b"]" * 100_000),
    ]
    return cases


def bench_worst(url: str, workdir: Path) -> None:
    """Each worst bundle against a live server: answer, wall time, server CPU and peak memory."""
    import socket

    rows = synthetic_rows(scenarios=66)
    big = synthetic_rows(scenarios=333, prefix="big")  # 999 questions
    db = _registered(rows, url, workdir)
    path = workdir / "big.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in big), encoding="utf-8")
    register_dataset(db, path, "big")
    token = create_token(db, "bench")
    db.dispose()
    cases = _worst_bodies(rows, big)
    headers = {"Authorization": f"Bearer {token}"}
    server = LiveServer(url, log=workdir / "worst.log", options=["--rate-limit", "0"])
    with server, httpx.Client(timeout=300) as client:
        assert server.process is not None
        pid = server.process.pid
        print(f"server at start: {peak_mb(pid):.0f} MB peak")
        created = []
        for label, body in cases:
            reset_peak(pid)
            cpu, start = cpu_s(pid), time.perf_counter()
            answer = client.post(f"{server.url}/api/submissions", content=body, headers=headers)
            wall = time.perf_counter() - start
            if answer.status_code == 201:
                created.append(answer.json()["id"])
            print(
                f"{label} ({len(body) / 1e6:.1f} MB): HTTP {answer.status_code} in {wall:.2f} s, "
                f"{cpu_s(pid) - cpu:.2f} CPU-s, peak {peak_mb(pid):.0f} MB, answer "
                f"{len(answer.content)} bytes"
            )
        for view in ("first", "second"):
            for page_path in (
                "/?dataset=big",
                f"/submissions/{created[-1]}",
                f"/api/submissions/{created[-1]}",
            ):
                cpu, start = cpu_s(pid), time.perf_counter()
                page = client.get(server.url + page_path)
                print(
                    f"GET {page_path} ({view} view; the 1,000-question x 10-trial entry): HTTP "
                    f"{page.status_code} in {time.perf_counter() - start:.2f} s, "
                    f"{cpu_s(pid) - cpu:.2f} CPU-s, {len(page.content) / 1e3:.0f} kB"
                )
        held = []
        for _ in range(1_200):
            try:
                held.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            except OSError:
                break
        time.sleep(1.0)
        open_fds = len(list(Path(f"/proc/{pid}/fd").iterdir()))
        print(f"{len(held)} half-open connections: the server holds {open_fds} file descriptors")
        time.sleep(11.0)
        after = len(list(Path(f"/proc/{pid}/fd").iterdir()))
        print(f"after the 10 s header deadline: {after} file descriptors")
        for conn in held:
            conn.close()


BASELINE = "3d9b4fc"
"""The last commit before issue 26's fixes (the first, a32b8c4, bounded reading a reply)."""


def _install_tree(rev: str, folder: Path) -> Path:
    """The package of commit ``rev`` laid out as an install would, to put first on PYTHONPATH.

    Its folders are copied by its package-dir mapping, and a ``dist-info`` of its own shadows
    this tree's editable install, whose entry points (plugins) name objects ``rev`` may lack.
    """
    import shutil

    source, site = folder / "src", folder / "site"
    source.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", rev], cwd=Path(__file__).resolve().parents[1], capture_output=True,
        check=True, timeout=120,
    )  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True, timeout=120)
    config = tomllib.loads((source / "pyproject.toml").read_text())
    for package, path in config["tool"]["setuptools"]["package-dir"].items():
        shutil.copytree(source / path, site.joinpath(*package.split(".")), dirs_exist_ok=True)
    project = config["project"]
    info = site / f"coordqa-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: coordqa\nVersion: {project['version']}\n"
    )
    groups = {**project.get("entry-points", {}), "console_scripts": project.get("scripts", {})}
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
            for group, points in groups.items()
        )
    )
    return site


def bench_before_after(rev: str, workdir: Path) -> None:
    """Each weak point on the code of ``rev``, then on this tree: one table, one run."""
    site = _install_tree(rev, workdir / "baseline")
    tests = str(Path(__file__).resolve().parents[1] / "tests")
    sides: dict[str, dict[str, Any]] = {}
    for side, path in (("before", f"{site}:{tests}"), ("after", tests)):
        folder = workdir / side
        folder.mkdir()
        env = {**os.environ, "PYTHONPATH": path}
        # in the side's folder: its server (python -c) must not import this tree from the cwd
        done = subprocess.run(
            [sys.executable, str(Path(__file__).with_name("leaderboard_side.py")), str(folder)],
            env=env, cwd=folder, capture_output=True, text=True, timeout=3_600,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"the {side} side failed:\n{done.stdout}{done.stderr}")
        sides[side] = json.loads(done.stdout.splitlines()[-1])
    before, after = sides["before"], sides["after"]
    if not before["code"].startswith(str(site)):
        raise SystemExit(f"the before side ran {before['code']}, not {rev} from {site}")
    print(f"before = {rev} ({before['code']}), after = this tree ({after['code']}); SQLite")
    print("| weak point | before | after |")
    print("|---|---|---|")
    labels = {
        "empty_replies": f"{EMPTY_REPLIES_MB:g} MB of empty replies",
        "trials_1000": "1,000 trials x 198 questions",
        "trials_10": "10 trials x 198 questions",
        "long_replies": "594 replies of 3,409 characters",
    }

    def cell(n: dict[str, Any]) -> str:
        return (
            f"HTTP {n['status']}, {n['cpu_s']:.2f} CPU-s, peak {n['peak_mb']:.0f} MB, "
            f"answer {n['answer_bytes'] / 1e3:,.1f} kB, db +{n['db_mb']:.1f} MB"
        )

    def view(n: dict[str, Any], side: dict[str, Any]) -> str:
        return f"{n['cpu_s']:.2f} CPU-s, {n['bytes'] / 1e3:,.0f} kB ({side['largest']})"

    for name, label in labels.items():
        size = before[name]["body_mb"]
        print(f"| {label} ({size:.1f} MB) | {cell(before[name])} | {cell(after[name])} |")
    for page in ("ranking", "entry_page", "entry_api"):
        for seen in ("first", "second"):
            key = f"{page}_{seen}"
            print(
                f"| GET {page} ({seen} view of the largest entry) "
                f"| {view(before[key], before)} | {view(after[key], after)} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40)
    parser.add_argument("--views", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--postgres", action="store_true", help="use a throwaway PostgreSQL")
    parser.add_argument("--no-screenshots", dest="screenshots", action="store_false")
    parser.add_argument("--worst", action="store_true", help="only the worst-bundle section")
    parser.add_argument(
        "--before-after",
        nargs="?",
        const=BASELINE,
        metavar="REV",
        help=f"only the weak points, on REV's code and this tree (default REV: {BASELINE})",
    )
    args = parser.parse_args()
    rows = synthetic_rows(scenarios=66)
    with tempfile.TemporaryDirectory(prefix="coordqa-bench-lb-") as tmp:
        workdir = Path(tmp)
        if args.before_after:
            bench_before_after(args.before_after, workdir)
            return
        if args.worst:
            if args.postgres:
                with PostgresCluster() as cluster:
                    print("database: PostgreSQL (throwaway cluster on 127.0.0.1)")
                    bench_worst(cluster.new_database(), workdir)
            else:
                print("database: SQLite file")
                bench_worst(f"sqlite:///{workdir / 'worst.sqlite3'}", workdir)
            return
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
