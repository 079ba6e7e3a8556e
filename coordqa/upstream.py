"""Import the CSV released with the original LLM-Coordination paper into the CoordinationQA schema.

The upstream file has one row per scenario and three questions per row (``EC``, ``TOM``, ``JP``).
Each ``<T> Question`` cell holds the whole prompt text: the state, the question sentence, a marker
line (``Available Answers:`` or ``Available Actions:``) and one option per line (``A. text``).
``<T> Answer Ordinal`` holds the gold letters, several separated by commas (``"D, F"``). This
module splits every question into ``state_description``, ``question`` and ``options``, turns the
gold letters into 0-based indices and writes a dataset that :func:`coordqa.dataset.load_dataset`
reads like any other.

Quirks handled: the duplicated ``Game Description`` column (pandas names the second one
``Game Description.1``; the first non-empty one is used), trailing whitespace and blank lines
among options, spaces after the commas of gold letters, and ``Game = CollabGames``, which covers
two games: a row is Collab Capture when its text mentions a thief and Collab Escape when it
mentions a killer or generators (the game description decides; the rest of the row only when the
description names neither).

What is *not* imported: the upstream ``<T> Directive`` columns. coordqa asks every question with
its own directives (:mod:`coordqa.prompts`), so imported questions and native ones are asked
identically and results are comparable; the upstream directives differ only in wording and in
the answer line they request. The ``<T> Answer`` text columns are not imported either: the gold
letters are the answer key.

Nothing is dropped silently: a row whose question cannot be parsed, or whose gold letter is not
among its options, stops the import with an error naming the CSV row (counted from 1, the first
row after the header) and the column.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coordqa.dataset import dataset_card, save_dataset, validate_row
from coordqa.errors import DatasetError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "SOURCE",
    "SplitQuestion",
    "import_upstream",
    "parse_gold",
    "read_source",
    "split_question",
    "upstream_rows",
]

SOURCE = "llm-coordination-upstream"
"""The ``source`` label of imported rows."""

QUESTION_KINDS = {"EC": "EC", "TOM": "ToM", "JP": "JP"}
"""Upstream column prefix -> our question type."""

DESCRIPTION_COLUMNS = ("Game Description", "Game Description.1")
REQUIRED_COLUMNS = (
    "Game",
    "Game Description",
    *(f"{prefix} Question" for prefix in QUESTION_KINDS),
    *(f"{prefix} Answer Ordinal" for prefix in QUESTION_KINDS),
)

LAYOUTS = {
    "cramped room": "cramped_room",
    "asymmetric advantages": "asymmetric_advantages",
    "coordination ring": "coordination_ring",
    "forced coordination": "forced_coordination",
    "counter circuit": "counter_circuit_o_1order",
}
"""Upstream map names -> overcooked-ai layout names (others are lower-cased, spaces to ``_``)."""

COLLAB_WORDS = {
    "collab_capture": re.compile(r"\bthie(f|ves)\b", re.IGNORECASE),
    "collab_escape": re.compile(r"\b(killer|generators?)\b", re.IGNORECASE),
}
"""Words that tell the two CollabGames apart."""

DOWNLOAD_TIMEOUT_S = 30.0

_MARKER = re.compile(r"^\s*Available\s+(Answers|Actions)\s*:?\s*$", re.IGNORECASE)
_OPTION = re.compile(r"^\s*([A-Z])\s*[.)]\s*(.*?)\s*$")
_GOLD = re.compile(r"^\(?([A-Za-z])[.)]?$")


@dataclass(frozen=True)
class SplitQuestion:
    """One upstream question cell, split into the schema's parts."""

    state: str
    """The state description before the question sentence."""
    question: str
    """The question sentence."""
    options: tuple[str, ...]
    """Option texts in letter order (A first), without their letters."""


def _tidy(text: str) -> str:
    """Text without surrounding blank lines or trailing spaces on its lines."""
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _split_head(head: str, state_hint: str) -> tuple[str, str]:
    """Separate the state from the question sentence that ends the text before the options."""
    hint = _tidy(state_hint)
    if hint and head.startswith(hint):
        state, question = hint, head[len(hint) :].strip()
    else:
        state, _, question = head.rpartition("\n")
        state, question = state.strip(), question.strip()
    if not question:
        raise DatasetError("there is no question sentence before the options")
    return state, question


