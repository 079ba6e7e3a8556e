"""A run of a local dataset is the dataset's content, however its path is spelled (walk 7 #298).

``--dataset fresh/``, ``fresh``, ``./fresh/`` and an absolute path gave four run folders for one
dataset, and a run could be resumed only with its own spelling, from its own directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_evaluate_support import write_dataset

from coordqa.dataset.identity import dataset_fingerprint
from coordqa.dataset.load import load_dataset
from coordqa.errors import StoreError
from coordqa.eval_config import EvalConfig
from coordqa.evaluation import default_out, evaluate
from coordqa.store import MANIFEST, read_qa_run


def config(dataset: str, **changes: Any) -> EvalConfig:
    return EvalConfig(
        **{"model": "random", "dataset": dataset, "trials": 1, "cache": False, **changes}
    )


def test_every_spelling_of_a_local_folder_from_any_directory_is_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_dataset(tmp_path / "fresh", scenarios=1)
    monkeypatch.chdir(tmp_path)
    spellings = ["fresh", "fresh/", "./fresh/", str(tmp_path / "fresh")]
    names = {default_out(config(spelling)).name for spelling in spellings}
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    names |= {default_out(config(spelling)).name for spelling in ("../fresh", "../fresh/")}
    assert len(names) == 1, names
    assert names.pop().startswith("random_fresh_trials1_")

    first = evaluate(config("../fresh/", out=tmp_path / "run"))
    monkeypatch.chdir(tmp_path)
    again = evaluate(config(str(tmp_path / "fresh"), out=tmp_path / "run"))
    assert (again.resumed_samples, again.new_samples) == (first.new_samples, 0)
    manifest = json.loads((tmp_path / "run" / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["dataset"]["name"] == "../fresh"  # the path as given, kept as information


@pytest.fixture
def two_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``fresh`` (3 questions) and ``bigger`` (6) in ``tmp_path``, the working directory."""
    write_dataset(tmp_path / "fresh", scenarios=1)
    write_dataset(tmp_path / "bigger", scenarios=2)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_copy_with_other_content_is_still_another_run(two_datasets: Path) -> None:
    tmp_path = two_datasets
    assert default_out(config("fresh")).name != default_out(config("bigger")).name
    evaluate(config("fresh", out=tmp_path / "run"))
    with pytest.raises(StoreError) as refused:
        evaluate(config("bigger", out=tmp_path / "run"))
    fresh, bigger = (dataset_fingerprint(load_dataset(name))[:12] for name in ("fresh", "bigger"))
    assert str(refused.value) == (  # the dataset that differs, not every setting it changes
        f"{tmp_path / 'run'} holds a run on another dataset: 'fresh' ({fresh}), not 'bigger' "
        f"({bigger}); give another --out, or the dataset it was made from to resume it"
    )


def _spelled_identity(self: EvalConfig) -> dict[str, Any]:
    """:meth:`EvalConfig.identity` as runs stored it before: the path as it was typed."""
    return {**_IDENTITY(self), "dataset": self.dataset}


_IDENTITY = EvalConfig.identity


def test_a_run_stored_with_a_spelled_path_resumes_from_any_spelling(
    two_datasets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path = two_datasets
    out = tmp_path / "old"
    with monkeypatch.context() as old_code:
        old_code.setattr(EvalConfig, "identity", _spelled_identity)
        first = evaluate(config("fresh/", out=out))
    stored = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert stored["config"]["dataset"] == "fresh/"  # as the old code stored it
    calls = read_qa_run(out).calls()

    again = evaluate(config(str(tmp_path / "fresh"), out=out))
    assert (again.resumed_samples, again.new_samples) == (first.new_samples, 0)
    assert read_qa_run(out).calls() == calls  # no stored reply was asked again
    more = evaluate(config("./fresh", out=out, trials=2))
    assert (more.resumed_samples, more.new_samples) == (first.new_samples, first.new_samples)
    last = evaluate(config("fresh", out=out, trials=2))  # the manifest was rewritten: still its own
    assert (last.resumed_samples, last.new_samples) == (2 * first.new_samples, 0)
    with pytest.raises(StoreError, match="holds a run on another dataset: 'fresh' "):
        evaluate(config("bigger", out=out, trials=2))


def test_a_trailing_slash_names_the_same_dataset(
    two_datasets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 20, R1: runs of ``--dataset fresh`` and ``--dataset fresh/`` recorded the two
    spellings, so ``runs list`` and ``report`` named them as two datasets (``random
    (dataset=fresh/)`` beside ``random (dataset=fresh)``, as if a setting differed). They record
    one name, and a run made with either spelling resumes under the other."""
    tmp_path = two_datasets
    slashed = evaluate(config("fresh/", out=tmp_path / "slashed"))
    bare = evaluate(config("fresh", out=tmp_path / "bare"))
    for run in ("slashed", "bare"):
        assert read_qa_run(tmp_path / run).manifest.dataset.name == "fresh"
    again = evaluate(config("fresh", out=tmp_path / "slashed"))
    assert (again.resumed_samples, again.new_samples) == (slashed.new_samples, 0)
    again = evaluate(config("fresh//", out=tmp_path / "bare"))
    assert (again.resumed_samples, again.new_samples) == (bare.new_samples, 0)


def test_only_the_trailing_slash_of_a_path_is_dropped_from_its_name() -> None:
    from coordqa.dataset.identity import dataset_name

    assert dataset_name("../fresh/") == "../fresh"
    assert dataset_name("/") == "/"  # the root is no shorter path
    # A local folder that happens to be called like a bundled release is not that release.
    assert dataset_name("example/") == "example/"
    assert dataset_name("coordinationqa") == "coordinationqa-v1.2"
