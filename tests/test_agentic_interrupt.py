"""Ctrl-C on ``agentic run`` / ``grid`` and ``play``: a clean stop, a resume hint, nothing lost.

Each test starts the real command in a subprocess, sends SIGINT once some work is stored, and
checks the exit status, the message, the run directory, and that the same command resumes (the
resuming run needs no signal, so it runs in the test process: :mod:`cli_support`).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.agentic import load_agentic_run
from coordqa.agentic.grid import parse_grid
from coordqa.agentic.runner import GridProgress, run_grid
from coordqa.store import open_run

CLI = [
    sys.executable,
    "-c",
    # a process started in the background of a non-interactive shell ignores SIGINT: restore
    # Python's handler, as in an interactive terminal
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from coordqa.cli import main; main()",
]


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def interrupt_when(args: list[str], ready: Callable[[], bool], timeout: float = 120) -> str:
    """Run the CLI, send SIGINT once ``ready()``; return its output (exit status 130)."""
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if ready():
            process.send_signal(signal.SIGINT)
            break
        time.sleep(0.05)
    output, _ = process.communicate(timeout=timeout)
    assert process.returncode == 130, output[-3000:]
    return " ".join(output.split())


@pytest.mark.slow  # a real process, interrupted midway: about 20 s of wall time
def test_ctrl_c_on_agentic_run_keeps_every_exchange_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [
        "agentic", "run", "--agent", "hm", "--model", "scripted", "--game",
        "collab_escape", "--partner", "escape-greedy", "--episodes", "40",
        "--parallel-episodes", "1", "--out", str(out),
    ]  # fmt: skip
    marks: list[int] = []

    def midway() -> bool:
        """An episode is finished and the next one has made a few exchanges since."""
        if not marks and lines(out / "episodes.jsonl") >= 1:
            marks.append(lines(out / "exchanges.jsonl"))
        return bool(marks) and lines(out / "exchanges.jsonl") >= marks[0] + 10

    output = interrupt_when([*CLI, *command], midway)
    assert "interrupted:" in output and "Run the same command again to resume" in output
    assert open_run(out).manifest.status == "interrupted"
    exchanges = [json.loads(line) for line in (out / "exchanges.jsonl").read_text().splitlines()]
    finished = {e.attempt for e in load_agentic_run(out, with_exchanges=False)}
    unfinished = [x for x in exchanges if x["attempt"] not in finished]
    # the episode in progress kept the exchanges it had made: they were written as they happened
    assert unfinished and all(x["kind"] in ("exchange", "events") for x in unfinished)
    done = len(finished)
    assert 1 <= done < 40
    resumed = coordqa(*command)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert f"{done} already done" in " ".join(resumed.stderr.split())  # counts: stderr
    assert len(load_agentic_run(out, with_exchanges=False)) == 40
    assert open_run(out).manifest.status == "finished"


@pytest.mark.slow  # a real process, interrupted midway
def test_ctrl_c_on_play_keeps_finished_episodes_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "play"
    args = [*CLI, "play", "overcooked", "--episodes", "200", "--out", str(out)]
    output = interrupt_when(args, lambda: lines(out / "trajectories.jsonl") >= 2)
    assert "interrupted:" in output and "Run the same command again to resume" in output
    assert open_run(out).manifest.status == "interrupted"
    kept = len((out / "trajectories.jsonl").read_text().splitlines())
    assert 2 <= kept < 200
    assert f"of 200 episodes are finished and stored in {out}" in output


def test_progress_counts_decisions_and_model_calls(tmp_path: Path) -> None:
    grid = parse_grid(
        {
            "agents": ["cac"],
            "models": ["scripted"],
            "partners": ["capture-greedy"],
            "games": [{"game": "collab_capture", "seeds": [0, 1, 2]}],
        }
    )
    seen: list[GridProgress] = []

    def record(state: GridProgress) -> None:
        seen.append(
            GridProgress(state.total, state.done, state.failed, state.decisions, state.model_calls)
        )

    result = run_grid(grid, tmp_path / "run", progress=record)
    final = seen[-1]
    decisions = sum(len(step.decisions) for e in result.played for step in e.trajectory.steps)
    calls = sum(x.kind == "exchange" for e in result.played for x in e.exchanges)
    assert (final.done, final.total) == (3, 3)
    assert final.decisions == decisions and final.model_calls == calls > 0
    # the counts rise during the episodes, not only when one finishes
    assert any(s.done == 0 and s.decisions > 0 and s.model_calls > 0 for s in seen)


def test_ctrl_c_while_the_tables_of_a_finished_run_are_made_says_the_run_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 9, #304: Ctrl-C just as the last episode ended left ``agentic run`` with
    status 130 and no word at all, the run finished. The interrupt landed after the session,
    while the tables were made, where Typer turns it into a silent 130. Raised there at once
    (no timing): the command says the run is complete and how to print its tables."""
    import coordqa.agentic.report as report

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "agentic_report", interrupted)
    out = tmp_path / "run"
    result = coordqa(
        "agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_escape",
        "--self-play", "--episodes", "1", "--out", out,
    )  # fmt: skip
    assert result.returncode == 130, result.stderr
    said = " ".join(result.stderr.split())
    assert "interrupted after the last episode: 1 of 1 episodes finished" in said
    assert f"The run is complete: nothing is missing (coordqa agentic report {out}" in said
    assert open_run(out).manifest.status == "finished"
