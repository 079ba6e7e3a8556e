"""Writing a dataset folder (``data.parquet`` and its card), and rebuilding the example."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coordqa.dataset.card import dataset_card
from coordqa.dataset.folder import BY_TYPE_DIR, CARD_FILE, DATA_FILE, parquet_bytes
from coordqa.dataset.load import load_rows
from coordqa.dataset.releases import EXAMPLE_CARD_BODY, EXAMPLE_SOURCE, bundled_dataset_dir
from coordqa.dataset.schema import Row, validate_rows
from coordqa.errors import DatasetError
from coordqa.files import atomic_write_bytes
from coordqa.outputs import FOLDER, check_folder_of_kind
from coordqa.records import QUESTION_TYPES

if TYPE_CHECKING:
    import datasets


def check_dataset_folder(out_dir: str | os.PathLike[str], name: str = FOLDER) -> Path:
    """``out_dir`` as a folder to write a dataset into: missing, empty, or a dataset already.

    Raises:
        OutputPathError: the folder holds other files (a report, a site, a user's own), which
            the dataset's files would be mixed into.
    """
    return check_folder_of_kind(out_dir, DATA_FILE, "dataset", name)


def _rows_of(dataset_or_rows: datasets.Dataset | Iterable[Row]) -> list[dict[str, Any]]:
    return [dict(row) for row in dataset_or_rows]


def save_dataset(
    dataset_or_rows: datasets.Dataset | Iterable[Row],
    out_dir: str | os.PathLike[str],
    *,
    card: str | None = None,
    by_type: bool = False,
) -> Path:
    """Validate and write a dataset folder: ``data.parquet`` and a ``README.md`` dataset card.

    With ``by_type``, also per-type copies under ``by_type/`` for the card's per-type configs.

    Rows keep their given order. Writing the same rows twice gives byte-identical files.

    Args:
        dataset_or_rows: a ``datasets.Dataset`` or any iterable of rows.
        out_dir: the folder to write (created if needed).
        card: the card text. A complete card (starting with a ``---`` YAML header, as
            :func:`dataset_card` makes) is written as is; otherwise it is used as the body of a
            card made by :func:`dataset_card`; ``None`` writes a generic card.
        by_type: also write ``by_type/<TYPE>.parquet`` copies for per-type card configs.

    Returns:
        The folder, which :func:`load_dataset` accepts.

    Raises:
        DatasetError: a row breaks the schema, there are no rows, or the folder holds other
            parquet files that a later load would mix in.
        OutputPathError: the folder holds files and no dataset (:func:`check_dataset_folder`).
    """
    rows = _rows_of(dataset_or_rows)
    if not rows:
        raise DatasetError("cannot save a dataset with no questions")
    validate_rows(rows)
    folder = check_dataset_folder(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    ours = {folder / DATA_FILE} | {
        folder / BY_TYPE_DIR / f"{kind}.parquet" for kind in QUESTION_TYPES
    }
    strangers = [p for p in sorted(folder.rglob("*.parquet")) if p not in ours]
    if strangers:
        raise DatasetError(
            f"{folder} already holds other parquet files ({', '.join(map(str, strangers))}) "
            f"that loading the folder would mix in; remove them or choose an empty folder"
        )
    if card is None or not card.startswith("---"):
        body = card or "A question set in the CoordinationQA format, written by coordqa."
        card = dataset_card(
            rows, pretty_name="CoordinationQA-format dataset", body=body, by_type=by_type
        )
    atomic_write_bytes(folder / DATA_FILE, parquet_bytes(rows))
    if by_type:
        (folder / BY_TYPE_DIR).mkdir(exist_ok=True)
        for kind in QUESTION_TYPES:
            of_kind = [row for row in rows if row["question_type"] == kind]
            atomic_write_bytes(folder / BY_TYPE_DIR / f"{kind}.parquet", parquet_bytes(of_kind))
    atomic_write_bytes(folder / CARD_FILE, card.encode("utf-8"))
    return folder


def build_example_dataset(out_dir: str | os.PathLike[str] | None = None) -> Path:
    """Rebuild the example dataset's parquet and card from its hand-written JSONL source.

    ``out_dir`` defaults to the bundled ``coordqa/data/example`` folder (for maintainers after
    editing ``questions.jsonl``); tests pass a temporary folder and compare.
    """
    rows = load_rows(EXAMPLE_SOURCE)
    card = dataset_card(
        rows,
        pretty_name="CoordinationQA format example (not CoordinationQA v1)",
        body=EXAMPLE_CARD_BODY.read_text(encoding="utf-8"),
    )
    return save_dataset(rows, out_dir or bundled_dataset_dir("example"), card=card)
