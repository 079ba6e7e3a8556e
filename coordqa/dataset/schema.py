"""The CoordinationQA schema: the columns of a question, their types, and row validation.

One row per question. The schema (:data:`COLUMNS`, and ``FEATURES`` for Hugging Face
``datasets``) is the contract between the scenario builders that write datasets, the importers,
the evaluator that reads them and the leaderboard that re-scores submissions; every dataset is
validated on load and on save, so a malformed row fails loudly at the boundary instead of
becoming a silently mis-scored question.

``datasets`` takes seconds to import, so ``FEATURES`` is built on first access
(:func:`features`): ``coordqa --help`` never pays for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from coordqa.errors import DatasetError
from coordqa.games.base import GAMES
from coordqa.records import QUESTION_TYPES
from coordqa.registry import Registry

if TYPE_CHECKING:
    import datasets


COLUMNS = (
    "question_id",
    "scenario_id",
    "game",
    "layout",
    "question_type",
    "game_description",
    "state_description",
    "question",
    "options",
    "correct",
    "rationale",
    "concept",
    "tags",
    "source",
    "version",
    "snapshot",
)
"""Every column, in file order."""

LIST_COLUMNS: Mapping[str, type] = {"options": str, "correct": int, "tags": str}
"""Columns holding a list, with the type of their items."""

NO_ANSWER_KEY_TAG = "no-answer-key"
"""Tag of a question kept without an answer key (an imported question whose gold could not be
mapped, :mod:`coordqa.scenarios.upstream`): only with this tag may ``correct`` be empty. Its
replies are read and stored like any other, and never count as correct."""

SHARED_OPTION_TEXT_TAG = "options-share-text"
"""Tag of a question whose options include two with the same text, kept as released by an
importer: only with this tag may two options be equal (a reply naming that text is ambiguous
unless a letter decides)."""

STRING_COLUMNS = tuple(name for name in COLUMNS if name not in LIST_COLUMNS)
"""Columns holding one string each."""

Row = Mapping[str, Any]
"""One question: a mapping from every name in :data:`COLUMNS` to its value (any container a
reader gives, before :func:`validate_row` checked it; :class:`QuestionRow` after)."""


class QuestionRow(TypedDict):
    """One validated question as plain values: exactly :data:`COLUMNS`.

    :func:`validate_row` refuses a missing or extra column and checks each column's type.
    """

    question_id: str
    scenario_id: str
    game: str
    layout: str
    question_type: str
    game_description: str
    state_description: str
    question: str
    options: list[str]
    correct: list[int]
    """Indices into ``options`` of the correct answers."""
    rationale: str
    concept: str
    tags: list[str]
    source: str
    version: str
    snapshot: str
    """The scenario as JSON (empty for a hand-written question): what validation restores."""


RowT = TypeVar("RowT", bound=Row)


def _name_registry(kind: str, names: Iterable[str]) -> Registry[str]:
    """A registry of plain names, for its unknown-name messages with suggestions."""
    registry: Registry[str] = Registry(kind)
    for name in names:
        registry.add(name, name)
    return registry


TYPE_NAMES = _name_registry("question type", QUESTION_TYPES)

if TYPE_CHECKING:
    FEATURES: datasets.Features


@cache
def features() -> datasets.Features:
    """The Hugging Face ``Features`` of a CoordinationQA dataset (also as ``FEATURES``)."""
    import datasets

    string = datasets.Value("string")
    columns: dict[str, Any] = {name: string for name in STRING_COLUMNS}
    columns["options"] = datasets.Sequence(string)
    columns["correct"] = datasets.Sequence(datasets.Value("int32"))
    columns["tags"] = datasets.Sequence(string)
    return datasets.Features({name: columns[name] for name in COLUMNS})


def __getattr__(name: str) -> Any:
    """Build ``FEATURES`` on first access, so importing this module does not import datasets."""
    if name == "FEATURES":
        return features()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _where(row: Row, number: int | None) -> str:
    qid = row.get("question_id")
    parts = [f"row {number}"] if number is not None else []
    if isinstance(qid, str) and qid:
        parts.append(f"question_id {qid!r}")
    return " ".join(parts) if parts else "row"


def _normalized(text: str) -> str:
    return " ".join(text.split()).casefold()


def _check_columns(row: Row, where: str) -> None:
    missing = [name for name in COLUMNS if name not in row]
    if missing:
        raise DatasetError(
            f"{where}: missing column(s) {', '.join(map(repr, missing))}; "
            f"a CoordinationQA row has the columns {', '.join(COLUMNS)}"
        )
    unexpected = sorted(set(row) - set(COLUMNS))
    if unexpected:
        raise DatasetError(
            f"{where}: unexpected column(s) {', '.join(map(repr, unexpected))}; "
            f"allowed: {', '.join(COLUMNS)}"
        )
    for name in STRING_COLUMNS:
        if not isinstance(row[name], str):
            raise DatasetError(
                f"{where}: column {name!r} must be a string, got {type(row[name]).__name__} "
                f"{row[name]!r}"
            )
    for name, item_type in LIST_COLUMNS.items():
        value = row[name]
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise DatasetError(
                f"{where}: column {name!r} must be a list, got {type(value).__name__} {value!r}"
            )
        for item in value:
            if not isinstance(item, item_type) or isinstance(item, bool):
                raise DatasetError(
                    f"{where}: column {name!r} must hold {item_type.__name__} values, got "
                    f"{item!r} in {list(value)!r}"
                )


def _check_options(row: Row, where: str) -> None:
    options = row["options"]
    if len(options) < 2:
        raise DatasetError(
            f"{where}: column 'options' has {len(options)} option(s); a question needs at least 2"
        )
    first_seen: dict[str, int] = {}
    for index, option in enumerate(options):
        key = _normalized(option)
        if not key:
            raise DatasetError(
                f"{where}: column 'options': option {index} is empty; remove it or give it text"
            )
        if key in first_seen and SHARED_OPTION_TEXT_TAG not in row["tags"]:
            raise DatasetError(
                f"{where}: column 'options': option {index} {option!r} duplicates option "
                f"{first_seen[key]}; every option of a question must differ"
            )
        first_seen[key] = index


def _check_correct(row: Row, where: str) -> None:
    correct = row["correct"]
    count = len(row["options"])
    if not correct and NO_ANSWER_KEY_TAG not in row["tags"]:
        raise DatasetError(
            f"{where}: column 'correct' is empty; give the 0-based index of at least one option "
            f"(or tag the question {NO_ANSWER_KEY_TAG!r} when its answer key is unknown)"
        )
    for index in correct:
        if not 0 <= index < count:
            raise DatasetError(
                f"{where}: column 'correct': index {index} is out of range for {count} options "
                f"(allowed 0..{count - 1})"
            )
    if len(set(correct)) != len(correct):
        raise DatasetError(f"{where}: column 'correct' repeats an index: {list(correct)}")


def validate_row(row: Row, number: int | None = None) -> None:
    """Check one row against the schema; ``number`` (1-based) is used in the error message.

    Raises:
        DatasetError: naming the row and the column that is wrong.
    """
    if not isinstance(row, Mapping):
        raise DatasetError(f"row {number}: expected a mapping of columns, got {type(row)!r}")
    where = _where(row, number)
    _check_columns(row, where)
    if not row["question_id"].strip():
        raise DatasetError(f"{where}: column 'question_id' is empty")
    if row["game"] not in GAMES:
        message = GAMES.unknown_message(row["game"])
        raise DatasetError(f"{where}: column 'game': {message}")
    if row["question_type"] not in TYPE_NAMES:
        message = TYPE_NAMES.unknown_message(row["question_type"])
        raise DatasetError(f"{where}: column 'question_type': {message}")
    if not row["question"].strip():
        raise DatasetError(f"{where}: column 'question' is empty")
    _check_options(row, where)
    _check_correct(row, where)
    if row["snapshot"]:
        try:
            json.loads(row["snapshot"])
        except ValueError as exc:
            raise DatasetError(f"{where}: column 'snapshot' is not valid JSON: {exc}") from exc


def validate_rows(rows: Iterable[Row]) -> None:
    """Check every row (:func:`validate_row`) and that question ids are unique.

    Raises:
        DatasetError: naming the first bad row (number and question_id) and column.
    """
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, start=1):
        validate_row(row, number)
        qid = row["question_id"]
        if qid in seen:
            raise DatasetError(
                f"row {number}: column 'question_id': {qid!r} is already used by row "
                f"{seen[qid]}; question ids must be unique"
            )
        seen[qid] = number


def plain_row(row: Row) -> dict[str, Any]:
    """A row as JSON-ready values (lists, Python ints), whatever container it came in."""
    plain: dict[str, Any] = {name: row[name] for name in STRING_COLUMNS}
    plain["options"] = [str(option) for option in row["options"]]
    plain["correct"] = [int(index) for index in row["correct"]]
    plain["tags"] = [str(tag) for tag in row["tags"]]
    return plain
