"""The researcher's day (issue 28), in process: listing, finding, filtering and comparing runs.

Runs are written with chosen outcomes (:mod:`qa_run_support`), so every expected count is decided
from the outcomes written, before the commands are run. Tables are rendered at 80 columns.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qa_run_support import Row, write_qa_run
from rich.console import Console
from typer.testing import CliRunner

from coordqa.cli import app, runs

runner = CliRunner()
LONG_NAME = "openai-gpt-4o-mini_coordinationqa-v1.1_EC+JP_sample40s0_temp0.0_2c41f9a0"
"""A run directory name as ``coordqa eval`` makes them: longer than a table column can hold."""


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runs, "console", Console(width=80, no_color=True))
    monkeypatch.setattr(runs, "messages", Console(width=80, no_color=True, stderr=True))


def outcomes(spec: dict[str, list[str]], game: str = "hanabi") -> list[Row]:
    """One question per entry (``s0-ec``: scenario s0, type EC); each trial's outcome."""
    made = []
    for qid, trials in spec.items():
        qtype = {"ec": "EC", "tom": "ToM", "jp": "JP"}[qid.split("-")[1]]
        for trial, outcome in enumerate(trials):
            status = "answered" if outcome in ("right", "wrong") else outcome
            made.append(Row(qid, qtype, trial, status, outcome == "right", game=game))
    return made


def listed_numbers(lines: list[str]) -> dict[str, list[str]]:
    """``runs list`` output: each run's path, then the cells of its numbers line."""
    found: dict[str, list[str]] = {}
    path = ""
    for line in lines[2:]:
        if not line.startswith(" "):
            path = line.split()[0]
        elif "/" in line.split()[1]:  # the answered column, not a model · dataset line
            found[path] = line.split()
    return found


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_runs_list_keeps_names_whole_counts_questions_and_shows_no_nan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = Path("runs")
    full = {"s0-ec": ["right", "wrong"], "s0-tom": ["right", "right"], "s0-jp": ["wrong"] * 2}
    write_qa_run(folder / LONG_NAME, "openai/gpt-4o-mini", outcomes(full), trials=2)
    first = {"s0-ec": ["right", "right"]}
    write_qa_run(folder / "limited", "random", outcomes(first), trials=2, limit=1)
    dead = {"s0-ec": ["error", "error"], "s0-tom": ["error", "error"]}
    write_qa_run(folder / "dead", "openai/x", outcomes(dead), trials=2)

    code, out = invoke("runs", "list", folder)
    assert code == 0, out
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), out
    assert str(folder / LONG_NAME) in lines  # the whole path, alone on its line
    after = listed_numbers(lines)
    # Long run: 3 of 6 samples right, accuracy (1/2 + 1/2 + 1/2 ... per trial) = 0.5.
    assert after[str(folder / LONG_NAME)][:4] == ["0.500", "6/6", "3", "finished"]
    # A --limit 1 run of one question looks like one: 1 question, 2 of 2 samples.
    assert after[str(folder / "limited")][:4] == ["1.000", "2/2", "1", "finished"]
    # Every call failed: nothing to show as an accuracy, and 0 of 4 samples answered.
    assert after[str(folder / "dead")][:4] == ["-", "0/4", "2", "incomplete"]
    assert "NaN" not in out
