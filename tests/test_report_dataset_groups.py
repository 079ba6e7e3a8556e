"""A dataset group answers to every name its runs recorded (walkthrough 20, B1).

Runs are grouped by content fingerprint, so a run on ``built/`` (``coordqa dataset build``,
byte-identical to the bundled release) and runs on ``coordinationqa-v1.2`` are one group. The
group took the name of whichever run was read first, so ``report --dataset
coordinationqa-v1.2`` said "no run answered it" when the ``built/`` run came first in the
folder, and worked after a rename. Both read orders are tested.
"""

from __future__ import annotations

import pytest

from coordqa.analysis.groups import group_by_dataset, pick_dataset
from coordqa.dataset import DEFAULT_DATASET
from coordqa.dataset.identity import dataset_identity
from coordqa.errors import ConfigError
from coordqa.store import DatasetInfo, RunManifest


def _run(name: str, fingerprint: str) -> RunManifest:
    dataset = DatasetInfo(name=name, fingerprint=fingerprint, num_questions=3)
    return RunManifest(kind="qa", config={"model": "random"}, fingerprint=name, dataset=dataset)


@pytest.fixture(scope="module")
def release_fingerprint() -> str:
    return dataset_identity(DEFAULT_DATASET).fingerprint


@pytest.mark.parametrize("built_first", [True, False], ids=["built-first", "release-first"])
def test_a_rebuilt_copy_and_its_release_are_one_group_that_answers_to_both_names(
    release_fingerprint: str, built_first: bool
) -> None:
    runs = [_run("built/", release_fingerprint), _run(DEFAULT_DATASET, release_fingerprint)]
    if not built_first:
        runs.reverse()
    (group,) = group_by_dataset(runs)
    assert group.title == DEFAULT_DATASET  # the release's name, whichever run came first
    assert set(group.names) == {"built/", DEFAULT_DATASET}
    for wanted in (DEFAULT_DATASET, "coordinationqa", "built/", release_fingerprint[:8]):
        assert pick_dataset([group], wanted) == [group], wanted


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_a_local_dataset_under_two_names_answers_to_each_and_is_titled_by_the_first(
    order: tuple[int, int],
) -> None:
    names = ["fresh", "copy/"]
    runs = [_run(names[i], "ab12cd34" * 8) for i in order]
    (group,) = group_by_dataset(runs)
    assert group.title == names[order[0]]
    for wanted in names:
        assert pick_dataset([group], wanted) == [group]
    with pytest.raises(ConfigError, match="no run answered it"):
        pick_dataset([group], "other")


def test_a_mistyped_dataset_is_offered_the_names_its_runs_recorded() -> None:
    """Walkthrough 23 #66: ``report sets/fresh/ --dataset frsh`` listed the datasets with no
    "Did you mean": the closest name was looked for among titles such as ``fresh (dfafcd5a)``."""
    before = _run("fresh", "ab12cd34" * 8)
    regenerated = _run("fresh", "ef56ab78" * 8)  # dataset generate --overwrite in between
    groups = group_by_dataset([before, regenerated, _run("example", "0123abcd" * 8)])
    assert {g.title for g in groups} == {"fresh (ab12cd34)", "fresh (ef56ab78)", "example"}
    with pytest.raises(ConfigError, match="Did you mean 'fresh'") as refused:
        pick_dataset(groups, "frsh")
    assert "no run answered it" in str(refused.value)
