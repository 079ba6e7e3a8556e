"""The importer of the original LLM-Coordination CSV, and ``coordqa dataset import-upstream``."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from coordqa.cli import app
from coordqa.dataset import dataset_fingerprint, load_dataset, load_rows, validate_row
from coordqa.errors import ConfigError, DatasetError
from coordqa.scenarios.upstream import (
    FLAGS,
    convert_upstream,
    import_upstream,
    map_gold,
    parse_gold,
    split_question,
)

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
    result = import_upstream(source, tmp_path / "out")
    folder = result.folder
    assert (result.conversion.warnings, result.conversion.notes, result.conversion.flagged) == (
        (),
        (),
        {},
    )
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
    one = import_upstream(source, tmp_path / "one").folder
    two = import_upstream(source, tmp_path / "two").folder
    assert (one / "data.parquet").read_bytes() == (two / "data.parquet").read_bytes()


def broken(tmp_path: Path, row: int, **cells: str) -> Path:
    records = upstream_records()
    records[row - 1] = {**records[row - 1], **cells}
    return write_csv(tmp_path / "broken.csv", records)


@pytest.mark.parametrize(
    ("row", "cells", "pattern"),
    [
        (2, {"EC Question": "Which card?\nA. x\nB. y"}, r"row 2, column 'EC Question': no 'Avail"),
        (1, {"EC Answer Ordinal": ""}, r"row 1, column 'EC Answer Ordinal': '' in '' is not"),
        (1, {"TOM Answer Ordinal": "A or B"}, r"column 'TOM Answer Ordinal'"),
        (3, {"TOM Question": "Q?\nAvailable Answers:\nA. x\nthen y"}, r"row 3, .*'then y'"),
        (3, {"TOM Question": "Q?\nAvailable Answers:\nA. x\nB."}, r"option 2 \(B\) has no text"),
        (3, {"TOM Question": "Q?\nAvailable Answers:\nA. x"}, r"found 1 option"),
        (3, {"TOM Question": "Available Answers:\nA. x\nB. y"}, r"no question sentence"),
        (
            3,
            {
                "Game Description": "Two friends.",
                "EC Question": question("Room 9.", "Q?", ["a", "b"]),
            },
            r"row 3, column 'Game': cannot tell which game .*neither",
        ),
        (
            3,
            {"Game Description": "A thief and a killer."},
            r"row 3, column 'Game': .*mentions collab_capture and collab_escape",
        ),
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
        convert_upstream(",".join(HEADER) + "\n")
    with pytest.raises(DatasetError, match="no CSV file"):
        import_upstream(tmp_path / "none.csv", tmp_path / "out")
    (tmp_path / "latin.csv").write_bytes(b"Game\n\xe9\xff\n")
    with pytest.raises(DatasetError, match="not UTF-8"):
        import_upstream(tmp_path / "latin.csv", tmp_path / "out")


def test_helpers() -> None:
    split = split_question("State.\nMore state.\nQ?\nAvailable Answers:\nA) one\n B. two ")
    assert (split.state, split.question, split.options, split.labels) == (
        "State.\nMore state.",
        "Q?",
        ("one", "two"),
        ("A", "B"),
    )
    assert split.regular
    assert parse_gold("D, F") == ["D", "F"]
    assert parse_gold("(b)") == ["b"]
    assert map_gold("(b)", "AB", ["x", "y"]).correct == (1,)
    assert map_gold(
        "P,N", [chr(65 + i) for i in range(16)], [f"o{i}" for i in range(16)]
    ).correct == (
        13,
        15,
    )


def test_url_download_and_failure(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "upstream.csv", upstream_records())
    served = source.read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/data.csv":
            return httpx.Response(200, content=served)
        return httpx.Response(404)

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        folder = import_upstream("https://example.org/data.csv", tmp_path / "out", client=client)
        assert dataset_fingerprint(load_rows(folder.folder)) == dataset_fingerprint(
            load_rows(import_upstream(source, tmp_path / "local").folder)
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


# --------------------------------------------------------------------------------------------
# Irregular questions, shaped like the real release's (the texts are written here)

ESCAPE = "Escape together: fix both generators before the killer finds you, then reach the gate."
CAPTURE = "Catch the thief: two guards close doors in a house of nine rooms."


def lettered(marker: str, labels: str, options: list[str], sentence: str = "What now?") -> str:
    lines = [f"{label}. {text}" for label, text in zip(labels, options, strict=True)]
    return f"I am in room 3.\n\n{sentence}\n{marker}\n" + "\n".join(lines) + "\n"


def quirk_records() -> list[dict[str, str]]:
    """Rows with the release's irregularities, one or two per question."""
    past_z = [f"move to cell {i}" for i in range(30)]
    return [
        {  # 1: a repeated letter (A, B, B, C) whose gold is the unique A; lower-case marker
            "Game": "CollabGames",
            "Game Description": ESCAPE,
            "EC Question": lettered(
                "Available answers: ", "ABBC", ["Yes, two", "Yes, one", "No", "Unclear"]
            ),
            "EC Answer": "A. Yes, two",
            "EC Answer Ordinal": "A",
            # the gold letter labels two options; the Answer text names the second of them
            "TOM Question": lettered(
                "Available Actions:  ", "ABCDD", ["wait", "go left", "go right", "hide", "fix"]
            ),
            "TOM Answer": "D. fix",
            "TOM Answer Ordinal": "D",
            # the gold letter labels two options and the Answer text names neither: no key
            "JP Question": lettered(
                "Available Actions:", "ABB", ["move to room 2", "stay in current room", "fix"]
            ),
            "JP Answer": "Stay in room 3",
            "JP Answer Ordinal": "B",
        },
        {  # 2: a skipped letter (A, B, D); a gold letter beyond the options; text vs letter
            "Game": "CollabGames",
            "Game Description": CAPTURE,
            "EC Question": lettered("Available Answers:", "ABD", ["Yes.", "No.", "Maybe."]),
            "EC Answer": "Maybe",
            "EC Answer Ordinal": "D",
            # C is not among A-B, but the Answer text is option B's: the text settles it
            "TOM Question": lettered("Available Answers:", "AB", ["Yes.", "No."]),
            "TOM Answer": "no",
            "TOM Answer Ordinal": "C",
            # regular letters; the Answer text is option C's while the letter says A
            "JP Question": lettered(
                "Available Actions: ", "ABC", ["move to room 1", "move to room 5", "stay"]
            ),
            "JP Answer": "Stay.",
            "JP Answer Ordinal": "A",
        },
        {  # 3: an Overcooked scenario filed under CollabGames; odd option spacing; answers
            "Game": "CollabGames",
            "Map": "Cramped Room",
            "Game Description": "In the game Overcooked, Alice and Bob cook onion-tomato soup.",
            "EC Question": "Cooker has 2 onions.\n\nHow many tomatoes are missing?\n"
            "Available Answers: \nA. 0\nB.1\nC. 2  \n",
            "EC Answer": "B.1 ",
            "EC Answer Ordinal": "B",
            "TOM Question": "Bob holds an onion.\n\nWhat will Bob do?\nAvailable Actions: \n"
            "A. place onion in cooker\nB. place onion on counter. \nC.place onion on s0.\n"
            "D. . place onion on s3.\nE. move away..\n",
            "TOM Answer": "Action: place onion on s0.",
            "TOM Answer Ordinal": "C",
            "JP Question": lettered(
                "Available Actions:", "ABCDEFGHIJKLMNOP", [f"action {i}" for i in range(16)]
            ),
            "JP Answer": "action 13 or action 15",
            "JP Answer Ordinal": "P,N",
        },
        {  # 4: more than 26 options (labels go on past Z) and two options with the same text
            "Game": "Overcooked",
            "Map": "Forced Coordination",
            "Game Description": "Overcooked: cook onion soup together.",
            "EC Question": lettered(
                "Available Answers:", "ABCD", ["onion", "plate", "Onion.", "nothing"]
            ),
            "EC Answer": "plate",
            "EC Answer Ordinal": "B",
            "TOM Question": lettered(
                "Available Actions:",
                [chr(65 + i) for i in range(30)],
                past_z,  # type: ignore[arg-type]
            ),
            "TOM Answer": "move to cell 27",
            "TOM Answer Ordinal": "\\",
            "JP Question": lettered("Available Actions:", "AB", ["wait", "move away"]),
            "JP Answer": "wait",
            "JP Answer Ordinal": "a",
        },
    ]


