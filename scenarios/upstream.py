"""Import the CSV released with the original LLM-Coordination paper into the CoordinationQA schema.

The upstream file (``single_turn_trials.csv``: 66 rows) has one row per scenario and three
questions per row (``EC``, ``TOM``, ``JP``), so 198 questions. Each ``<T> Question`` cell holds
the whole prompt text: the state, the question sentence, a marker line (``Available Answers:`` or
``Available Actions:``, any case, spaces after the colon) and one option per line (``A. text``).
``<T> Answer Ordinal`` holds the gold letters, several separated by commas (``"D, F"``), and
``<T> Answer`` the gold answer as text. This module splits every question into
``state_description``, ``question`` and ``options``, maps the gold letters to 0-based indices and
writes a dataset that :func:`coordqa.dataset.load_dataset` reads like any other.

Options are imported by position, in the order the cell lists them, whatever their labels say.
The release labels option *i* with ``chr(ord("A") + i)`` (past ``Z`` it goes on with the next
ASCII characters, ``[`` first), but some hand-edited questions repeat a letter (A, B,
B, C) or skip one (A, B, D). The gold is mapped by one stated rule (:func:`map_gold`):

1. a gold letter that labels exactly one option is that option (so in A, B, D the ``D`` is the
   third option: the release's own scorer compares letters);
2. a single gold letter that labels several options, or none, is settled by the ``<T> Answer``
   text when that text (without a leading ``Action:``/``Answer:`` and option letter; case,
   spacing and final full stops ignored) equals the text of exactly one of those options (of
   any option when the letter labels none);
3. otherwise the question keeps **no** answer key: ``correct`` is empty, it is tagged
   ``no-answer-key`` (its replies are read and stored, never counted correct) and a warning
   names it. Nothing is guessed.

When rule 1 maps the gold but the ``<T> Answer`` text is exactly another option's text, the letter
is kept (the ordinal column is the answer key) and a warning says the two disagree.

Every question the rules touch is flagged in its ``tags`` (:data:`FLAGS`); the warnings are
returned, printed by ``coordqa dataset import-upstream`` and written into the dataset card,
together with the list of flagged questions. Two options with the same text are kept as they are
(tag ``options-share-text``); a reply naming that text is then ambiguous unless a letter decides.

Other quirks handled: the duplicated ``Game Description`` column (pandas names the second one
``Game Description.1``; the first non-empty one is used), trailing whitespace and blank lines
among options, an option label without a space after it (``C.place onion``), spaces after the
commas of gold letters, and ``Game = CollabGames``, which covers two games: a row is Collab
Capture when its text mentions a thief and Collab Escape when it mentions a killer or generators
(the game description decides; the rest of the row only when the description names neither).
Option texts are kept verbatim (surrounding whitespace aside), stray dots included.

What is *not* imported: the upstream ``<T> Directive`` columns. coordqa asks every question with
its own directives (:mod:`coordqa.prompts`), so imported questions and native ones are asked
identically and results are comparable; the upstream directives differ only in wording and in
the answer line they request. The ``<T> Answer`` texts serve only rules 2 and 3 above.

A cell that cannot be read at all (no marker line, an option line not of the form ``A. text``, a
gold cell that is not a list of letters) stops the import with an error naming the CSV row
(counted from 1, the first row after the header) and the column: nothing is dropped silently.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coordqa.dataset import (
    NO_ANSWER_KEY_TAG,
    SHARED_OPTION_TEXT_TAG,
    dataset_card,
    save_dataset,
    validate_row,
)
from coordqa.errors import DatasetError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "FLAGS",
    "SOURCE",
    "Conversion",
    "Finding",
    "GoldMapping",
    "SplitQuestion",
    "UpstreamImport",
    "convert_upstream",
    "import_upstream",
    "map_gold",
    "parse_gold",
    "read_source",
    "split_question",
    "upstream_label",
]

SOURCE = "llm-coordination-upstream"
"""The ``source`` label of imported rows."""

UPSTREAM_CSV = "src/reasoning_evals/data/single_turn_trials.csv"
"""Where the original release's CSV lies in :data:`UPSTREAM_REPO` (docs/dataset.md)."""

