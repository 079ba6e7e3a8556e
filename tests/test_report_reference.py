"""``coordqa report --reference``: a name that matches no run is refused with the closest."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.analysis.report import compare_runs
from coordqa.errors import ConfigError


def test_a_mistyped_reference_is_offered_the_run_meant(tmp_path: Path) -> None:
    """Walkthrough 12 #205: ``report runs/set/ --reference scriptd`` listed the runs (random,
    scripted) but offered none; every unknown name is offered the closest (registry.suggest)."""
    for model in ("random", "scripted"):
        made = coordqa("eval", "--model", model, "--limit", "3", "--out", tmp_path / model)
        assert made.returncode == 0, made.stderr
    refused = coordqa(
        "report", tmp_path / "random", tmp_path / "scripted", "--reference", "scriptd"
    )
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert "--reference 'scriptd' names no run" in said and "Did you mean 'scripted'?" in said
    with pytest.raises(ConfigError, match="names no run.*Did you mean 'scripted'"):
        compare_runs([tmp_path / "random", tmp_path / "scripted"], reference="scriptd")
