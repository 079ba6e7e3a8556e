"""The CoordinationQA dataset: schema, bundled releases, loading, identity, selection and cards.

One module per job: :mod:`~coordqa.dataset.schema` (columns and row validation),
:mod:`~coordqa.dataset.releases` (the bundled datasets), :mod:`~coordqa.dataset.load` (names
and paths to validated rows), :mod:`~coordqa.dataset.identity` (fingerprints and hashes),
:mod:`~coordqa.dataset.selection` (filters and the stratified sample),
:mod:`~coordqa.dataset.card` (dataset cards), :mod:`~coordqa.dataset.save` (writing a dataset
folder) and :mod:`~coordqa.dataset.folder` (its file names and parquet encoding). Import the
names from here.

``datasets`` and ``pyarrow`` take seconds to import, so they are imported inside the functions
that need them (``FEATURES`` is built on first access): ``coordqa --help`` never pays for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordqa.dataset.card import (
    SPLIT,
    card_header,
    dataset_card,
    question_counts,
    with_current_header,
)
from coordqa.dataset.folder import CARD_FILE, DATA_FILE
from coordqa.dataset.identity import (
    DatasetIdentity,
    dataset_fingerprint,
    dataset_identity,
    dataset_name,
    identity_line,
    question_hash,
    release_with_fingerprint,
    target_hash,
    version_words,
)
from coordqa.dataset.load import dataset_path, load_dataset, load_rows
from coordqa.dataset.releases import (
    ALIASES,
    DEFAULT_DATASET,
    EXAMPLE_SOURCE,
    RELEASES,
    Release,
    bundled_dataset_dir,
    is_bundled,
    release,
)
from coordqa.dataset.save import build_example_dataset, check_dataset_folder, save_dataset
from coordqa.dataset.schema import (
    COLUMNS,
    NO_ANSWER_KEY_TAG,
    SHARED_OPTION_TEXT_TAG,
    QuestionRow,
    Row,
    features,
    validate_row,
    validate_rows,
)
from coordqa.dataset.selection import filter_dataset, filter_rows, stratified_sample
from coordqa.records import QUESTION_TYPES

if TYPE_CHECKING:
    import datasets

    FEATURES: datasets.Features

__all__ = [
    "ALIASES",
    "CARD_FILE",
    "COLUMNS",
    "DATA_FILE",
    "DEFAULT_DATASET",
    "EXAMPLE_SOURCE",
    "FEATURES",
    "NO_ANSWER_KEY_TAG",
    "QUESTION_TYPES",
    "QuestionRow",
    "RELEASES",
    "DatasetIdentity",
    "Release",
    "SHARED_OPTION_TEXT_TAG",
    "Row",
    "SPLIT",
    "build_example_dataset",
    "bundled_dataset_dir",
    "card_header",
    "dataset_card",
    "dataset_fingerprint",
    "dataset_identity",
    "identity_line",
    "dataset_name",
    "dataset_path",
    "features",
    "filter_dataset",
    "filter_rows",
    "is_bundled",
    "load_dataset",
    "load_rows",
    "question_counts",
    "question_hash",
    "release",
    "release_with_fingerprint",
    "save_dataset",
    "check_dataset_folder",
    "stratified_sample",
    "target_hash",
    "validate_row",
    "validate_rows",
    "version_words",
    "with_current_header",
]


def __getattr__(name: str) -> Any:
    """Build ``FEATURES`` on first access, so importing this package does not import datasets."""
    if name == "FEATURES":
        return features()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
