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


def _eval(out: Path, *options: str) -> None:
    made = coordqa("eval", "--model", "random", "--limit", "3", "--out", out, *options)
    assert made.returncode == 0, made.stderr


def test_the_did_you_mean_offers_only_names_that_are_taken(tmp_path: Path) -> None:
    """Walkthrough 19 #37, #40: ``--reference random-x`` offered 'random', which names both
    runs and was then refused; both refusals told the user to pick a dataset with --dataset
    although the runs were of one dataset."""
    for label in ("random-a", "random-b"):
        _eval(tmp_path / label, "--label", label)
    runs = [tmp_path / "random-a", tmp_path / "random-b"]
    typo = coordqa("report", *runs, "--reference", "random-x", "--out", tmp_path / "r")
    assert typo.returncode == 2
    said = " ".join(typo.stderr.split())
    assert "Did you mean 'random-a', 'random-b'?" in said, said
    several = coordqa("report", *runs, "--reference", "random", "--out", tmp_path / "r")
    assert several.returncode == 2
    said += " ".join(several.stderr.split())
    assert "names several runs of coordinationqa-v1.2 (random-a, random-b)" in said, said
    assert "--dataset" not in said, said
    taken = coordqa("report", *runs, "--reference", "random-a", "--out", tmp_path / "r")
    assert taken.returncode == 0, taken.stderr
    with pytest.raises(ConfigError, match=r"names several runs \(random-a, random-b\)") as one:
        compare_runs(runs, reference="random")
    assert "--dataset" not in str(one.value)


def test_a_reference_missing_from_one_of_several_datasets_may_pick_datasets(
    tmp_path: Path,
) -> None:
    _eval(tmp_path / "v12", "--label", "mine")
    _eval(tmp_path / "v11", "--dataset", "coordinationqa-v1.1")
    refused = coordqa("report", tmp_path / "v12", tmp_path / "v11", "--reference", "mine")
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert "names no run of coordinationqa-v1.1" in said, said
    assert "--dataset NAME" in said, said