def _options(lines: list[str]) -> tuple[str, ...]:
    options: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        match = _OPTION.match(line)
        if match is None:
            raise DatasetError(f"the option line {line.strip()!r} is not of the form 'A. text'")
        letter, text = match.groups()
        expected = chr(ord("A") + len(options))
        if letter != expected:
            raise DatasetError(
                f"option letters must run A, B, C... in order; found {letter!r} where "
                f"{expected!r} was expected"
            )
        if not text:
            raise DatasetError(f"option {letter} has no text")
        options.append(text)
    if len(options) < 2:
        raise DatasetError(
            f"found {len(options)} option(s) after the marker line; expected 2 or more"
        )
    return tuple(options)


def split_question(text: str, state_hint: str = "") -> SplitQuestion:
    """Split an upstream question cell into state, question sentence and options.

    The last ``Available Answers:`` / ``Available Actions:`` line separates the text from the
    options. When ``state_hint`` (the row's ``State Description``) starts the text, it is the
    state and the rest is the question; otherwise the last line before the options is the
    question and everything above it is the state.

    Raises:
        DatasetError: no marker line, an option line not of the form ``A. text``, letters out of
            order, or fewer than two options.
    """
    lines = text.splitlines()
    markers = [index for index, line in enumerate(lines) if _MARKER.match(line)]
    if not markers:
        raise DatasetError(
            "no 'Available Answers:' or 'Available Actions:' line separates the question from "
            "its options"
        )
    head = _tidy("\n".join(lines[: markers[-1]]))
    options = _options(lines[markers[-1] + 1 :])
    state, question = _split_head(head, state_hint)
    return SplitQuestion(state, question, options)


def parse_gold(text: str, option_count: int) -> list[int]:
    """Gold letters (``"D"``, ``"D, F"``, ``"(b)"``) -> sorted 0-based option indices.

    Raises:
        DatasetError: an empty cell, something that is not a letter, or a letter beyond the last
            option.
    """
    indices: set[int] = set()
    for part in text.split(","):
        match = _GOLD.match(part.strip())
        if match is None:
            raise DatasetError(f"{part.strip()!r} in {text!r} is not an option letter")
        index = ord(match.group(1).upper()) - ord("A")
        if index >= option_count:
            last = chr(ord("A") + option_count - 1)
            raise DatasetError(f"gold letter {match.group(1)!r} is outside the options A-{last}")
        indices.add(index)
    return sorted(indices)


def _collab_game(description: str, rest: str) -> str:
    for text in (description, rest):
        found = sorted(game for game, words in COLLAB_WORDS.items() if words.search(text))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise DatasetError(
                "a CollabGames row must mention either a thief (Collab Capture) or a killer or "
                "generators (Collab Escape); this one mentions both"
            )
    raise DatasetError(
        "cannot tell whether this CollabGames row is Collab Capture or Collab Escape: it mentions "
        "neither a thief nor a killer or generators"
    )


def _layout(raw: str) -> str:
    key = re.sub(r"[\s_-]+", " ", raw.strip().casefold())
    return LAYOUTS.get(key, key.replace(" ", "_"))


def _game_and_layout(cells: Mapping[str, str], description: str) -> tuple[str, str]:
    """Our game name and layout for a row (errors concern the ``Game`` column)."""
    raw = cells["Game"].strip()
    key = re.sub(r"[\s_-]+", "", raw.casefold())
    if key == "overcooked":
        return "overcooked", _layout(cells.get("Map", ""))
    if key == "hanabi":
        return "hanabi", ""
    if key == "collabgames":
        rest = "\n".join(cells.get(f"{prefix} Question", "") for prefix in QUESTION_KINDS)
        return _collab_game(description, cells.get("State Description", "") + "\n" + rest), ""
    raise DatasetError(f"unknown game {raw!r}; expected Overcooked, Hanabi or CollabGames")


def _tags(raw: str) -> list[str]:
    return [tag.strip() for tag in re.split(r"[,;]", raw) if tag.strip()]


def _row_questions(cells: Mapping[str, str], number: int, version: str) -> list[dict[str, Any]]:
    """The three schema rows of one CSV row; errors name the CSV row and column."""

    def fail(column: str, exc: Exception) -> DatasetError:
        return DatasetError(f"CSV row {number}, column {column!r}: {exc}")

    description = next((cells[c] for c in DESCRIPTION_COLUMNS if cells.get(c, "").strip()), "")
    if not description.strip():
        raise DatasetError(f"CSV row {number}, column 'Game Description': it is empty")
    try:
        game, layout = _game_and_layout(cells, description)
    except DatasetError as exc:
        raise fail("Game", exc) from exc
    scenario_id = f"upstream-{number:03d}"
    rows = []
    for prefix, kind in QUESTION_KINDS.items():
        column = f"{prefix} Question"
        try:
            split = split_question(cells[column], cells.get("State Description", ""))
        except DatasetError as exc:
            raise fail(column, exc) from exc
        gold_column = f"{prefix} Answer Ordinal"
        try:
            correct = parse_gold(cells[gold_column], len(split.options))
        except DatasetError as exc:
            raise fail(gold_column, exc) from exc
        row = {
            "question_id": f"{scenario_id}-{kind}",
            "scenario_id": scenario_id,
            "game": game,
            "layout": layout,
            "question_type": kind,
            "game_description": description.strip(),
            "state_description": split.state,
            "question": split.question,
            "options": list(split.options),
            "correct": correct,
            "rationale": "",
            "concept": cells.get("Concept", "").strip(),
            "tags": _tags(cells.get("Tags", "")),
            "source": SOURCE,
            "version": version,
            "snapshot": "",
        }
        try:
            validate_row(row)
        except DatasetError as exc:
            raise fail(column, exc) from exc
        rows.append(row)
    return rows


