"""A command that writes a run (or an eval set) takes its ``--out`` only when that folder is
missing, empty, or a run (a set) to resume: never a folder of runs, never the user's folder
(seventh walkthrough #217, #220-#223, #338-#342). A folder of the user's files is refused as
every writer refuses it (``test_output_folders``).

Before, ``coordqa eval --out runs`` with ``runs/`` holding 35 runs wrote ``manifest.json`` and
its streams straight into ``runs/`` (exit 0): ``runs list runs/`` then showed one run and hid
the 35. ``--out proj`` with the user's ``notes.txt`` did the same beside the notes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import coordqa
from test_cli_outputs import FOLDER_OUTPUTS, _command, _tree, make_inputs

from coordqa.errors import OutputPathError
from coordqa.eval_config import EvalConfig
from coordqa.evalset import evaluate_set, parse_spec
from coordqa.evaluation import evaluate

WRITERS = {"eval": "run", "agentic run": "run", "agentic grid": "run", "play": "run"}
WRITERS["eval-set"] = "eval set"
"""Every command that creates a run (or a set) folder at its --out, and what it writes there."""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The inputs the commands read (a grid file), and two finished QA runs."""
    return make_inputs(tmp_path_factory.mktemp("inputs"))


def _folder_of_runs(root: Path, inputs: dict[str, str]) -> Path:
    """``root/runs`` holding two runs (copies of a finished one) and an eval set's folder."""
    import shutil

    runs = root / "runs"
    for name in ("a", "b"):
        shutil.copytree(inputs["qa"], runs / name, ignore=shutil.ignore_patterns(".lock"))
    (runs / "s").mkdir()
    (runs / "s" / "eval-set.json").write_text("{}\n", encoding="utf-8")
    return runs


def _refused(args: list[str], folder: Path, says: str) -> None:
    before = _tree(folder)
    result = coordqa(*args, cwd=folder.parent)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line == f"error: {says}"
    assert result.stdout == "", "refused before any progress or table"
    assert _tree(folder) == before, "nothing written into the folder"


@pytest.mark.parametrize("command", WRITERS)
def test_a_folder_of_runs_is_refused_as_a_writers_out(
    command: str, inputs: dict[str, str], tmp_path: Path
) -> None:
    runs = _folder_of_runs(tmp_path, inputs)
    says = (
        f"--out {runs} holds 2 runs and 1 eval set: give a folder for this {WRITERS[command]}, "
        f"e.g. --out {runs / 'NAME'}"
    )
    _refused(_command(FOLDER_OUTPUTS[command], inputs, str(runs)), runs, says)


@pytest.mark.parametrize("command", WRITERS)
@pytest.mark.parametrize("hidden", [None, ".gitkeep"])
def test_an_empty_folder_or_one_with_only_hidden_files_is_written(
    command: str, hidden: str | None, inputs: dict[str, str], tmp_path: Path
) -> None:
    """A folder made for the run (``mkdir``, a kept ``.gitkeep``) is the run's; so is a run's
    own ``.lock`` left by a run stopped before its manifest was written."""
    out = tmp_path / "out"
    out.mkdir()
    if hidden:
        (out / hidden).write_text("", encoding="utf-8")
    result = coordqa(*_command(FOLDER_OUTPUTS[command], inputs, str(out)), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (out / ("eval-set.json" if command == "eval-set" else "manifest.json")).is_file()


def test_a_run_resumes_and_a_set_writes_its_members_in_its_own_folder(tmp_path: Path) -> None:
    """The folders a writer filled itself stay its own: a run resumed, a set run again."""
    run = ["eval", "--model", "random", "--limit", "2", "--out", "run"]
    assert coordqa(*run, cwd=tmp_path).returncode == 0
    resumed = coordqa(*run, "--trials", "4", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    eval_set = ["eval-set", "--model", "random", "--limit", "2", "--out", "set"]
    assert coordqa(*eval_set, cwd=tmp_path).returncode == 0
    again = coordqa(*eval_set, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    members = [p for p in (tmp_path / "set").iterdir() if (p / "manifest.json").is_file()]
    assert len(members) == 1


def test_the_library_and_a_specs_out_keep_the_rule(inputs: dict[str, str], tmp_path: Path) -> None:
    runs = _folder_of_runs(tmp_path, inputs)
    before = _tree(runs)
    with pytest.raises(OutputPathError, match="holds 2 runs and 1 eval set: give a folder"):
        evaluate(EvalConfig(model="random", limit=2, out=runs))
    with pytest.raises(OutputPathError, match="holds 2 runs and 1 eval set: give a folder"):
        evaluate_set(parse_spec({"models": ["random"], "limit": 2, "out": str(runs)}))
    spec = tmp_path / "models.yaml"
    spec.write_text(f"models: [random]\nlimit: 2\nout: {runs}\n", encoding="utf-8")
    result = coordqa("eval-set", spec, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "holds 2 runs and 1 eval set: give a folder for this eval set" in result.stderr
    assert _tree(runs) == before


@pytest.fixture(scope="module")
def report_folder(inputs: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder ``coordqa report`` wrote (it carries that command's marker)."""
    root = tmp_path_factory.mktemp("report")
    result = coordqa(*_command(FOLDER_OUTPUTS["report"], inputs, "report"), cwd=root)
    assert result.returncode == 0, result.stderr
    return root / "report"


@pytest.mark.parametrize("command", WRITERS)
def test_a_folder_of_another_commands_output_is_named_as_its_output(
    command: str, inputs: dict[str, str], report_folder: Path, tmp_path: Path
) -> None:
    """A report folder given as a run's --out is refused as coordqa's report, not as files
    coordqa did not write (eighth walkthrough #187-#190), as ``agentic report`` names it."""
    import shutil

    out = shutil.copytree(report_folder, tmp_path / "report")
    says = f"--out {out} holds the output of `coordqa report`: give a new folder, or empty it"
    _refused(_command(FOLDER_OUTPUTS[command], inputs, str(out)), out, says)


def test_a_marker_coordqa_did_not_write_leaves_the_files_unclaimed(
    inputs: dict[str, str], report_folder: Path, tmp_path: Path
) -> None:
    """A marker that lists a file outside its folder is not trusted: its folder's files are
    still ones coordqa did not write (the marker's bounds are those of a report's writer)."""
    import shutil

    out = shutil.copytree(report_folder, tmp_path / "report")
    forged = {"command": "coordqa report", "files": ["../notes.txt"]}
    (out / ".coordqa-output.json").write_text(json.dumps(forged), encoding="utf-8")
    first = sorted(e.name for e in out.iterdir() if not e.name.startswith("."))[0]
    says = f"--out {out} holds files coordqa did not write (e.g. {first}): give a new folder"
    _refused(_command(FOLDER_OUTPUTS["eval"], inputs, str(out)), out, f"{says}, or empty it")
