"""``coordqa agentic run``, ``grid`` and ``report`` through Typer's CliRunner."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from coordqa.agentic import load_agentic_run
from coordqa.cli import app

runner = CliRunner()


def _flat(text: str) -> str:
    """Output with rich's line wrapping undone."""
    return " ".join(text.split())


def test_agentic_run_plays_stores_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "agentic",
        "run",
        "--agent",
        "cac",
        "--model",
        "scripted",
        "--game",
        "collab_escape",
        "--partner",
        "escape-greedy",
        "--seeds",
        "0,1",
        "--no-tom",
        "--out",
        str(out),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Table 7" in result.output and "escape rate" in result.output
    episodes = load_agentic_run(out)
    assert sorted(e.spec.seed for e in episodes) == [0, 1]
    assert all(e.spec.agent_options == {"use_tom": False} for e in episodes)
    assert not any(x["role"] == "tom" for e in episodes for x in e.exchanges)
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "0 played, 2 already done" in _flat(again.output)
    report_dir = tmp_path / "report"
    shown = runner.invoke(app, ["agentic", "report", str(out), "--out", str(report_dir)])
    assert shown.exit_code == 0, shown.output
    assert "2 episode(s) from 1 run(s)" in _flat(shown.output)
    assert (report_dir / "table7_collab.csv").exists() and (report_dir / "scores.png").exists()


def test_agentic_grid_command(tmp_path: Path) -> None:
    config = tmp_path / "grid.yaml"
    config.write_text(
        "agents: [hanabi-convention]\npartners: [self]\ngames: [{game: hanabi, seeds: [1, 2]}]\n"
    )
    result = runner.invoke(app, ["agentic", "grid", str(config), "--out", str(tmp_path / "g")])
    assert result.exit_code == 0, result.output
    assert "Table 2" in result.output and "2 played" in _flat(result.output)


def test_agentic_run_rejects_cac_flags_for_other_agents(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "agentic",
            "run",
            "--agent",
            "llm",
            "--game",
            "hanabi",
            "--no-verifier",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code != 0
    assert "CAC options" in str(result.exception)
    both = runner.invoke(
        app,
        [
            "agentic",
            "run",
            "--agent",
            "llm",
            "--game",
            "hanabi",
            "--self-play",
            "--partner",
            "hanabi-iggi",
            "--out",
            str(tmp_path),
        ],
    )
    assert "not both" in str(both.exception)
