"""The importer of the original LLM-Coordination CSV, and ``coordqa dataset import-upstream``."""

from __future__ import annotations

import csv
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.dataset import dataset_fingerprint, load_dataset, load_rows
from coordqa.errors import ConfigError, DatasetError
from coordqa.upstream import import_upstream, parse_gold, split_question, upstream_rows

HEADER = [
    "Game", "Map", "Concept", "Tags", "Game Description", "EC Directive", "TOM Directive",
    "JP Directive", "State Description", "EC Question", "TOM Question", "JP Question",
    "EC Answer", "TOM Answer", "JP Answer", "EC Answer Ordinal", "TOM Answer Ordinal",
    "JP Answer Ordinal", "Game Description",
]  # fmt: skip

TWO_LINE_QUESTION = "Bob has just turned to c0.\nWhat action does my partner intend to take?"
OC_STATE = "I am holding nothing. Bob is holding an onion.\nc0 contains 2 out of 3 onions."


def question(state: str, sentence: str, options: list[str], marker: str = "Answers") -> str:
    lines = [f"{chr(65 + i)}. {text}" for i, text in enumerate(options)]
    return f"{state}\n\n{sentence}\nAvailable {marker}:\n" + "\n".join(lines)


def upstream_records() -> list[dict[str, str]]:
    """Four scenarios with the release's quirks."""
    overcooked = {
        "Game": "Overcooked",
        "Map": "Cramped Room",
        "Concept": "Bob fills the pot",
        "Tags": "pot, plate",
        "Game Description": "Overcooked: cook onion soup together.",
        "EC Directive": "Answer the question. Explanation: ... Answer: ...",
        "State Description": OC_STATE.replace("\n", "  \n"),  # stray trailing spaces
        # trailing whitespace and a blank line among the options
        "EC Question": f"{OC_STATE}\n\nHow many onions are still needed to fill up c0?\n"
        "Available Answers:\nA. 3   \n\nB. 2\nC. 1 \n   \nD. 0\n",
        "TOM Question": question(OC_STATE, TWO_LINE_QUESTION, ["place onion in c0", "wait"]),
        "JP Question": question(
            OC_STATE,
            "What is the best next action?",
            ["pick up onion from o0", "pick up plate from p0", "wait", "move away"],
            "Actions",
        ),
        "EC Answer Ordinal": "C",
        "TOM Answer Ordinal": "A",
        "JP Answer Ordinal": "B, D",  # several gold letters, space after the comma
    }
    hanabi_state = "It is my turn.\nCurrent stacks: Red - Red 1."
    hanabi = {
        "Game": "Hanabi",
        "Game Description.1": "Hanabi: a cooperative card game.",  # only the duplicate is set
        "State Description": "",
        "EC Question": question(hanabi_state, "Which card can Bob play?", ["Card 0", "Card 1"]),
        "TOM Question": question(
            hanabi_state, "What can I infer from my partner's previous action?", ["x", "y", "z"]
        ),
        "JP Question": question(
            hanabi_state, "What is the best next action?", ["Play my Card 0", "Discard my Card 0"]
        ),
        "EC Answer Ordinal": "B",
        "TOM Answer Ordinal": "C,A",
        "JP Answer Ordinal": " a ",
    }
    capture = {
        "Game": "CollabGames",
        "Game Description": "Catch the thief in a house of nine rooms.",
        "EC Question": question("The thief is in Room 9.", "Where can it go?", ["6", "8"]),
        "TOM Question": question("Bob is in Room 5.", "What will Bob do?", ["stay", "move"]),
        "JP Question": question("I am in Room 1.", "Best action?", ["stay", "go"], "Actions"),
        "EC Answer Ordinal": "A",
        "TOM Answer Ordinal": "B",
        "JP Answer Ordinal": "B",
    }
    escape = {
        **capture,
        "Game Description": "Escape together: fix both generators, then reach the gate.",
        "EC Question": question("The killer is in Room 9.", "Is the gate open?", ["yes", "no"]),
    }
    return [overcooked, hanabi, capture, escape]


