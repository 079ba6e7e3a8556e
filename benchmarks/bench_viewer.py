"""Viewer speed: page times of a 594-sample QA run and a 400-step agentic episode, over HTTP.

Run by hand:  python benchmarks/bench_viewer.py [--repeats 15] [--keep DIR]

1. Writes the runs with the offline models (nothing is hand-made): ``coordqa eval --model
   random`` on CoordinationQA v1 (198 questions x 3 trials = 594 samples), and one CAC episode
   (``--model scripted``) with the greedy human partner on Overcooked cramped_room, horizon 400.
2. Times each page, first in this process on the app itself (FastAPI's test client, no network,
   the runs not read yet), then over HTTP from ``coordqa view`` in a subprocess on 127.0.0.1,
   which reads the runs before it prints its URL (the time it took is printed). For each: the
   first request and the median of ``--repeats`` later ones. Pages are asked in the order
   listed, so in process the first sample table and the first episode page include reading the
   run from disk; in both, the first summary includes the bootstrap intervals and the first
   step page the replay of the episode for its descriptions.
3. Prints each page's time against the target (sample table < 300 ms, episode page < 1 s) as a
   ratio, so the result reads the same on any machine.

``--large`` (or ``--large-run DIR`` to reuse one) adds the first views of a large run's
episodes (walkthrough 27, R7): ``coordqa agentic grid paper --model scripted --agent cac``
(62 episodes, 56 played without OBL weights, ~110 MB of ``exchanges.jsonl``, ~75 s to write;
its exit 1 for the skipped OBL episodes is expected). A fresh ``coordqa view`` process is asked
for episodes 0, 1, 5, 30 and 40 once each, over HTTP; then, in this process and one after the
other, each episode's first read as it was before (the whole stream parsed, then filtered) and
as it is now (a fresh view: the first episode builds the run's index), with their ratio.
Measured (one run, load ~6 on 2 cores, 111 MB): the five first reads 40.0 s before, 1.10 s now
(0.027x); over HTTP 1.13 s for episode 0 (the index built), 0.06 to 0.23 s for the others
(docs/MEASUREMENTS.md).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

import coordqa
from coordqa.agentic import GridConfig, run_grid
from coordqa.agentic.episodes import EXCHANGES
from coordqa.agentic.records import parse_record
from coordqa.viewer import RunCatalog, create_app
from coordqa.viewer.agentic import AgenticView, EpisodeView

# The viewer's test support (a live viewer process) lives in tests/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from viewer_support import LiveViewer  # noqa: E402

TARGETS_S = {"sample table (594 rows)": 0.300, "episode page (400 steps)": 1.0}


def make_runs(root: Path) -> tuple[Path, Path]:
    """The 594-sample QA run and the 400-step agentic run."""
    qa = coordqa.evaluate(coordqa.EvalConfig(model="random", trials=3, out=root / "qa")).run_dir
    grid = GridConfig.model_validate(
        {
            "name": "bench",
            "agents": ["cac"],
            "models": ["scripted"],
            "partners": ["greedy_human"],
            "positions": 0,
            "games": [
                {"game": "overcooked", "layouts": ["cramped_room"], "seeds": [0], "horizon": 400}
            ],
        }
    )
    run_grid(grid, root / "agentic")
    return qa, root / "agentic"


LARGE_EPISODES = (0, 1, 5, 30, 40)
"""The episodes of the large run asked for, as in the walkthrough."""


def make_large_run(out: Path) -> Path:
    """The paper grid with CAC and the offline ``scripted`` model (exit 1: OBL skipped)."""
    command = ["coordqa", "agentic", "grid", "paper", "--model", "scripted", "--agent", "cac"]
    done = subprocess.run([*command, "--out", str(out)], capture_output=True, text=True)
    if not (out / "exchanges.jsonl").is_file():
        raise SystemExit(f"{' '.join(command)} wrote no run: {done.stderr[-2000:]}")
    return out


def seconds(action: Any) -> float:
    """How long ``action()`` took."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def large_run_first_views(run: Path, root: Path) -> None:
    """Print the first view of each of :data:`LARGE_EPISODES`: over HTTP, then before/now."""
    size = (run / "exchanges.jsonl").stat().st_size
    with (
        LiveViewer([run], root / "viewer-large.log") as viewer,
        httpx.Client(base_url=viewer.url, timeout=120) as client,
    ):
        http = {
            n: seconds(lambda n=n: client.get(f"/runs/{run.name}/episodes/{n}"))
            for n in LARGE_EPISODES
        }
    old_view = AgenticView(run)

    def before(n: int) -> None:  # what an episode's first view did until walkthrough 27, R7
        attempt = old_view.episodes[n].attempt
        records = old_view.store.read(EXCHANGES, parse_record)
        mine = [r for r in records if r.attempt == attempt]
        assert EpisodeView(n, old_view.episodes[n], mine).rows

    new_view = AgenticView(run, cached_episodes=len(LARGE_EPISODES))
    old = {n: seconds(lambda n=n: before(n)) for n in LARGE_EPISODES}
    new = {n: seconds(lambda n=n: new_view.episode(n).rows) for n in LARGE_EPISODES}
    print(f"large run: {len(old_view.episodes)} episodes, exchanges.jsonl {size / 1e6:.0f} MB")
    print(f"{'first view':12} {'over HTTP':>10} {'before':>9} {'now':>9}  now/before")
    for n in LARGE_EPISODES:
        print(
            f"episode {n:<4} {http[n] * 1000:8.0f}ms {old[n] * 1000:7.0f}ms "
            f"{new[n] * 1000:7.0f}ms  {new[n] / old[n]:.3f}"
        )
    total_old, total_new = sum(old.values()), sum(new.values())
    print(
        f"{'all five':12} {sum(http.values()) * 1000:8.0f}ms {total_old * 1000:7.0f}ms "
        f"{total_new * 1000:7.0f}ms  {total_new / total_old:.3f}"
    )