UPSTREAM_REPO = "https://github.com/eric-ai-lab/llm_coordination"
"""The original LLM-Coordination repository."""

QUESTION_KINDS = {"EC": "EC", "TOM": "ToM", "JP": "JP"}
"""Upstream column prefix -> our question type."""

DESCRIPTION_COLUMNS = ("Game Description", "Game Description.1")
REQUIRED_COLUMNS = (
    "Game",
    "Game Description",
    *(f"{prefix} Question" for prefix in QUESTION_KINDS),
    *(f"{prefix} Answer Ordinal" for prefix in QUESTION_KINDS),
)

LETTERS_IRREGULAR = "upstream:letters-irregular"
GOLD_BY_ANSWER_TEXT = "upstream:gold-by-answer-text"
GOLD_UNMAPPED = "upstream:gold-unmapped"
ANSWER_TEXT_DISAGREES = "upstream:answer-text-disagrees"
OPTIONS_PAST_Z = "upstream:options-past-z"
COLLAB_COOKING = "upstream:collab-cooking"

FLAGS = {
    LETTERS_IRREGULAR: "option labels are not A, B, C... in order (repeated, skipped or "
    "shuffled); options imported by position",
    GOLD_BY_ANSWER_TEXT: "the gold letter labels several options or none; the Answer text "
    "named exactly one of them (rule 2)",
    GOLD_UNMAPPED: "the gold letter could not be mapped to one option: no answer key (rule 3)",
    ANSWER_TEXT_DISAGREES: "the gold letter maps to one option but the Answer text is exactly "
    "another option's text; the letter is kept",
    OPTIONS_PAST_Z: "more than 26 options: labels go on past Z with the next ASCII characters",
    COLLAB_COOKING: "filed under Game = CollabGames but an Overcooked scenario (onion-and-tomato "
    "soup); imported as overcooked without a layout",
    NO_ANSWER_KEY_TAG: "no answer key: replies are read and stored but never count as correct",
    SHARED_OPTION_TEXT_TAG: "two options have the same text (kept as released)",
}
"""Tags the importer adds, with what each means (also listed in the dataset card)."""

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
    "overcooked": re.compile(r"\b(overcooked|collab ?cooking)\b", re.IGNORECASE),
}
"""Words that tell the games of ``Game = CollabGames`` rows apart (the release also files a few
Overcooked scenarios, "Collab Cooking" with onion-and-tomato soup, under CollabGames)."""

DOWNLOAD_TIMEOUT_S = 30.0

_MARKER = re.compile(r"^\s*Available\s+(Answers|Actions)\s*:?\s*$", re.IGNORECASE)
_OPTION = re.compile(r"^\s*(?P<label>[!-~])\s*[.)]\s*(?P<text>.*?)\s*$")
_GOLD = re.compile(r"^\(?(?P<label>[!-~])[.)]?$")
_ANSWER_PREFIX = re.compile(r"^\s*(?:action|answer)\s*:\s*", re.IGNORECASE)
_ANSWER_LABEL = re.compile(r"^(?P<label>[!-~])\s*[.)]\s*(?P<text>\S.*)$", re.DOTALL)


def upstream_label(index: int) -> str:
    """The label the release gives the option at 0-based ``index``: A... Z, then ``[`` and on.

    >>> upstream_label(0), upstream_label(25), upstream_label(26)
    ('A', 'Z', '[')
    """
    return chr(ord("A") + index)


@dataclass(frozen=True)
class SplitQuestion:
    """One upstream question cell, split into the schema's parts."""

    state: str
    """The state description before the question sentence."""
    question: str
    """The question sentence."""
    options: tuple[str, ...]
    """Option texts in the order the cell lists them, without their labels."""
    labels: tuple[str, ...]
    """The label the cell gives each option (``A``, ``B``... when regular)."""

    @property
    def regular(self) -> bool:
        """The labels are the release's usual ``A, B, C...`` by position."""
        return self.labels == tuple(upstream_label(i) for i in range(len(self.labels)))


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