def upstream_rows(csv_text: str, *, version: str = "upstream") -> list[dict[str, Any]]:
    """Convert the upstream CSV text into schema rows (three per CSV row, EC then ToM then JP).

    Raises:
        DatasetError: the CSV cannot be parsed, a required column is missing, or a cell is
            malformed (naming the CSV row and column).
    """
    import pandas as pd

    try:
        frame = pd.read_csv(io.StringIO(csv_text), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        raise DatasetError(f"cannot parse the upstream CSV: {exc}") from exc
    frame.columns = [str(name).strip() for name in frame.columns]
    missing = [name for name in REQUIRED_COLUMNS if name not in frame.columns]
    if missing:
        raise DatasetError(
            f"the upstream CSV lacks the column(s) {', '.join(map(repr, missing))}; found "
            f"{', '.join(map(repr, frame.columns))}"
        )
    if frame.empty:
        raise DatasetError("the upstream CSV has a header but no rows")
    rows: list[dict[str, Any]] = []
    for number, record in enumerate(frame.to_dict("records"), start=1):
        rows.extend(_row_questions({str(k): str(v) for k, v in record.items()}, number, version))
    return rows


def read_source(
    path_or_url: str | os.PathLike[str], *, client: httpx.Client | None = None
) -> bytes:
    """The bytes of a local CSV file, or of an ``http(s)://`` URL fetched with httpx.

    ``client`` lets tests (or callers with proxies) supply their own ``httpx.Client``.

    Raises:
        DatasetError: the file does not exist, or the download failed (offline, HTTP error).
    """
    text = os.fspath(path_or_url)
    if not text.startswith(("http://", "https://")):
        path = Path(text).expanduser()
        if not path.is_file():
            raise DatasetError(f"no CSV file at {path}")
        return path.read_bytes()
    import httpx

    http = client or httpx.Client(timeout=DOWNLOAD_TIMEOUT_S, follow_redirects=True)
    try:
        response = http.get(text)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        reason = (
            f"HTTP status {exc.response.status_code}"
            if isinstance(exc, httpx.HTTPStatusError)
            else f"{type(exc).__name__}: {exc}"
        )
        raise DatasetError(
            f"cannot download {text}: {reason}. If this machine is offline, download the CSV "
            f"elsewhere and pass its local path."
        ) from exc
    finally:
        if client is None:
            http.close()
    return response.content


CARD_BODY = """\
# LLM-Coordination CoordinationQA (imported)

The questions of the original LLM-Coordination release (Agashe et al., arXiv 2310.03903),
converted to the coordqa schema by `coordqa dataset import-upstream` from:

    {source}

Each upstream row (one scenario) gives three questions: EC, ToM and JP. The upstream directives
are not kept: coordqa asks every question with its own directives. `snapshot` is empty because
the upstream file holds only text. The license of the original release applies to this data.
"""


def import_upstream(
    path_or_url: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    client: httpx.Client | None = None,
) -> Path:
    """Read the upstream CSV (path or URL), convert it and save it as a dataset folder.

    The rows' ``version`` is ``upstream-<first 12 hex digits of the file's SHA-256>``, so two
    imports of different files are never mistaken for one another.

    Returns:
        The dataset folder, loadable with :func:`coordqa.dataset.load_dataset`.
    """
    data = read_source(path_or_url, client=client)
    try:
        csv_text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{os.fspath(path_or_url)} is not UTF-8 text: {exc}") from exc
    version = f"upstream-{hashlib.sha256(data).hexdigest()[:12]}"
    rows = upstream_rows(csv_text, version=version)
    card = dataset_card(
        rows,
        pretty_name="LLM-Coordination CoordinationQA (imported)",
        body=CARD_BODY.format(source=os.fspath(path_or_url)),
        license="other",
    )
    return save_dataset(rows, out_dir, card=card)
