"""Every bundled dataset folder loads as a Hugging Face Hub user would load it, with no warning.

``datasets.load_dataset(folder, config)`` reads the card's ``configs`` and ``dataset_info``; a
malformed card is not an error there, only a logged warning (its split sizes are then ignored),
so these tests listen to the ``datasets`` logger and to Python warnings.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from pathlib import Path

import datasets
import pytest
import yaml

from coordqa.dataset import (
    QUESTION_TYPES,
    RELEASES,
    SPLIT,
    bundled_dataset_dir,
    card_header,
    dataset_fingerprint,
    load_rows,
    with_current_header,
)

CONFIGS = [
    (release.name, config)
    for release in RELEASES
    for config in ("default", *(QUESTION_TYPES if release.name != "example" else ()))
]
"""Every (bundled folder, card config): the releases have one config per question type."""


class Listener(logging.Handler):
    """Collects what ``datasets`` logs at WARNING or above, and every Python warning."""

    def __init__(self, caught: list[warnings.WarningMessage]) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []
        self.caught = caught

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def said(self) -> list[str]:
        """Everything heard so far."""
        return [r.getMessage() for r in self.records] + [str(w.message) for w in self.caught]


@pytest.fixture
def listener() -> Iterator[Listener]:
    """Listens to ``datasets``' logger and to Python warnings while the test runs."""
    logger = logging.getLogger("datasets")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        handler = Listener(caught)
        logger.addHandler(handler)
        try:
            yield handler
        finally:
            logger.removeHandler(handler)


def _card(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.mark.parametrize(("name", "config"), CONFIGS)
def test_each_config_loads_like_the_hub_with_split_test(
    name: str, config: str, tmp_path: Path, listener: Listener
) -> None:
    folder = bundled_dataset_dir(name)
    loaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path))
    assert list(loaded) == [SPLIT] == ["test"]
    rows = load_rows(name)
    expected = [r for r in rows if config == "default" or r["question_type"] == config]
    split = loaded[SPLIT]
    assert split.num_rows == len(expected) > 0
    assert dataset_fingerprint(split) == dataset_fingerprint(expected)
    # The card's split sizes were read (a malformed card leaves them unknown) and are right.
    assert split.info.splits[SPLIT].num_examples == len(expected)
    declared = {info["config_name"]: info for info in _card(folder)["dataset_info"]}
    assert declared[config]["splits"][0]["num_bytes"] == split.info.splits[SPLIT].num_bytes
    assert listener.said() == []


def test_every_card_header_is_computed_from_its_rows() -> None:
    """Also the frozen v1 card, whose text stays as shipped: only its header follows the format."""
    for release in RELEASES:
        folder = release.folder
        card = (folder / "README.md").read_text(encoding="utf-8")
        assert with_current_header(card, load_rows(release.name)) == card, release.name
        header = _card(folder)
        assert {c["config_name"] for c in header["configs"]} == {
            c["config_name"] for c in header["dataset_info"]
        }


def test_header_counts_each_config_on_its_own() -> None:
    rows = load_rows("coordinationqa-v1.1")
    header = card_header(rows, pretty_name="x", by_type=True)
    infos = header["dataset_info"]
    sizes = {info["config_name"]: info["splits"][0]["num_examples"] for info in infos}
    assert sizes == {"default": 198, "EC": 66, "ToM": 66, "JP": 66}
    single = card_header(rows, pretty_name="x")
    assert [c["config_name"] for c in single["configs"]] == ["default"]


def test_the_parquet_file_keeps_its_old_split_name(tmp_path: Path) -> None:
    """The card's note: loading the file itself, as before, still names the split ``train``."""
    path = bundled_dataset_dir() / "data.parquet"
    plain = datasets.load_dataset("parquet", data_files=str(path), cache_dir=str(tmp_path))
    assert list(plain) == ["train"] and plain["train"].num_rows == 198