def _options(lines: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(labels, texts) of the option lines, in order."""
    labels: list[str] = []
    texts: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        match = _OPTION.match(line)
        if match is None:
            raise DatasetError(f"the option line {line.strip()!r} is not of the form 'A. text'")
        if not match["text"]:
            raise DatasetError(f"option {len(texts) + 1} ({match['label']}) has no text")
        labels.append(match["label"])
        texts.append(match["text"])
    if len(texts) < 2:
        raise DatasetError(
            f"found {len(texts)} option(s) after the marker line; expected 2 or more"
        )
    return tuple(labels), tuple(texts)


def split_question(text: str, state_hint: str = "") -> SplitQuestion:
    """Split an upstream question cell into state, question sentence, options and their labels.

    The last ``Available Answers:`` / ``Available Actions:`` line separates the text from the
    options; every non-blank line after it is one option (``X. text`` or ``X) text``, ``X`` any
    printable character), taken by position. When ``state_hint`` (the row's
    ``State Description``) starts the text, it is the state and the rest is the question;
    otherwise the last line before the options is the question and everything above it is the
    state.

    Raises:
        DatasetError: no marker line, an option line not of the form ``X. text``, an option
            without text, or fewer than two options.
    """
    lines = text.splitlines()
    markers = [index for index, line in enumerate(lines) if _MARKER.match(line)]
    if not markers:
        raise DatasetError(
            "no 'Available Answers:' or 'Available Actions:' line separates the question from "
            "its options"
        )
    head = _tidy("\n".join(lines[: markers[-1]]))
    labels, options = _options(lines[markers[-1] + 1 :])
    state, question = _split_head(head, state_hint)
    return SplitQuestion(state, question, options, labels)


def parse_gold(text: str) -> list[str]:
    """The gold labels of an ``Answer Ordinal`` cell: ``"D, F"`` -> ``["D", "F"]``.

    ``"(b)"`` and ``"b."`` give ``"b"``; which option a label means is :func:`map_gold`'s job.

    Raises:
        DatasetError: an empty cell, or a part that is not a single label.
    """
    labels: list[str] = []
    for part in text.split(","):
        match = _GOLD.match(part.strip())
        if match is None:
            raise DatasetError(f"{part.strip()!r} in {text!r} is not an option letter")
        if match["label"] not in labels:
            labels.append(match["label"])
    return labels


def _same_text(text: str) -> str:
    """The form texts are compared in: case, spacing and final full stops ignored."""
    return " ".join(text.split()).casefold().rstrip(". ")


def _answer_text(answer: str, labels: Sequence[str]) -> str:
    """An ``Answer`` cell without ``Action:``/``Answer:`` and a leading option label."""
    text = _ANSWER_PREFIX.sub("", answer.strip())
    match = _ANSWER_LABEL.match(text)
    if match is not None and match["label"] in labels:
        text = match["text"]
    return _same_text(text)


@dataclass(frozen=True)
class GoldMapping:
    """What :func:`map_gold` made of one question's gold letters."""

    correct: tuple[int, ...]
    """0-based indices of the correct options; empty when the gold could not be mapped."""
    tags: tuple[str, ...] = ()
    """Flags to add to the question's tags."""
    warning: str = ""
    """Why the gold is missing or doubtful (empty when it is not)."""
    note: str = ""
    """How an irregular gold was mapped (empty when by rule 1 without doubt)."""


def _gold_by_letter(labels: Sequence[str], gold: str) -> list[int]:
    """Positions labelled ``gold`` (its upper case when the exact label is not there)."""
    hits = [index for index, label in enumerate(labels) if label == gold]
    if not hits and gold.islower():
        hits = [index for index, label in enumerate(labels) if label == gold.upper()]
    return hits


