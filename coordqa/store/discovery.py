"""Finding run directories: under a folder, or among paths that name runs and folders of runs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from coordqa.errors import StoreError
from coordqa.store.directory import open_run
from coordqa.store.manifest import MANIFEST


def find_runs(root: str | os.PathLike[str]) -> list[Path]:
    """Run directories under ``root`` (``root`` itself included), sorted by path.

    A run directory is one holding ``manifest.json``; runs are not searched for inside runs.
    """
    base = Path(root)
    if not base.is_dir():
        raise StoreError(f"{base} is not a directory; give the folder that holds your runs")
    found: list[Path] = []
    for folder, subfolders, files in os.walk(base):
        if MANIFEST in files:
            found.append(Path(folder))
            subfolders.clear()
        else:
            subfolders.sort()
    return sorted(found)


def discover_runs(
    paths: Sequence[str | os.PathLike[str]], kinds: Sequence[str] | None = None
) -> list[Path]:
    """The runs ``paths`` name: each run directory itself, and the runs found inside a folder.

    So ``coordqa report runs/*`` also reads the runs in a folder of runs among them, and
    ``coordqa view runs/`` shows every run in ``runs/``. A run directory given by name is kept
    whatever its kind (the command says what it can read); runs found inside a folder are kept
    when their kind is one of ``kinds`` (None: any). Each run once, in the order given.

    Raises:
        StoreError: a path does not exist, or a folder holds no run of ``kinds``.
    """
    found: list[Path] = []
    for given in map(Path, paths):
        if (given / MANIFEST).is_file():
            found.append(given)
            continue
        if not given.is_dir():
            raise StoreError(f"{given} does not exist; give run directories or folders of runs")
        inside = [(path, open_run(path).manifest.kind) for path in find_runs(given)]
        kept = [path for path, kind in inside if kinds is None or kind in kinds]
        if not kept:
            wanted = " or ".join(kinds or ()) + " " if kinds else ""
            others = sorted({kind for _, kind in inside})
            held = f" (it holds {', '.join(others)} runs)" if others else ""
            raise StoreError(f"{given} is not a run directory and holds no {wanted}runs{held}")
        found += kept
    return list(dict.fromkeys(found))
