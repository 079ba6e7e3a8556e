"""Report tables in the paper's shapes, computed from a small stored run."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd
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
        "plan_optimality",
        "per_decision",
    }
    optimal = tables["plan_optimality"]
    assert set(optimal["game"]) == {"overcooked"}  # Hanabi has no goal state
    table1 = tables["table1_overcooked_self_play"]
    assert list(table1.columns) == ["label", "cramped_room"]
    # rows are keyed by the game options too: the horizon is part of the label
    assert set(table1["label"]) == {"planner horizon=25", "cac[scripted] horizon=25"}
    cell = table1.set_index("label").loc["planner horizon=25", "cramped_room"]
    scores = report.episodes.query("agent == 'planner' and partner == 'self'")["score"]
    assert cell == mean_se(scores)
    table4 = tables["table4_overcooked_cross_play"].set_index(["label", "partner"])
    crossed = report.episodes.query("agent == 'planner' and partner == 'greedy_human'")
    seats = [mean_se(crossed.query(f"position == {s}")["score"], 1) for s in (0, 1)]
    assert table4.loc[("planner horizon=25", "greedy_human"), "cramped_room"] == " / ".join(seats)
    table5 = tables["table5_hanabi_cross_play"]
    assert {"self-play", "with hanabi-iggi"} <= set(table5.columns)
    cost = tables["per_decision"].set_index(["label", "game"])
    assert set(cost.index) == {
        ("cac[scripted] horizon=25", "overcooked"),
        ("cac[scripted]", "hanabi"),
    }
    assert all(" ± " in value for value in cost["calls/dec"])
    assert (cost["pred acc"] == "").all()  # does not apply: blank, never NaN
    # the scripted model answers every verification request "Verification: Okay"
    assert set(cost["no verdict/dec"]) == {"0.000 ± 0.000"}
    written = {p.name for p in tmp_path.iterdir()}
    assert {"report.md", "episodes.csv", "scores.png", "tokens_vs_score.png"} <= written
    markdown = (tmp_path / "report.md").read_text()
    assert "Table 4" in markdown and "nan" not in markdown.lower()


def mean_se(values: pd.Series, digits: int = 2) -> str:
    """The expected cell, computed here from the episodes: mean ± sample SE."""
    se = values.std(ddof=1) / math.sqrt(len(values))
    return f"{values.mean():.{digits}f} ± {se:.{digits}f}"


def test_episodes_csv_has_option_columns_integer_counts_and_blanks(
    report_run: Path, tmp_path: Path
) -> None:
    agentic_report([report_run], out=tmp_path)
    rows = list(csv.DictReader((tmp_path / "episodes.csv").open()))
    cac = [r for r in rows if r["agent"] == "cac"]
    planner = [r for r in rows if r["agent"] == "planner"]
    assert cac and planner
    overcooked = [r for r in cac if r["game"] == "overcooked"]
    assert all(r["game.horizon"] == "25" for r in overcooked)
    assert all(r["decisions"].isdigit() and r["llm_calls"].isdigit() for r in cac)
    # a scripted player has no model calls: blank, not 0 and not nan
    assert all(r["llm_calls"] == "" and r["model"] == "" for r in planner)
    assert "nan" not in (tmp_path / "episodes.csv").read_text().lower()


def _cac_run(root: Path, name: str, options: dict[str, object]) -> Path:
    grid = {
        "agents": ["cac"],
        "models": ["scripted"],
        "games": [{"game": "hanabi", "seeds": [1, 2]}],
        "agent_options": {"cac": options},
    }
    return run_grid(parse_grid(grid), root / name).run_dir


def test_ablation_runs_keep_their_own_rows_and_make_table_3(tmp_path: Path) -> None:
    runs = [
        _cac_run(tmp_path, "alone", {"use_tom": False, "use_verifier": False}),
        _cac_run(tmp_path, "verifier", {"use_tom": False}),
        _cac_run(tmp_path, "full", {}),
    ]
    report = agentic_report(runs)
    table2 = report.tables["table2_hanabi_self_play"]
    assert len(table2) == 3  # one row per configuration, never averaged together
    table3 = report.tables["table3_ablation"]
    assert list(table3["CAC"]) == ["LLM alone", "+ verifier", "+ verifier + ToM"]
    assert set(table3["label"]) == {"cac[scripted]"}
    for run, (_, row) in zip(runs, table3.iterrows(), strict=True):
        scores = pd.Series([e.score for e in load_agentic_run(run, with_exchanges=False)])
        assert row["hanabi"] == mean_se(scores)


def test_one_run_of_one_configuration_has_no_table_3(report_run: Path) -> None:
    assert "table3_ablation" not in agentic_report([report_run]).tables


def test_figures_have_one_panel_per_game(report_run: Path) -> None:
    import matplotlib.pyplot as plt

    from coordqa.agentic.report import _score_panels, episode_frame

    frame = episode_frame(load_agentic_run(report_run, with_exchanges=False))
    frame = frame.assign(pairing=frame["label"] + " + " + frame["partner"])
    figure = _score_panels(plt, frame, ["overcooked", "hanabi"])
    try:
        assert [ax.get_title() for ax in figure.axes] == ["overcooked", "hanabi"]
    finally:
        plt.close(figure)


def test_every_stored_episode_of_the_run_verifies(report_run: Path) -> None:
    episodes = load_agentic_run(report_run, with_exchanges=False)
    verified = verify_episodes(episodes)
    assert {v.spec.game for v in verified} == {"overcooked", "hanabi"}
    assert [v.score for v in verified] == [e.score for e in episodes]


def test_a_preset_that_configures_games_differently_is_not_an_ablation(tmp_path: Path) -> None:
    grid = {
        "agents": ["cac"],
        "models": ["scripted"],
        "preset": "paper",  # Collab Capture: action only; Collab Escape: ToM and action
        "games": [
            {"game": "collab_capture", "seeds": [0, 1]},
            {"game": "collab_escape", "seeds": [0, 1]},
        ],
    }
    run = run_grid(parse_grid(grid), tmp_path / "paper").run_dir
    assert "table3_ablation" not in agentic_report([run]).tables