def map_gold(
    gold_text: str, labels: Sequence[str], options: Sequence[str], answer: str = ""
) -> GoldMapping:
    """Map an ``Answer Ordinal`` cell to option positions by the module's stated rule.

    Args:
        gold_text: the ``<T> Answer Ordinal`` cell (``"B"``, ``"D, F"``).
        labels: the label of each option, as the question cell gives them.
        options: the option texts, by position.
        answer: the ``<T> Answer`` cell (rules 2 and 3, and the disagreement check).

    Raises:
        DatasetError: the cell is not a list of letters (:func:`parse_gold`).
    """
    golds = parse_gold(gold_text)
    said = _answer_text(answer, labels) if answer.strip() else ""
    named = [index for index, text in enumerate(options) if said and _same_text(text) == said]
    hits = {gold: _gold_by_letter(labels, gold) for gold in golds}
    unsettled = [gold for gold, found in hits.items() if len(found) != 1]
    if not unsettled:
        correct = tuple(sorted({found[0] for found in hits.values()}))
        if named and not set(named) & set(correct):
            letters = ", ".join(golds)
            return GoldMapping(
                correct,
                (ANSWER_TEXT_DISAGREES,),
                warning=f"gold {letters} kept, but the Answer text {answer.strip()!r} is the "
                f"text of option {_positions(named, labels)}",
            )
        return GoldMapping(correct)
    gold = unsettled[0]
    where = (
        f"labels {len(hits[gold])} options ({_positions(hits[gold], labels)})"
        if hits[gold]
        else "labels no option"
    )
    if len(golds) == 1:
        candidates = hits[gold] or range(len(options))
        chosen = [index for index in named if index in candidates]
        if len(chosen) == 1:
            return GoldMapping(
                (chosen[0],),
                (GOLD_BY_ANSWER_TEXT,),
                note=f"gold {gold!r} {where}; the Answer text {answer.strip()!r} names option "
                f"{_positions(chosen, labels)}",
            )
        reason = (
            f"the Answer text {answer.strip()!r} is the text of none of them"
            if answer.strip()
            else "there is no Answer text to settle it"
        )
        if len(chosen) > 1:
            reason = f"the Answer text {answer.strip()!r} is the text of several of them"
    else:
        reason = "the Answer text cannot settle one letter of several"
    return GoldMapping(
        (),
        (GOLD_UNMAPPED, NO_ANSWER_KEY_TAG),
        warning=f"gold {gold_text.strip()!r}: {gold!r} {where} and {reason}; no answer key",
    )


def _positions(indices: Sequence[int], labels: Sequence[str]) -> str:
    """``"#2 (B), #3 (B)"``: 1-based positions with their labels."""
    return ", ".join(f"#{index + 1} ({labels[index]})" for index in indices)


def _collab_game(description: str, rest: str) -> str:
    for text in (description, rest):
        found = sorted(game for game, words in COLLAB_WORDS.items() if words.search(text))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise DatasetError(
                "a CollabGames row must mention one of a thief (Collab Capture), a killer or "
                f"generators (Collab Escape) or Overcooked; this one mentions {' and '.join(found)}"
            )
    raise DatasetError(
        "cannot tell which game this CollabGames row is: it mentions neither a thief (Collab "
        "Capture), nor a killer or generators (Collab Escape), nor Overcooked"
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
        game = _collab_game(description, cells.get("State Description", "") + "\n" + rest)
        return game, _layout(cells.get("Map", "")) if game == "overcooked" else ""
    raise DatasetError(f"unknown game {raw!r}; expected Overcooked, Hanabi or CollabGames")


def _tags(raw: str) -> list[str]:
    return [tag.strip() for tag in re.split(r"[,;]", raw) if tag.strip()]


@dataclass(frozen=True)
class Finding:
    """A remark about one imported question (a warning or a note)."""

    question_id: str
    csv_row: int
    """The CSV row, counted from 1 (the first row after the header)."""
    column: str
    message: str

    def __str__(self) -> str:
        return f"{self.question_id} (CSV row {self.csv_row}, {self.column}): {self.message}"


@dataclass(frozen=True)
class Conversion:
    """The schema rows of an upstream CSV, with what the import found."""

    rows: list[dict[str, Any]]
    """Three rows per CSV row, EC then ToM then JP."""
    warnings: tuple[Finding, ...] = ()
    """Questions without an answer key, or whose gold letter and Answer text disagree."""
    notes: tuple[Finding, ...] = ()
    """Irregular questions whose gold the stated rule mapped, and other kept irregularities."""

    @property
    def flagged(self) -> dict[str, list[str]]:
        """question_id -> the importer's flags on it (:data:`FLAGS`), for flagged questions."""
        out = {}
        for row in self.rows:
            flags = [tag for tag in row["tags"] if tag in FLAGS]
            if flags:
                out[row["question_id"]] = flags
        return out


@dataclass
class _Findings:
    warnings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)


