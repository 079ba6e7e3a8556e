"""One side of ``bench_leaderboard.py --before-after``: issue 26's weak points, measured.

Run by ``bench_leaderboard.py`` (``python leaderboard_side.py FOLDER`` prints one JSON object),
against a live server of whichever coordqa is first on the path: this tree, or an older commit
laid out beside it. So it imports only what every measured version has (``open_database``,
``register_dataset``, ``create_token`` and the test support's synthetic bundles and
``LiveServer``), and the CPU and memory readers of the server process live here.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import httpx

EMPTY_REPLIES_MB = 1.0
"""Size of the bundle of empty replies (``"replies": [{}, {}, ...]``, each a schema error) both
sides get: the issue's 8 MB grew the old server to 8 GB, too much for a shared machine (the
current code refuses 8 MB as cheaply, see ``--worst``)."""
REASONING = "Let me think. My partner is heading to the pot, so I fetch an onion.\n"
"""The explanation before each 10-trial answer (a reply of a usual length)."""


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return math.nan


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def _support() -> Any:
    """The test support of the code under measurement (in the package until a3ae28d moved it)."""
    try:
        from coordqa.leaderboard import testing  # type: ignore[attr-defined]

        return testing
    except ImportError:
        import leaderboard_support

        return leaderboard_support


def _db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def measure_weak_points(workdir: Path) -> dict[str, Any]:
    """Issue 26's weak points against a live server of the code on the path; numbers by name."""
    support = _support()
    rows = support.synthetic_rows(scenarios=66)
    path = workdir / "board.sqlite3"
    from coordqa.leaderboard.catalog import register_dataset
    from coordqa.leaderboard.db import open_database
    from coordqa.leaderboard.tokens import create_token

    db = open_database(f"sqlite:///{path}")
    (workdir / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    register_dataset(db, workdir / "rows.jsonl", "bench")
    token = create_token(db, "bench")
    db.dispose()

    def letter(row: dict[str, Any]) -> str:
        return chr(ord("A") + row["correct"][0])

    empty = support.synthetic_bundle(rows[:1], trials=1)
    empty["replies"] = [{}] * int(EMPTY_REPLIES_MB * 1e6 / 4)  # "{}, " each
    bodies = {
        "empty_replies": json.dumps(support.seal(empty)).encode(),
        "trials_1000": json.dumps(
            support.synthetic_bundle(rows, trials=1_000, answer=lambda r, t: f"Answer: {letter(r)}")
        ).encode(),
        "trials_10": json.dumps(
            support.synthetic_bundle(
                rows, trials=10, answer=lambda r, t: f"{REASONING}Answer: {letter(r)}"
            )
        ).encode(),
        "long_replies": json.dumps(
            support.synthetic_bundle(
                rows, answer=lambda r, t: "A\n" * 1_700 + f"Answer: {letter(r)}"
            )
        ).encode(),
    }
    import coordqa

    numbers: dict[str, Any] = {"code": str(Path(coordqa.__file__).parent)}
    headers = {"Authorization": f"Bearer {token}"}
    server = support.LiveServer(
        f"sqlite:///{path}",
        log=workdir / "server.log",
        options=["--rate-limit", "0", "--quota", "0"],
    )
    with server, httpx.Client(timeout=600) as client:
        pid = server.process.pid
        stored: dict[str, int] = {}
        for name, body in bodies.items():
            grown = _db_bytes(path)
            reset_peak(pid)
            cpu = cpu_s(pid)
            answer = client.post(f"{server.url}/api/submissions", content=body, headers=headers)
            numbers[name] = {
                "body_mb": len(body) / 1e6,
                "status": answer.status_code,
                "cpu_s": cpu_s(pid) - cpu,
                "peak_mb": peak_mb(pid),
                "answer_bytes": len(answer.content),
                "db_mb": (_db_bytes(path) - grown) / 1e6,
            }
            if answer.status_code == 201:
                stored[name] = answer.json()["id"]
        largest = "trials_1000" if "trials_1000" in stored else "trials_10"
        numbers["largest"] = largest
        for view in ("first", "second"):
            for page, page_path in (
                ("ranking", "/?dataset=bench"),
                ("entry_page", f"/submissions/{stored[largest]}"),
                ("entry_api", f"/api/submissions/{stored[largest]}"),
            ):
                cpu = cpu_s(pid)
                answer = client.get(server.url + page_path)
                answer.raise_for_status()
                numbers[f"{page}_{view}"] = {
                    "cpu_s": cpu_s(pid) - cpu,
                    "bytes": len(answer.content),
                }
    return numbers


def main() -> None:
    print(json.dumps(measure_weak_points(Path(sys.argv[1]))))


if __name__ == "__main__":
    main()
