"""A spec file's dataset paths are read from the file's folder (walkthrough 20, R4).

``es/local.yaml`` with ``datasets: [../fresh2, example]`` worked from ``es/``; from its parent
the same file read an unrelated ``../fresh2`` (and failed on it), and from elsewhere said the
dataset did not exist, so resuming a set from another folder meant other data. A spec names
its datasets as its author saw them, beside the file; ``--dataset`` on the command line and the
set's ``out`` stay relative to the working folder, as every option's paths are.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa
from test_evaluate_support import write_dataset

from coordqa.dataset.identity import dataset_identity
from coordqa.evalset import read_set
from coordqa.evalset.spec import load_spec
from coordqa.store import read_qa_run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``project/es/local.yaml`` naming ``../fresh2`` (3 questions) and a decoy ``fresh2`` (6
    questions) beside ``project``, where ``../fresh2`` leads from ``project/``."""
    write_dataset(tmp_path / "project" / "fresh2", scenarios=1)
    write_dataset(tmp_path / "fresh2", scenarios=2)  # the decoy
    spec = tmp_path / "project" / "es" / "local.yaml"
    spec.parent.mkdir()
    spec.write_text("datasets: [../fresh2, example]\ntrials: 1\nmodels: [random]\n")
    return tmp_path


@pytest.mark.parametrize("cwd", ["project/es", "project", "."])
def test_a_relative_dataset_in_a_spec_is_read_beside_the_spec_from_any_folder(
    project: Path, cwd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / cwd)
    spec = load_spec((project / "project" / "es" / "local.yaml").relative_to(Path.cwd()))
    meant = dataset_identity(project / "project" / "fresh2").fingerprint
    fresh, example = spec.datasets
    assert dataset_identity(fresh).fingerprint == meant
    assert example == "example"  # a bundled name is no path


def test_a_set_made_beside_its_spec_resumes_from_another_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"COORDQA_CACHE_DIR": str(project / "cache")}
    out = project / "set"
    first = coordqa("eval-set", "local.yaml", "--out", out, cwd=project / "project" / "es", env=env)
    assert first.returncode == 0, first.stderr
    made = {(m.model, m.fingerprint, m.run) for m in read_set(out).members}
    calls = {run: len(read_qa_run(out / str(run)).calls()) for _, _, run in made}
    again = coordqa("eval-set", "project/es/local.yaml", "--out", out, cwd=project, env=env)
    assert again.returncode == 0, again.stderr
    assert {(m.model, m.fingerprint, m.run) for m in read_set(out).members} == made
    assert {run: len(read_qa_run(out / str(run)).calls()) for run in calls} == calls


def test_a_dataset_given_on_the_command_line_stays_relative_to_the_working_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "project")
    spec = load_spec("es/local.yaml", datasets=["fresh2"])
    assert spec.datasets == ("fresh2",)