def write_csv(path: Path, records: list[dict[str, str]], header: list[str] = HEADER) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for record in records:
            # the second "Game Description" column is what pandas reads as "Game Description.1"
            cells = [record.get(name, "") for name in header[:-1]]
            writer.writerow([*cells, record.get("Game Description.1", "")])
    return path


def test_import_handles_the_quirks(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "upstream.csv", upstream_records())
    folder = import_upstream(source, tmp_path / "out")
    ds = load_dataset(folder)
    assert len(ds) == 12
    rows = {row["question_id"]: row for row in ds}
    ec = rows["upstream-001-EC"]
    assert ec["options"] == ["3", "2", "1", "0"]
    assert ec["correct"] == [2]
    assert ec["state_description"] == OC_STATE
    assert ec["question"] == "How many onions are still needed to fill up c0?"
    assert (ec["game"], ec["layout"]) == ("overcooked", "cramped_room")
    assert ec["tags"] == ["pot", "plate"] and ec["concept"] == "Bob fills the pot"
    assert ec["source"] == "llm-coordination-upstream" and ec["snapshot"] == ""
    assert ec["version"].startswith("upstream-")
    assert rows["upstream-001-JP"]["correct"] == [1, 3]
    assert rows["upstream-001-ToM"]["question_type"] == "ToM"
    # the State Description column (despite its trailing spaces) marks where the question starts
    assert rows["upstream-001-ToM"]["question"] == TWO_LINE_QUESTION
    assert rows["upstream-001-ToM"]["state_description"] == OC_STATE
    hanabi_ec = rows["upstream-002-EC"]
    assert hanabi_ec["game_description"] == "Hanabi: a cooperative card game."
    assert hanabi_ec["state_description"] == "It is my turn.\nCurrent stacks: Red - Red 1."
    assert hanabi_ec["question"] == "Which card can Bob play?"
    assert rows["upstream-002-ToM"]["correct"] == [0, 2]
    assert rows["upstream-002-JP"]["correct"] == [0]
    assert rows["upstream-003-EC"]["game"] == "collab_capture"
    assert rows["upstream-004-EC"]["game"] == "collab_escape"
    assert all("Directive" not in value for row in ds for value in map(str, row.values()))
    card = (folder / "README.md").read_text()
    assert "license: other" in card and str(source) in card


def test_import_is_deterministic(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "upstream.csv", upstream_records())
    one = import_upstream(source, tmp_path / "one")
    two = import_upstream(source, tmp_path / "two")
    assert (one / "data.parquet").read_bytes() == (two / "data.parquet").read_bytes()


def broken(tmp_path: Path, row: int, **cells: str) -> Path:
    records = upstream_records()
    records[row - 1] = {**records[row - 1], **cells}
    return write_csv(tmp_path / "broken.csv", records)


@pytest.mark.parametrize(
    ("row", "cells", "pattern"),
    [
        (2, {"EC Question": "Which card?\nA. x\nB. y"}, r"row 2, column 'EC Question': no 'Avail"),
        (1, {"JP Answer Ordinal": "B, Z"}, r"row 1, column 'JP Answer Ordinal': .*'Z' is outside"),
        (1, {"EC Answer Ordinal": ""}, r"row 1, column 'EC Answer Ordinal': '' in '' is not"),
        (1, {"TOM Answer Ordinal": "A or B"}, r"column 'TOM Answer Ordinal'"),
        (3, {"TOM Question": "Q?\nAvailable Answers:\nA. x\nthen y"}, r"row 3, .*'then y'"),
        (3, {"TOM Question": "Q?\nAvailable Answers:\nA. x\nC. y"}, r"'C' where 'B' was"),
        (3, {"TOM Question": "Q?\nAvailable Answers:\nA. x"}, r"found 1 option"),
        (3, {"TOM Question": "Available Answers:\nA. x\nB. y"}, r"no question sentence"),
        (3, {"JP Question": "Q?\nAvailable Actions:\nA. wait\nB. Wait"}, r"row 3, .*duplicates"),
        (
            3,
            {
                "Game Description": "Two friends.",
                "EC Question": question("Room 9.", "Q?", ["a", "b"]),
            },
            r"row 3, column 'Game': .*neither",
        ),
        (3, {"Game Description": "A thief and a killer."}, r"row 3, column 'Game': .*both"),
        (4, {"Game": "Chess"}, r"row 4, column 'Game': unknown game 'Chess'"),
        (2, {"Game Description.1": ""}, r"row 2, column 'Game Description': it is empty"),
    ],
)
def test_each_malformed_cell_names_row_and_column(
    tmp_path: Path, row: int, cells: dict[str, str], pattern: str
) -> None:
    with pytest.raises(DatasetError, match=pattern):
        import_upstream(broken(tmp_path, row, **cells), tmp_path / "out")
    assert not (tmp_path / "out" / "data.parquet").exists()


