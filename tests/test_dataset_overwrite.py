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
