"""``--dataset coordinationqa`` (the documented alias) and ``coordinationqa-v1.2`` are one run.

The walkthrough (#297): the alias started a new run folder instead of resuming the v1.2 one,
since the run's settings hash took the dataset as spelled. The alias is now resolved to its
release before the name, the hash and the manifest; a folder that stored the alias (as runs
did before) still resumes under either spelling.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import coordqa

import coordqa.dataset.releases as releases
from coordqa.dataset import DEFAULT_DATASET

EVAL = ["eval", "--model", "random", "--limit", "2", "--trials", "1", "--quiet"]


def _run_dir(stdout_and_err: str) -> str:
    (line,) = [line for line in stdout_and_err.splitlines() if line.startswith("run directory:")]
    return line.split(": ", 1)[1]


def _calls(run: Path) -> int:
    return len((run / "calls.jsonl").read_text().splitlines())


def test_the_alias_and_its_release_name_one_run(tmp_path: Path) -> None:
    assert releases.ALIASES["coordinationqa"] == DEFAULT_DATASET == "coordinationqa-v1.2"
    first = coordqa(*EVAL, "--dataset", "coordinationqa-v1.2", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = coordqa(*EVAL, "--dataset", "coordinationqa", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    run = _run_dir(first.stdout + first.stderr)
    assert _run_dir(second.stdout + second.stderr) == run
    assert len(list((tmp_path / "runs").iterdir())) == 1
    assert _calls(tmp_path / run) == 2  # resumed: nothing asked again
    manifest = json.loads((tmp_path / run / "manifest.json").read_text())
    assert manifest["config"]["dataset"] == "coordinationqa-v1.2"


def test_a_run_that_stored_the_alias_resumes_under_either_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    with monkeypatch.context() as before:  # aliases kept as spelled, as runs stored them
        before.setattr(releases, "canonical_dataset", lambda name: name)
        made = coordqa(*EVAL, "--dataset", "coordinationqa", "--out", out)
    assert made.returncode == 0, made.stderr
    assert json.loads((out / "manifest.json").read_text())["config"]["dataset"] == "coordinationqa"
    for spelling in ("coordinationqa", "coordinationqa-v1.2"):
        again = coordqa(*EVAL, "--dataset", spelling, "--out", out)
        assert again.returncode == 0, again.stderr
        assert _calls(out) == 2


def test_the_default_and_the_release_it_stands_for_resume_each_other(tmp_path: Path) -> None:
    """Walkthrough 19 #19, #20: a run made without --dataset was refused under the name of the
    release it measured (``dataset: stored none, requested 'coordinationqa-v1.2'``), the very
    name the refusal of another dataset had told the user to give. Same questions (the same
    fingerprint) are one run, whichever way the dataset is said."""
    default, named = tmp_path / "default", tmp_path / "named"
    assert coordqa(*EVAL, "--out", default).returncode == 0
    assert coordqa(*EVAL, "--dataset", "coordinationqa-v1.2", "--out", named).returncode == 0
    other = coordqa(*EVAL, "--dataset", "coordinationqa-v1.1", "--out", default)
    assert other.returncode == 2
    assert "on another dataset: 'coordinationqa-v1.2'" in other.stderr, other.stderr
    assert "or the dataset it was made from to resume it" in other.stderr, other.stderr
    for out, spelling in ((default, ["--dataset", "coordinationqa-v1.2"]), (named, [])):
        again = coordqa(*EVAL, *spelling, "--out", out)
        assert again.returncode == 0, again.stderr
        assert _calls(out) == 2  # resumed: nothing asked again
    stored = json.loads((default / "manifest.json").read_text())["config"]["dataset"]
    assert stored is None  # the run keeps its own setting (and folder name, fingerprint)


def test_a_default_run_of_an_older_default_resumes_under_its_releases_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a newer release is the default, a run made without --dataset measured the older
    one: the refusal sends the user to name it, and naming it resumes the run."""
    import coordqa.dataset.identity as identity
    import coordqa.dataset.load as load

    out = tmp_path / "run"
    with monkeypatch.context() as before:  # when coordinationqa-v1.1 was the default
        for module in (identity, load):
            before.setattr(module, "DEFAULT_DATASET", "coordinationqa-v1.1")
        assert coordqa(*EVAL, "--out", out).returncode == 0
    upgraded = coordqa(*EVAL, "--out", out)
    assert upgraded.returncode == 2
    assert "on another dataset: 'coordinationqa-v1.1'" in upgraded.stderr, upgraded.stderr
    again = coordqa(*EVAL, "--dataset", "coordinationqa-v1.1", "--out", out)
    assert again.returncode == 0, again.stderr
    assert _calls(out) == 2


def test_a_local_copy_of_the_release_and_the_release_resume_each_other(tmp_path: Path) -> None:
    """Walkthrough 23, item 2: ``--dataset built/`` (``coordqa dataset build``'s byte-identical
    copy of the release, its fingerprint) on a run made without ``--dataset`` was refused with
    ``dataset: stored none, requested '(local)'``, naming neither dataset. A run is its
    dataset's content, not the way it was named (docs/evaluating.md): every spelling of the
    same fingerprint resumes it, and the run keeps its own setting."""
    built = tmp_path / "built"
    assert coordqa("dataset", "build", "--out", built).returncode == 0
    default, local = tmp_path / "default", tmp_path / "local"
    assert coordqa(*EVAL, "--out", default).returncode == 0
    assert coordqa(*EVAL, "--dataset", built, "--out", local).returncode == 0
    spellings = {
        default: [[built], [built / "data.parquet"], ["coordinationqa"]],
        local: [[], ["coordinationqa"], ["coordinationqa-v1.2"], [built / "data.parquet"]],
    }
    for out, given in spellings.items():
        for dataset in given:
            again = coordqa(*EVAL, *(["--dataset", *dataset] if dataset else []), "--out", out)
            assert again.returncode == 0, again.stderr
            assert _calls(out) == 2  # resumed: nothing asked again
    for out, setting in ((default, None), (local, "(local)")):
        assert json.loads((out / "manifest.json").read_text())["config"]["dataset"] == setting
