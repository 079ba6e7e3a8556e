"""What the viewer shows of a QA run: the summary, the sample table and one sample.

Everything is built once per version of the run's files (see :mod:`coordqa.viewer.runs`) from
the run reader; the numbers come from :mod:`coordqa.analysis` and the reading of a reply from
:mod:`coordqa.choices`, never from code of the viewer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from coordqa.analysis import RunAnalysis, analyze_run
from coordqa.choices import Choice, choose, option_letter
from coordqa.errors import ConfigError, CoordqaError
from coordqa.llm import Message
from coordqa.records import QACall, Question, Sample
from coordqa.scoring import original_span, read_window
from coordqa.store import RunManifest, read_qa_run

__all__ = [
    "SAMPLE_OUTCOMES",
    "SORT_KEYS",
    "OptionView",
    "QAView",
    "ReplyParts",
    "SampleDetail",
    "SampleFilter",
    "SampleRow",
]

SampleOutcome = Literal["correct", "wrong", "ambiguous", "no_answer", "error"]
SAMPLE_OUTCOMES: tuple[SampleOutcome, ...] = ("correct", "wrong", "ambiguous", "no_answer", "error")
"""What a (question, trial) came to: an answered sample is ``correct`` or ``wrong``; the other
statuses keep their names."""

SORT_KEYS = ("number", "question_id", "game", "type", "outcome", "tokens", "latency", "cost")
"""Columns the sample table can be sorted by (``?sort=``)."""


def outcome_of(sample: Sample) -> SampleOutcome:
    """The table's outcome of a stored sample."""
    if sample.status == "answered":
        return "correct" if sample.correct else "wrong"
    return sample.status


def letters(indices: Iterable[int]) -> str:
    """Option letters of ``indices`` (``"B, C"``)."""
    return ", ".join(option_letter(i) for i in indices)


@dataclass(frozen=True)
class SampleRow:
    """One line of the sample table: a (question, trial) and how it went."""

    number: int
    """Position in the run (question order, then trial), 0-based: the sample page's id."""
    question_id: str
    """The question."""
    trial: int
    """Trial index."""
    game: str
    """The question's game."""
    question_type: str
    """EC, ToM or JP."""
    outcome: SampleOutcome
    """One of :data:`SAMPLE_OUTCOMES`."""
    chosen: str
    """Letters the reply committed to ('' for none)."""
    answer: str
    """Letters of the correct options."""
    method: str
    """The rule of :mod:`coordqa.choices` that decided ('' for an error)."""
    tokens: int | None
    """Prompt plus completion tokens (None without a stored call)."""
    latency_s: float | None
    """Wall time of the call, retries included."""
    cost: float | None
    """US dollars (None when unknown)."""
    search: str
    """Lower-case text the search box matches: question id, options and the reply."""

    def sort_value(self, key: str) -> Any:
        """The value this row sorts by under ``key`` (one of :data:`SORT_KEYS`)."""
        values = {
            "number": self.number,
            "question_id": self.question_id,
            "game": self.game,
            "type": self.question_type,
            "outcome": SAMPLE_OUTCOMES.index(self.outcome),
            "tokens": self.tokens,
            "latency": self.latency_s,
            "cost": self.cost,
        }
        return values[key]


@dataclass(frozen=True)
class SampleFilter:
    """The table's filters; an empty field filters nothing."""

    game: str = ""
    """Only this game."""
    question_type: str = ""
    """Only this question type."""
    outcome: str = ""
    """Only this outcome (one of :data:`SAMPLE_OUTCOMES`)."""
    text: str = ""
    """Only rows whose :attr:`SampleRow.search` text contains this (case-insensitive)."""

    def __post_init__(self) -> None:
        if self.outcome and self.outcome not in SAMPLE_OUTCOMES:
            raise ConfigError(
                f"outcome must be one of {', '.join(SAMPLE_OUTCOMES)}, got {self.outcome!r}"
            )

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return bool(self.game or self.question_type or self.outcome or self.text.strip())

    def matches(self, row: SampleRow) -> bool:
        """Whether ``row`` passes every filter."""
        return (
            (not self.game or row.game == self.game)
            and (not self.question_type or row.question_type == self.question_type)
            and (not self.outcome or row.outcome == self.outcome)
            and self.text.strip().lower() in row.search
        )


