"""A missing file or folder given by path is said in one line, with the closest name beside it.

Walkthrough 15 R3 (#158): ``coordqa eval-set local-model.yaml`` printed the operating system's
``[Errno 2] No such file or directory`` and offered nothing, although ``local-models.yaml``
sat in the same folder. Every command that takes a path says it through
:func:`coordqa.given_paths.missing_path`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.given_paths import NAMES_READ, missing_path


def test_the_closest_name_beside_a_missing_file_is_offered_as_the_user_wrote_the_path(
    tmp_path: Path,
) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "local-models.yaml").write_text("models: []\n")
    (tmp_path / "specs" / "unrelated.txt").write_text("")
    said = missing_path(tmp_path / "specs" / "local-model.yaml", "the eval-set spec")
    beside = tmp_path / "specs" / "local-models.yaml"
    assert said == (
        f"the eval-set spec {tmp_path / 'specs' / 'local-model.yaml'} does not exist. "
        f"Did you mean '{beside}'?"
    )


def test_a_missing_path_in_a_missing_folder_offers_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "x.yaml"
    assert missing_path(missing) == f"{missing} does not exist."


def test_a_folder_of_many_names_is_read_to_a_bound(tmp_path: Path) -> None:
    """Only :data:`NAMES_READ` names are compared: a folder of many runs costs a bounded read."""
    for index in range(NAMES_READ + 50):
        (tmp_path / f"run-{index:05d}").touch()
    said = missing_path(tmp_path / "run-0000x")
    assert said.startswith(f"{tmp_path / 'run-0000x'} does not exist. Did you mean ")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("eval-set", "local-model.yaml"),
            "error: the eval-set spec local-model.yaml does not exist. "
            "Did you mean 'local-models.yaml'?",
        ),
        (
            ("agentic", "grid", "grids/my-gird.yaml"),
            "error: grid file grids/my-gird.yaml does not exist. "
            "Did you mean 'grids/my-grid.yaml'?",
        ),
        (
            ("eval", "--model", "random", "--ids", "chosen-id.txt"),
            "error: --ids file chosen-id.txt does not exist. Did you mean 'chosen-ids.txt'?",
        ),
        (
            ("submit", "runs/random-b", "--out", "bundle.json"),
            "error: runs/random-b does not exist. Did you mean 'runs/random-a'?",
        ),
        (
            ("eval", "--model", "random", "--dataset", "data/my-set.parquett"),
            "error: the dataset data/my-set.parquett does not exist. "
            "Did you mean 'data/my-set.parquet'?",
        ),
    ],
)
def test_every_command_that_takes_a_path_says_a_missing_one_in_one_line_with_a_suggestion(
    args: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    (tmp_path / "local-models.yaml").write_text("models: [random]\n")
    (tmp_path / "chosen-ids.txt").write_text("q1\n")
    (tmp_path / "grids").mkdir()
    (tmp_path / "grids" / "my-grid.yaml").write_text("name: my-grid\n")
    (tmp_path / "runs" / "random-a").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "my-set.parquet").write_bytes(b"")
    result = coordqa(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(said), line
    assert "Errno" not in line and "No such file" not in line


def test_only_files_the_command_reads_and_folders_are_offered(tmp_path: Path) -> None:
    """A spec is never a dataset: ``the dataset local-modelz.parquet`` was offered
    ``local-models.yaml``; with the dataset's endings only a dataset file or folder is."""
    (tmp_path / "local-models.yaml").write_text("models: []\n")
    (tmp_path / "local-models").mkdir()
    said = missing_path(tmp_path / "local-modelz.parquet", "the dataset", (".parquet", ".jsonl"))
    assert said.endswith(f"Did you mean '{tmp_path / 'local-models'}'?"), said
    (tmp_path / "local-models").rmdir()
    said = missing_path(tmp_path / "local-modelz.parquet", "the dataset", (".parquet", ".jsonl"))
    assert said.endswith("does not exist."), said


def test_a_file_that_is_never_a_folder_is_offered_no_folder(tmp_path: Path) -> None:
    """Walkthrough 31: `eval-set models.yaml` (not yet written) was offered the user's
    `models/` folder of GGUF files as the spec, beside local-models.yaml."""
    from cli_support import coordqa

    (tmp_path / "local-models.yaml").write_text("models: [random]\n")
    (tmp_path / "models").mkdir()
    done = coordqa("eval-set", "models.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert "Did you mean 'local-models.yaml'?" in said and "'models'" not in said, said
    grid = coordqa("agentic", "grid", "models.yaml", cwd=tmp_path)
    assert "'models'" not in grid.stderr, grid.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("eval-set", "specs"),
            "error: the eval-set spec specs is a folder, not a file. Give the path of a set's "
            "YAML file (models:, datasets:), or models with --model and no spec",
        ),
        (("agentic", "grid", "grids"), "error: grid file grids is a folder, not a file."),
        (("agentic", "grid", "grids/"), "error: grid file grids is a folder, not a file."),
        (
            ("eval", "--model", "random", "--ids", "grids/"),
            "error: --ids file grids/ is a folder, not a file. --ids takes question ids",
        ),
        (
            ("eval", "--model", "random", "--ids", "grids"),
            "error: --ids file grids is a folder, not a file. --ids takes question ids",
        ),
        (
            ("leaderboard", "grid", "add", "grids"),
            "error: grid file grids is a folder, not a file.",
        ),
    ],
)
def test_a_folder_given_where_a_file_is_read_is_said_in_one_line(
    args: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    """Walkthrough 18 R1: a folder given for a file printed ``[Errno 21] Is a directory`` (or
    a traceback, for a grid; ``does not exist`` for ``--ids grids/``)."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "grids").mkdir()
    result = coordqa(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(said), line
    assert "Errno" not in line and "Traceback" not in line


def test_an_eval_set_folder_given_as_the_spec_says_how_to_resume_the_set(tmp_path: Path) -> None:
    """Walkthrough 18 R1: ``coordqa eval-set runs/local`` (the set's folder, not its spec)."""
    made = coordqa(
        "eval-set", "--model", "random", "--limit", "2", "--out", "runs/local", cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    result = coordqa("eval-set", "runs/local", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        "error: the eval-set spec runs/local is an eval-set folder, not a file. coordqa eval-set "
        "SPEC.yaml --out runs/local resumes or extends the set, given the spec (or the --model "
        "options) it was run with"
    ), line


@pytest.mark.parametrize(
    ("missing", "beside"), [("missing.txt", "log.txt"), ("random-bundle.json", "L")]
)
def test_a_shorter_name_that_only_shares_a_part_is_not_offered(
    missing: str, beside: str, tmp_path: Path
) -> None:
    """Walkthrough 26 (#43, #133): ``--ids missing.txt`` was offered ``log.txt`` (its ending
    matched within the typed name) and a missing bundle was offered a file named ``L``. A name
    is matched within a longer one only, the way ``plannr`` finds ``escape-planner``."""
    (tmp_path / beside).write_text("x\n", encoding="utf-8")
    assert missing_path(tmp_path / missing) == f"{tmp_path / missing} does not exist."
