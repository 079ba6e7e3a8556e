"""The CoordinationQA dataset: schema, validation, loading, saving and content fingerprints.

One row per question. The schema (:data:`COLUMNS`, and ``FEATURES`` for Hugging Face
``datasets``) is the contract between the scenario builders that write datasets, the importers,
the evaluator that reads them and the leaderboard that re-scores submissions; every dataset is
validated on load and on save, so a malformed row fails loudly at the boundary instead of
becoming a silently mis-scored question.

``datasets`` and ``pyarrow`` take seconds to import, so they are imported inside the functions
that need them (``FEATURES`` is built on first access): ``coordqa --help`` never pays for them.
Loading is fully in memory (:meth:`datasets.Dataset.from_list`): it neither reads nor writes the
Hugging Face cache and never touches the network.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from coordqa.errors import ConfigError, DatasetError, UnknownNameError
from coordqa.files import atomic_write_bytes
from coordqa.games.base import GAME_NAMES, GAMES as GAME_REGISTRY
from coordqa.jsonvalues import content_hash
from coordqa.records import QUESTION_TYPES
from coordqa.registry import Registry

if TYPE_CHECKING:
    import datasets

__all__ = [
    "COLUMNS",
    "DEFAULT_DATASET",
    "FEATURES",
    "GAMES",
    "NO_ANSWER_KEY_TAG",
    "QUESTION_TYPES",
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
    "dataset_name",
    "filter_dataset",
    "filter_rows",
    "stratified_sample",
    "is_bundled",
    "load_dataset",
    "load_rows",
    "question_counts",
    "question_hash",
    "release",
    "release_with_fingerprint",
    "save_dataset",
    "target_hash",
    "validate_row",
    "validate_rows",
    "with_current_header",
]

GAMES = GAME_NAMES
"""The paper's games, in the paper's order (:data:`coordqa.games.GAME_NAMES`): the games of the
bundled releases, first in tables. A question can come from any registered game
(:data:`coordqa.games.GAMES`, plugins included)."""


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

HASH_EXCLUDED = ("question_id", "source", "version")
"""Labels left out of :func:`question_hash`: renaming or re-versioning a dataset does not change
what a question asks, so stored results stay comparable."""

DATA_FILE = "data.parquet"
BY_TYPE_DIR = "by_type"
"""Sub-folder of per-question-type copies (``by_type/EC.parquet`` ...), written only so the
dataset card can offer one Hugging Face config per type; loaders read ``data.parquet``."""
CARD_FILE = "README.md"
DATA_DIR = Path(__file__).resolve().parent / "data"
"""Where the bundled datasets live inside the package."""

EXAMPLE_SOURCE = DATA_DIR / "example" / "questions.jsonl"
"""Hand-written source of the example dataset; its parquet is built by
:func:`build_example_dataset`."""
EXAMPLE_CARD_BODY = DATA_DIR / "example" / "card_body.md"

Row = Mapping[str, Any]
"""One question: a mapping from every name in :data:`COLUMNS` to its value."""
RowT = TypeVar("RowT", bound=Row)


def _name_registry(kind: str, names: Iterable[str]) -> Registry[str]:
    """A registry of plain names, for its unknown-name messages with suggestions."""
    registry: Registry[str] = Registry(kind)
    for name in names:
        registry.add(name, name)
    return registry


@dataclass(frozen=True)
class Release:
    """A dataset bundled with the package: its name, version and folder under :data:`DATA_DIR`."""

    name: str
    """What ``load_dataset`` and ``--dataset`` accept (``"coordinationqa-v1.1"``)."""
    version: str
    """The ``version`` column of its rows (empty for the example, which has no version)."""
    title: str
    """Human-readable name, as cards, reports and the leaderboard print it."""
    frozen_fingerprint: str | None = None
    """Set for a release shipped exactly as an earlier coordqa built it: its content fingerprint.
    The current builders no longer rebuild it (later releases fixed its keys), so validation checks
    its content against this pin, and re-solves only the questions its successor did not change."""

    @property
    def folder(self) -> Path:
        """Where its ``data.parquet`` and card live."""
        return DATA_DIR / self.name

    @property
    def frozen(self) -> bool:
        """Shipped as built by an earlier coordqa (see :attr:`frozen_fingerprint`)."""
        return self.frozen_fingerprint is not None


RELEASES: tuple[Release, ...] = (
    Release(
        "coordinationqa-v1",
        "1.0.0",
        "CoordinationQA v1",
        frozen_fingerprint="cb50f8c6c520d7001991528a90e1fcbfaaf645b2d5ee143e35640303cd4f1b55",
    ),
    Release(
        "coordinationqa-v1.1",
        "1.1.0",
        "CoordinationQA v1.1",
        frozen_fingerprint="835ae5d925ec69d4a1a7f623b570429ec2cdad954d2c013c482f73f806bae6b1",
    ),
    Release("coordinationqa-v1.2", "1.2.0", "CoordinationQA v1.2"),
    Release("example", "", "CoordinationQA format example"),
)
"""Every bundled dataset, oldest CoordinationQA release first."""

DEFAULT_DATASET = "coordinationqa-v1.2"
"""The release ``load_dataset()`` and ``--dataset`` give when no name is passed."""

ALIASES: Mapping[str, str] = {"coordinationqa": DEFAULT_DATASET}
"""Names that stand for a release: ``coordinationqa`` is always the newest CoordinationQA."""

_BUNDLED: Registry[Release] = Registry("bundled dataset")
for _release in RELEASES:
    _BUNDLED.add(_release.name, _release)
for _alias, _target in ALIASES.items():
    _BUNDLED.add(_alias, _BUNDLED.get(_target))
_TYPE_NAMES = _name_registry("question type", QUESTION_TYPES)

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


# --------------------------------------------------------------------------------------------
# Validation


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
    if row["game"] not in GAME_REGISTRY:
        message = GAME_REGISTRY.unknown_message(row["game"])
        raise DatasetError(f"{where}: column 'game': {message}")
    if row["question_type"] not in _TYPE_NAMES:
        message = _TYPE_NAMES.unknown_message(row["question_type"])
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


# --------------------------------------------------------------------------------------------
# Loading


def release(name: str = DEFAULT_DATASET) -> Release:
    """The bundled release called ``name`` (aliases resolved).

    Raises:
        UnknownNameError: no bundled dataset has that name (with suggestions).
    """
    return _BUNDLED.get(name)


def is_bundled(name: str) -> bool:
    """Whether ``name`` is a bundled dataset or an alias of one."""
    return name in _BUNDLED


def bundled_dataset_dir(name: str = DEFAULT_DATASET) -> Path:
    """The package folder of a bundled dataset (``coordinationqa`` is the default release)."""
    return release(name).folder


def dataset_path(name_or_path: str | os.PathLike[str] | None = None) -> Path:
    """The folder or file a dataset name or path refers to (bundled names resolved)."""
    if name_or_path is None:
        name_or_path = DEFAULT_DATASET
    if isinstance(name_or_path, str) and name_or_path in _BUNDLED:
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
        raise DatasetError(f"no dataset at {path}: the path does not exist")
    raise UnknownNameError(
        f"{_BUNDLED.unknown_message(text)} Or pass the path of a dataset folder, .parquet or "
        f".jsonl file."
    )


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except (OSError, pa.ArrowException) as exc:
        raise DatasetError(f"cannot read {path} as parquet: {exc}") from exc


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
            return _read_parquet(path / DATA_FILE)
        files = sorted(path.rglob("*.parquet"))
        if not files:
            raise DatasetError(f"no .parquet file in the folder {path}")
        return [row for file in files for row in _read_parquet(file)]
    if path.suffix == ".parquet":
        return _read_parquet(path)
    if path.suffix == ".jsonl":
        return _read_jsonl(path)
    raise DatasetError(f"cannot load {path}: expected a folder, a .parquet file or a .jsonl file")


def load_rows(name_or_path: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
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
    return rows


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


# --------------------------------------------------------------------------------------------
# Fingerprints


def _plain(row: Row) -> dict[str, Any]:
    """A row as JSON-ready values (lists, Python ints), whatever container it came in."""
    plain: dict[str, Any] = {name: row[name] for name in STRING_COLUMNS}
    plain["options"] = [str(option) for option in row["options"]]
    plain["correct"] = [int(index) for index in row["correct"]]
    plain["tags"] = [str(tag) for tag in row["tags"]]
    return plain


def dataset_fingerprint(dataset: Iterable[Row]) -> str:
    """SHA-256 of every row's content, independent of file format and row order.

    Rows are sorted by question id and hashed as canonical JSON, so a parquet file, its JSONL
    source and a reordered copy share a fingerprint, while any change to any field changes it.
    """
    rows = sorted((_plain(row) for row in dataset), key=lambda row: row["question_id"])
    return content_hash(rows)


@dataclass(frozen=True)
class DatasetIdentity:
    """Which dataset a run, report or leaderboard entry used: name, version and content."""

    name: str
    """The release name (aliases resolved, ``coordinationqa-v1.1``) or the path as given."""
    version: str | None
    """The rows' ``version`` column (several joined by commas); None when it is empty."""
    fingerprint: str
    """:func:`dataset_fingerprint` of every row."""
    num_questions: int
    """Rows in the dataset."""

    @property
    def label(self) -> str:
        """``"coordinationqa-v1.1 (version 1.1.0, fingerprint 0123abcd)"``, for one-line output."""
        version = f"version {self.version}, " if self.version else ""
        return f"{self.name} ({version}fingerprint {self.fingerprint[:8]})"


