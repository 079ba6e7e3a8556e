"""Attacks by a hostile submitter, each performed against the API (SQLite and PostgreSQL).

Every test sends what an adversary would send and checks the server's answer: a refusal with
its status and message, or a number on the board that the attack could not raise.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coordqa.leaderboard.db import Sample, Submission
from coordqa.leaderboard.testing import BoardClient, seal, synthetic_bundle


@pytest.fixture
def board(db_url: str, tmp_path: Path) -> Iterator[BoardClient]:
    client = BoardClient(db_url, tmp_path)
    yield client
    client.close()


def letter(row: dict[str, Any], right: bool) -> str:
    """``Answer: X`` with the key's letter, or the next (wrong) one."""
    index = row["correct"][0] + (0 if right else 1)
    return f"Answer: {chr(65 + index % len(row['options']))}"


# -- Broken 1: errors must not inflate accuracy ----------------------------------------------


def test_wrong_replies_relabelled_as_errors_gain_nothing(board: BoardClient) -> None:
    def honest(row: dict[str, Any], trial: int) -> str:
        return letter(row, right=trial == 0)  # right on trial 0 only: 1/3 overall

    def relabelled(row: dict[str, Any], trial: int) -> str | None:
        return letter(row, right=True) if trial == 0 else None  # every wrong reply -> "error"

    board.submit(synthetic_bundle(board.rows, answer=honest, display_name="honest"))
    answer = board.submit(synthetic_bundle(board.rows, answer=relabelled, display_name="forged"))
    assert answer.status_code == 201, answer.text
    entries = {e["display_name"]: e for e in board.client.get("/api/entries").json()["entries"]}
    assert entries["forged"]["overall"] == pytest.approx(1 / 3)
    assert entries["forged"]["overall"] == pytest.approx(entries["honest"]["overall"])
    for kind in ("EC", "ToM", "JP"):
        assert entries["forged"][kind] == pytest.approx(1 / 3)
    assert entries["forged"]["error"] == 2 * len(board.rows) and entries["honest"]["error"] == 0


def test_three_answers_and_the_rest_errors_rank_near_zero(board: BoardClient) -> None:
    answered = {q["question_id"] for q in board.rows[:3]}

    def mostly_errors(row: dict[str, Any], trial: int) -> str | None:
        return letter(row, right=True) if trial == 0 and row["question_id"] in answered else None

    sub_id = board.submit(synthetic_bundle(board.rows, answer=mostly_errors)).json()["id"]
    [entry] = board.client.get("/api/entries").json()["entries"]
    samples = len(board.rows) * 3
    assert entry["error"] == samples - 3 and entry["answered"] == 3
    # per-trial accuracies 3/12, 0, 0 -> mean 1/12
    assert entry["overall"] == pytest.approx(3 / 12 / 3)
    ranking = board.client.get("/").text
    assert f'data-value="{samples - 3}"' in ranking and ">Errors<" in ranking
    page = board.client.get(f"/submissions/{sub_id}").text
    assert f"{samples - 3} errors" in page and "counted as wrong" in page


# -- Broken 4: counts bounded before any allocation ------------------------------------------


@pytest.mark.parametrize("trials", [100_000, 10**18])
def test_hostile_trials_are_refused_cheaply(board: BoardClient, trials: int) -> None:
    bundle = synthetic_bundle(board.rows, trials=1)
    bundle["manifest"]["config"]["trials"] = trials
    body = json.dumps(seal(bundle)).encode()
    board.submit(synthetic_bundle(board.rows, display_name="warm-up"))  # first-use imports
    tracemalloc.start()
    started = time.process_time()
    answer = board.submit(body)
    cost = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert answer.status_code == 422
    assert f"trials is {trials}" in answer.json()["detail"]
    assert f"needs {12 * trials} replies, the bundle holds 12" in answer.json()["detail"]
    assert cost < 0.1, f"refusing took {cost:.3f} s of CPU"
    assert peak < 20 * 1024 * 1024, f"refusing allocated {peak / 1e6:.1f} MB"
    assert board.count(Submission) == 1


# -- robustness: malformed documents are 400, unknown ids 404 ---------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 200 + b"1" + b"}" * 200,
    ],
    ids=["beyond-the-parser", "beyond-the-limit"],
)
def test_deeply_nested_json_is_400(board: BoardClient, body: bytes) -> None:
    answer = board.submit(body)
    assert answer.status_code == 400
    assert "nests deeper than 64 levels" in answer.json()["detail"]


def test_nesting_inside_a_valid_bundle_is_400(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    deep: dict[str, Any] = {}
    for _ in range(100):
        deep = {"x": deep}
    bundle["manifest"]["config"]["extra"] = deep
    answer = board.submit(seal(bundle))
    assert answer.status_code == 400 and "nests deeper" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("literal", "named"),
    [("Infinity", "Infinity"), ("-Infinity", "-Infinity"), ("NaN", "NaN"), ("1e999", "1e999")],
)
def test_non_finite_numbers_are_400(board: BoardClient, literal: str, named: str) -> None:
    bundle = synthetic_bundle(board.rows, reported={"overall": 0.5, "by_type": {}})
    body = json.dumps(seal(bundle)).replace('"overall": 0.5', f'"overall": {literal}')
    answer = board.submit(body.encode())
    assert answer.status_code == 400
    assert named in answer.json()["detail"] and "finite" in answer.json()["detail"]
    assert board.count(Submission) == 0


def test_integers_beyond_64_bits_are_400(board: BoardClient) -> None:
    bundle = synthetic_bundle(board.rows)
    body = json.dumps(seal(bundle)).replace('"trial": 2', f'"trial": {2**63}', 1)
    answer = board.submit(body.encode())
    assert answer.status_code == 400 and "out of range" in answer.json()["detail"]


@pytest.mark.parametrize("number", [2**31, 2**63 - 1, 2**63, 10**30])
def test_ids_beyond_the_database_range_are_404(board: BoardClient, number: int) -> None:
    for path in (f"/api/submissions/{number}", f"/submissions/{number}"):
        answer = board.client.get(path)
        assert answer.status_code == 404, (path, answer.text)
        assert f"no submission with id {number}" in answer.text
    assert board.count(Sample) == 0
