"""A run folder's or an eval set's small files are read within a bound (hostile folders).

The attack: a folder handed to coordqa whose ``manifest.json`` (or ``eval-set.json``) is a link
to ``/dev/zero``, or a file of gigabytes. Before the bound, opening it read the file whole:
``coordqa report FOLDER`` on such a link grew without end (8.5 GB when killed at 10 s).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cli_support import coordqa

from coordqa.bounded_reads import MAX_SMALL_FILE_BYTES, FileTooLarge, read_at_most

ZERO = Path("/dev/zero")
needs_dev_zero = pytest.mark.skipif(not ZERO.exists(), reason="no /dev/zero here")


@pytest.mark.parametrize(
    ("name", "endless"),
    [
        pytest.param("manifest.json", True, marks=needs_dev_zero),
        ("manifest.json", False),
        ("eval-set.json", False),  # a set's record is read only when it is a regular file
    ],
    ids=["manifest-dev-zero", "manifest-huge", "eval-set-huge"],
)
def test_a_small_file_past_its_bound_is_refused_without_being_read_whole(
    tmp_path: Path, name: str, endless: bool
) -> None:
    folder = tmp_path / "handed"
    folder.mkdir()
    if endless:
        (folder / name).symlink_to(ZERO)
    else:
        with (folder / name).open("wb") as sparse:  # takes no disk: a hole past the bound
            sparse.truncate(MAX_SMALL_FILE_BYTES + 1)
    started = time.monotonic()
    result = coordqa("report", folder, "--out", tmp_path / "report")
    assert time.monotonic() - started < 20
    assert result.returncode == 2, result.stderr
    assert f"larger than {MAX_SMALL_FILE_BYTES:,} bytes" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_read_at_most_reads_a_file_up_to_its_bound(tmp_path: Path) -> None:
    file = tmp_path / "f"
    file.write_bytes(b"x" * 10)
    assert read_at_most(file, 10) == b"x" * 10
    with pytest.raises(FileTooLarge, match="larger than 9 bytes"):
        read_at_most(file, 9)
