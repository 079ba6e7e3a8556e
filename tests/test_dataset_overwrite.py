"""Every command that writes a dataset folder replaces an existing dataset only with --overwrite.

Walkthrough 20, B3: ``dataset generate --out fresh/`` refused an existing dataset, as the docs
say of ``build``, ``generate`` and ``import-upstream``, but ``dataset build --out fresh/`` had no
``--overwrite`` and wrote the release over the generated questions, rc 0: they could not be
recovered, and runs that named ``fresh/`` then pointed at other content.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import coordqa
from test_upstream import upstream_records, write_csv

from coordqa.dataset import bundled_dataset_dir

WRITERS = {
    "build": ["dataset", "build"],
    "generate": ["dataset", "generate", "--game", "hanabi", "--count", "1", "--seed", "0"],
    "import-upstream": ["dataset", "import-upstream", "{csv}"],
}
"""Each command that writes a dataset folder, before its ``--out``."""


@pytest.mark.parametrize("command", WRITERS)
def test_an_existing_dataset_is_refused_without_overwrite_and_kept(
    command: str, tmp_path: Path
) -> None:
    csv = write_csv(tmp_path / "upstream.csv", upstream_records())
    fresh = tmp_path / "fresh"
    shutil.copytree(bundled_dataset_dir("example"), fresh)
    before = {path.name: path.read_bytes() for path in fresh.iterdir() if path.is_file()}
    args = [word.format(csv=csv) for word in WRITERS[command]]
    result = coordqa(*args, "--out", f"{fresh}/")
    assert result.returncode == 2, result.stdout
    assert "already exists; pass --overwrite to replace it" in result.stderr
    assert {path.name: path.read_bytes() for path in fresh.iterdir() if path.is_file()} == before
    assert "--overwrite" in coordqa(*args[:2], "--help").stdout


def _interrupt(*_args: object) -> Path:
    raise KeyboardInterrupt


def _interrupt_while_writing(_game: str, _count: int, _seed: int, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "data.parquet").write_bytes(b"half")
    raise KeyboardInterrupt


def test_an_interrupted_generate_says_whether_it_wrote_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walkthrough 20, R5: Ctrl-C during ``dataset generate`` exited 130 and printed nothing,
    unlike eval, agentic run and play. It says so, and whether --out was touched: the search
    writes nothing until every question is made and checked."""
    args = ["dataset", *WRITERS["generate"][1:], "--out"]
    monkeypatch.setattr("coordqa.scenarios.generate_dataset", _interrupt)
    result = coordqa(*args, tmp_path / "new")
    assert result.returncode == 130
    assert result.stderr == f"interrupted: nothing was written to {tmp_path / 'new'}\n"
    assert not (tmp_path / "new").exists()

    kept = tmp_path / "kept"
    shutil.copytree(bundled_dataset_dir("example"), kept)
    result = coordqa(*args, kept, "--overwrite")
    assert (result.returncode, result.stderr) == (
        130,
        f"interrupted: nothing was written to {kept}\n",
    )

    monkeypatch.setattr("coordqa.scenarios.generate_dataset", _interrupt_while_writing)
    result = coordqa(*args, kept, "--overwrite")
    assert result.returncode == 130
    assert result.stderr.startswith(f"interrupted while writing {kept}: ")
    assert "run the command again with --overwrite" in result.stderr
