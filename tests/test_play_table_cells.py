"""``coordqa play`` writes a mean score as the agentic report does (walkthrough #117, #285).

``play`` printed ``19.00 ± NaN (n=1)`` where the agentic report prints ``19.00 (n=1)``, and
``3.00 ± 0.00 (n=2)`` for a deterministic game replayed where the report says
``(1 distinct episode, n=2)``. One formatter (:func:`coordqa.analysis.stats.mean_cell`) now
writes both.
"""

from __future__ import annotations

import re

import pandas as pd
from cli_support import coordqa

from coordqa.agentic.report import summary
from coordqa.analysis.stats import mean_cell


def _cells(stdout: str) -> dict[str, str]:
    rows = re.findall(r"│ (\S[^│]*?) +│ +([^│]*?) │", stdout)
    return dict(rows)


def test_one_episode_has_no_nan_spread() -> None:
    shown = coordqa("play", "hanabi", "--episodes", "1", "--seed", "0")
    assert shown.returncode == 0, shown.stderr
    assert _cells(shown.stdout)["score"] == "19.00 (n=1)"
    assert "NaN" not in shown.stdout


def test_a_deterministic_game_replayed_is_one_distinct_episode() -> None:
    shown = coordqa("play", "collab_capture", "--players", "capture-planner", "--episodes", "2")
    assert shown.returncode == 0, shown.stderr
    cells = _cells(shown.stdout)
    assert cells["turns when captured"] == "3.00 (1 distinct episode, n=2)", cells
    assert cells["score"] == "1.00 (1 distinct episode, n=2)", cells


def test_different_episodes_get_the_agentic_reports_cell() -> None:
    shown = coordqa("play", "hanabi", "--episodes", "3", "--seed", "0")
    assert shown.returncode == 0, shown.stderr
    cell = _cells(shown.stdout)["score"]
    assert re.fullmatch(r"\d+\.\d\d ± \d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\] n=3", cell), cell


def test_the_agentic_report_and_play_share_the_formatter() -> None:
    values, episodes = pd.Series([3.0, 3.0]), pd.Series(["a", "a"])
    assert summary(values, episodes) == mean_cell([3.0, 3.0], distinct=1)
    assert summary(pd.Series([1.0, 2.0]), pd.Series(["a", "b"])) == mean_cell([1.0, 2.0], 2)
    assert mean_cell([1.0, 2.0], 2) == "1.50 ± 0.50 [1.00, 2.00] n=2"
    assert mean_cell([], 0) == ""