def sort_rows(rows: Sequence[SampleRow], key: str, descending: bool) -> list[SampleRow]:
    """``rows`` ordered by ``key``; rows without a value (no call) go last either way."""
    if key not in SORT_KEYS:
        raise ConfigError(f"sort must be one of {', '.join(SORT_KEYS)}, got {key!r}")
    present = [r for r in rows if r.sort_value(key) is not None]
    absent = [r for r in rows if r.sort_value(key) is None]
    present.sort(key=lambda r: (r.sort_value(key), r.number), reverse=descending)
    return present + absent


@dataclass(frozen=True)
class OptionView:
    """One option on a sample page."""

    letter: str
    """Its letter."""
    text: str
    """Its text."""
    chosen: bool
    """Whether the reply committed to it."""
    correct: bool
    """Whether the answer key holds it."""


@dataclass(frozen=True)
class ReplyParts:
    """A reply cut around the span that decided its reading, for highlighting."""

    before: str
    """Text before the span."""
    decided: str
    """The span."""
    after: str
    """Text after the span."""

    @classmethod
    def cut(cls, text: str, span: tuple[int, int] | None) -> ReplyParts | None:
        """``text`` around ``span`` (character offsets); None without a span inside the text."""
        if span is None or not 0 <= span[0] <= span[1] <= len(text):
            return None
        start, end = span
        return cls(text[:start], text[start:end], text[end:])


def deciding_span(
    choice: Choice | None, text: str | None, options: Sequence[str]
) -> tuple[int, int] | None:
    """The characters of ``text`` that decided ``choice``.

    A long reply is read in part (:func:`coordqa.scoring.read_window`); the span is given in
    the whole text.

    A choice stored before spans existed is read again with :func:`coordqa.choices.choose`
    (fast and deterministic); its span is used only when that reading is the stored one, so a
    highlight never explains a reading the run did not make.
    """
    if choice is None or text is None:
        return None
    if choice.span is not None or not options:
        return original_span(text, choice.span)
    again = choose(read_window(text), list(options))
    return original_span(text, again.span) if again == choice else None


@dataclass(frozen=True)
class SampleDetail:
    """Everything the sample page shows."""

    row: SampleRow
    """The table line of the sample."""
    question: Question
    """The question, with the messages the model saw."""
    call: QACall | None
    """The latest model call (None when none is stored)."""
    choice: Choice | None
    """How the reply was read (None for an error)."""
    options: list[OptionView]
    """The options with what was chosen and what is correct."""
    reply_parts: ReplyParts | None
    """The reply around its deciding span (None when no span decided)."""
    rationale: str | None
    """The solver's rationale of the answer key (None when the dataset is not at hand)."""
    rationale_note: str
    """Why the rationale is missing ('' when it is shown)."""
    previous: int | None
    """Number of the previous sample in run order."""
    next: int | None
    """Number of the next sample in run order."""

    @property
    def messages(self) -> list[Message]:
        """The prompt as the model saw it."""
        return list(self.question.messages)