def test_missing_column_and_empty_file(tmp_path: Path) -> None:
    header = [name for name in HEADER if name != "JP Answer Ordinal"]
    source = write_csv(tmp_path / "a.csv", upstream_records(), header)
    with pytest.raises(DatasetError, match="lacks the column\\(s\\) 'JP Answer Ordinal'"):
        import_upstream(source, tmp_path / "out")
    with pytest.raises(DatasetError, match="no rows"):
        upstream_rows(",".join(HEADER) + "\n")
    with pytest.raises(DatasetError, match="no CSV file"):
        import_upstream(tmp_path / "none.csv", tmp_path / "out")
    (tmp_path / "latin.csv").write_bytes(b"Game\n\xe9\xff\n")
    with pytest.raises(DatasetError, match="not UTF-8"):
        import_upstream(tmp_path / "latin.csv", tmp_path / "out")


def test_helpers() -> None:
    split = split_question("State.\nMore state.\nQ?\nAvailable Answers:\nA) one\n B. two ")
    assert (split.state, split.question, split.options) == (
        "State.\nMore state.",
        "Q?",
        ("one", "two"),
    )
    assert parse_gold("D, F", 6) == [3, 5]
    assert parse_gold("(b)", 2) == [1]
    with pytest.raises(DatasetError, match="outside the options A-B"):
        parse_gold("C", 2)


def test_url_download_and_failure(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "upstream.csv", upstream_records())
    served = source.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/data.csv":
            return httpx.Response(200, content=served)
        return httpx.Response(404)

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        folder = import_upstream("https://example.org/data.csv", tmp_path / "out", client=client)
        assert dataset_fingerprint(load_rows(folder)) == dataset_fingerprint(
            load_rows(import_upstream(source, tmp_path / "local"))
        )
        with pytest.raises(DatasetError, match="cannot download .*404.*local path"):
            import_upstream("https://example.org/missing.csv", tmp_path / "x", client=client)

    def offline(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("no network", request=request)

    with httpx.Client(transport=httpx.MockTransport(offline)) as client:
        with pytest.raises(DatasetError, match="cannot download .*no network.*offline"):
            import_upstream("http://example.org/data.csv", tmp_path / "y", client=client)


def test_cli_import_upstream(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "upstream.csv", upstream_records())
    out = tmp_path / "imported"
    runner = CliRunner()
    result = runner.invoke(app, ["dataset", "import-upstream", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "12 questions written to" in result.output
    assert "collab_escape" in result.output
    assert len(load_dataset(out)) == 12
    again = runner.invoke(app, ["dataset", "import-upstream", str(source), "--out", str(out)])
    assert isinstance(again.exception, ConfigError)
    assert "--overwrite" in str(again.exception)
    forced = runner.invoke(
        app, ["dataset", "import-upstream", str(source), "--out", str(out), "--overwrite"]
    )
    assert forced.exit_code == 0, forced.output
    bad = runner.invoke(app, ["dataset", "import-upstream", str(tmp_path / "no.csv"), "-o", "x"])
    assert isinstance(bad.exception, DatasetError)