def test_irregular_questions_are_imported_by_position_and_flagged(tmp_path: Path) -> None:
    result = import_upstream(write_csv(tmp_path / "quirks.csv", quirk_records()), tmp_path / "q")
    rows = {row["question_id"]: row for row in load_rows(result.folder)}
    assert len(rows) == 12
    flagged = result.conversion.flagged
    assert flagged == {
        "upstream-001-EC": ["upstream:letters-irregular"],
        "upstream-001-ToM": ["upstream:letters-irregular", "upstream:gold-by-answer-text"],
        "upstream-001-JP": [
            "upstream:letters-irregular",
            "upstream:gold-unmapped",
            "no-answer-key",
        ],
        "upstream-002-EC": ["upstream:letters-irregular"],
        "upstream-002-ToM": ["upstream:gold-by-answer-text"],
        "upstream-002-JP": ["upstream:answer-text-disagrees"],
        **{f"upstream-003-{kind}": ["upstream:collab-cooking"] for kind in ("EC", "ToM", "JP")},
        "upstream-004-EC": ["options-share-text"],
        "upstream-004-ToM": ["upstream:options-past-z"],
    }
    correct = {qid: row["correct"] for qid, row in rows.items()}
    assert correct == {
        "upstream-001-EC": [0],  # the only A
        "upstream-001-ToM": [4],  # the second D, named by the Answer text
        "upstream-001-JP": [],  # B twice, text names neither: no answer key, no guess
        "upstream-002-EC": [2],  # D labels the third option
        "upstream-002-ToM": [1],  # C labels nothing; "no" is option B's text
        "upstream-002-JP": [0],  # the letter is the key, the disagreement is a warning
        "upstream-003-EC": [1],
        "upstream-003-ToM": [2],
        "upstream-003-JP": [13, 15],
        "upstream-004-EC": [1],
        "upstream-004-ToM": [27],  # the label after "["
        "upstream-004-JP": [0],  # lower-case gold letter
    }
    # texts are kept verbatim, by position, whatever their labels
    assert rows["upstream-001-JP"]["options"] == ["move to room 2", "stay in current room", "fix"]
    assert rows["upstream-003-ToM"]["options"] == [
        "place onion in cooker",
        "place onion on counter.",
        "place onion on s0.",
        ". place onion on s3.",
        "move away..",
    ]
    assert rows["upstream-003-EC"]["options"] == ["0", "1", "2"]
    assert rows["upstream-004-EC"]["options"] == ["onion", "plate", "Onion.", "nothing"]
    assert len(rows["upstream-004-ToM"]["options"]) == 30
    assert (rows["upstream-003-EC"]["game"], rows["upstream-003-EC"]["layout"]) == (
        "overcooked",
        "cramped_room",
    )
    assert rows["upstream-001-EC"]["game"] == "collab_escape"
    assert rows["upstream-002-EC"]["game"] == "collab_capture"
    warnings = [str(finding) for finding in result.conversion.warnings]
    assert [w.split(" ")[0] for w in warnings] == ["upstream-001-JP", "upstream-002-JP"]
    assert "labels 2 options (#2 (B), #3 (B))" in warnings[0] and "no answer key" in warnings[0]
    assert "gold A kept" in warnings[1] and "option #3 (C)" in warnings[1]
    card = (result.folder / "README.md").read_text()
    assert "### Warnings (2)" in card and all(w in card for w in warnings)
    assert "| `upstream:letters-irregular` | 4 |" in card
    assert "| `upstream:gold-unmapped` | 1 |" in card and "| `no-answer-key` | 1 |" in card


