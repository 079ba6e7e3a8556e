"""Helpers that write QA run directories from chosen outcomes (no tests here).

:func:`write_qa_run` writes a run in today's format the way ``coordqa eval`` leaves it
(manifest, questions, calls, then :func:`coordqa.evaluation.score`); :func:`write_format1_run`
writes one in run format 1, with the record shapes coordqa wrote before the records were
typed, copied from that version's ``evaluate.py``: flat token fields in calls, and outcomes
appended to ``samples.jsonl``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.evaluation import score
from coordqa.llm import Message, Reply, Usage
from coordqa.records import QACall, Question
from coordqa.store import DatasetInfo, RunManifest, RunStore

OPTIONS = ["wait here", "pick up onion", "move to room 2", "drop the plate", "clue red"]
"""Option texts of every question (the first ``n_options`` are used)."""


@dataclass(frozen=True)
class Row:
    """The wanted outcome of one (question, trial)."""

    question_id: str
    question_type: str
    trial: int
    status: str
    """answered, ambiguous, no_answer or error."""
    correct: bool = False
    game: str = "hanabi"
    scenario_id: str = ""
    n_options: int = 4
    n_correct: int = 1

    @property
    def scenario(self) -> str:
        return self.scenario_id or self.question_id.split("-")[0]


SIX_QUESTIONS = {
    "s0-ec": ["right", "right"],
    "s0-tom": ["wrong", "right"],
    "s0-jp": ["wrong", "wrong"],
    "s1-ec": ["right", "ambiguous"],
    "s1-tom": ["right", "right"],
    "s1-jp": ["no_answer", "right"],
}
"""Outcomes of two trials of six questions (two scenarios, each type), for run comparisons."""


def outcome_rows(outcomes: dict[str, list[str]], game: str = "hanabi") -> list[Row]:
    """One question per entry (``s0-ec``: scenario s0, type EC); each trial's outcome: ``right``,
    ``wrong`` or a status (``ambiguous``, ``no_answer``, ``error``)."""
    made = []
    for qid, trials in outcomes.items():
        qtype = {"ec": "EC", "tom": "ToM", "jp": "JP"}[qid.split("-")[1]]
        for trial, outcome in enumerate(trials):
            status = "answered" if outcome in ("right", "wrong") else outcome
            made.append(Row(qid, qtype, trial, status, outcome == "right", game=game))
    return made


def reply_text(row: Row) -> str | None:
    """A reply that :func:`coordqa.choices.choose` reads as ``row``'s outcome (None: error).

    The correct options are the first ``n_correct``; a wrong answer names the next one.
    """
    if row.status == "answered":
        return "Answer: A" if row.correct else f"Answer: {'ABCDE'[row.n_correct]}"
    if row.status == "ambiguous":
        return "Answer: A or B"
    if row.status == "no_answer":
        return "I cannot decide."
    if row.status == "error":
        return None
    raise ValueError(f"unknown status {row.status!r}")


def question_of(row: Row) -> Question:
    """The question record ``row`` asks."""
    return Question(
        question_id=row.question_id,
        scenario_id=row.scenario,
        game=row.game,
        layout="test",
        question_type=row.question_type,
        options=OPTIONS[: row.n_options],
        correct=list(range(row.n_correct)),
        question_hash=f"q-{row.question_id}",
        prompt_hash=f"p-{row.question_id}",
        target_hash=f"t-{row.question_id}",
        messages=[Message("user", f"[{row.question_id}] which option?")],
    )


def manifest_of(
    model: str,
    trials: int,
    num_questions: int,
    *,
    dataset: str = "t",
    fingerprint: str = "f" * 64,
    **config: Any,
) -> RunManifest:
    """A QA manifest as ``coordqa eval`` writes it (filters default to none)."""
    settings = {"model": model, "trials": trials, "games": None, "types": None, "limit": None}
    settings.update(config)
    info = DatasetInfo(name=dataset, fingerprint=fingerprint, num_questions=num_questions)
    return RunManifest(kind="qa", config=settings, dataset=info, fingerprint=model + dataset)


def write_qa_run(
    path: Path,
    model: str,
    rows: list[Row],
    *,
    trials: int,
    questions: int | None = None,
    scored: bool = True,
    **manifest: Any,
) -> Path:
    """Write a QA run whose calls produce ``rows``; ``questions`` sets the planned count."""
    asked = {row.question_id: question_of(row) for row in rows}
    count = len(asked) if questions is None else questions
    with RunStore.create(path, manifest_of(model, trials, count, **manifest)) as store:
        for question in asked.values():
            store.append_record("questions", question)
        for row in rows:
            text = reply_text(row)
            reply = Reply(text, None if text else "HTTP 500", Usage(10, 2, None, 1), 0.01)
            store.append_record("calls", QACall.of(row.question_id, row.trial, "p", reply))
    if scored:
        score(path)
    return path


def write_format1_run(path: Path, model: str, rows: list[Row], *, trials: int) -> Path:
    """Write a run in format 1: manifest version 1, flat-token calls, a samples stream."""
    from coordqa.choices import choose

    asked = {row.question_id: question_of(row) for row in rows}
    manifest = manifest_of(model, trials, len(asked)).model_dump(mode="json")
    manifest["schema_version"] = 1
    path.mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    questions = [q.to_json() for q in asked.values()]
    calls, samples = [], []
    for row in rows:
        text = reply_text(row)
        calls.append(
            {
                "question_id": row.question_id,
                "trial": row.trial,
                "prompt_hash": "p",
                "text": text,
                "error": None if text else "HTTP 500",
                "prompt_tokens": 10,
                "completion_tokens": 2,
                "cost": None,
                "latency_s": 0.01,
                "attempts": 1,
                "cached": False,
                "model": model,
                "time": "2025-01-01T00:00:00+00:00",
            }
        )
        choice = None if text is None else choose(text, OPTIONS[: row.n_options]).to_dict()
        samples.append(
            {
                "question_id": row.question_id,
                "trial": row.trial,
                "status": row.status,
                "correct": row.correct,
                "choice": choice,
                "error": None if text else "HTTP 500",
                "question_hash": "q",
                "prompt_hash": "p",
                "target_hash": "t",
            }
        )
    scores = [
        {
            "question_id": row.question_id,
            "scenario_id": row.scenario,
            "game": row.game,
            "question_type": row.question_type,
            "trial": row.trial,
            "status": sample["status"],
            "correct": sample["correct"],
            "choice": sample["choice"],
            "n_options": row.n_options,
            "n_correct": row.n_correct,
        }
        for row, sample in zip(rows, samples, strict=True)
    ]
    for name, records in (
        ("questions", questions),
        ("calls", calls),
        ("samples", samples),
        ("scores", scores),
    ):
        (path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