class QAView:
    """A QA run as the viewer shows it, built once per version of the run's files."""

    def __init__(self, path: Path) -> None:
        """Read the QA run at ``path`` through the run reader."""
        self.run = read_qa_run(path)
        self._questions = self.run.questions()
        self._calls = self.run.last_calls()
        order = {qid: i for i, qid in enumerate(self._questions)}
        samples = sorted(self.run.samples(), key=lambda s: (order.get(s.question_id, -1), s.trial))
        self._samples = samples
        self.rows = [self._row(n, sample) for n, sample in enumerate(samples)]
        """Every stored sample in run order."""

    @property
    def manifest(self) -> RunManifest:
        """What was run."""
        return self.run.manifest

    @cached_property
    def analysis(self) -> RunAnalysis:
        """Accuracy tables of the run (:mod:`coordqa.analysis`)."""
        return analyze_run(self.run, self._samples)

    @property
    def games(self) -> list[str]:
        """Games of the stored samples, in run order."""
        return list(dict.fromkeys(row.game for row in self.rows))

    @property
    def types(self) -> list[str]:
        """Question types of the stored samples, in run order."""
        return list(dict.fromkeys(row.question_type for row in self.rows))

    def outcome_counts(self) -> dict[SampleOutcome, int]:
        """Samples per outcome (every outcome listed, zero included)."""
        counts = dict.fromkeys(SAMPLE_OUTCOMES, 0)
        for row in self.rows:
            counts[row.outcome] += 1
        return counts

    def _row(self, number: int, sample: Sample) -> SampleRow:
        question = self._question(sample)
        call = self._calls.get(sample.key)
        choice = sample.choice
        chosen = list(choice.candidates) if choice is not None else []
        reply = (call.text or "") if call is not None else ""
        search = " ".join([sample.question_id, *question.options, reply]).lower()
        return SampleRow(
            number=number,
            question_id=sample.question_id,
            trial=sample.trial,
            game=sample.game,
            question_type=sample.question_type,
            outcome=outcome_of(sample),
            chosen=letters(chosen),
            answer=letters(question.correct),
            method=choice.method if choice is not None else "",
            tokens=None
            if call is None
            else call.usage.prompt_tokens + call.usage.completion_tokens,
            latency_s=None if call is None else call.latency_s,
            cost=None if call is None else call.usage.cost,
            search=search,
        )

    def _question(self, sample: Sample) -> Question:
        question = self._questions.get(sample.question_id)
        if question is None:
            raise CoordqaError(
                f"{self.run.path}: a sample names question {sample.question_id!r}, which "
                "questions.jsonl does not hold; the run directory is incomplete"
            )
        return question

    def filtered(
        self, where: SampleFilter, sort: str = "number", descending: bool = False
    ) -> list[SampleRow]:
        """The rows passing ``where``, sorted."""
        return sort_rows([r for r in self.rows if where.matches(r)], sort, descending)

    def detail(self, number: int, rationales: Rationales) -> SampleDetail:
        """The sample page of sample ``number``.

        Raises:
            LookupError: no sample has that number.
        """
        if not 0 <= number < len(self.rows):
            raise LookupError(f"no sample {number}: this run has samples 0 to {len(self.rows) - 1}")
        sample, row = self._samples[number], self.rows[number]
        question = self._question(sample)
        call = self._calls.get(sample.key)
        choice = sample.choice
        chosen = set(choice.candidates) if choice is not None else set()
        options = [
            OptionView(option_letter(i), text, i in chosen, i in question.correct)
            for i, text in enumerate(question.options)
        ]
        rationale, note = rationales.of(question)
        return SampleDetail(
            row=row,
            question=question,
            call=call,
            choice=choice,
            options=options,
            reply_parts=ReplyParts.cut(
                call.text or "", deciding_span(choice, call.text, question.options)
            )
            if call is not None
            else None,
            rationale=rationale,
            rationale_note=note,
            previous=number - 1 if number > 0 else None,
            next=number + 1 if number + 1 < len(self.rows) else None,
        )


class Rationales:
    """The solver's rationale of each question, looked up in the run's dataset.

    Runs store no rationale, so it comes from the dataset named in the manifest, matched by
    question hash (a question whose content changed since the run shows none). The dataset is
    read on first use, and only when it is a bundled dataset (by name) or a file inside the run
    directory: a manifest is the run's author's text, so a path it names elsewhere (``/``, a
    private file) is never opened.
    """

    def __init__(self, manifest: RunManifest, run_dir: Path) -> None:
        """Prepare the lookup for the run of ``manifest`` stored in ``run_dir``."""
        self._dataset = manifest.dataset.name if manifest.dataset is not None else None
        self._run_dir = run_dir
        self._by_hash: dict[str, str] | None = None
        self._problem = "" if self._dataset else "the run names no dataset"

    def _readable(self, name: str) -> str | Path | None:
        """What to load for the dataset ``name``, or None when the viewer may not read it."""
        from coordqa.dataset import is_bundled

        if is_bundled(name):
            return name
        inside = (self._run_dir / name).resolve()
        if inside.is_relative_to(self._run_dir.resolve()) and inside.exists():
            return inside
        return None

    def _load(self) -> dict[str, str]:
        if self._by_hash is None:
            self._by_hash = {}
            if self._dataset is not None:
                from coordqa.dataset import load_rows, question_hash

                source = self._readable(self._dataset)
                if source is None:
                    self._problem = (
                        f"the dataset {self._dataset!r} is neither a bundled dataset nor a file "
                        "inside the run, and the viewer reads no other file"
                    )
                    return self._by_hash
                try:
                    rows = load_rows(source)
                except CoordqaError as exc:
                    self._problem = f"the dataset {self._dataset!r} cannot be read here ({exc})"
                else:
                    self._by_hash = {question_hash(r): str(r["rationale"]) for r in rows}
        return self._by_hash

    def of(self, question: Question) -> tuple[str | None, str]:
        """The rationale of ``question`` and, when there is none, why."""
        found = self._load().get(question.question_hash)
        if found is not None:
            return found, ""
        if self._problem:
            return None, self._problem
        return None, f"the dataset {self._dataset!r} no longer holds this question unchanged"
