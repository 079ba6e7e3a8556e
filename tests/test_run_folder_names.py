"""A dataset given as its folder's ``data.parquet`` names its run after the folder.

Walkthrough 23b, R8: ``coordqa eval --dataset fresh/data.parquet`` wrote
``runs/random_data_<hash>``, named after the file's stem, which every built dataset shares.
Runs (and eval sets' members) of such a file are named after its folder now, as ``--dataset
fresh`` names them; a folder written under the old name is still found and resumed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.dataset import load_rows, save_dataset


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    save_dataset(load_rows("example"), tmp_path / "fresh")
    return tmp_path


def _runs(cwd: Path) -> list[str]:
    return sorted(p.name for p in (cwd / "runs").iterdir())


def test_a_built_folders_data_parquet_names_its_run_after_the_folder(fresh: Path) -> None:
    made = coordqa("eval", "--model", "random", "--dataset", "fresh/data.parquet", cwd=fresh)
    assert made.returncode == 0, made.stderr
    (name,) = _runs(fresh)
    assert name.startswith("random_fresh_"), name
    # The folder and its file are one dataset: the folder's run is the same run, resumed.
    again = coordqa("eval", "--model", "random", "--dataset", "fresh", cwd=fresh)
    assert again.returncode == 0, again.stderr
    assert _runs(fresh) == [name]


def test_a_run_folder_under_the_old_name_is_resumed(fresh: Path) -> None:
    made = coordqa("eval", "--model", "random", "--dataset", "fresh/data.parquet", cwd=fresh)
    assert made.returncode == 0, made.stderr
    (name,) = _runs(fresh)
    old = name.replace("random_fresh_", "random_data_")
    shutil.move(fresh / "runs" / name, fresh / "runs" / old)
    again = coordqa("eval", "--model", "random", "--dataset", "fresh/data.parquet", cwd=fresh)
    assert again.returncode == 0, again.stderr
    assert _runs(fresh) == [old]
    said = " ".join((again.stdout + again.stderr).split())
    assert "0 new" in said and f"run directory: runs/{old}" in said, said


def test_an_eval_set_names_its_member_after_the_folder_and_keeps_an_old_one(fresh: Path) -> None:
    args = ("eval-set", "--model", "random", "--dataset", "fresh/data.parquet", "--limit", "3")
    made = coordqa(*args, "--out", "set", cwd=fresh)
    assert made.returncode == 0, made.stderr
    members = [p.name for p in (fresh / "set").iterdir() if p.is_dir()]
    assert len(members) == 1 and members[0].startswith("random_fresh_"), members
    # A set written before: its member's folder and key under the old name.
    old = members[0].replace("random_fresh_", "random_data_")
    shutil.move(fresh / "set" / members[0], fresh / "set" / old)
    manifest = fresh / "set" / "eval-set.json"
    data = json.loads(manifest.read_text())
    (member,) = data["members"]
    member["run"] = old
    member["member"] = member["member"].replace("random_fresh_", "random_data_")
    manifest.write_text(json.dumps(data))
    again = coordqa(*args, "--out", "set", cwd=fresh)
    assert again.returncode == 0, again.stderr
    assert [p.name for p in (fresh / "set").iterdir() if p.is_dir()] == [old]
    (member,) = json.loads(manifest.read_text())["members"]
    assert member["run"] == old and member["status"] == "complete", member
