"""Report tables in the paper's shapes, computed from a small stored run."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from coordqa.agentic import load_agentic_run, verify_episodes
from coordqa.agentic.grid import parse_grid
from coordqa.agentic.report import agentic_report
from coordqa.agentic.runner import run_grid


@pytest.fixture(scope="module")
def report_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("agentic-report") / "run"
    grid = {
        "agents": ["planner", "hanabi-convention", "cac"],
        "models": ["scripted"],
        "partners": ["self", "greedy_human", "hanabi-iggi"],
        "games": [
            {"game": "overcooked", "layouts": ["cramped_room"], "seeds": [0, 1], "horizon": 25},
            {"game": "hanabi", "seeds": [3, 4]},
        ],
    }
    result = run_grid(parse_grid(grid), out)
    assert result.complete, result.failures
    return out


def test_tables_have_the_paper_shapes(report_run: Path, tmp_path: Path) -> None:
    report = agentic_report([report_run], out=tmp_path)
    tables = report.tables
    assert set(tables) == {
        "table1_overcooked_self_play",
        "table2_hanabi_self_play",
        "table4_overcooked_cross_play",
        "table5_hanabi_cross_play",
        "per_decision",
    }
    table1 = tables["table1_overcooked_self_play"]
    assert list(table1.columns) == ["label", "cramped_room"]
    assert set(table1["label"]) == {"planner", "cac[scripted]"}
    cell = table1.set_index("label").loc["planner", "cramped_room"]
    scores = report.episodes.query("agent == 'planner' and partner == 'self'")["score"]
    mean, se = (float(x) for x in cell.split(" ± "))
    assert mean == pytest.approx(scores.mean(), abs=0.01)
    assert se == pytest.approx(scores.std(ddof=1) / math.sqrt(len(scores)), abs=0.01)
    table4 = tables["table4_overcooked_cross_play"].set_index(["label", "partner"])
    assert " / " in table4.loc[("planner", "greedy_human"), "cramped_room"]
    table5 = tables["table5_hanabi_cross_play"]
    assert {"self-play", "with hanabi-iggi"} <= set(table5.columns)
    cost = tables["per_decision"].set_index(["label", "game"])
    assert set(cost.index) == {("cac[scripted]", "overcooked"), ("cac[scripted]", "hanabi")}
    assert (cost["calls/dec"] >= 1).all()
    assert (cost["fallback"] == 0).all()
    assert cost["HM pred acc"].isna().all()
    written = {p.name for p in tmp_path.iterdir()}
    assert {"report.md", "episodes.csv", "scores.png", "tokens_vs_score.png"} <= written
    assert "Table 4" in (tmp_path / "report.md").read_text()


def test_every_stored_episode_of_the_run_verifies(report_run: Path) -> None:
    episodes = load_agentic_run(report_run, with_exchanges=False)
    verified = verify_episodes(episodes)
    assert {v.spec.game for v in verified} == {"overcooked", "hanabi"}
    assert [v.score for v in verified] == [e.score for e in episodes]
