"""Loading a dataset by name or path: bundled names resolved, every row validated.

Loading is fully in memory (:meth:`datasets.Dataset.from_list`): it neither reads nor writes the
Hugging Face cache and never touches the network. ``datasets`` and ``pyarrow`` take seconds to
import, so they are imported inside the functions that need them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from coordqa.dataset.folder import DATA_FILE, read_parquet
from coordqa.dataset.releases import BUNDLED, DEFAULT_DATASET, bundled_dataset_dir, is_bundled
from coordqa.dataset.schema import QuestionRow, features, validate_rows
from coordqa.errors import DatasetError, UnknownNameError
from coordqa.runfolder import folder_words, runs_held

if TYPE_CHECKING:
    import datasets


def dataset_path(name_or_path: str | os.PathLike[str] | None = None) -> Path:
    """The folder or file a dataset name or path refers to (bundled names resolved)."""
    if name_or_path is None:
        name_or_path = DEFAULT_DATASET
    if isinstance(name_or_path, str) and is_bundled(name_or_path):
        folder = bundled_dataset_dir(name_or_path)
        if not (folder / DATA_FILE).is_file():
            raise DatasetError(
                f"the bundled dataset {name_or_path!r} is missing from {folder}; reinstall "
                f"coordqa, or pass the path of a dataset folder, .parquet or .jsonl file"
            )
        return folder
    path = Path(name_or_path).expanduser()
    if path.exists():
        return path
    text = os.fspath(name_or_path)
    looks_like_path = (
        not isinstance(name_or_path, str)
        or os.sep in text
        or "/" in text
        or path.suffix in (".parquet", ".jsonl")
    )
    if looks_like_path:
        from coordqa.given_paths import missing_path

        missing = missing_path(text, "the dataset", (".parquet", ".jsonl"))
        raise DatasetError(
            f"{missing} Give a dataset folder, .parquet or .jsonl file, or a bundled dataset's "
            "name (coordqa dataset list)"
        )
    raise UnknownNameError(
        f"{BUNDLED.unknown_message(text)} Or pass the path of a dataset folder, .parquet or "
        f".jsonl file."
    )


DATASET_IS = (
    "a dataset is a bundled release's name (coordqa dataset list), a .parquet or .jsonl file, "
    "or a folder holding a .parquet file"
)
"""What may be given as a dataset, for a refusal of something else given as one."""


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise DatasetError(f"{path}, line {line_number}: invalid JSON: {exc}") from exc
    return rows


def _read(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        if (path / DATA_FILE).is_file():
            return read_parquet(path / DATA_FILE)
        held = folder_words(path)
        if held is not None:
            raise DatasetError(
                f"{path} is {held}, not a dataset: give a dataset folder or name "
                "(coordqa dataset list)"
            )
        files = sorted(path.rglob("*.parquet"))
        if not files:
            entries = sorted(e.name for e in path.iterdir() if not e.name.startswith("."))
            runs = runs_held(path, entries)
            what = f"{path} is a folder of runs ({runs}), not a dataset" if runs else ""
            raise DatasetError(f"{what or f'no .parquet file in the folder {path}'}: {DATASET_IS}")
        return [row for file in files for row in read_parquet(file)]
    if path.suffix == ".parquet":
        return read_parquet(path)
    if path.suffix == ".jsonl":
        return _read_jsonl(path)
    raise DatasetError(f"cannot load {path}: expected a folder, a .parquet file or a .jsonl file")


def load_rows(name_or_path: str | os.PathLike[str] | None = None) -> list[QuestionRow]:
    """The validated rows of a dataset as plain dicts (see :func:`load_dataset` for the names).

    Cheaper than :func:`load_dataset` when no ``datasets.Dataset`` is needed.
    """
    path = dataset_path(name_or_path)
    rows = _read(path)
    if not rows:
        raise DatasetError(f"{path} holds no questions")
    try:
        validate_rows(rows)
    except DatasetError as exc:
        raise DatasetError(f"{path}: {exc}") from exc
    return cast("list[QuestionRow]", rows)  # validate_rows checked each column and its type


def load_dataset(name_or_path: str | os.PathLike[str] | None = None) -> datasets.Dataset:
    """Load and validate a CoordinationQA dataset, in memory and offline.

    Args:
        name_or_path: ``None`` or ``"coordinationqa"`` for the newest bundled release
            (:data:`DEFAULT_DATASET`), a release name from :data:`RELEASES` such as
            ``"coordinationqa-v1"`` (kept exactly as shipped), ``"example"`` for the small demo
            dataset, or the path of a folder of parquet files
            (as written by :func:`save_dataset`), a ``.parquet`` file or a ``.jsonl`` file.

    Raises:
        DatasetError: the dataset is missing or a row breaks the schema.
        UnknownNameError: an unknown bundled name (with suggestions).
    """
    import datasets

    return datasets.Dataset.from_list(load_rows(name_or_path), features=features())
