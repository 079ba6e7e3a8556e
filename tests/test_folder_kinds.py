"""An eval set's folder, a run's folder and a dataset are different things: no command writes one
into another's folder or reads one as another (fifth walkthrough #60, #345-#363).

Before, ``eval``, ``agentic run``, ``agentic grid`` and ``play`` wrote a run beside a set's
``eval-set.json``, and ``eval-set`` wrote a set into a run's folder, all with exit 0; ``runs
list`` and ``report`` then showed the run and hid the set's members, or the other way round.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cli_support import coordqa
from test_cli_outputs import FOLDER_OUTPUTS, _command, _tree, make_inputs

from coordqa.errors import CoordqaError
from coordqa.eval_config import EvalConfig
from coordqa.evalset import SET_MANIFEST, evaluate_set, parse_spec
from coordqa.evaluation import evaluate

RUN_COMMANDS = ["eval", "agentic run", "agentic grid", "play"]
"""Every command that writes one run into its --out."""


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A finished QA run, an agentic run, a grid, and an eval set of one member."""
    root = tmp_path_factory.mktemp("folders")
    made = make_inputs(root)
    eval_set = root / "set"
    done = coordqa("eval-set", "--model", "random", "--limit", "2", "--out", eval_set)
    assert done.returncode == 0, done.stderr
    return {**made, "set": str(eval_set)}


def _refused(args: list[str], folder: Path, says: str) -> None:
    before = _tree(folder)
    result = coordqa(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line == f"error: {says}"
    assert _tree(folder) == before, "nothing is written into the other command's folder"


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_a_run_command_refuses_an_eval_set_folder(command: str, folders: dict[str, str]) -> None:
    out = folders["set"]
    says = (
        f"{out} is an eval-set folder ({SET_MANIFEST}): give another --out; coordqa eval-set "
        f"SPEC.yaml --out {out} resumes or extends the set, given the spec (or the --model "
        "options) it was run with"
    )
    _refused(_command(FOLDER_OUTPUTS[command], folders, out), Path(out), says)


@pytest.mark.parametrize(("run", "kind"), [("qa", "a QA"), ("agentic", "an agentic")])
def test_eval_set_refuses_a_run_folder(run: str, kind: str, folders: dict[str, str]) -> None:
    out = folders[run]
    says = (
        f"{out} is {kind} run folder (manifest.json), not an eval set: give the set another --out"
    )
    _refused(["eval-set", "--model", "random", "--limit", "2", "--out", out], Path(out), says)


def test_a_specs_out_and_the_library_keep_the_rule(folders: dict[str, str], tmp_path: Path) -> None:
    """The spec's own ``out`` is read after the command line, and Python callers skip it."""
    spec = tmp_path / "models.yaml"
    spec.write_text(yaml.safe_dump({"models": ["random"], "limit": 2, "out": folders["qa"]}))
    before = _tree(Path(folders["qa"]))
    result = coordqa("eval-set", spec)
    assert result.returncode == 2, result.stderr
    assert "is a QA run folder (manifest.json), not an eval set" in result.stderr
    with pytest.raises(CoordqaError, match="is an agentic run folder"):
        evaluate_set(parse_spec({"models": ["random"], "limit": 2, "out": folders["agentic"]}))
    with pytest.raises(CoordqaError, match="is an eval-set folder"):
        evaluate(EvalConfig(model="random", limit=2, out=Path(folders["set"])))
    assert _tree(Path(folders["qa"])) == before


DATASET_COMMANDS = {
    "eval --dataset": ["eval", "--model", "random", "--limit", "2", "--dataset", "{folder}"],
    "dataset validate": ["dataset", "validate", "{folder}"],
    "dataset generate --out": [
        *["dataset", "generate", "--game", "collab_capture", "--count", "1", "--seed", "1"],
        *["--out", "{folder}"],
    ],
}
"""Commands that read or write a dataset at a folder they are given."""


@pytest.mark.parametrize("command", DATASET_COMMANDS)
@pytest.mark.parametrize(
    ("folder", "what"), [("qa", "a run directory"), ("set", "an eval-set folder")]
)
def test_a_run_or_set_folder_is_named_as_one_where_a_dataset_is_wanted(
    command: str, folder: str, what: str, folders: dict[str, str], tmp_path: Path
) -> None:
    """Before: "no .parquet file in the folder", or "holds files that are not a dataset (e.g.
    .lock)", where ``report`` says it is a run directory."""
    path = folders[folder]
    args = [word.format(folder=path) for word in DATASET_COMMANDS[command]]
    before = _tree(Path(path))
    result = coordqa(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    fix = (
        "give a new folder for the dataset"
        if "--out" in command
        else ("give a dataset folder or name (coordqa dataset list)")
    )
    assert line.endswith(f"{path} is {what}, not a dataset: {fix}"), line
    assert _tree(Path(path)) == before


def test_a_folder_of_runs_given_as_a_dataset_is_named_as_one(
    folders: dict[str, str], tmp_path: Path
) -> None:
    """Walkthrough 16 R6: ``eval --dataset runs/`` said only ``no .parquet file in the folder
    runs``; it says what the folder is and what a dataset may be."""
    import shutil

    runs = tmp_path / "runs"
    shutil.copytree(folders["qa"], runs / "a")
    shutil.copytree(folders["set"], runs / "s")
    (tmp_path / "empty").mkdir()
    takes = (
        "a dataset is a bundled release's name (coordqa dataset list), a .parquet or .jsonl "
        "file, or a folder holding a .parquet file"
    )
    for folder, said in [
        ("runs/", "runs is a folder of runs (1 run and 1 eval set), not a dataset: "),
        ("empty", "no .parquet file in the folder empty: "),
    ]:
        result = coordqa("eval", "--model", "random", "--dataset", folder, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        (line,) = result.stderr.splitlines()
        assert line == f"error: {said}{takes}", line
