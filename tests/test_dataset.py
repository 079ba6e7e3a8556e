"""Dataset schema, validation, loading, saving, fingerprints, filtering and the example set."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from coordqa.dataset import (
    COLUMNS,
    QUESTION_TYPES,
    build_example_dataset,
    bundled_dataset_dir,
    dataset_card,
    dataset_fingerprint,
    filter_dataset,
    filter_rows,
    load_dataset,
    load_rows,
    question_counts,
    question_hash,
    save_dataset,
    target_hash,
    validate_rows,
)
from coordqa.errors import ConfigError, DatasetError, UnknownNameError
from coordqa.games import GAME_NAMES


def make_row(qid: str = "s1-EC", **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "question_id": qid,
        "scenario_id": "s1",
        "game": "overcooked",
        "layout": "cramped_room",
        "question_type": "EC",
        "game_description": "A cooking game.",
        "state_description": "c0 contains 2 out of 3 onions.",
        "question": "How many onions are still needed to fill up c0?",
        "options": ["3", "2", "1", "0"],
        "correct": [2],
        "rationale": "2 of 3 are in.",
        "concept": "counting",
        "tags": ["t"],
        "source": "test",
        "version": "0",
        "snapshot": "",
    }
    row.update(changes)
    return row


def three_rows() -> list[dict[str, Any]]:
    return [
        make_row("s1-EC"),
        make_row("s1-ToM", question_type="ToM", game="hanabi", layout=""),
        make_row("s2-JP", scenario_id="s2", question_type="JP", game="collab_escape", layout=""),
    ]


# -- validation ---------------------------------------------------------------------------------


def test_schema_names_are_the_agreed_ones() -> None:
    assert GAME_NAMES == ("overcooked", "hanabi", "collab_capture", "collab_escape")
    assert QUESTION_TYPES == ("EC", "ToM", "JP")
    import coordqa.dataset as module

    assert list(module.FEATURES) == list(COLUMNS)
    assert module.FEATURES["correct"].feature.dtype == "int32"


def test_valid_rows_pass() -> None:
    validate_rows(three_rows())


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"game": "overcook"}, r"column 'game'.*'overcook'.*Did you mean 'overcooked'"),
        ({"question_type": "TOM"}, r"column 'question_type'.*'TOM'"),
        ({"options": ["3", " ", "1"]}, r"column 'options': option 1 is empty"),
        ({"options": ["wait", "Wait ", "go"]}, r"option 1 'Wait ' duplicates option 0"),
        ({"options": ["only"], "correct": [0]}, r"at least 2"),
        ({"correct": [4]}, r"column 'correct': index 4 is out of range for 4 options"),
        ({"correct": [-1]}, r"index -1 is out of range"),
        ({"correct": []}, r"column 'correct' is empty"),
        ({"correct": [1, 1]}, r"repeats an index"),
        ({"correct": ["2"]}, r"column 'correct' must hold int"),
        ({"correct": [True]}, r"column 'correct' must hold int"),
        ({"options": "A. x"}, r"column 'options' must be a list"),
        ({"question": " "}, r"column 'question' is empty"),
        ({"question_id": ""}, r"column 'question_id' is empty"),
        ({"layout": None}, r"column 'layout' must be a string"),
        ({"snapshot": "{not json"}, r"column 'snapshot' is not valid JSON"),
        ({"extra": 1}, r"unexpected column\(s\) 'extra'"),
    ],
)
def test_each_schema_violation_names_row_and_column(changes: dict[str, Any], pattern: str) -> None:
    rows = [make_row("ok-1"), make_row("bad-2", **changes)]
    with pytest.raises(DatasetError, match=pattern) as info:
        validate_rows(rows)
    assert "row 2" in str(info.value)


def test_missing_column_is_named() -> None:
    row = make_row()
    del row["options"]
    expected = r"row 1 question_id 's1-EC': missing column\(s\) 'options'"
    with pytest.raises(DatasetError, match=expected):
        validate_rows([row])


def test_duplicate_question_id_names_both_rows() -> None:
    expected = r"row 3: column 'question_id': 'a' is already used by row 1"
    with pytest.raises(DatasetError, match=expected):
        validate_rows([make_row("a"), make_row("b"), make_row("a")])


# -- save and load ------------------------------------------------------------------------------


def test_save_is_byte_identical_and_round_trips(tmp_path: Path) -> None:
    rows = three_rows()
    first = save_dataset(rows, tmp_path / "one")
    second = save_dataset(load_dataset(first), tmp_path / "two")
    for name in ("data.parquet", "README.md"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    loaded = load_rows(first)
    assert loaded == rows  # same order, same values, lists and ints preserved


def test_save_keeps_row_order(tmp_path: Path) -> None:
    rows = list(reversed(three_rows()))
    folder = save_dataset(rows, tmp_path / "d")
    assert [r["question_id"] for r in load_dataset(folder)] == [r["question_id"] for r in rows]


def test_save_refuses_invalid_rows_and_stray_parquet(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="index 9"):
        save_dataset([make_row(correct=[9])], tmp_path / "bad")
    assert not (tmp_path / "bad" / "data.parquet").exists()
    with pytest.raises(DatasetError, match="no questions"):
        save_dataset([], tmp_path / "empty")
    save_dataset(three_rows(), tmp_path / "mixed")
    (tmp_path / "mixed" / "old.parquet").write_bytes(b"x")
    with pytest.raises(DatasetError, match="other parquet files"):
        save_dataset(three_rows(), tmp_path / "mixed")


def test_card_has_hugging_face_header_and_counts(tmp_path: Path) -> None:
    folder = save_dataset(three_rows(), tmp_path / "d", card="Some words.")
    text = (folder / "README.md").read_text()
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["license"] == "mit"
    assert header["configs"][0]["data_files"][0]["path"] == "data.parquet"
    (info,) = header["dataset_info"]
    assert info["config_name"] == "default"
    assert [f["name"] for f in info["features"]] == list(COLUMNS)
    assert info["splits"][0]["name"] == "test" and info["splits"][0]["num_examples"] == 3
    assert "Some words." in text
    assert "| overcooked | 1 | 0 | 0 | 1 |" in text
    assert dataset_fingerprint(three_rows()) in text


def test_complete_card_is_written_as_given(tmp_path: Path) -> None:
    card = dataset_card(three_rows(), pretty_name="X", body="Body.", license="other")
    folder = save_dataset(three_rows(), tmp_path / "d", card=card)
    assert (folder / "README.md").read_text() == card


def test_load_by_file_and_jsonl(tmp_path: Path) -> None:
    folder = save_dataset(three_rows(), tmp_path / "d")
    by_file = load_dataset(folder / "data.parquet")
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in three_rows()) + "\n\n")
    by_jsonl = load_dataset(jsonl)
    assert dataset_fingerprint(by_file) == dataset_fingerprint(by_jsonl)
    assert by_jsonl.features == by_file.features
    assert by_jsonl[0]["correct"] == [2]


def test_load_validates(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(make_row(game="chess")) + "\n")
    with pytest.raises(DatasetError, match=r"bad.jsonl: row 1 .*column 'game'"):
        load_dataset(bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(make_row()) + "\n{oops\n")
    with pytest.raises(DatasetError, match="line 2: invalid JSON"):
        load_dataset(broken)


def test_load_errors_for_missing_things(tmp_path: Path) -> None:
    assert load_dataset().num_rows == load_dataset("coordinationqa").num_rows == 198
    with pytest.raises(UnknownNameError, match="Did you mean 'example'"):
        load_dataset("exampel")
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset(tmp_path / "nowhere")
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset("missing.parquet")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="no .parquet file"):
        load_dataset(tmp_path / "empty")
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(DatasetError, match="expected a folder, a .parquet file or a .jsonl"):
        load_dataset(tmp_path / "x.csv")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match="cannot read .* as parquet"):
        load_dataset(tmp_path / "junk.parquet")


# -- fingerprints -------------------------------------------------------------------------------


def test_fingerprint_is_order_and_format_independent(tmp_path: Path) -> None:
    rows = three_rows()
    folder = save_dataset(rows, tmp_path / "d")
    expected = dataset_fingerprint(rows)
    assert dataset_fingerprint(list(reversed(rows))) == expected
    assert dataset_fingerprint(load_dataset(folder)) == expected
    assert len(expected) == 64 and int(expected, 16) >= 0


@pytest.mark.parametrize(
    "changes",
    [
        {"options": ["3", "2", "1", "none"]},
        {"correct": [1]},
        {"state_description": "other"},
        {"version": "1"},
        {"tags": []},
        {"snapshot": "{}"},
    ],
)
def test_fingerprint_changes_with_any_field(changes: dict[str, Any]) -> None:
    rows = three_rows()
    changed = [make_row("s1-EC", **changes), *rows[1:]]
    assert dataset_fingerprint(changed) != dataset_fingerprint(rows)


def test_question_and_target_hashes() -> None:
    row = make_row()
    assert question_hash(row) == question_hash(dict(reversed(list(row.items()))))
    relabelled = make_row("renamed", source="other", version="9")
    assert question_hash(relabelled) == question_hash(row)
    assert question_hash(make_row(question="Why?")) != question_hash(row)
    assert target_hash(make_row(question="Why?")) == target_hash(row)
    assert target_hash(make_row(correct=[1])) != target_hash(row)
    assert target_hash(make_row(options=["3", "2", "one", "0"])) != target_hash(row)
    assert question_hash(make_row(correct=[1])) != question_hash(row)


# -- filtering ----------------------------------------------------------------------------------


def test_filter_by_game_type_and_limit() -> None:
    ds = load_dataset("example")
    hanabi = filter_dataset(ds, games=["hanabi"])
    assert set(hanabi["game"]) == {"hanabi"} and len(hanabi) == 3
    tom = filter_dataset(ds, types=["tom", "JP"])
    assert set(tom["question_type"]) == {"ToM", "JP"} and len(tom) == 8
    assert filter_dataset(ds, games="collab_escape", types="EC")["question_id"] == [
        "example-collab_escape-01-EC"
    ]
    first = filter_dataset(ds, limit=2)
    assert first["question_id"] == ds["question_id"][:2]
    assert len(filter_dataset(ds, games=["hanabi"], types=["EC"], limit=5)) == 1


def test_plain_rows_are_filtered_like_the_dataset() -> None:
    rows = load_rows("example")
    ds = load_dataset("example")
    filters = ((["hanabi"], None, None), (None, ["tom", "JP"], 3), (None, None, 2))
    for games, types, limit in filters:
        kept = [row["question_id"] for row in filter_rows(rows, games, types, limit)]
        assert kept == filter_dataset(ds, games, types, limit)["question_id"]


def test_question_counts() -> None:
    counts = question_counts(three_rows())
    assert counts == {
        "overcooked": {"EC": 1, "ToM": 0, "JP": 0},
        "hanabi": {"EC": 0, "ToM": 1, "JP": 0},
        "collab_escape": {"EC": 0, "ToM": 0, "JP": 1},
    }


def test_filter_errors() -> None:
    ds = load_dataset("example")
    with pytest.raises(UnknownNameError, match="unknown game 'hanabbi'.*Did you mean 'hanabi'"):
        filter_dataset(ds, games=["hanabbi"])
    with pytest.raises(UnknownNameError, match="unknown question type 'TM'"):
        filter_dataset(ds, types=["TM"])
    with pytest.raises(ConfigError, match="limit must be at least 1"):
        filter_dataset(ds, limit=0)


# -- the bundled example ------------------------------------------------------------------------


def test_example_loads_fast_and_is_labelled() -> None:
    load_dataset("example")  # first call pays for importing datasets
    start = time.perf_counter()
    ds = load_dataset("example")
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"loading the example took {elapsed:.2f}s"
    assert len(ds) == 12
    assert set(ds["source"]) == {"example"}
    assert {(r["game"], r["question_type"]) for r in ds} == {
        (game, kind) for game in GAME_NAMES for kind in QUESTION_TYPES
    }
    card = (bundled_dataset_dir("example") / "README.md").read_text()
    assert "NOT CoordinationQA v1" in card
    assert "coordqa eval --model random --dataset example" in card


def test_example_parquet_matches_its_jsonl_source(tmp_path: Path) -> None:
    from coordqa.dataset import EXAMPLE_SOURCE

    source = load_rows(EXAMPLE_SOURCE)
    assert dataset_fingerprint(load_rows("example")) == dataset_fingerprint(source)
    rebuilt = build_example_dataset(tmp_path / "example")
    bundled = bundled_dataset_dir("example")
    assert (rebuilt / "README.md").read_text() == (bundled / "README.md").read_text()


def test_example_answer_keys() -> None:
    keys = {r["question_id"]: [r["options"][i] for i in r["correct"]] for r in load_rows("example")}
    assert keys["example-overcooked-01-EC"] == ["1"]
    assert keys["example-overcooked-01-JP"] == ["pick up plate from p0"]
    assert keys["example-hanabi-01-ToM"] == ["Reveal Bob's Green color cards"]
    assert keys["example-hanabi-01-JP"] == ["Reveal Bob's Green color cards"]
    assert keys["example-collab_capture-01-JP"] == ["Move to Room 6"]
    assert keys["example-collab_escape-01-JP"] == ["Fix generator in Room 6"]
