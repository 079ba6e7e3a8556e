"""A dataset folder on disk: its file names and the parquet encoding of rows.

``pyarrow`` takes a second to import, so it is imported inside the functions that need it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coordqa.dataset.schema import Row, features, plain_row
from coordqa.errors import DatasetError

DATA_FILE = "data.parquet"
"""The file that holds every question of a dataset folder."""
BY_TYPE_DIR = "by_type"
"""Sub-folder of per-question-type copies (``by_type/EC.parquet`` ...), written only so the
dataset card can offer one Hugging Face config per type; loaders read ``data.parquet``."""
CARD_FILE = "README.md"
"""The dataset card (Hugging Face reads a folder's ``README.md`` as its card)."""


def read_parquet(path: Path) -> list[dict[str, Any]]:
    """The rows of one parquet file (not yet validated).

    Read with ``ParquetFile``, not ``read_table``: the dataset reader behind ``read_table``
    imports pandas (a quarter of a second and 60 MB), which a run that only asks and stores
    never needs.

    Raises:
        DatasetError: the file cannot be read as parquet.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path).read().to_pylist()
    except (OSError, pa.ArrowException) as exc:
        raise DatasetError(f"cannot read {path} as parquet: {exc}") from exc


def parquet_bytes(rows: Sequence[Row]) -> bytes:
    """``rows`` as the bytes of a parquet file with the schema's column types."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([plain_row(row) for row in rows], schema=features().arrow_schema)
    sink = pa.BufferOutputStream()
    # Parquet written by one pyarrow version holds no timestamps or random ids, so identical
    # rows give identical bytes; the explicit settings keep that true if defaults change.
    pq.write_table(table, sink, compression="zstd", use_dictionary=True, write_statistics=True)
    return bytes(sink.getvalue().to_pybytes())
