"""Measure :func:`coordqa.choices.choose` against a careful grader on labelled replies.

A corpus is a folder of JSON Lines files, one reply per line: the raw reply as a model returned
it and the label a grader gave without seeing what ``choose`` reads (``outcome`` chosen /
ambiguous / no_answer, the 0-based ``option`` when chosen, and a one-line ``reason``). The
repository's corpus is ``tests/data/replies/``; ``benchmarks/bench_reply_corpus.py`` prints the
comparison and ``tests/test_choices_corpus.py`` holds it to the targets.

What matters most is never crediting an option the grader did not see: a *false credit* (chosen
where the grader sees none or several) or a *wrong option* (chosen, but another one) changes a
score. A reply the grader reads as chosen but ``choose`` does not is a miss: no credit, but the
score is lower than it should be.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from coordqa.choices import CHOICE_OUTCOMES, Choice, choose, question_before_options
from coordqa.errors import DatasetError
from coordqa.jsonvalues import JSONObject

Verdict = Literal["agree", "false_credit", "wrong_option", "missed", "other"]
VERDICTS: tuple[Verdict, ...] = ("agree", "false_credit", "wrong_option", "missed", "other")

_REQUIRED = ("id", "source", "options", "reply", "outcome", "option", "reason")


@dataclass(frozen=True)
class LabelledReply:
    """One corpus line: a raw reply and the grader's label."""

    id: str
    """Unique id, ``<source>/<n>``."""
    source: str
    """Where the reply comes from (a model and dataset, or ``adversarial/v1``)."""
    options: tuple[str, ...]
    """The option texts the question offered, in label order."""
    reply: str
    """The reply exactly as returned."""
    outcome: str
    """The grader's outcome: chosen, ambiguous or no_answer."""
    option: int | None
    """The grader's chosen option (0-based) when ``outcome == "chosen"``."""
    reason: str
    """Why the grader reads it so, one line."""
    question: str | None = None
    """The question the reply answers, from the line's ``prompt_tail`` (None without one)."""


@dataclass(frozen=True)
class GradedReading:
    """The grader's label next to what ``choose`` read."""

    record: LabelledReply
    """The labelled reply."""
    choice: Choice
    """What ``choose`` read."""
    verdict: Verdict
    """How the two relate."""


@dataclass
class CorpusReport:
    """Counts over a corpus, overall and per source and method."""

    comparisons: list[GradedReading] = field(default_factory=list)
    """One per reply, in corpus order."""

    def count(self, verdict: Verdict, source: str | None = None) -> int:
        """How many replies (of ``source``, or all) got ``verdict``."""
        return sum(
            c.verdict == verdict and source in (None, c.record.source) for c in self.comparisons
        )

    def size(self, source: str | None = None) -> int:
        """How many replies (of ``source``, or all)."""
        return sum(source in (None, c.record.source) for c in self.comparisons)

    def agreement(self, source: str | None = None) -> float:
        """Fraction of replies where ``choose`` and the grader agree (NaN for none)."""
        size = self.size(source)
        return self.count("agree", source) / size if size else float("nan")

    @property
    def sources(self) -> list[str]:
        """The sources, sorted."""
        return sorted({c.record.source for c in self.comparisons})

    def methods(self) -> Counter[tuple[str, str]]:
        """(method, verdict) -> count."""
        return Counter((c.choice.method, c.verdict) for c in self.comparisons)

    @property
    def disagreements(self) -> list[GradedReading]:
        """Every comparison that is not an agreement."""
        return [c for c in self.comparisons if c.verdict != "agree"]


def verdict(record: LabelledReply, choice: Choice) -> Verdict:
    """Relate ``choose``'s reading to the grader's label."""
    if choice.outcome == "chosen":
        if record.outcome != "chosen":
            return "false_credit"
        return "agree" if choice.index == record.option else "wrong_option"
    if record.outcome == "chosen":
        return "missed"
    return "agree" if choice.outcome == record.outcome else "other"


def compare(records: Iterable[LabelledReply], *, with_question: bool = True) -> CorpusReport:
    """Read every labelled reply with :func:`choose` and compare with its label.

    ``with_question``: pass each reply's question (as CoordinationQA scoring does); False reads
    the replies as before the reader took the question, for a before/after comparison.
    """
    report = CorpusReport()
    for record in records:
        question = record.question if with_question else None
        choice = choose(record.reply, record.options, question=question)
        report.comparisons.append(GradedReading(record, choice, verdict(record, choice)))
    return report


def load_corpus(folder: str | Path) -> list[LabelledReply]:
    """Read every ``*.jsonl`` file of ``folder`` (sorted by name), validating each line.

    Raises:
        DatasetError: No file, a malformed line, or a repeated id; the message names the file
            and line.
    """
    paths = sorted(Path(folder).glob("*.jsonl"))
    if not paths:
        raise DatasetError(f"no *.jsonl corpus file in {folder}; see /work/corpus/FORMAT.md")
    records: list[LabelledReply] = []
    seen: dict[str, str] = {}
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            record = _record(_json(line, where), where)
            if record.id in seen:
                raise DatasetError(f"{where}: id {record.id!r} already used at {seen[record.id]}")
            seen[record.id] = where
            records.append(record)
    return records


def _json(line: str, where: str) -> JSONObject:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: a corpus line must be a JSON object")
    return data


def _record(data: dict[str, Any], where: str) -> LabelledReply:
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise DatasetError(f"{where}: missing keys {missing}; a line needs {list(_REQUIRED)}")
    options, outcome, option = data["options"], data["outcome"], data["option"]
    problems = []
    if not _strings(options) or not options:
        problems.append("'options' must be a non-empty list of strings")
    if not isinstance(data["reply"], str):
        problems.append("'reply' must be a string")
    if outcome not in CHOICE_OUTCOMES:
        problems.append(f"'outcome' must be one of {CHOICE_OUTCOMES}, got {outcome!r}")
    chosen_ok = isinstance(option, int) and 0 <= option < len(options or ())
    if (outcome == "chosen") != chosen_ok or (outcome != "chosen" and option is not None):
        problems.append("'option' must be the 0-based chosen index when chosen, else null")
    if not isinstance(data["reason"], str) or not data["reason"].strip():
        problems.append("'reason' must be a non-empty line")
    if problems:
        raise DatasetError(f"{where}: " + "; ".join(problems))
    return LabelledReply(
        id=str(data["id"]),
        source=str(data["source"]),
        options=tuple(options),
        reply=data["reply"],
        outcome=outcome,
        option=option,
        reason=data["reason"],
        question=question_before_options(str(data.get("prompt_tail") or "")),
    )


def _strings(values: object) -> bool:
    return isinstance(values, Sequence) and all(isinstance(v, str) for v in values)