def _question_row(
    cells: Mapping[str, str],
    number: int,
    prefix: str,
    common: dict[str, Any],
    findings: _Findings,
) -> dict[str, Any]:
    """The schema row of one question; errors name the CSV row and column."""
    kind = QUESTION_KINDS[prefix]
    question_id = f"{common['scenario_id']}-{kind}"
    column = f"{prefix} Question"
    try:
        split = split_question(cells[column], cells.get("State Description", ""))
    except DatasetError as exc:
        raise DatasetError(f"CSV row {number}, column {column!r}: {exc}") from exc
    flags: list[str] = []
    if not split.regular:
        flags.append(LETTERS_IRREGULAR)
        findings.notes.append(
            Finding(question_id, number, column, f"option labels {', '.join(split.labels)}")
        )
    if len(split.options) > 26:
        flags.append(OPTIONS_PAST_Z)
    shared = _shared_texts(split.options)
    if shared:
        flags.append(SHARED_OPTION_TEXT_TAG)
        findings.notes.append(Finding(question_id, number, column, f"options {shared} are equal"))
    gold_column = f"{prefix} Answer Ordinal"
    try:
        gold = map_gold(
            cells[gold_column], split.labels, split.options, cells.get(f"{prefix} Answer", "")
        )
    except DatasetError as exc:
        raise DatasetError(f"CSV row {number}, column {gold_column!r}: {exc}") from exc
    flags.extend(gold.tags)
    if gold.warning:
        findings.warnings.append(Finding(question_id, number, gold_column, gold.warning))
    if gold.note:
        findings.notes.append(Finding(question_id, number, gold_column, gold.note))
    row = {
        **common,
        "question_id": question_id,
        "question_type": kind,
        "state_description": split.state,
        "question": split.question,
        "options": list(split.options),
        "correct": list(gold.correct),
        "tags": [*common["tags"], *(flag for flag in flags if flag not in common["tags"])],
    }
    try:
        validate_row(row)
    except DatasetError as exc:
        raise DatasetError(f"CSV row {number}, column {column!r}: {exc}") from exc
    return row


def _shared_texts(options: Sequence[str]) -> str:
    """``"#2 and #4"`` for options whose texts are equal (empty when all differ)."""
    seen: dict[str, list[int]] = {}
    for index, text in enumerate(options):
        seen.setdefault(_same_text(text), []).append(index + 1)
    groups = [group for group in seen.values() if len(group) > 1]
    return "; ".join(" and ".join(f"#{i}" for i in group) for group in groups)


def _row_questions(
    cells: Mapping[str, str], number: int, version: str, findings: _Findings
) -> list[dict[str, Any]]:
    """The three schema rows of one CSV row; errors name the CSV row and column."""
    description = next((cells[c] for c in DESCRIPTION_COLUMNS if cells.get(c, "").strip()), "")
    if not description.strip():
        raise DatasetError(f"CSV row {number}, column 'Game Description': it is empty")
    try:
        game, layout = _game_and_layout(cells, description)
    except DatasetError as exc:
        raise DatasetError(f"CSV row {number}, column 'Game': {exc}") from exc
    tags = _tags(cells.get("Tags", ""))
    if game == "overcooked" and cells["Game"].strip().casefold() != "overcooked":
        tags.append(COLLAB_COOKING)
    common = {
        "scenario_id": f"upstream-{number:03d}",
        "game": game,
        "layout": layout,
        "game_description": description.strip(),
        "rationale": "",
        "concept": cells.get("Concept", "").strip(),
        "tags": tags,
        "source": SOURCE,
        "version": version,
        "snapshot": "",
    }
    return [_question_row(cells, number, prefix, common, findings) for prefix in QUESTION_KINDS]