def timed(client: Any, url: str, repeats: int) -> tuple[float, float, int]:
    """First request's time, median of ``repeats`` more, and the page's size in bytes."""
    start = time.perf_counter()
    response = client.get(url)
    first = time.perf_counter() - start
    response.raise_for_status()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        client.get(url).raise_for_status()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), len(response.content)


def main() -> None:
    """Build the runs, serve them, time the pages and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="write the runs here (default: a temp dir)")
    parser.add_argument("--large", action="store_true", help="also a large run's first views")
    parser.add_argument("--large-run", type=Path, help="the large run to use (written if absent)")
    parser.add_argument("--only-large", action="store_true", help="only the large run's views")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-viewer-"))
    root.mkdir(parents=True, exist_ok=True)
    if args.large or args.large_run or args.only_large:
        large = args.large_run or root / "paper-cac"
        if not (large / "exchanges.jsonl").is_file():
            started = time.perf_counter()
            make_large_run(large)
            print(f"large run written in {time.perf_counter() - started:.1f} s: {large}")
        large_run_first_views(large, root)
        if args.only_large:
            return
    started = time.perf_counter()
    qa, agentic = make_runs(root)
    print(f"runs written in {time.perf_counter() - started:.1f} s under {root}")
    pages = {
        "sample table (594 rows)": f"/runs/{qa.name}/samples",
        "run summary": f"/runs/{qa.name}/",
        "sample table, filtered": f"/runs/{qa.name}/samples?outcome=wrong&q=onion",
        "sample page": f"/runs/{qa.name}/samples/300",
        "episode page (400 steps)": f"/runs/{agentic.name}/episodes/0",
        "step page": f"/runs/{agentic.name}/episodes/0/steps/200",
    }
    with TestClient(create_app(RunCatalog([qa, agentic])), base_url="http://127.0.0.1") as app:
        in_process = {name: timed(app, url, args.repeats) for name, url in pages.items()}
    with (
        LiveViewer([qa, agentic], root / "viewer.log") as viewer,
        httpx.Client(base_url=viewer.url, timeout=60) as client,
    ):
        over_http = {name: timed(client, url, args.repeats) for name, url in pages.items()}
    print(next(line for line in (root / "viewer.log").read_text().splitlines() if "read " in line))
    print(f"{'':28} {'over HTTP':>19} {'in process':>19}")
    print(f"{'page':28} {'first':>9} {'median':>9} {'first':>9} {'median':>9} {'size':>7}  target")
    for name in pages:
        first, median, size = over_http[name]
        app_first, app_median, _ = in_process[name]
        target = TARGETS_S.get(name)
        verdict = (
            f"< {target * 1000:.0f} ms: first {first / target:.2f}x, median {median / target:.2f}x"
            if target
            else ""
        )
        print(
            f"{name:28} {first * 1000:7.0f}ms {median * 1000:7.1f}ms {app_first * 1000:7.0f}ms "
            f"{app_median * 1000:7.1f}ms {size / 1024:5.0f}kB  {verdict}"
        )


if __name__ == "__main__":
    main()
