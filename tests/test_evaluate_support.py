"""Helpers shared by the evaluation tests: tiny datasets and scripted replies (no tests here)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coordqa.dataset import save_dataset
from coordqa.evaluation import EvalConfig
from coordqa.llm import CallPolicy

QUESTION = re.compile(r"\[(?P<qid>[a-z0-9-]+)\]")
TYPES = ("EC", "ToM", "JP")
MODEL = "openai/test-model"
"""The model every evaluation test asks (the local OpenAI-compatible server answers it)."""


def make_rows(scenarios: int = 2, games: tuple[str, ...] = ("hanabi", "overcooked")) -> list[dict]:
    """``scenarios`` scenarios x EC/ToM/JP questions; the correct option is always B (index 1).

    Each question text carries its id in brackets so a server responder can tell which question
    it is answering.
    """
    rows = []
    for number in range(scenarios):
        game = games[number % len(games)]
        scenario = f"s{number}"
        for qtype in TYPES:
            qid = f"{scenario}-{qtype.lower()}"
            rows.append(
                {
                    "question_id": qid,
                    "scenario_id": scenario,
                    "game": game,
                    "layout": "test",
                    "question_type": qtype,
                    "game_description": f"A test version of {game}.",
                    "state_description": f"State of scenario {number}.",
                    "question": f"[{qid}] Which option is right?",
                    "options": ["wait here", "pick up onion", "move to room 2"],
                    "correct": [1],
                    "rationale": "B is right by construction.",
                    "concept": "test",
                    "tags": ["test"],
                    "source": "tests",
                    "version": "0",
                    "snapshot": "",
                }
            )
    return rows


def write_dataset(folder: Path, scenarios: int = 2) -> str:
    """Save a test dataset and return its path as a string (as the CLI receives it)."""
    return str(save_dataset(make_rows(scenarios), folder))


def question_of(body: dict[str, Any]) -> str:
    """The question id a chat request asks about."""
    text = " ".join(str(m.get("content", "")) for m in body["messages"])
    match = QUESTION.search(text)
    if match is None:
        raise AssertionError(f"no question id in request: {text[:200]}")
    return match.group("qid")


def answers(
    replies: dict[str, str] | None = None, default: str = "Explanation: obvious.\nAnswer: B"
) -> Callable[[dict[str, Any], int], str]:
    """A server responder: the reply for each question id (``default`` for the others)."""
    table = replies or {}

    def respond(body: dict[str, Any], index: int) -> str:
        return table.get(question_of(body), default)

    return respond


def fast_policy(**changes: Any) -> CallPolicy:
    """A call policy with near-zero backoff and short timeouts, so fault tests run fast."""
    settings: dict[str, Any] = {
        "concurrency": 4,
        "timeout_s": 2.0,
        "max_attempts": 4,
        "max_total_s": 20.0,
        "backoff_initial_s": 0.01,
        "backoff_max_s": 0.05,
    }
    settings.update(changes)
    return CallPolicy(**settings)


def eval_config(dataset: str, out: Path, base_url: str, **changes: Any) -> EvalConfig:
    """A two-trial, uncached run of ``dataset`` against the local server; ``changes`` override.

    The policy is ``fast_policy()`` unless ``changes`` name one.
    """
    settings: dict[str, Any] = {
        "model": MODEL,
        "api_base": base_url,
        "dataset": dataset,
        "trials": 2,
        "out": out,
        "cache": False,
        "policy": fast_policy(),
    }
    settings.update(changes)
    return EvalConfig(**settings)
