"""Stand-in for the run reader of issue 14 (``coordqa.store.read_qa_run``) until it lands.

It offers the attribute names of that reader (``questions()``, ``last_calls()``, ``samples()``,
``manifest``) over today's run format, so the viewer's switch to the real reader is an import
change. It reads with :class:`coordqa.store.RunStore` and scores nothing itself: samples are the
run's ``scores.jsonl`` as :func:`coordqa.analysis.load_scores` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.analysis import RunAnalysis, analyze_run, load_scores
from coordqa.choices import Choice
from coordqa.errors import StoreError
from coordqa.llm import Message
from coordqa.store import RunManifest, RunStore, open_run

SampleKey = tuple[str, int]


@dataclass(frozen=True)
class Question:
    """One question of a QA run, as ``questions.jsonl`` holds it."""

    question_id: str
    scenario_id: str
    game: str
    question_type: str
    options: list[str]
    correct: list[int]
    question_hash: str
    messages: list[Message]


@dataclass(frozen=True)
class TokenUsage:
    """Tokens and cost of one call."""

    prompt_tokens: int
    completion_tokens: int
    cost: float | None


@dataclass(frozen=True)
class QACall:
    """One model call of a QA run."""

    question_id: str
    trial: int
    text: str | None
    error: str | None
    usage: TokenUsage
    latency_s: float
    attempts: int
    cached: bool
    model: str


@dataclass(frozen=True)
class Sample:
    """The scored outcome of one (question, trial)."""

    question_id: str
    trial: int
    game: str
    question_type: str
    status: str
    correct: bool
    choice: Choice | None

    @property
    def key(self) -> SampleKey:
        """``(question_id, trial)``."""
        return (self.question_id, self.trial)


def _call(data: dict[str, Any]) -> QACall:
    return QACall(
        question_id=str(data["question_id"]),
        trial=int(data["trial"]),
        text=data.get("text"),
        error=data.get("error"),
        usage=TokenUsage(
            int(data.get("prompt_tokens") or 0),
            int(data.get("completion_tokens") or 0),
            data.get("cost"),
        ),
        latency_s=float(data.get("latency_s") or 0.0),
        attempts=int(data.get("attempts") or 0),
        cached=bool(data.get("cached")),
        model=str(data.get("model") or ""),
    )


class QARun:
    """A QA run directory, read (the stand-in of ``coordqa.store.QARun``)."""

    def __init__(self, store: RunStore) -> None:
        """Wrap an open QA run."""
        if store.manifest.kind != "qa":
            raise StoreError(f"{store.path} is a {store.manifest.kind!r} run, not a QA run")
        self.store = store

    @property
    def path(self) -> Path:
        """The run directory."""
        return self.store.path

    @property
    def manifest(self) -> RunManifest:
        """What was run."""
        return self.store.manifest

    @property
    def warnings(self) -> list[str]:
        """Problems met while reading."""
        return self.store.warnings

    @property
    def model(self) -> str:
        """The run's model name."""
        return str(self.manifest.config.get("model", "?"))

    def questions(self) -> dict[str, Question]:
        """Questions by id, in dataset order."""
        out = {}
        for data in self.store.iter_records("questions"):
            out[str(data["question_id"])] = Question(
                question_id=str(data["question_id"]),
                scenario_id=str(data["scenario_id"]),
                game=str(data["game"]),
                question_type=str(data["question_type"]),
                options=list(data["options"]),
                correct=[int(i) for i in data["correct"]],
                question_hash=str(data["question_hash"]),
                messages=[Message(m["role"], m["content"]) for m in data["messages"]],
            )
        return out

    def last_calls(self) -> dict[SampleKey, QACall]:
        """The latest call of each (question_id, trial)."""
        calls = (_call(data) for data in self.store.iter_records("calls"))
        return {(c.question_id, c.trial): c for c in calls}

    def samples(self) -> list[Sample]:
        """The scored samples (``scores.jsonl``)."""
        frame = load_scores(self.store)
        return [
            Sample(
                question_id=str(row["question_id"]),
                trial=int(row["trial"]),
                game=str(row["game"]),
                question_type=str(row["question_type"]),
                status=str(row["status"]),
                correct=bool(row["correct"]),
                choice=None if row.get("choice") is None else Choice.from_dict(row["choice"]),
            )
            for row in frame.to_dict(orient="records")
        ]

    def analysis(self) -> RunAnalysis:
        """The run's accuracy tables."""
        return analyze_run(self.store)


def read_qa_run(path: str | Path) -> QARun:
    """Open a QA run for reading."""
    return QARun(open_run(path))
