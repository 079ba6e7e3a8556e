"""The bundled CoordinationQA v1: composition, loading through `datasets`, solver validation."""

from __future__ import annotations

from collections import Counter

import datasets

import coordqa
from coordqa.dataset import bundled_dataset_dir, dataset_fingerprint, load_rows
from coordqa.scenarios import build_dataset, validate_rows_against_solvers


def test_composition_is_66_scenarios_and_198_questions() -> None:
    rows = load_rows()
    assert len(rows) == 198
    scenarios = {(row["game"], row["scenario_id"]) for row in rows}
    assert Counter(game for game, _ in scenarios) == {
        "overcooked": 25,
        "hanabi": 28,
        "collab_capture": 6,
        "collab_escape": 7,
    }
    assert Counter(row["question_type"] for row in rows) == {"EC": 66, "ToM": 66, "JP": 66}
    layouts = Counter(row["layout"] for row in rows if row["game"] == "overcooked")
    assert len(layouts) == 5 and min(layouts.values()) >= 4 * 3


def test_loads_with_coordqa_and_with_plain_datasets() -> None:
    ours = coordqa.load_dataset()
    folder = bundled_dataset_dir()
    plain = datasets.load_dataset("parquet", data_files=str(folder / "data.parquet"), split="train")
    assert plain.num_rows == ours.num_rows == 198
    assert dataset_fingerprint(plain) == dataset_fingerprint(ours)
    by_type = datasets.load_dataset(
        "parquet", data_files=str(folder / "by_type" / "JP.parquet"), split="train"
    )
    assert set(by_type["question_type"]) == {"JP"} and by_type.num_rows == 66


def test_every_shipped_question_validates_against_its_solver() -> None:
    assert validate_rows_against_solvers(load_rows()) == 198


def test_rebuild_is_byte_identical_and_matches_the_shipped_content(tmp_path) -> None:
    first, second = build_dataset(tmp_path / "a"), build_dataset(tmp_path / "b")
    for name in ("data.parquet", "README.md", "by_type/EC.parquet"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    # Parquet files record the pyarrow version that wrote them, so the shipped file is compared
    # by content; the card (which holds the fingerprint) must match byte for byte.
    shipped = bundled_dataset_dir()
    assert dataset_fingerprint(load_rows(first)) == dataset_fingerprint(load_rows(shipped))
    assert (first / "README.md").read_bytes() == (shipped / "README.md").read_bytes()