def dataset_identity(
    name_or_path: str | os.PathLike[str] | None = None, rows: Iterable[Row] | None = None
) -> DatasetIdentity:
    """Name, version and fingerprint of a dataset: the one place runs and reports take them from.

    ``rows`` (already loaded) are used instead of reading ``name_or_path`` again; the name is
    still taken from ``name_or_path`` (a bundled name is resolved to its release).
    """
    loaded = [dict(row) for row in rows] if rows is not None else load_rows(name_or_path)
    versions = sorted({str(row["version"]) for row in loaded if row["version"]})
    return DatasetIdentity(
        dataset_name(name_or_path),
        ",".join(versions) or None,
        dataset_fingerprint(loaded),
        len(loaded),
    )


def dataset_name(name_or_path: str | os.PathLike[str] | None = None) -> str:
    """The name runs record: a bundled name resolved to its release, else the path as given."""
    if name_or_path is None:
        return DEFAULT_DATASET
    if isinstance(name_or_path, str) and name_or_path in _BUNDLED:
        return release(name_or_path).name
    return os.fspath(name_or_path)


def release_with_fingerprint(fingerprint: str) -> Release | None:
    """The bundled CoordinationQA release whose content has this fingerprint, if any."""
    for candidate in RELEASES:
        if candidate.frozen_fingerprint == fingerprint:
            return candidate
        if not candidate.frozen and _bundled_fingerprint(candidate.name) == fingerprint:
            return candidate
    return None


