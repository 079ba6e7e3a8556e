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
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

import coordqa
from coordqa.agentic import GridConfig, run_grid
from coordqa.viewer import RunCatalog, create_app

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
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-viewer-"))
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
    with TestClient(create_app(RunCatalog([qa, agentic]))) as app:
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