def convert_upstream(csv_text: str, *, version: str = "upstream") -> Conversion:
    """Convert the upstream CSV text into schema rows (three per CSV row, EC then ToM then JP).

    Raises:
        DatasetError: the CSV cannot be parsed, a required column is missing, or a cell cannot be
            read (naming the CSV row and column).
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
    findings = _Findings()
    rows: list[dict[str, Any]] = []
    for number, record in enumerate(frame.to_dict("records"), start=1):
        cells = {str(k): str(v) for k, v in record.items()}
        rows.extend(_row_questions(cells, number, version, findings))
    return Conversion(rows, tuple(findings.warnings), tuple(findings.notes))


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
            raise DatasetError(
                f"no CSV file at {path}: download {UPSTREAM_CSV} of {UPSTREAM_REPO} and pass its "
                "path, or pass the file's raw http(s) URL"
            )
        return path.read_bytes()
    import httpx

    http = client or httpx.Client(timeout=DOWNLOAD_TIMEOUT_S, follow_redirects=True)
    try:
        response = http.get(text)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        from coordqa.llm.retry import describe_error

        reason = (
            f"HTTP status {exc.response.status_code}"
            if isinstance(exc, httpx.HTTPStatusError)
            else describe_error(exc)  # as `dataset push` says an unreachable Hub
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

Options are imported by position. A gold letter that labels exactly one option is that option;
a single gold letter that labels several options or none is settled by the upstream Answer text
when it is exactly one of those options' texts; otherwise the question has no answer key
(`correct` is empty, tag `no-answer-key`: its replies never count as correct).
"""


@dataclass(frozen=True)
class UpstreamImport:
    """A finished import: where the dataset is and what the import found."""

    folder: Path
    """The dataset folder, loadable with :func:`coordqa.dataset.load_dataset`."""
    conversion: Conversion
    """The rows, warnings and notes."""


def _card_report(conversion: Conversion) -> str:
    """The card section listing flags, flagged questions, warnings and notes."""
    flagged = conversion.flagged
    lines = ["## Import report", ""]
    if not flagged:
        lines += ["Every question has regular letters and a gold mapped by its letter.", ""]
    else:
        lines += ["| tag | questions | meaning |", "|---|---|---|"]
        for tag, meaning in FLAGS.items():
            ids = [qid for qid, tags in flagged.items() if tag in tags]
            if ids:
                lines.append(f"| `{tag}` | {len(ids)} | {meaning} |")
        lines.append("")
    for title, findings in (("Warnings", conversion.warnings), ("Notes", conversion.notes)):
        if findings:
            lines += [f"### {title} ({len(findings)})", ""]
            lines += [f"- {finding}".replace("|", "\\|") for finding in findings]
            lines.append("")
    return "\n".join(lines)


def import_upstream(
    path_or_url: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    client: httpx.Client | None = None,
) -> UpstreamImport:
    """Read the upstream CSV (path or URL), convert it and save it as a dataset folder.

    The rows' ``version`` is ``upstream-<first 12 hex digits of the file's SHA-256>``, so two
    imports of different files are never mistaken for one another. The card lists the flagged
    questions and every warning.
    """
    data = read_source(path_or_url, client=client)
    try:
        csv_text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{os.fspath(path_or_url)} is not UTF-8 text: {exc}") from exc
    version = f"upstream-{hashlib.sha256(data).hexdigest()[:12]}"
    conversion = convert_upstream(csv_text, version=version)
    body = CARD_BODY.format(source=os.fspath(path_or_url)) + "\n" + _card_report(conversion)
    card = dataset_card(
        conversion.rows,
        pretty_name="LLM-Coordination CoordinationQA (imported)",
        body=body,
        license="other",
    )
    return UpstreamImport(save_dataset(conversion.rows, out_dir, card=card), conversion)