@cache
def _bundled_fingerprint(name: str) -> str | None:
    folder = bundled_dataset_dir(name)
    return dataset_fingerprint(load_rows(folder)) if (folder / DATA_FILE).is_file() else None


def question_hash(row: Row) -> str:
    """Hash of everything a question says (all columns but :data:`HASH_EXCLUDED`)."""
    plain = _plain(row)
    return content_hash({name: plain[name] for name in COLUMNS if name not in HASH_EXCLUDED})


def target_hash(row: Row) -> str:
    """Hash of the answer key: the options and the correct indices."""
    plain = _plain(row)
    return content_hash({"options": plain["options"], "correct": sorted(plain["correct"])})


# --------------------------------------------------------------------------------------------
# Filtering


def _canonical_names(
    names: Iterable[str] | None, registry: Registry[Any], allowed: Sequence[str]
) -> set[str] | None:
    if names is None:
        return None
    if isinstance(names, str):
        names = [names]
    by_folded = {name.casefold(): name for name in allowed}
    chosen = set()
    for name in names:
        canonical = by_folded.get(name.casefold())
        if canonical is None:
            raise UnknownNameError(registry.unknown_message(name))
        chosen.add(canonical)
    return chosen


def filter_dataset(
    ds: datasets.Dataset,
    games: Iterable[str] | None = None,
    types: Iterable[str] | None = None,
    limit: int | None = None,
    *,
    ids: Iterable[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
) -> datasets.Dataset:
    """The questions of ``ds`` that pass every filter, in dataset order.

    Filters apply in this order: ``games`` and ``types`` (names matched case-insensitively:
    ``"tom"`` is ``ToM``); ``ids`` (only these questions); ``sample`` (that many questions drawn
    with ``seed``, stratified over game x type: see :func:`stratified_sample`); then ``limit``
    (the first ``limit`` of what is left, not a random subset). ``None`` keeps everything. The
    result may be empty: whether that is an error is the caller's decision.

    Raises:
        UnknownNameError: a game or type that does not exist (with suggestions).
        ConfigError: ``limit`` or ``sample`` below 1, ``sample`` larger than the questions
            left, or ``ids`` naming questions the dataset does not hold.
    """
    columns = (list(ds["question_id"]), list(ds["game"]), list(ds["question_type"]))
    return ds.select(_kept(columns, games, types, limit, ids=ids, sample=sample, seed=seed))


def filter_rows(
    rows: Sequence[RowT],
    games: Iterable[str] | None = None,
    types: Iterable[str] | None = None,
    limit: int | None = None,
    *,
    ids: Iterable[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
) -> list[RowT]:
    """:func:`filter_dataset` for plain rows (from :func:`load_rows`)."""
    columns = (
        [str(row["question_id"]) for row in rows],
        [str(row["game"]) for row in rows],
        [str(row["question_type"]) for row in rows],
    )
    kept = _kept(columns, games, types, limit, ids=ids, sample=sample, seed=seed)
    return [rows[index] for index in kept]


def _kept(
    columns: tuple[Sequence[str], Sequence[str], Sequence[str]],
    games: Iterable[str] | None,
    types: Iterable[str] | None,
    limit: int | None,
    *,
    ids: Iterable[str] | None,
    sample: int | None,
    seed: int,
) -> list[int]:
    """Indices of the rows that the filters of :func:`filter_dataset` keep.

    ``columns`` are the question ids, games and question types of the rows.
    """
    question_ids, games_column, types_column = columns
    wanted_games = _canonical_names(games, GAME_REGISTRY, GAME_REGISTRY.names())
    wanted_types = _canonical_names(types, _TYPE_NAMES, QUESTION_TYPES)
    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be at least 1, got {limit}; leave it out to keep all")
    cells = list(zip(games_column, types_column, strict=True))
    indices = [
        index
        for index, (game, kind) in enumerate(cells)
        if (wanted_games is None or game in wanted_games)
        and (wanted_types is None or kind in wanted_types)
    ]
    if ids is not None:
        indices = _only_ids(list(question_ids), indices, list(ids))
    if sample is not None:
        indices = stratified_sample([cells[i] for i in indices], indices, sample, seed)
    return indices[:limit]


def _only_ids(question_ids: list[str], indices: list[int], ids: list[str]) -> list[int]:
    unknown = sorted(set(ids) - set(question_ids))
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        shown = ", ".join(unknown[:5]) + more
        raise ConfigError(
            f"question ids not in the dataset: {shown}; ids look like {question_ids[0]!r}"
        )
    wanted = set(ids)
    return [index for index in indices if question_ids[index] in wanted]


def stratified_sample(
    cells: Sequence[tuple[str, str]], indices: Sequence[int], size: int, seed: int
) -> list[int]:
    """``size`` of ``indices`` drawn with ``seed``, each (game, type) cell getting its share.

    A cell's share is ``size`` x its fraction of the questions, rounded down, and the questions
    left over go to the cells with the largest remainders (the first cell wins ties). Returns
    the chosen indices in their original order.

    >>> chosen = stratified_sample([("a", "EC")] * 6 + [("b", "EC")] * 2, range(8), 4, seed=0)
    >>> sum(i < 6 for i in chosen), sum(i >= 6 for i in chosen)  # 3 of cell a, 1 of cell b
    (3, 1)
    """
    if size < 1:
        raise ConfigError(f"sample must be at least 1, got {size}")
    if size > len(indices):
        raise ConfigError(
            f"sample {size} is more than the {len(indices)} questions left after the other "
            "filters; ask for fewer"
        )
    strata: dict[tuple[str, str], list[int]] = {}
    for cell, index in zip(cells, indices, strict=True):
        strata.setdefault(cell, []).append(index)
    exact = {cell: size * len(members) / len(indices) for cell, members in strata.items()}
    quota = {cell: int(share) for cell, share in exact.items()}
    by_remainder = sorted(strata, key=lambda cell: -(exact[cell] - quota[cell]))
    for cell in by_remainder[: size - sum(quota.values())]:
        quota[cell] += 1
    rng = random.Random(seed)
    chosen = [i for cell, members in strata.items() for i in rng.sample(members, quota[cell])]
    return sorted(chosen)


# --------------------------------------------------------------------------------------------
# Saving and dataset cards


def question_counts(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """Questions per game, then per type, in schema order.

    The paper's games come first, then the others by name; games without questions are left out.
    """
    counts = Counter((row["game"], row["question_type"]) for row in rows)
    others = sorted({game for game, _ in counts} - set(GAMES))
    per_game: dict[str, dict[str, int]] = {
        game: {kind: counts[(game, kind)] for kind in QUESTION_TYPES} for game in (*GAMES, *others)
    }
    return {game: by_type for game, by_type in per_game.items() if sum(by_type.values())}


def _counts_table(rows: Sequence[Row]) -> str:
    lines = [
        "| game | " + " | ".join(QUESTION_TYPES) + " | total |",
        "|---" * (len(QUESTION_TYPES) + 2) + "|",
    ]
    for game, by_type in question_counts(rows).items():
        cells = " | ".join(str(count) for count in by_type.values())
        lines.append(f"| {game} | {cells} | {sum(by_type.values())} |")
    return "\n".join(lines)


SPLIT = "test"
"""The one split of every dataset folder, as the card's configs name it: CoordinationQA is for
evaluation only, and evaluation-only benchmarks on the Hugging Face Hub call their split ``test``.
Earlier cards named it ``train`` (:data:`SPLIT_NOTE` says what that changes for loaders)."""

SPLIT_NOTE = (
    "Format note: the split is named `test` (evaluation only); earlier cards named it "
    '`train`. `datasets.load_dataset(folder, split="train")` now fails, '
    'so load `split="test"`, or the file itself, as before: '
    '`datasets.load_dataset("parquet", data_files="data.parquet", split="train")`.'
)
"""The changelog line every card carries about the split's name; loading the file keeps working."""


def _config_files(by_type: bool) -> dict[str, str]:
    """Each Hugging Face config of a dataset folder, with its parquet file."""
    files = {"default": DATA_FILE}
    if by_type:
        files.update({kind: f"{BY_TYPE_DIR}/{kind}.parquet" for kind in QUESTION_TYPES})
    return files


def _split_info(rows: Sequence[Row]) -> dict[str, Any]:
    """The card's ``splits`` entry of ``rows``: name, examples, and bytes.

    Bytes as ``datasets`` counts them: the Arrow size of the table read back from the parquet
    file written for ``rows``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(_parquet_bytes(rows)))
    return {"name": SPLIT, "num_bytes": int(table.nbytes), "num_examples": len(rows)}


def card_header(
    rows: Sequence[Row], *, pretty_name: str, license: str = "mit", by_type: bool = False
) -> dict[str, Any]:
    """The YAML header of a dataset card, computed from ``rows``.

    One config per parquet file (``default``, and with ``by_type`` one per question type), each
    with the one split :data:`SPLIT`; ``dataset_info`` lists every config with its features and
    split sizes, which is what ``datasets.load_dataset(folder, config)`` reads (without it, or
    with a split lacking ``num_bytes``, it warns that the card is malformed).
    """
    files = _config_files(by_type)
    of_config = {
        name: [row for row in rows if name == "default" or row["question_type"] == name]
        for name in files
    }
    return {
        "license": license,
        "pretty_name": pretty_name,
        "language": ["en"],
        "task_categories": ["multiple-choice", "question-answering"],
        "tags": ["coordination", "theory-of-mind", "multi-agent", "llm-evaluation"],
        "size_categories": ["n<1K" if len(rows) < 1000 else "1K<n<10K"],
        "configs": [
            {"config_name": name, "data_files": [{"split": SPLIT, "path": path}]}
            for name, path in files.items()
        ],
        "dataset_info": [
            {
                "config_name": name,
                # Private helper, but the only way to write features exactly as the installed
                # datasets version reads them back.
                "features": features()._to_yaml_list(),
                "splits": [_split_info(of_config[name])],
            }
            for name in files
        ],
    }


def _front_matter(header: Mapping[str, Any]) -> str:
    import yaml

    return f"---\n{yaml.safe_dump(dict(header), sort_keys=False, allow_unicode=True)}---\n"


def with_current_header(card: str, rows: Sequence[Row]) -> str:
    """``card`` with its YAML header recomputed from ``rows`` and its text left as it is.

    For cards whose text is frozen (a release shipped as an earlier coordqa built it): the
    header follows the current format (:func:`card_header`), keeping the card's own
    ``pretty_name`` and ``license`` and its per-type configs if it had them.

    Raises:
        DatasetError: ``card`` has no YAML header.
    """
    import yaml

    match = re.match(r"---\n(.*?\n)---\n", card, flags=re.DOTALL)
    if match is None:
        raise DatasetError("the card has no YAML header (a first line '---' and a closing one)")
    old = yaml.safe_load(match.group(1))
    by_type = any(c.get("config_name") != "default" for c in old.get("configs", ()))
    header = card_header(
        rows, pretty_name=old["pretty_name"], license=old.get("license", "mit"), by_type=by_type
    )
    return _front_matter(header) + card[match.end() :]


def dataset_card(
    rows: Sequence[Row],
    *,
    pretty_name: str,
    body: str,
    license: str = "mit",
    by_type: bool = False,
    appendix: str = "",
) -> str:
    """A dataset card: Hugging Face YAML header, ``body``, a contents section, ``appendix``.

    The header (:func:`card_header`) and the contents (counts per game and type, fingerprint,
    the split's name) are computed from ``rows``, so a card can never disagree with the data it
    describes.
    """
    header = card_header(rows, pretty_name=pretty_name, license=license, by_type=by_type)
    scenarios = len({row["scenario_id"] for row in rows})
    contents = (
        f"## Contents\n\n{len(rows)} questions from {scenarios} scenarios.\n\n"
        f"{_counts_table(rows)}\n\n"
        f"Content fingerprint (`coordqa.dataset.dataset_fingerprint`): "
        f"`{dataset_fingerprint(rows)}`\n\n{SPLIT_NOTE}\n"
    )
    tail = f"\n{appendix.strip()}\n" if appendix.strip() else ""
    return f"{_front_matter(header)}\n{body.strip()}\n\n{contents}{tail}"


def _rows_of(dataset_or_rows: datasets.Dataset | Iterable[Row]) -> list[dict[str, Any]]:
    return [dict(row) for row in dataset_or_rows]


def _parquet_bytes(rows: Sequence[Row]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([_plain(row) for row in rows], schema=features().arrow_schema)
    sink = pa.BufferOutputStream()
    # Parquet written by one pyarrow version holds no timestamps or random ids, so identical
    # rows give identical bytes; the explicit settings keep that true if defaults change.
    pq.write_table(table, sink, compression="zstd", use_dictionary=True, write_statistics=True)
    return bytes(sink.getvalue().to_pybytes())


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
    """
    rows = _rows_of(dataset_or_rows)
    if not rows:
        raise DatasetError("cannot save a dataset with no questions")
    validate_rows(rows)
    folder = Path(out_dir)
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
    atomic_write_bytes(folder / DATA_FILE, _parquet_bytes(rows))
    if by_type:
        (folder / BY_TYPE_DIR).mkdir(exist_ok=True)
        for kind in QUESTION_TYPES:
            of_kind = [row for row in rows if row["question_type"] == kind]
            atomic_write_bytes(folder / BY_TYPE_DIR / f"{kind}.parquet", _parquet_bytes(of_kind))
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
