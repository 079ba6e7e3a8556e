"""A report of several datasets writes each into a folder of its own, whatever their names.

Walkthrough 22, B1: runs of one dataset folder named from two working folders (``../fresh``
and ``fresh``), holding other contents, were two groups whose folder names both came out
``fresh/``: the second report overwrote the first, and "wrote 40 files" was said of 28.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa


def test_two_datasets_whose_names_sanitise_alike_get_two_folders(tmp_path: Path) -> None:
    env = {"COORDQA_CACHE_DIR": str(tmp_path / "cache")}
    generate = ("dataset", "generate", "--game", "collab_escape", "--count", "2")
    (tmp_path / "sub").mkdir()
    assert coordqa(*generate, "--seed", "9", "--out", tmp_path / "fresh").returncode == 0
    assert coordqa(*generate, "--seed", "10", "--out", tmp_path / "sub" / "fresh").returncode == 0
    run = ("eval", "-m", "random", "--trials", "1")
    from_sub = coordqa(
        *run, "--dataset", "../fresh", "--out", "../runs/a", cwd=tmp_path / "sub", env=env
    )
    assert from_sub.returncode == 0, from_sub.stderr
    here = coordqa(*run, "--dataset", "fresh", "--out", "../runs/b", cwd=tmp_path / "sub", env=env)
    assert here.returncode == 0, here.stderr
    report = coordqa("report", tmp_path / "runs", "--out", tmp_path / "report", env=env)
    assert report.returncode == 0, report.stderr
    folders = sorted(p.name for p in (tmp_path / "report").iterdir() if p.is_dir())
    assert len(folders) == 2, folders
    for folder in folders:
        models = (tmp_path / "report" / folder / "models.csv").read_text()
        assert models.count("\n") == 2, models  # a header and its one run: none overwritten
    index = (tmp_path / "report" / "report.md").read_text()
    assert all(f"({folder}/report.md)" in index for folder in folders), index
