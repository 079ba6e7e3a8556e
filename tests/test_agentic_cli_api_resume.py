"""A run started by ``coordqa agentic run`` resumes through the Python API, and the other way.

The CLI stored ``agent_options: {'cac': {}}`` (an entry per agent, empty when no option was
given) where ``GridConfig`` stored ``{}``, so the two settings of one run differed and neither
resumed the other's. The grid stores one form: an agent with no option given has no entry.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import coordqa

from coordqa.agentic import GridConfig, run_grid
from coordqa.store import MANIFEST, open_run

NAME = "cac-scripted-collab_escape"
"""The name ``agentic run`` gives the run (its label; part of the run's settings)."""

CLI = ["agentic", "run", "--agent", "cac", "--model", "scripted", "--game", "collab_escape"]


def _api(seeds: list[int]) -> GridConfig:
    games = [{"game": "collab_escape", "seeds": seeds}]
    return GridConfig(name=NAME, agents=["cac"], models=["scripted"], games=games)


def test_one_stored_form_of_agent_options_whoever_gives_them() -> None:
    given = {"name": NAME, "agents": ["cac"], "games": [{"game": "collab_escape"}]}
    empty = GridConfig.model_validate({**given, "agent_options": {"cac": {}}})
    assert empty.identity() == GridConfig.model_validate(given).identity()
    assert empty.identity()["agent_options"] == {}


def test_a_cli_run_resumes_through_the_api(tmp_path: Path) -> None:
    out = tmp_path / "run"
    started = coordqa(*CLI, "--self-play", "--seeds", "0", "--out", out)
    assert started.returncode == 0, started.stderr
    resumed = run_grid(_api([0]), out)
    assert (resumed.resumed, len(resumed.played)) == (1, 0)


def test_an_api_run_resumes_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert len(run_grid(_api([0]), out).played) == 1
    resumed = coordqa(*CLI, "--self-play", "--seeds", "0", "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 played, 1 already done" in resumed.stderr


def test_a_run_stored_with_the_older_cli_form_still_resumes(tmp_path: Path) -> None:
    """A folder whose manifest holds ``{'cac': {}}`` (written before) resumes, and is
    rewritten in the one form; its episodes are kept."""
    from coordqa.jsonvalues import content_hash

    out = tmp_path / "run"
    assert len(run_grid(_api([0]), out).played) == 1
    path = out / MANIFEST
    manifest = json.loads(path.read_text())
    manifest["config"]["agent_options"] = {"cac": {}}
    keys = [episode.key for episode in _api([0]).episodes()]
    manifest["fingerprint"] = content_hash({"config": manifest["config"], "episodes": keys})
    path.write_text(json.dumps(manifest))
    resumed = coordqa(*CLI, "--self-play", "--seeds", "0", "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 played, 1 already done" in resumed.stderr
    assert open_run(out).manifest.config["agent_options"] == {}