def test_gold_rule_never_guesses() -> None:
    labels, options = "ABB", ["go", "stay", "fix"]
    assert map_gold("B", labels, options, "fix").correct == (2,)
    assert map_gold("B", labels, options, "B. stay").correct == (1,)
    for answer in ("", "go", "stay or fix"):
        mapped = map_gold("B", labels, options, answer)
        assert mapped.correct == () and "no answer key" in mapped.warning
    # several gold letters, one of them unsettled: the text cannot say which
    assert map_gold("A, B", labels, options, "go").correct == ()
    # the Answer text names two options with the same text: not settled either
    assert map_gold("C", "AB", ["wait", "Wait."], "wait").correct == ()
    assert set(FLAGS) >= {"upstream:letters-irregular", "no-answer-key"}


def test_cli_prints_the_warnings(tmp_path: Path) -> None:
    source = write_csv(tmp_path / "quirks.csv", quirk_records())
    out = tmp_path / "imported"
    result = CliRunner().invoke(app, ["dataset", "import-upstream", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "12 questions written to" in result.output
    text = " ".join(result.output.split())
    assert "upstream:letters-irregular: 4 question(s): upstream-001-EC, upstream-001-ToM" in text
    assert "warning: upstream-001-JP (CSV row 1, JP Answer Ordinal)" in text
    assert "note: upstream-001-ToM" in text
    assert "2 warning(s); they are also listed in" in text


@pytest.mark.parametrize("model", ["random", "scripted"])
def test_eval_runs_on_an_irregular_import(tmp_path: Path, model: str) -> None:
    # rows 1-3: every irregularity except those the reply reader must learn first (> 26
    # options and shared option texts, row 4)
    source = write_csv(tmp_path / "quirks.csv", quirk_records()[:3])
    folder = import_upstream(source, tmp_path / "ds").folder
    run = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["eval", "--dataset", str(folder), "--model", model, "--trials", "2", "--out", str(run)],
    )
    assert result.exit_code == 0, result.output
    samples = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert len(samples) == 18
    unkeyed = [s for s in samples if s["question_id"] == "upstream-001-JP"]
    assert len(unkeyed) == 2 and not any(s["correct"] for s in unkeyed)


REAL_CSV = os.environ.get("COORDQA_UPSTREAM_CSV", "")

REAL_FLAGGED = {
    "upstream-011-EC": ["upstream:letters-irregular"],
    "upstream-013-EC": ["upstream:letters-irregular", "upstream:gold-by-answer-text"],
    "upstream-013-ToM": ["upstream:answer-text-disagrees"],
    "upstream-036-ToM": ["upstream:letters-irregular", "upstream:gold-by-answer-text"],
    "upstream-051-EC": ["upstream:gold-by-answer-text"],
    "upstream-054-JP": ["upstream:letters-irregular", "upstream:gold-unmapped", "no-answer-key"],
    "upstream-055-JP": ["upstream:letters-irregular"],
    "upstream-057-EC": ["upstream:gold-unmapped", "no-answer-key"],
    "upstream-057-JP": ["upstream:answer-text-disagrees"],
    "upstream-058-JP": ["upstream:answer-text-disagrees"],
    "upstream-059-JP": ["upstream:answer-text-disagrees"],
    **{
        f"upstream-{row:03d}-{kind}": ["upstream:collab-cooking"]
        for row in range(62, 67)
        for kind in ("EC", "ToM", "JP")
    },
}
REAL_FLAGGED["upstream-064-EC"] = ["upstream:collab-cooking", "upstream:letters-irregular"]


@pytest.mark.skipif(not REAL_CSV, reason="set COORDQA_UPSTREAM_CSV to the real release's CSV")
def test_the_real_release_imports_completely(tmp_path: Path) -> None:
    """eric-ai-lab/llm_coordination src/reasoning_evals/data/single_turn_trials.csv."""
    result = import_upstream(REAL_CSV, tmp_path / "real")
    rows = load_rows(result.folder)
    assert len({row["scenario_id"] for row in rows}) == 66
    assert len(rows) == 198
    assert sum(len(row["correct"]) > 1 for row in rows) == 23
    assert result.conversion.flagged == REAL_FLAGGED
    assert [f.question_id for f in result.conversion.warnings] == [
        "upstream-013-ToM",
        "upstream-054-JP",
        "upstream-057-EC",
        "upstream-057-JP",
        "upstream-058-JP",
        "upstream-059-JP",
    ]
    by_id = {row["question_id"]: row for row in rows}
    assert by_id["upstream-013-EC"]["correct"] == [4]  # the second D, as the Answer text says
    assert by_id["upstream-036-ToM"]["correct"] == [1]  # the first B
    assert by_id["upstream-051-EC"]["correct"] == [1]  # C is no option; "Yes." is B
    assert by_id["upstream-055-JP"]["correct"] == [0]
    assert by_id["upstream-064-EC"]["correct"] == [1]
    run = tmp_path / "run"
    result_eval = CliRunner().invoke(
        app, ["eval", "--dataset", str(result.folder), "--model", "random", "--out", str(run)]
    )
    assert result_eval.exit_code == 0, result_eval.output


def test_only_tagged_rows_may_lack_a_key_or_share_an_option_text() -> None:
    row = dict(load_rows("example")[0])
    with pytest.raises(DatasetError, match="'correct' is empty.*'no-answer-key'"):
        validate_row({**row, "correct": []})
    validate_row({**row, "correct": [], "tags": [*row["tags"], "no-answer-key"]})
    shared = {**row, "options": ["wait", "Wait", "go"], "correct": [2]}
    with pytest.raises(DatasetError, match="duplicates option 0"):
        validate_row(shared)
    validate_row({**shared, "tags": ["options-share-text"]})


def test_a_missing_csv_says_where_the_upstream_csv_comes_from(tmp_path: Path) -> None:
    """Walkthrough 23 (h23k item 2): `import-upstream single_turn_trials.csv` without the file
    said `error: no CSV file at single_turn_trials.csv`, with no next step.
    Expected: where to download it (as docs/dataset.md says) and that its URL works too."""
    with pytest.raises(DatasetError) as caught:
        import_upstream(tmp_path / "single_turn_trials.csv", tmp_path / "out")
    said = str(caught.value)
    assert said.startswith(f"no CSV file at {tmp_path / 'single_turn_trials.csv'}")
    assert "https://github.com/eric-ai-lab/llm_coordination" in said
    assert "src/reasoning_evals/data/single_turn_trials.csv" in said
    assert "URL" in said
    assert "\n" not in said
